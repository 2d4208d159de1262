/*
 * abi.c: the public calls as a program built against any header of this
 * soname makes them (scs4onnx.h, "Versions of the structs"). Every struct
 * starts with its version; this file knows how many bytes each version of
 * each struct has. It brings a caller's options to this header's struct
 * (the fields an older one lacks are zero: their defaults), runs the call
 * (api.c) on a report of this header's, and hands back as much of that
 * report as the caller's holds, freeing the rest. A version of 0 or newer
 * than this header's is refused before anything is read or written.
 *
 * Adding a field to a public struct (at its end; 0 must be its default):
 *   1. raise the struct's _VERSION in the public header;
 *   2. here, in its table of ends, the entry of the old version becomes
 *      END(type, its last field) and sizeof(type) is appended for the new
 *      one (the static assertions below fail until the table has an entry
 *      for each version; the abi suite checks the entries).
 * Nothing else: a program built against the old header keeps working.
 *
 * SPDX-License-Identifier: MIT
 */
#include "scs4onnx.h"

#include <stddef.h>
#include <string.h>

#define END(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))
#define N_ENDS(ends) (sizeof(ends) / sizeof(*(ends)))

/* [v]: the bytes version v of a struct has (the end of its last field);
 * [0] is no version. */
static const size_t shrink_ends[] = { 0, END(scs_shrink_options, write_shapes), END(scs_shrink_options, fold_qdq),
	sizeof(scs_shrink_options) };
static const size_t split_ends[] = { 0, sizeof(scs_split_options) };
static const size_t merge_ends[] = { 0, END(scs_merge_options, progress_payload), sizeof(scs_merge_options) };
static const size_t big_ends[] = { 0, sizeof(scs_big_options) };
static const size_t optimize_ends[] = { 0, END(scs_optimize_options, write_shapes), END(scs_optimize_options, fold_qdq),
	sizeof(scs_optimize_options) };
static const size_t share_ends[] = { 0, sizeof(scs_share_options) };
static const size_t inspect_ends[] = { 0, sizeof(scs_inspect_options) };
static const size_t report_ends[] = { 0, END(scs_report, io_start_copied), END(scs_report, default_inputs_rule),
	END(scs_report, n_pass_list), sizeof(scs_report) };

