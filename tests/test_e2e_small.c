/*
 * test_e2e_small.c: scs4onnx-shrink on models of many small constants, of
 * payloads that cross the scan's window, and of large copies: the outputs
 * keep every byte (read back with protobuf-c, run in ONNX Runtime), and the
 * bytes the run reads are reported and stay near the floor. The models come
 * from tests/e2e/gen_small_models.py.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "onnx.pb-c.h"
#include "support.h"

/* @name's tensor in @g holds exactly the bytes of @name's tensor in @ref. */
static void
expect_same_bytes(const Onnx__GraphProto *ref, const Onnx__GraphProto *g, const char *name)
{
	Onnx__TensorProto *a = find_init(ref, name), *b = find_init(g, name);

	cr_assert_not_null(a, "%s is not in the input", name);
	cr_assert_not_null(b, "%s is not in the output", name);
	cr_assert_eq(a->raw_data.len, b->raw_data.len, "%s: %zu bytes, was %zu", name, b->raw_data.len, a->raw_data.len);
	cr_assert(memcmp(a->raw_data.data, b->raw_data.data, a->raw_data.len) == 0, "%s: other bytes", name);
}

/* Shrink @in into @dir/out.onnx with a JSON report; the report's text. */
static char *
shrink_with_report(const char *dir, const char *in)
{
	char *out = path_in(dir, "out.onnx"), *json = path_in(dir, "r.json"), *text, *report;
	size_t len;

	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s' -n --json '%s'", in, out, json), 0, "%s", text);
	free(text);
	report = (char *)read_all(json, &len);
	cr_assert_not_null(report);
	free(out);
	free(json);
	return report;
}

/* names by value: parameters cross into the test's own process */
typedef struct model_name {
	char name[32];
} model_name;

ParameterizedTestParameters(e2e, many_small_constants_lose_their_copies_only)
{
	static model_name names[] = { { "many_small.onnx" }, { "many_small_ext.onnx" } };

	return cr_make_param_array(model_name, names, sizeof(names) / sizeof(names[0]));
}

/* 6,000 distinct constants, 500 copies (Dj of S(7j)) and 200 near-copies
 * (Nk: S(11k) but for the last byte), inline or in one external file. */
ParameterizedTest(model_name *p, e2e, many_small_constants_lose_their_copies_only)
{
	char *dir = tmpdir_new(), *in = fixture(p->name), *out = path_in(dir, "out.onnx"),
	     *inline_in = fixture("many_small.onnx"), *report, name[32], quoted[40], canonical[32];
	Onnx__ModelProto *ref, *got;
	Onnx__NodeProto *n;

	report = shrink_with_report(dir, in);
	cr_assert_eq(json_number(report, "constants"), 6700, "%s", report);
	cr_assert_eq(json_number(report, "constant_bytes_before") - json_number(report, "constant_bytes_after"), 500 * 16,
	    "%s", report);
	/* inline input: the names from the file, not from the tool */
	ref = load_proto(inline_in);
	got = load_proto(out);
	cr_assert_not_null(ref);
	cr_assert_not_null(got);
	cr_assert_eq(got->graph->n_initializer, 6200, "initializers: %zu", got->graph->n_initializer);
	cr_assert_eq(got->graph->n_node, 6700, "nodes: %zu", got->graph->n_node);
	for (int i = 0; i < 6000; i++) {
		snprintf(name, sizeof(name), "S%d", i);
		expect_same_bytes(ref->graph, got->graph, name);
	}
	for (int k = 0; k < 200; k++) {
		snprintf(name, sizeof(name), "N%d", k);
		expect_same_bytes(ref->graph, got->graph, name);
	}
	for (int j = 0; j < 500; j++) {
		snprintf(name, sizeof(name), "D%d", j);
		snprintf(canonical, sizeof(canonical), "S%d", 7 * j);
		cr_assert_null(find_init(got->graph, name), "%s was kept", name);
		cr_assert(!uses(got->graph, name), "%s is still read", name);
		snprintf(quoted, sizeof(quoted), "\"%s\"", name);
		cr_assert_not_null(strstr(report, quoted), "%s is not in the report", name);
		/* the node that read the copy reads its first occurrence now */
		for (size_t i = 0; i < ref->graph->n_node; i++) {
			if (strcmp(ref->graph->node[i]->input[1], name) != 0)
				continue;
			n = find_node_by_output(got->graph, ref->graph->node[i]->output[0]);
			cr_assert_not_null(n);
			cr_assert_str_eq(n->input[1], canonical, "%s reads %s", n->name, n->input[1]);
		}
	}
	free_proto(ref);
	free_proto(got);
	free(report);
	expect_equivalent(in, out, NULL);
	free(inline_in);
	free(in);
	free(out);
	tmpdir_remove(dir);
}

/* Payloads from 4 bytes to 68 KB laid end to end, one across the end of the
 * scan's first 1 MiB window (the generator checks it), many across 64 KiB
 * lines; copies Ci of some of each length merge, near-copies Mi do not. */
