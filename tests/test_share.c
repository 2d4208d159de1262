/*
 * test_share.c: scs_share and scs4onnx-share, on the models of
 * tests/e2e/gen_share_models.py: several models written into one folder
 * with one data file, each weight in it once. Each output computes in ONNX
 * Runtime what its input computes, bit for bit, loads with onnx.load alone
 * and passes onnx.checker; a payload several models hold lies once in the
 * data file, at one offset that each of them names; payloads of the same
 * name and other bytes are not confused; a rerun on the outputs writes the
 * same bytes; a dry run and bad input write nothing; a run killed at any
 * step of its commit leaves the folder missing or whole.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "support.h"
#include "util/hash.h"

#define MAX_MODELS 4

/* scs_share() of fixtures @names (NULL-ended) into @out with @o (NULL: the defaults), filling @rep. */
static int
share(scs_report *rep, const char *out, const char *const *names, const scs_share_options *o)
{
	char *paths[MAX_MODELS] = { NULL };
	size_t n = 0;
	int rc;

	for (; names[n]; n++)
		paths[n] = fixture(names[n]);
	*rep = (scs_report)SCS_REPORT_INIT;
	rc = scs_share(rep, out, (const char *const *)paths, n, o);
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	return rc;
}

/* The name of the one data file in @out ("shared.<16 hex>.data"), after checking that @out holds
 * exactly the models @names and it (malloc'd). */
static char *
data_file_of(const char *out, const char *const *names)
{
	struct dirent *e;
	DIR *d = opendir(out);
	char *data = NULL;
	int n_models = 0, n_all = 0, n_names = 0;

	cr_assert_not_null(d, "%s: not made", out);
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (e->d_name[0] == '.')
			continue;
		n_all++;
		if (strncmp(e->d_name, "shared.", 7) == 0 && len == 7 + 16 + 5 && strcmp(e->d_name + len - 5, ".data") == 0) {
			cr_assert_null(data, "%s: two data files, %s and %s", out, data, e->d_name);
			data = strdup(e->d_name);
		}
		for (size_t i = 0; names[i]; i++)
			n_models += strcmp(e->d_name, names[i]) == 0;
	}
	closedir(d);
	while (names[n_names])
		n_names++;
	cr_assert_eq(n_models, n_names, "%s: holds %d of the %d models", out, n_models, n_names);
	cr_assert_eq(n_all, n_names + 1, "%s: holds %d files; the models and one data file expected", out, n_all);
	cr_assert_not_null(data, "%s: no data file", out);
	return data;
}

/* The offset in its data file of initializer @init of model @model (-1 when inline), checking it names @data. */
static long long
offset_of(const char *model, const char *init, const char *data)
{
	Onnx__ModelProto *m = load_proto(model);
	Onnx__TensorProto *t;
	long long off = -1;

	cr_assert_not_null(m, "%s does not parse", model);
	t = find_init(m->graph, init);
	cr_assert_not_null(t, "%s: no initializer %s", model, init);
	for (size_t j = 0; j < t->n_external_data; j++) {
		if (strcmp(t->external_data[j]->key, "location") == 0)
			cr_assert_str_eq(t->external_data[j]->value, data, "%s: %s lies elsewhere", model, init);
		if (strcmp(t->external_data[j]->key, "offset") == 0)
			off = atoll(t->external_data[j]->value);
	}
	if (t->n_external_data && off < 0)
		off = 0;
	free_proto(m);
	return off;
}

/* Each output of @names in @out computes what its fixture computes, passes onnx.checker, and loads
 * with onnx.load alone (every initializer's values read from the data file beside it). */
static void
expect_outputs_compute(const char *out, const char *const *names)
{
	char *text;

	for (size_t i = 0; names[i]; i++) {
		char *ref = fixture(names[i]), *got = path_in(out, names[i]);

		expect_equivalent(ref, got, NULL);
		cr_assert_eq(run(&text, "cd / && /usr/bin/python3 -c 'import sys, onnx\n"
		    "from onnx import numpy_helper\n"
		    "m = onnx.load(sys.argv[1])\n"
		    "n = sum(numpy_helper.to_array(t).size > 0 for t in m.graph.initializer)\n"
		    "onnx.checker.check_model(m)\n"
		    "print(\"loaded\", n)' '%s'", got), 0, "onnx.load %s: %s", got, text);
		cr_assert_not_null(strstr(text, "loaded"), "%s", text);
		free(text);
		free(ref);
		free(got);
	}
}

