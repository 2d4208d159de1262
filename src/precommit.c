/*
 * precommit.c: the check of what a public call is about to write, against
 * the rules its input passed (precommit.h): the baseline, the output's check
 * before the commit, the second run that names the pass, and the refusal's
 * line. Test builds (SCS_TEST_HOOKS) also break a run's models after the
 * pass SCS_TEST_BREAK_AFTER names; installed tools and the library have none
 * of it.
 *
 * SPDX-License-Identifier: MIT
 */
#include "precommit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_impl.h"
#include "check/check.h"
#include "model/array.h"
#include "report.h"

static _Thread_local scs_precommit *current;

void
scs_precommit_begin(scs_precommit *pre, const char *target)
{
	memset(pre, 0, sizeof(*pre));
	pre->target = target;
	pre->outer = current;
	current = pre;
}

int
scs_precommit_again(scs_precommit *pre, scs_report *rep, int rc)
{
	if (rc != SCS_ECHECK || pre->each || !pre->again)
		return 0;
	if (rep)
		scs_report_clear(rep);     /* the second run fills it again */
	/* the second run starts as the first did, looking for the rules the output failed */
	free(pre->base);
	pre->base = NULL;
	pre->n_base = 0;
	pre->mid = 0;
	pre->broken = 0;
	pre->each = 1;
	return 1;
}

int
scs_precommit_end(scs_precommit *pre, scs_report *rep, int rc)
{
	if (rep && pre->n_base)
		scs_report_stage_add(rep, "check", pre->seconds, 0);
	free(pre->base);
	pre->base = NULL;
	current = pre->outer;
	return rc;
}

/* Check @m into *f (timed into @pre). */
static int
check(scs_precommit *pre, const scs_model *m, scs_check_findings *f)
{
	scs_check_cfg cfg;
	double t0 = scs_api_now();
	int rc;

	memset(&cfg, 0, sizeof(cfg));
	memset(f, 0, sizeof(*f));
	rc = scs_check_model(m, &cfg, f);
	pre->seconds += scs_api_now() - t0;
	return rc;
}

/* The rules @m fails, into *failed. */
static int
failed_rules(scs_precommit *pre, const scs_model *m, uint32_t *failed)
{
	scs_check_findings f;
	int rc = check(pre, m, &f);

	*failed = f.failed;
	scs_check_findings_dispose(&f);
	return rc;
}