Test(e2e, payloads_across_the_scan_window_keep_every_byte)
{
	char *dir = tmpdir_new(), *in = fixture("straddle.onnx"), *out = path_in(dir, "out.onnx"), *report, name[32];
	Onnx__ModelProto *ref, *got;
	size_t n_c = 0;

	report = shrink_with_report(dir, in);
	ref = load_proto(in);
	got = load_proto(out);
	cr_assert_not_null(ref);
	cr_assert_not_null(got);
	for (size_t i = 0; i < ref->graph->n_initializer; i++) {
		const char *t = ref->graph->initializer[i]->name;

		if (t[0] == 'C') {
			/* the copy or the original went, and the other is there with the same bytes */
			snprintf(name, sizeof(name), "W%s", t + 1);
			cr_assert((find_init(got->graph, t) == NULL) != (find_init(got->graph, name) == NULL),
			    "%s and %s: not one of them kept", t, name);
			expect_same_bytes(ref->graph, got->graph, find_init(got->graph, t) ? t : name);
			n_c++;
		} else if (t[0] == 'M' || find_init(got->graph, t)) {
			expect_same_bytes(ref->graph, got->graph, t);
		}
	}
	cr_assert_eq(n_c, 48, "copies: %zu", n_c);
	cr_assert_eq(got->graph->n_initializer, ref->graph->n_initializer - 48, "initializers: %zu of %zu",
	    got->graph->n_initializer, ref->graph->n_initializer);
	free_proto(ref);
	free_proto(got);
	free(report);
	expect_equivalent(in, out, NULL);
	free(in);
	free(out);
	tmpdir_remove(dir);
}

/* The kernel's count of the bytes the tool read (scripts/measure.py reads
 * /proc/PID/io when the tool has ended). */
static unsigned long long
rchar_of_shrink(const char *in, const char *out, const char *json, int hooked)
{
	char *text, *at;
	unsigned long long rchar;

	cr_assert_eq(run(&text, "/usr/bin/python3 '%s/scripts/measure.py' '%s/%sscs4onnx-shrink' '%s' '%s' -n --json '%s'",
	    SCS_TEST_SRC_DIR, hooked ? SCS_HOOKED_TOOLS_DIR : SCS_TOOLS_DIR, hooked ? "hooked-" : "", in, out, json), 0,
	    "%s", text);
	at = strstr(text, " rchar=");
	cr_assert_not_null(at, "%s", text);
	rchar = strtoull(at + strlen(" rchar="), NULL, 10);
	cr_assert_gt(rchar, 0, "%s", text);
	free(text);
	return rchar;
}

/* A model with no copies is read whole: the report says at least its size,
 * and no more than the kernel counted for the whole process. */
Test(e2e, json_reports_the_bytes_read)
{
	char *dir = tmpdir_new(), *in = fixture("many_distinct.onnx"), *out = path_in(dir, "out.onnx"),
	     *json = path_in(dir, "r.json"), *report;
	unsigned long long rchar, read, written;
	size_t len;

	rchar = rchar_of_shrink(in, out, json, 0);
	report = (char *)read_all(json, &len);
	cr_assert_not_null(report);
	read = json_number(report, "bytes_read");
	written = json_number(report, "bytes_written");
	cr_assert_geq(read, file_size(in), "bytes_read %llu of a %llu-byte input", read,
	    (unsigned long long)file_size(in));
	cr_assert_leq(read, rchar, "bytes_read %llu, but the process read %llu", read, rchar);
	cr_assert_geq(written, file_size(out), "bytes_written %llu of a %llu-byte output", written,
	    (unsigned long long)file_size(out));
	cr_assert_eq(json_number(report, "bytes_compared_mapped"), 0, "%s", report);
	cr_assert_leq(json_number(report, "bytes_kernel_copied"), read, "%s", report);
	free(report);
	free(json);
	free(in);
	free(out);
	tmpdir_remove(dir);
}

/* Four 512 KiB constants and three copies of each: the input is read once,
 * the kept copies are written (the kernel counts their copy as read too),
 * and the copies are confirmed from mapped pages, not read again. @stepped:
 * the output drops its pages behind it every 64 KiB, with a buffer of 64
 * KiB (test builds: sink.c's hooks), so the kernel's copies go in many
 * steps. */