/* Every regular file under @dir with its bytes, "name size digest" a line (malloc'd; "" for a missing folder). */
static char *
listing(const char *dir)
{
	char *text;

	cr_assert_eq(run(&text, "cd '%s' 2>/dev/null && find . -type f | LC_ALL=C sort | xargs -r sha256sum || true", dir), 0);
	return text;
}

static const char *const decoders[] = { "share_dec.onnx", "share_dec_past.onnx", NULL };

Test(share, a_decoder_and_its_past_version_store_their_three_common_weights_once, .init = scratch_setup,
    .fini = scratch_teardown)
{
	scs_report rep;
	char *out = path_in(scratch_dir, "out"), *data, *dec, *past;
	uint64_t in_bytes = 0, out_bytes = 0;
	const char *const shared[] = { "wte", "w1", "w2" };

	cr_assert_eq(share(&rep, out, decoders, NULL), 0, "%s", scs_err_msg());
	data = data_file_of(out, decoders);
	dec = path_in(out, decoders[0]);
	past = path_in(out, decoders[1]);
	/* each common weight at one offset that both name; the heads apart */
	for (size_t i = 0; i < 3; i++) {
		long long a = offset_of(dec, shared[i], data), b = offset_of(past, shared[i], data);

		cr_assert_geq(a, 0, "%s inline", shared[i]);
		cr_assert_eq(a, b, "%s: at %lld in one model and %lld in the other", shared[i], a, b);
	}
	cr_assert_neq(offset_of(dec, "head", data), offset_of(past, "head", data), "two heads of other bytes confused");
	/* once each: three 16 KiB weights and two 4 KiB heads (w2b merged into w2 by dedup) */
	{
		char *dp = path_in(out, data);

		cr_assert_eq(file_size(dp), 3 * 16384 + 2 * 4096, "data file: %llu bytes",
		    (unsigned long long)file_size(dp));
		out_bytes = file_size(dp) + file_size(dec) + file_size(past);
		free(dp);
	}
	for (size_t i = 0; decoders[i]; i++) {
		char *f = fixture(decoders[i]);

		in_bytes += file_size(f);
		free(f);
	}
	cr_assert_leq(out_bytes * 100, in_bytes * 55, "%llu bytes written from %llu", (unsigned long long)out_bytes,
	    (unsigned long long)in_bytes);
	/* the report: both models, the three weights by both, the one data file */
	cr_assert_eq(rep.models.n, 2);
	cr_assert_eq(rep.shared.n, 3);
	for (size_t i = 0; i < 3; i++) {
		cr_assert_str_eq(rep.shared.items[i].name, shared[i]);
		cr_assert_str_eq(rep.shared.items[i].detail, "share_dec.onnx, share_dec_past.onnx: 16384 bytes");
	}
	cr_assert_not_null(strstr(rep.models.items[0].detail, "4096 bytes of data of its own"), "%s",
	    rep.models.items[0].detail);
	cr_assert_eq(rep.data_files.n, 1);
	cr_assert_eq(rep.n_groups, 1, "w2b merged into w2 within its model");
	cr_assert_eq(rep.output_data_len, 3 * 16384 + 2 * 4096);
	expect_outputs_compute(out, decoders);
	scs_report_dispose(&rep);
	free(data);
	free(dec);
	free(past);
	free(out);
}