#define ENDS_FOR(ends, version) \
	_Static_assert(N_ENDS(ends) == (version) + 1, #ends ": one entry for each version (abi.c, top comment)")
ENDS_FOR(shrink_ends, SCS_SHRINK_OPTIONS_VERSION);
ENDS_FOR(split_ends, SCS_SPLIT_OPTIONS_VERSION);
ENDS_FOR(merge_ends, SCS_MERGE_OPTIONS_VERSION);
ENDS_FOR(big_ends, SCS_BIG_OPTIONS_VERSION);
ENDS_FOR(optimize_ends, SCS_OPTIMIZE_OPTIONS_VERSION);
ENDS_FOR(share_ends, SCS_SHARE_OPTIONS_VERSION);
ENDS_FOR(inspect_ends, SCS_INSPECT_OPTIONS_VERSION);
ENDS_FOR(report_ends, SCS_REPORT_VERSION);

typedef struct abi_struct {
	const char *name;         /* the C type */
	const char *init;         /* its _INIT macro */
	const size_t *ends;
	unsigned version;         /* this header's */
} abi_struct;

static const abi_struct abi_structs[] = {
	{ "scs_shrink_options", "SCS_SHRINK_OPTIONS_INIT", shrink_ends, SCS_SHRINK_OPTIONS_VERSION },
	{ "scs_split_options", "SCS_SPLIT_OPTIONS_INIT", split_ends, SCS_SPLIT_OPTIONS_VERSION },
	{ "scs_merge_options", "SCS_MERGE_OPTIONS_INIT", merge_ends, SCS_MERGE_OPTIONS_VERSION },
	{ "scs_big_options", "SCS_BIG_OPTIONS_INIT", big_ends, SCS_BIG_OPTIONS_VERSION },
	{ "scs_optimize_options", "SCS_OPTIMIZE_OPTIONS_INIT", optimize_ends, SCS_OPTIMIZE_OPTIONS_VERSION },
	{ "scs_report", "SCS_REPORT_INIT", report_ends, SCS_REPORT_VERSION },
	{ "scs_share_options", "SCS_SHARE_OPTIONS_INIT", share_ends, SCS_SHARE_OPTIONS_VERSION },
	{ "scs_inspect_options", "SCS_INSPECT_OPTIONS_INIT", inspect_ends, SCS_INSPECT_OPTIONS_VERSION },
};
enum { ABI_SHRINK, ABI_SPLIT, ABI_MERGE, ABI_BIG, ABI_OPTIMIZE, ABI_REPORT, ABI_SHARE, ABI_INSPECT };

const size_t *
scs_abi_ends(const char *type, unsigned *version)
{
	for (size_t i = 0; i < N_ENDS(abi_structs); i++) {
		if (strcmp(abi_structs[i].name, type) == 0) {
			*version = abi_structs[i].version;
			return abi_structs[i].ends;
		}
	}
	return NULL;
}

/* SCS_EUSAGE unless @v is a version of struct @s this library knows. */
static int
check_version(const char *call, int s, unsigned v)
{
	const abi_struct *a = &abi_structs[s];

	if (v == 0)
		return scs_err_set(SCS_EUSAGE, "%s: %s of version 0: declare it with %s", call, a->name, a->init);
	if (v > a->version)
		return scs_err_set(SCS_EUSAGE, "%s: %s of version %u, newer than this library's %u (scs4onnx %s): "
		    "the program was built against a newer scs4onnx.h", call, a->name, v, a->version, SCS_VERSION);
	return SCS_OK;
}

/* @given (NULL: the defaults) as this header's struct @s, in @full (@len bytes). */
static int
take_options(void *full, size_t len, const void *given, const char *call, int s)
{
	unsigned v = abi_structs[s].version;
	int rc;

	memset(full, 0, len);
	if (given) {
		memcpy(&v, given, sizeof(v));
		if ((rc = check_version(call, s, v)) < 0)
			return rc;
		memcpy(full, given, abi_structs[s].ends[v]);
	}
	v = abi_structs[s].version;
	memcpy(full, &v, sizeof(v));
	return SCS_OK;
}

/* The report a call fills in for @rep: @rep itself when it is of this
 * header's version, else @own (handed back by give_report()). */
static int
take_report(scs_report *rep, scs_report *own, scs_report **work, const char *call)
{
	int rc;

	if ((rc = check_version(call, ABI_REPORT, rep->version)) < 0)
		return rc;
	*work = rep->version == SCS_REPORT_VERSION ? rep : own;
	return SCS_OK;
}

/* @work's bytes that @rep's version has, into @rep; the rest freed. */
static void
give_report(scs_report *rep, scs_report *work)
{
	unsigned v = rep->version;
	size_t end = report_ends[v];

	if (work == rep)
		return;
	memcpy(rep, work, end);
	rep->version = v;
	memset(work, 0, end);     /* what @rep now owns */
	scs_report_clear(work);
}

int
scs_shrink(scs_report *rep, const char *in, const char *out, const scs_shrink_options *opts)
{
	scs_shrink_options o;
	scs_report own, *work;
	int rc;

	if ((rc = take_report(rep, &own, &work, "scs_shrink")) < 0 ||
	    (rc = take_options(&o, sizeof(o), opts, "scs_shrink", ABI_SHRINK)) < 0)
		return rc;
	rc = scs_api_shrink(work, in, out, &o);
	give_report(rep, work);
	return rc;
}

int
scs_split(scs_report *rep, const char *in, const char *dir, const scs_split_options *opts)
{
	scs_split_options o;
	scs_report own, *work;
	int rc;

	if ((rc = take_report(rep, &own, &work, "scs_split")) < 0 ||
	    (rc = take_options(&o, sizeof(o), opts, "scs_split", ABI_SPLIT)) < 0)
		return rc;
	rc = scs_api_split(work, in, dir, &o);
	give_report(rep, work);
	return rc;
}

int
scs_merge(scs_report *rep, const char *dir, const char *out, const scs_merge_options *opts)
{
	scs_merge_options o;
	scs_report own, *work;
	int rc;

	if ((rc = take_report(rep, &own, &work, "scs_merge")) < 0 ||
	    (rc = take_options(&o, sizeof(o), opts, "scs_merge", ABI_MERGE)) < 0)
		return rc;
	rc = scs_api_merge(work, dir, out, &o);
	give_report(rep, work);
	return rc;
}

int
scs_big(scs_report *rep, const char *in, const char *out, const scs_big_options *opts)
{
	scs_big_options o;
	scs_shrink_options so;
	scs_report own, *work;
	int rc;

	if ((rc = take_report(rep, &own, &work, "scs_big")) < 0 ||
	    (rc = take_options(&o, sizeof(o), opts, "scs_big", ABI_BIG)) < 0 ||
	    (rc = take_options(&so, sizeof(so), o.shrink, "scs_big", ABI_SHRINK)) < 0)
		return rc;
	o.shrink = &so;
	rc = scs_api_big(work, in, out, &o);
	give_report(rep, work);
	return rc;
}

int
scs_optimize(scs_report *rep, const char *in, const char *out, const scs_optimize_options *opts)
{
	scs_optimize_options o;
	scs_report own, *work;
	int rc;

	if ((rc = take_report(rep, &own, &work, "scs_optimize")) < 0 ||
	    (rc = take_options(&o, sizeof(o), opts, "scs_optimize", ABI_OPTIMIZE)) < 0)
		return rc;
	rc = scs_api_optimize(work, in, out, &o);
	give_report(rep, work);
	return rc;
}

int
scs_share(scs_report *rep, const char *out_dir, const char *const *models, size_t n_models,
    const scs_share_options *opts)
{
	scs_share_options o;
	scs_report own, *work;
	int rc;

	if ((rc = take_report(rep, &own, &work, "scs_share")) < 0 ||
	    (rc = take_options(&o, sizeof(o), opts, "scs_share", ABI_SHARE)) < 0)
		return rc;
	rc = scs_api_share(work, out_dir, models, n_models, &o);
	give_report(rep, work);
	return rc;
}

int
scs_inspect(scs_inspect_result **out, const char *in, const scs_inspect_options *opts)
{
	scs_inspect_options o;
	int rc;

	*out = NULL;
	if ((rc = take_options(&o, sizeof(o), opts, "scs_inspect", ABI_INSPECT)) < 0)
		return rc;
	return scs_api_inspect(out, in, &o);
}

/* @r as a report of this header's version: @r itself, or its bytes in
 * @own; NULL when @r's version is 0 or newer. */
static const scs_report *
report_view(const scs_report *r, scs_report *own)
{
	unsigned v = r ? r->version : 0;

	if (v == SCS_REPORT_VERSION)
		return r;
	if (v == 0 || v > SCS_REPORT_VERSION)
		return NULL;
	memset(own, 0, sizeof(*own));
	memcpy(own, r, report_ends[v]);
	return own;
}

void
scs_report_dispose(scs_report *r)
{
	scs_report own;
	const scs_report *view = report_view(r, &own);
	unsigned v;

	if (view == NULL)
		return;
	v = r->version;
	if (view == r) {
		scs_report_clear(r);
	} else {
		scs_report_clear(&own);
		memset(r, 0, report_ends[v]);
	}
	r->version = v;
}

void
scs_report_print(const scs_report *r, FILE *f)
{
	scs_report own;
	const scs_report *view = report_view(r, &own);

	if (view)
		scs_report_put_text(view, f);
}

int
scs_report_write_json(const scs_report *r, FILE *f)
{
	scs_report own;
	const scs_report *view = report_view(r, &own);

	if (view == NULL)
		return check_version("scs_report_write_json", ABI_REPORT, r ? r->version : 0);
	return scs_report_put_json(view, f);
}