static void
large_copies_read_once(int stepped)
{
	char *dir = tmpdir_new(), *in = fixture("big_dups.onnx"), *out = path_in(dir, "out.onnx"),
	     *json = path_in(dir, "r.json"), *report;
	unsigned long long rchar, size = file_size(in), copied;
	size_t len;

	if (stepped) {
		setenv("SCS_TEST_WRITEBACK_STEP", "65536", 1);
		setenv("SCS_TEST_SINK_BUF", "65536", 1);
	}
	rchar = rchar_of_shrink(in, out, json, stepped);    /* the hooks are the hooked tool's */
	unsetenv("SCS_TEST_WRITEBACK_STEP");
	unsetenv("SCS_TEST_SINK_BUF");
	report = (char *)read_all(json, &len);
	cr_assert_not_null(report);
	cr_assert_eq(file_size(out) < size / 4 + 4096, 1, "output %llu bytes of %llu", (unsigned long long)file_size(out),
	    size);
	/* the floor: the input once, plus the output's payloads */
	cr_assert_leq(rchar, size + file_size(out) + size / 32, "read %llu bytes of a %llu-byte input", rchar, size);
	/* and the tool itself, apart from the copies, read the input about once */
	copied = json_number(report, "bytes_kernel_copied") + json_number(report, "bytes_copied_through");
	cr_assert_leq(json_number(report, "bytes_read") - copied, size + size / 32, "%s", report);
	/* the four kept constants were copied, by the kernel or through the buffer */
	cr_assert_geq(copied, 4ull * (512 << 10), "%s", report);
	/* nothing goes past the page cache any more (report.h) */
	cr_assert_eq(json_number(report, "bytes_written_direct"), 0, "%s", report);
	cr_assert_geq(json_number(report, "bytes_compared_mapped"), 12ull * (512 << 10), "%s", report);
	free(report);
	expect_equivalent(in, out, NULL);
	free(json);
	free(in);
	free(out);
	tmpdir_remove(dir);
}

Test(e2e, large_copies_are_not_read_twice)
{
	large_copies_read_once(0);
}

Test(e2e, large_copies_written_in_small_steps_are_not_read_twice)
{
	large_copies_read_once(1);
}

/*
 * Outputs whose pages are dropped behind them every 4 KiB, with 4 KiB
 * buffers (test builds: sink.c's hooks), are byte for byte the outputs
 * written in the usual 64 MiB steps, for models of every
 * kind: float_data, int64_data and raw payloads, external data, payloads
 * over one store chunk, a Loop and an If body, an operator of 70 inputs,
 * opset 21, with a kept store; and shrinking the stepped output again, with
 * the same store, changes nothing.
 */
static const char *const stepped_fixtures[] = {
	"typed_pair.onnx", "gather_typed.onnx", "dup_mixed.onnx", "many_small_ext.onnx", "straddle.onnx",
	"loop_dup.onnx", "nested_if.onnx", "sum70.onnx", "fold_op21.onnx",
};

Test(e2e, outputs_written_in_small_steps_are_the_same_and_a_fixed_point)
{
	for (size_t i = 0; i < sizeof(stepped_fixtures) / sizeof(*stepped_fixtures); i++) {
		const char *name = stepped_fixtures[i];
		char *dir = tmpdir_new(), *in = fixture(name), *store = path_in(dir, "store"), *cached_dir = path_in(dir, "c"),
		     *direct_dir = path_in(dir, "d"), *again_dir = path_in(dir, "a"), *cached = path_in(cached_dir, "o.onnx"),
		     *direct = path_in(direct_dir, "o.onnx"), *again = path_in(again_dir, "o.onnx");
		scs_shrink_options o = { .version = SCS_SHRINK_OPTIONS_VERSION, .store_dir = store };
		scs_report rep = SCS_REPORT_INIT;
		uint8_t *a, *b, *c;
		size_t a_len, b_len, c_len;

		cr_assert(mkdir(cached_dir, 0777) == 0 && mkdir(direct_dir, 0777) == 0 && mkdir(again_dir, 0777) == 0);
		cr_assert_eq(scs_shrink(&rep, in, cached, &o), SCS_OK, "%s: %s", name, scs_err_msg());
		scs_report_dispose(&rep);
		setenv("SCS_TEST_WRITEBACK_STEP", "4096", 1);
		setenv("SCS_TEST_SINK_BUF", "4096", 1);
		rep = (scs_report)SCS_REPORT_INIT;
		cr_assert_eq(scs_shrink(&rep, in, direct, &o), SCS_OK, "%s: %s", name, scs_err_msg());
		cr_assert_eq(rep.bytes_written_direct, 0, "%s: %llu bytes written direct", name,
		    (unsigned long long)rep.bytes_written_direct);
		scs_report_dispose(&rep);
		rep = (scs_report)SCS_REPORT_INIT;
		cr_assert_eq(scs_shrink(&rep, direct, again, &o), SCS_OK, "%s, again: %s", name, scs_err_msg());
		scs_report_dispose(&rep);
		unsetenv("SCS_TEST_WRITEBACK_STEP");
		unsetenv("SCS_TEST_SINK_BUF");
		a = read_model_and_data(cached, &a_len);
		b = read_model_and_data(direct, &b_len);
		c = read_model_and_data(again, &c_len);
		cr_assert(a_len == b_len && memcmp(a, b, a_len) == 0, "%s: %zu bytes in 64 MiB steps, %zu in 4 KiB ones", name,
		    a_len, b_len);
		cr_assert(b_len == c_len && memcmp(b, c, b_len) == 0, "%s: the second run changed it (%zu -> %zu bytes)",
		    name, b_len, c_len);
		free(a);
		free(b);
		free(c);
		free(in);
		free(store);
		free(cached_dir);
		free(direct_dir);
		free(again_dir);
		free(cached);
		free(direct);
		free(again);
		tmpdir_remove(dir);
	}
}