Test(share, a_rerun_on_its_own_outputs_writes_the_same_bytes, .init = scratch_setup, .fini = scratch_teardown)
{
	char *out = path_in(scratch_dir, "out"), *out2 = path_in(scratch_dir, "out2"), *in[3], *text, *a, *b;

	in[0] = fixture(decoders[0]);
	in[1] = fixture(decoders[1]);
	cr_assert_eq(run_tool(&text, "scs4onnx-share", "-q '%s' '%s' '%s'", out, in[0], in[1]), 0, "%s", text);
	free(text);
	/* into an empty folder, which the set replaces */
	cr_assert_eq(mkdir(out2, 0777), 0);
	cr_assert_eq(run_tool(&text, "scs4onnx-share", "-q '%s' '%s/share_dec.onnx' '%s/share_dec_past.onnx'", out2, out,
	    out), 0, "%s", text);
	free(text);
	a = listing(out);
	b = listing(out2);
	cr_assert_str_eq(a, b, "first run:\n%s\nrerun:\n%s", a, b);
	free(a);
	free(b);
	free(in[0]);
	free(in[1]);
	free(out);
	free(out2);
}

Test(share, payloads_over_a_store_chunk_typed_and_raw_go_once_through_a_store, .init = scratch_setup,
    .fini = scratch_teardown)
{
	static const char *const names[] = { "share_big_a.onnx", "share_big_b.onnx", NULL };
	char *out = path_in(scratch_dir, "out"), *store = path_in(scratch_dir, "store"), *a = fixture(names[0]),
	    *b = fixture(names[1]), *text, *data, *dp;

	cr_assert_eq(run_tool(&text, "scs4onnx-share", "'%s' '%s' '%s' --store '%s' --json '%s/rep.json'", out, a, b, store,
	    scratch_dir), 0, "%s", text);
	cr_assert_not_null(strstr(text, "INFO: shared: wbig: share_big_a.onnx, share_big_b.onnx: 1572864 bytes"), "%s",
	    text);
	cr_assert_not_null(strstr(text, "/share_big_b.onnx: 310 bytes, 24576 bytes of data of its own\n"), "%s", text);
	free(text);
	/* the JSON report says the same */
	cr_assert_eq(run(&text, "/usr/bin/python3 -c 'import json, sys\n"
	    "r = json.load(open(sys.argv[1]))\n"
	    "print([s[\"constant\"] for s in r[\"shared\"]], len(r[\"models\"]), len(r[\"data_files\"]))' "
	    "'%s/rep.json'", scratch_dir), 0, "%s", text);
	cr_assert_str_eq(text, "['wbig'] 2 1\n");
	free(text);
	data = data_file_of(out, names);
	dp = path_in(out, data);
	/* 1.5 MiB once, and two heads of 24 KiB */
	cr_assert_eq(file_size(dp), 1572864 + 2 * 24576, "data file: %llu bytes", (unsigned long long)file_size(dp));
	expect_outputs_compute(out, names);
	free(dp);
	free(data);
	free(a);
	free(b);
	free(store);
	free(out);
}

Test(share, a_weight_inside_an_if_body_is_shared_with_another_model, .init = scratch_setup, .fini = scratch_teardown)
{
	static const char *const names[] = { "share_if_a.onnx", "share_if_b.onnx", NULL };
	scs_report rep;
	char *out = path_in(scratch_dir, "out"), *data, *dp;

	cr_assert_eq(share(&rep, out, names, NULL), 0, "%s", scs_err_msg());
	data = data_file_of(out, names);
	dp = path_in(out, data);
	cr_assert_eq(file_size(dp), 2 * 16384, "wif once and wother: %llu bytes", (unsigned long long)file_size(dp));
	cr_assert_eq(rep.shared.n, 1);
	cr_assert_str_eq(rep.shared.items[0].name, "wif");
	cr_assert_str_eq(rep.shared.items[0].detail, "share_if_a.onnx, share_if_b.onnx (as k): 16384 bytes");
	expect_outputs_compute(out, names);
	scs_report_dispose(&rep);
	free(dp);
	free(data);
	free(out);
}