int
scs_precommit_input(scs_model *const *ms, size_t n, int pairwise)
{
	scs_precommit *pre = current;
	uint32_t bits;
	int rc;

	if (pre == NULL || n == 0)
		return SCS_OK;
	if ((pre->base = calloc(pairwise ? n : 1, sizeof(*pre->base))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate the check's baseline");
	pre->n_base = pairwise ? n : 1;
	for (size_t k = 0; k < n; k++) {
		if ((rc = failed_rules(pre, ms[k], &bits)) < 0)
			return rc;
		pre->base[pairwise ? k : 0] |= bits;
	}
	return SCS_OK;
}

/* The rules input @k (of @n outputs) failed: its own when each output has its input, else those of any. */
static uint32_t
base_of(const scs_precommit *pre, size_t k, size_t n)
{
	uint32_t bits = 0;

	if (pre->n_base == n && n > 1)
		return pre->base[k];
	for (size_t i = 0; i < pre->n_base; i++)
		bits |= pre->base[i];
	return bits;
}

int
scs_precommit_ready(scs_model *const *ms, size_t n, const char *const *labels)
{
	scs_precommit *pre = current;
	uint32_t bits;
	int rc;

	if (pre == NULL)
		return SCS_OK;
	pre->labels = labels;
	if (!pre->each)
		return SCS_OK;
	for (size_t k = 0; k < n; k++) {
		if ((rc = failed_rules(pre, ms[k], &bits)) < 0)
			return rc;
		pre->mid |= bits;
	}
	return SCS_OK;
}

/*
 * The refusal: the first problem of @f (model @k of @n) whose rule is in
 * @rules, on one line with the target, the model's label when there are
 * several and @pass (NULL: none), as SCS_ECHECK.
 */
static int
refuse(const scs_precommit *pre, const scs_check_findings *f, uint32_t rules, size_t k, size_t n, const char *pass)
{
	char line[1024] = "", at[256] = "", label[256] = "";
	size_t i = 0;

	if (n > 1 && pre->labels)
		snprintf(label, sizeof(label), "%s: ", pre->labels[k]);
	else if (n > 1)
		snprintf(label, sizeof(label), "shard %zu: ", k);
	while (i < f->n && !(rules & (1u << f->items[i].rule)))
		i++;
	if (i < f->n)
		scs_check_problem_line(&f->items[i], line, sizeof(line));
	if (pass)
		snprintf(at, sizeof(at), "after pass '%s' ", pass);
	return scs_err_set(SCS_ECHECK, "%s: not written: %s%s%s (the input passed this rule)", pre->target, label, at,
	    line[0] ? line : "a check failed");
}

#ifdef SCS_TEST_HOOKS
/* 1 when node @b reads an output of node @a. */
static int
reads(const Onnx__NodeProto *b, const Onnx__NodeProto *a)
{
	for (size_t i = 0; i < b->n_input; i++)
		for (size_t o = 0; o < a->n_output; o++)
			if (b->input[i][0] && strcmp(b->input[i], a->output[o]) == 0)
				return 1;
	return 0;
}

/* Move the first node of @g that another reads to just after its first reader (SCS_TEST_BREAK_HOW=order). */
static void
break_order(Onnx__GraphProto *g)
{
	for (size_t a = 0; a < g->n_node; a++)
		for (size_t b = a + 1; b < g->n_node; b++)
			if (reads(g->node[b], g->node[a])) {
				Onnx__NodeProto *moved = g->node[a];

				memmove(&g->node[a], &g->node[a + 1], (b - a) * sizeof(*g->node));
				g->node[b] = moved;
				return;
			}
}

/* Break @m's main graph (a test's broken pass result): a graph input listed twice, or, with none, the first
 * node made twice; with SCS_TEST_BREAK_HOW=order, a node moved after one that reads it. */
static int
break_model(scs_model *m)
{
	Onnx__GraphProto *g = m->proto->graph;
	const char *how = getenv("SCS_TEST_BREAK_HOW");
	ProtobufCMessage *copy;

	if (g == NULL || (g->n_input == 0 && g->n_node == 0))
		return SCS_OK;
	if (how && strcmp(how, "order") == 0) {
		break_order(g);
		return SCS_OK;
	}
	copy = scs_model_copy_kept(m, g->n_input ? &g->input[0]->base : &g->node[0]->base);
	if (copy == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot break the model");
	return g->n_input ? scs_array_insert(&g->input, &g->n_input, copy, 0) :
	    scs_array_insert(&g->node, &g->n_node, copy, 0);
}

/* 1 when the test's SCS_TEST_BREAK_AFTER names @pass and this run has not broken its models yet. */
static int
break_here(scs_precommit *pre, const char *pass)
{
	const char *v = getenv("SCS_TEST_BREAK_AFTER");

	return v && strcmp(v, pass) == 0 && !pre->broken;
}
#endif

int
scs_precommit_after(scs_model *const *ms, size_t n, const char *pass, int changed)
{
	scs_precommit *pre = current;
	scs_check_findings f;
	int rc, broke = 0;

	if (pre == NULL)
		return SCS_OK;
#ifdef SCS_TEST_HOOKS
	if (break_here(pre, pass)) {
		for (size_t k = 0; k < n; k++)
			if ((rc = break_model(ms[k])) < 0)
				return rc;
		pre->broken = broke = changed = 1;
	}
#endif
	if (!pre->each || !changed)
		return broke;
	for (size_t k = 0; k < n; k++) {
		uint32_t rules;

		if ((rc = check(pre, ms[k], &f)) < 0) {
			scs_check_findings_dispose(&f);
			return rc;
		}
		rules = f.failed & ~(base_of(pre, k, n) | pre->mid) & pre->wanted;
		rc = rules ? refuse(pre, &f, rules, k, n, pass) : broke;
		scs_check_findings_dispose(&f);
		if (rc < 0)
			return rc;
	}
	return broke;
}

int
scs_precommit_opt_after(void *payload, scs_model *m, const char *pass, int changed)
{
	(void)payload;
	return scs_precommit_after(&m, 1, pass, changed);
}

int
scs_precommit_output(scs_model *const *ms, size_t n)
{
	scs_precommit *pre = current;
	scs_check_findings f;
	int rc = SCS_OK;

	if (pre == NULL || pre->n_base == 0)
		return SCS_OK;
	for (size_t k = 0; rc == SCS_OK && k < n; k++) {
		uint32_t rules;

		if ((rc = check(pre, ms[k], &f)) < 0) {
			scs_check_findings_dispose(&f);
			return rc;
		}
		if ((rules = f.failed & ~base_of(pre, k, n)) != 0) {
			/* the first run does it again to find the pass; the second found none: said without one */
			pre->again = !pre->each;
			pre->wanted |= rules;
			rc = refuse(pre, &f, rules, k, n, NULL);
		}
		scs_check_findings_dispose(&f);
	}
	return rc;
}