Test(share, ir3_models_keep_their_initializers_among_the_inputs, .init = scratch_setup, .fini = scratch_teardown)
{
	static const char *const names[] = { "share_ir3_a.onnx", "share_ir3_b.onnx", NULL };
	scs_report rep;
	char *out = path_in(scratch_dir, "out"), *data, *path;
	Onnx__ModelProto *m;

	cr_assert_eq(share(&rep, out, names, NULL), 0, "%s", scs_err_msg());
	data = data_file_of(out, names);
	path = path_in(out, names[0]);
	m = load_proto(path);
	cr_assert_eq(m->ir_version, 3);
	cr_assert(has_input(m->graph, "wa") && has_input(m->graph, "wb"), "IR 3 lists every initializer as an input");
	cr_assert_eq(offset_of(path, "wa", data), 0);
	free_proto(m);
	cr_assert_eq(rep.shared.n, 1);
	cr_assert_eq(rep.default_inputs_rule, SCS_DEFAULTS_CONSTANT_IR3);
	expect_outputs_compute(out, names);
	scs_report_dispose(&rep);
	free(path);
	free(data);
	free(out);
}

Test(share, equal_names_with_other_contents_are_not_confused, .init = scratch_setup, .fini = scratch_teardown)
{
	static const char *const names[] = { "share_nm_a.onnx", "share_nm_b.onnx", NULL };
	scs_report rep;
	char *out = path_in(scratch_dir, "out"), *data, *a, *b;

	cr_assert_eq(share(&rep, out, names, NULL), 0, "%s", scs_err_msg());
	data = data_file_of(out, names);
	a = path_in(out, names[0]);
	b = path_in(out, names[1]);
	/* w: other bytes under one name, two places; a's w is b's u; v the same in both */
	cr_assert_neq(offset_of(a, "w", data), offset_of(b, "w", data));
	cr_assert_eq(offset_of(a, "w", data), offset_of(b, "u", data));
	cr_assert_eq(offset_of(a, "v", data), offset_of(b, "v", data));
	cr_assert_eq(rep.shared.n, 2);
	cr_assert_str_eq(rep.shared.items[0].detail, "share_nm_a.onnx, share_nm_b.onnx (as u): 16384 bytes");
	expect_outputs_compute(out, names);
	scs_report_dispose(&rep);
	free(a);
	free(b);
	free(data);
	free(out);
}

/* Every digest zero (a test hook of hash.c): payloads of one length all collide, and only the byte compare
 * tells them apart. */
Test(share, payloads_are_compared_byte_for_byte_when_their_digests_collide, .init = scratch_setup,
    .fini = scratch_teardown)
{
	static const char *const names[] = { "share_nm_a.onnx", "share_nm_b.onnx", NULL };
	scs_report rep;
	char *out = path_in(scratch_dir, "out"), *data, *a, *b, *dp;
	int rc;

	scs_hash_collide_for_tests(1);
	rc = share(&rep, out, names, NULL);
	scs_hash_collide_for_tests(0);
	cr_assert_eq(rc, 0, "%s", scs_err_msg());
	data = data_file_of(out, names);
	a = path_in(out, names[0]);
	b = path_in(out, names[1]);
	dp = path_in(out, data);
	cr_assert_neq(offset_of(a, "w", data), offset_of(b, "w", data));
	cr_assert_eq(offset_of(a, "w", data), offset_of(b, "u", data));
	cr_assert_eq(offset_of(a, "v", data), offset_of(b, "v", data));
	cr_assert_eq(file_size(dp), 3 * 16384, "w, the other w and v: %llu bytes", (unsigned long long)file_size(dp));
	expect_outputs_compute(out, names);
	scs_report_dispose(&rep);
	free(dp);
	free(a);
	free(b);
	free(data);
	free(out);
}

Test(share, three_models_share_what_any_two_of_them_hold, .init = scratch_setup, .fini = scratch_teardown)
{
	static const char *const names[] = { "share_tri_a.onnx", "share_tri_b.onnx", "share_tri_c.onnx", NULL };
	scs_report rep;
	char *out = path_in(scratch_dir, "out"), *data;

	cr_assert_eq(share(&rep, out, names, NULL), 0, "%s", scs_err_msg());
	data = data_file_of(out, names);
	cr_assert_eq(rep.shared.n, 3);
	cr_assert_str_eq(rep.shared.items[0].detail,
	    "share_tri_a.onnx, share_tri_b.onnx, share_tri_c.onnx: 16384 bytes");
	cr_assert_str_eq(rep.shared.items[1].detail, "share_tri_a.onnx, share_tri_b.onnx: 16384 bytes");
	cr_assert_str_eq(rep.shared.items[2].detail, "share_tri_b.onnx, share_tri_c.onnx: 16384 bytes");
	cr_assert_eq(rep.models.n, 3);
	expect_outputs_compute(out, names);
	scs_report_dispose(&rep);
	free(data);
	free(out);
}

Test(share, a_dry_run_reports_what_a_run_writes_and_writes_nothing, .init = scratch_setup, .fini = scratch_teardown)
{
	scs_share_options o = SCS_SHARE_OPTIONS_INIT;
	scs_report dry, real;
	char *out = path_in(scratch_dir, "out"), *before = listing(scratch_dir), *after, *text, *a, *b;

	o.dry_run = 1;
	cr_assert_eq(share(&dry, out, decoders, &o), 0, "%s", scs_err_msg());
	after = listing(scratch_dir);
	cr_assert_str_eq(after, before, "a dry run wrote:\n%s", after);
	cr_assert(!file_exists(out));
	/* the tool's --dry-run: the same */
	a = fixture(decoders[0]);
	b = fixture(decoders[1]);
	cr_assert_eq(run_tool(&text, "scs4onnx-share", "--dry-run '%s' '%s' '%s'", out, a, b), 0, "%s", text);
	cr_assert_not_null(strstr(text, "INFO: shared: wte"), "%s", text);
	cr_assert_not_null(strstr(text, "INFO: dry run: nothing was written"), "%s", text);
	free(text);
	cr_assert(!file_exists(out));
	cr_assert_eq(share(&real, out, decoders, NULL), 0, "%s", scs_err_msg());
	cr_assert_eq(dry.output_len, real.output_len);
	cr_assert_eq(dry.output_data_len, real.output_data_len);
	cr_assert_eq(dry.models.n, real.models.n);
	for (size_t i = 0; i < real.models.n; i++)
		cr_assert_str_eq(dry.models.items[i].detail, real.models.items[i].detail);
	cr_assert_str_eq(dry.data_files.items[0].name, real.data_files.items[0].name);
	scs_report_dispose(&dry);
	scs_report_dispose(&real);
	free(a);
	free(b);
	free(before);
	free(after);
	free(out);
}

/* The tool on @args fails with one line naming @what, and the scratch folder is as it was. */
static void
expect_refused(const char *args, const char *what)
{
	char *before = listing(scratch_dir), *after, *text;
	int rc = run_tool(&text, "scs4onnx-share", "%s", args);

	cr_assert_eq(rc, 1, "%s: exit %d: %s", args, rc, text);
	cr_assert_eq(strchr(text, '\n'), text + strlen(text) - 1, "%s: not one line: %s", args, text);
	cr_assert_not_null(strstr(text, what), "%s: %s", args, text);
	after = listing(scratch_dir);
	cr_assert_str_eq(after, before, "%s: the folder changed:\n%s", args, after);
	free(text);
	free(before);
	free(after);
}

Test(share, bad_input_is_one_line_and_creates_nothing, .init = scratch_setup, .fini = scratch_teardown)
{
	char args[8192], *a = fixture(decoders[0]), *b = fixture(decoders[1]), *corrupt = path_in(scratch_dir, "bad.onnx"),
	    *full = path_in(scratch_dir, "full"), *file = path_in(scratch_dir, "afile"), *other = path_in(scratch_dir, "o");
	static const uint8_t junk[] = { 0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01, 0x02 };

	write_all(corrupt, junk, sizeof(junk));
	cr_assert_eq(mkdir(full, 0777), 0);
	cr_assert_eq(mkdir(other, 0777), 0);
	{
		char *keep = path_in(full, "keep.txt");

		write_all(keep, "x", 1);
		free(keep);
	}
	write_all(file, "x", 1);
	snprintf(args, sizeof(args), "'%s/out' '%s' '%s/missing.onnx'", scratch_dir, a, scratch_dir);
	expect_refused(args, "missing.onnx");
	snprintf(args, sizeof(args), "'%s/out' '%s' '%s'", scratch_dir, a, corrupt);
	expect_refused(args, "bad.onnx");
	snprintf(args, sizeof(args), "'%s' '%s' '%s'", full, a, b);
	expect_refused(args, "not empty");
	snprintf(args, sizeof(args), "'%s' '%s' '%s'", file, a, b);
	expect_refused(args, "not a folder");
	/* two models of one file name, refused before anything is read */
	snprintf(args, sizeof(args), "'%s/out' '%s' '%s/share_dec.onnx'", scratch_dir, a, other);
	expect_refused(args, "same file name");
	free(a);
	free(b);
	free(corrupt);
	free(full);
	free(file);
	free(other);
}

/*
 * The hooked tool (tests/meson.build) killed before each step of its commit
 * in turn (the tool, the process that names the files, or both, in a
 * session of their own): the parent of OUTDIR then holds OUTDIR whole (as
 * an unkilled run writes it) or nothing, and no temporary beside it (when
 * both died, at most the commit's hidden folder, which a rerun removes).
 */
Test(share, killed_at_any_step_of_its_commit_it_leaves_the_folder_missing_or_whole, .init = scratch_setup,
    .fini = scratch_teardown)
{
	static const char *const vars[] = { "SCS_TEST_KILL_AT", "SCS_TEST_KILL_COMMITTER_AT", "SCS_TEST_KILL_GROUP_AT" };
	char *parent = path_in(scratch_dir, "p"), *out = path_in(parent, "out"), *ref = path_in(scratch_dir, "ref"),
	    *a = fixture(decoders[0]), *b = fixture(decoders[1]), *text, *want, *got, *top;
	unsigned whole = 0, missing = 0;

	cr_assert_eq(run_tool(&text, "scs4onnx-share", "-q '%s' '%s' '%s'", ref, a, b), 0, "%s", text);
	free(text);
	want = listing(ref);
	for (size_t v = 0; v < 3; v++) {
		unsigned step;

		for (step = 1; step < 100; step++) {
			cr_assert_eq(run(NULL, "rm -rf '%s' && mkdir '%s'", parent, parent), 0);
			run(&text, "%s=%u setsid -w '%s/hooked-scs4onnx-share' -q '%s' '%s' '%s'", vars[v], step,
			    SCS_HOOKED_TOOLS_DIR, out, a, b);
			got = listing(out);
			cr_assert(strcmp(got, want) == 0 || !file_exists(out), "%s=%u: OUTDIR neither whole nor missing:\n%s",
			    vars[v], step, got);
			whole += file_exists(out);
			missing += !file_exists(out);
			/* both killed: at most a hidden folder of the commit, which the next run into OUTDIR removes */
			cr_assert_eq(run(&top, "ls -A '%s' | grep -v '^out$' %s || true", parent,
			    v == 2 ? "| grep -v '^[.]out[.].*[.]scs-dir$'" : ""), 0);
			cr_assert_str_eq(top, "", "%s=%u: left beside OUTDIR: %s", vars[v], step, top);
			free(top);
			if (v == 2 && !file_exists(out)) {
				cr_assert_eq(run_tool(&top, "scs4onnx-share", "-q '%s' '%s' '%s'", out, a, b), 0, "%s", top);
				free(top);
				cr_assert_eq(run(&top, "ls -A '%s'", parent), 0);
				cr_assert_str_eq(top, "out\n", "%s=%u: the rerun left: %s", vars[v], step, top);
				free(top);
				free(got);
				got = listing(out);
				cr_assert_str_eq(got, want, "%s=%u: the rerun wrote:\n%s", vars[v], step, got);
			}
			free(got);
			if (!strstr(text, "test hook")) {
				free(text);
				break;
			}
			free(text);
		}
		cr_assert_gt(step, 2, "%s: only %u steps", vars[v], step - 1);
	}
	cr_assert_gt(whole, 0);
	fprintf(stderr, "share: killed at each commit step: OUTDIR whole %u times, missing %u\n", whole, missing);
	free(want);
	free(a);
	free(b);
	free(ref);
	free(out);
	free(parent);
}

/* The command line: bad usage is exit 2 with a hint; a --json inside OUTDIR or over an input is refused before
 * any work. */
Test(share, its_command_line_is_checked_before_any_work, .init = scratch_setup, .fini = scratch_teardown)
{
	char *a = fixture(decoders[0]), *text, *before = listing(scratch_dir), *after;

	cr_assert_eq(run_tool(&text, "scs4onnx-share", "'%s/out'", scratch_dir), 2, "%s", text);
	cr_assert_str_eq(text, "scs4onnx-share: needs OUTDIR and at least one model; only OUTDIR was given\n"
	    "Try 'scs4onnx-share --help' for more information.\n");
	free(text);
	cr_assert_eq(run_tool(&text, "scs4onnx-share", "'%s/out' '%s' --frobnicate", scratch_dir, a), 2, "%s", text);
	free(text);
	cr_assert_eq(run_tool(&text, "scs4onnx-share", "'%s/out' '%s' --max-data-file-size lots", scratch_dir, a), 2, "%s",
	    text);
	free(text);
	cr_assert_eq(run_tool(&text, "scs4onnx-share", "'%s/out' '%s' --json '%s/out/r.json'", scratch_dir, a, scratch_dir),
	    1, "%s", text);
	cr_assert_not_null(strstr(text, "is inside the output folder"), "%s", text);
	free(text);
	cr_assert_eq(run_tool(&text, "scs4onnx-share", "'%s/out' '%s' --json '%s'", scratch_dir, a, a), 1, "%s", text);
	cr_assert_not_null(strstr(text, "names the input"), "%s", text);
	free(text);
	after = listing(scratch_dir);
	cr_assert_str_eq(after, before);
	free(after);
	free(before);
	free(a);
}

/* --optimize: the optimizer's default passes on each model first; the outputs still compute their inputs and
 * share what they hold in common. */
Test(share, with_the_optimizer_first_each_output_still_computes_its_input, .init = scratch_setup,
    .fini = scratch_teardown)
{
	static const char *const names[] = { "share_dec.onnx", "share_dec_past.onnx", "share_if_b.onnx", NULL };
	scs_share_options o = SCS_SHARE_OPTIONS_INIT;
	scs_report rep;
	char *out = path_in(scratch_dir, "out"), *data;

	o.optimize = 1;
	cr_assert_eq(share(&rep, out, names, &o), 0, "%s", scs_err_msg());
	cr_assert(rep.optimized);
	data = data_file_of(out, names);
	cr_assert_eq(rep.shared.n, 3, "wte, w1 and w2 by both decoders");
	expect_outputs_compute(out, names);
	scs_report_dispose(&rep);
	free(data);
	free(out);
}

/* --max-data-file-size: the shared data in numbered files, none over the
 * maximum (but one that holds a longer payload alone), every model pointing
 * into them, each weight still once */
Test(share, the_shared_data_goes_into_numbered_files_of_at_most_the_size_asked, .init = scratch_setup,
    .fini = scratch_teardown)
{
	scs_share_options o = SCS_SHARE_OPTIONS_INIT;
	scs_report rep;
	char *out = path_in(scratch_dir, "out"), *text;
	uint64_t total = 0;

	o.max_data_file_size = 20480;
	cr_assert_eq(share(&rep, out, decoders, &o), 0, "%s", scs_err_msg());
	/* three 16 KiB weights and two 4 KiB heads, 4096-aligned: no two weights fit in 20 KiB */
	cr_assert_geq(rep.data_files.n, 3, "%zu data files", rep.data_files.n);
	for (size_t i = 0; i < rep.data_files.n; i++) {
		char want[64];
		const char *base = strrchr(rep.data_files.items[i].name, '/') + 1;

		snprintf(want, sizeof(want), "-%05zu-of-%05zu.data", i + 1, rep.data_files.n);
		cr_assert(strncmp(base, "shared.", 7) == 0 && strlen(base) > strlen(want) &&
		    strcmp(base + strlen(base) - strlen(want), want) == 0, "data file %zu named %s", i, base);
		cr_assert_leq(file_size(rep.data_files.items[i].name), 20480, "%s: %llu bytes", base,
		    (unsigned long long)file_size(rep.data_files.items[i].name));
		total += file_size(rep.data_files.items[i].name);
	}
	cr_assert_eq(rep.output_data_len, total);
	cr_assert_geq(total, 3 * 16384 + 2 * 4096, "%llu data bytes", (unsigned long long)total);
	for (size_t i = 0; decoders[i]; i++) {
		char *got = path_in(out, decoders[i]);

		cr_assert_eq(run(&text, "/usr/bin/python3 '%s/tests/e2e/check_datafiles.py' '%s' any --max 20480",
		    SCS_TEST_SRC_DIR, got), 0, "%s", text);
		free(text);
		free(got);
	}
	expect_outputs_compute(out, decoders);
	/* one place per weight in the whole set: the count of distinct (file, offset) pairs both models name */
	cr_assert_eq(run(&text, "cd '%s' && /usr/bin/python3 -c 'import onnx, sys\n"
	    "places = set()\n"
	    "for f in sys.argv[1:]:\n"
	    "    for t in onnx.load(f, load_external_data=False).graph.initializer:\n"
	    "        d = {e.key: e.value for e in t.external_data}\n"
	    "        if d: places.add((d[\"location\"], d[\"offset\"]))\n"
	    "print(\"places\", len(places))' %s %s", out, decoders[0], decoders[1]), 0, "%s", text);
	cr_assert_not_null(strstr(text, "places 5"), "%s", text);
	free(text);
	scs_report_dispose(&rep);
	free(out);
}

/* A weight one model holds transposed (tr_pair_a: MatMul of wte_T [12, 50]) and another as it is
 * (tr_pair_b: Gather of wte [50, 12]): stored once, the first model's MatMul reading it through
 * Gemm(transB=1); both compute what they computed, at levels disabled and all. */
Test(share, a_weight_one_model_holds_transposed_is_stored_once, .init = scratch_setup, .fini = scratch_teardown)
{
	static const char *const pair[] = { "tr_pair_a.onnx", "tr_pair_b.onnx", NULL };
	scs_share_options o = SCS_SHARE_OPTIONS_INIT;
	scs_report rep;
	char *out = path_in(scratch_dir, "out"), *text;

	cr_assert_eq(share(&rep, out, pair, NULL), 0, "%s", scs_err_msg());
	cr_assert_eq(rep.transposed.n, 1, "%zu transposed copies", rep.transposed.n);
	cr_assert_str_eq(rep.transposed.items[0].name, "wte_T");
	cr_assert_eq(rep.bytes_transposed, 2400);
	cr_assert_eq(rep.data_files.n, 1);
	cr_assert_eq(rep.output_data_len, 2400, "one copy in the data file: %llu bytes",
	    (unsigned long long)rep.output_data_len);
	expect_outputs_compute(out, pair);
	for (size_t i = 0; pair[i]; i++) {
		char *ref = fixture(pair[i]), *got = path_in(out, pair[i]);

		cr_assert_eq(ort_same(&text, ref, got, "--graph-opt disabled"), 0, "%s at disabled: %s", pair[i], text);
		free(text);
		free(ref);
		free(got);
	}
	scs_report_dispose(&rep);
	/* --keep-transposed: both copies stay */
	run(NULL, "rm -rf '%s'", out);
	o.keep_transposed = 1;
	cr_assert_eq(share(&rep, out, pair, &o), 0, "%s", scs_err_msg());
	cr_assert_eq(rep.transposed.n, 0);
	cr_assert_eq(rep.output_data_len, 4096 + 2400, "%llu", (unsigned long long)rep.output_data_len);
	scs_report_dispose(&rep);
	free(out);
}
