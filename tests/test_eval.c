/*
 * test_eval.c: the evaluator (src/eval/eval.h) against ONNX's conformance suite
 * (Debian's libonnx-testdata): every node test whose model is one node of
 * an operator the evaluator implements runs on every data set with the
 * test's inputs, and each output equals output_*.pb bit for bit (NaN equal
 * to NaN), or within the ONNX test runner's tolerance (rtol 1e-3, atol 1e-7)
 * where the kernel says another runtime may round otherwise. The tests it
 * skips, with the reason, are exactly those in tests/eval-skipped.txt.
 * Then cases the suite does not cover: rounding once, declined undefined
 * results, the byte cap.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx/dtype.h"
#include "util/err.h"
#include "eval/eval.h"
#include "onnx.pb-c.h"
#include "support.h"

#define DATA_DIR "/usr/share/libonnx-testdata/data/node"

static int
tensor_of(void *payload, const Onnx__TensorProto *t, scs_eval_tensor *out, char *why, size_t why_len)
{
	(void)payload;
	return scs_eval_from_proto(t, out, why, why_len);
}

/*
 * The tensor in file @path; DECLINED (with @why) when it is not a plain
 * tensor. The suite stores bfloat16 values as uint16: @vi (the graph's
 * declaration of the value) gives the element type then.
 */
static int
load_pb(const char *path, const Onnx__ValueInfoProto *vi, scs_eval_tensor *out, char *why, size_t why_len)
{
	size_t len;
	uint8_t *bytes;
	Onnx__TensorProto *t;
	int rc;

	if (vi && vi->type && vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE) {
		snprintf(why, why_len, "a value that is not a tensor (sequence or optional)");
		return SCS_EVAL_DECLINED;
	}
	bytes = read_all(path, &len);
	t = onnx__tensor_proto__unpack(NULL, len, bytes);
	free(bytes);
	if (t == NULL || !t->has_data_type || t->data_type == 0) {
		if (t)
			onnx__tensor_proto__free_unpacked(t, NULL);
		snprintf(why, why_len, "a value that is not a tensor (sequence or optional)");
		return SCS_EVAL_DECLINED;
	}
	rc = scs_eval_from_proto(t, out, why, why_len);
	onnx__tensor_proto__free_unpacked(t, NULL);
	if (rc == SCS_OK && out->dtype == SCS_DT_UINT16 && vi && vi->type &&
	    vi->type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && vi->type->tensor_type->elem_type == SCS_DT_BFLOAT16)
		out->dtype = SCS_DT_BFLOAT16;
	return rc;
}

static int64_t
opset_of(const Onnx__ModelProto *m)
{
	for (size_t i = 0; i < m->n_opset_import; i++) {
		const char *d = m->opset_import[i]->domain;

		if (d == NULL || d[0] == '\0' || strcmp(d, "ai.onnx") == 0)
			return m->opset_import[i]->version;
	}
	return 0;
}

typedef struct tally {
	int run, passed, skipped;
	char *skipped_text;
	size_t skipped_len;
	char *failures;
	size_t failures_len;
} tally;

static void
append(char **text, size_t *len, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	*text = realloc(*text, *len + (size_t)n + 1);
	memcpy(*text + *len, line, (size_t)n + 1);
	*len += (size_t)n;
}

/* One data set of test @name (model @m, one node): 1 passed, 0 skipped (@why), -1 failed (@why). */
static int
run_set(const char *dir, const Onnx__ModelProto *m, char *why, size_t why_len)
{
	const Onnx__GraphProto *g = m->graph;
	const Onnx__NodeProto *node = g->node[0];
	scs_eval_tensor in[16] = { 0 }, out[16] = { 0 }, want = { 0 };
	scs_eval_call c = { 0 };
	char path[4096];
	int rc, result = 1;

	if (node->n_input > 16 || node->n_output > 16) {
		snprintf(why, why_len, "too many inputs or outputs");
		return 0;
	}
	for (size_t i = 0; i < node->n_input && result == 1; i++) {
		const char *name = node->input[i];
		size_t k;

		if (name[0] == '\0')
			continue;
		for (k = 0; k < g->n_input && strcmp(g->input[k]->name, name) != 0; k++)
			;
		if (k == g->n_input) {
			snprintf(why, why_len, "input '%s' is not a graph input", name);
			result = 0;
			break;
		}
		snprintf(path, sizeof(path), "%s/input_%zu.pb", dir, k);
		if (!file_exists(path)) {
			/* an optional input the data set leaves out */
			continue;
		}
		if ((rc = load_pb(path, g->input[k], &in[i], why, why_len)) != SCS_OK)
			result = 0;
	}
	if (result == 1) {
		char buf[512];

		c.node = node;
		c.opset = opset_of(m);
		c.in = in;
		c.n_in = node->n_input;
		c.out = out;
		c.n_out = node->n_output;
		c.tensor_of = tensor_of;
		c.why = buf;
		c.why_len = sizeof(buf);
		rc = scs_eval_run(&c);
		cr_assert_geq(rc, 0, "%s: %s", dir, scs_err_msg());
		if (rc != SCS_OK) {
			snprintf(why, why_len, "declined: %s", buf);
			result = 0;
		}
	}
	for (size_t j = 0; j < node->n_output && result == 1; j++) {
		size_t k;

		for (k = 0; k < g->n_output && strcmp(g->output[k]->name, node->output[j]) != 0; k++)
			;
		if (k == g->n_output)
			continue;
		snprintf(path, sizeof(path), "%s/output_%zu.pb", dir, k);
		if ((rc = load_pb(path, g->output[k], &want, why, why_len)) != SCS_OK) {
			result = 0;
			break;
		}
		if (!scs_eval_equal(&out[j], &want, c.inexact ? 1e-3 : 0, c.inexact ? 1e-7 : 0, path, sizeof(path))) {
			snprintf(why, why_len, "output %zu: %s", j, path);
			result = -1;
		}
		scs_eval_tensor_free(&want);
	}
	for (size_t i = 0; i < 16; i++) {
		scs_eval_tensor_free(&in[i]);
		scs_eval_tensor_free(&out[i]);
	}
	return result;
}

/* Tests whose expected values another reference computed: the evaluator must differ from them, as ONNX Runtime does. */
static const char *const reference_differs[][2] = {
	{ "test_cast_FLOAT_to_BFLOAT16", "expected values truncated to bfloat16; ONNX Runtime rounds to nearest even" },
	{ "test_castlike_FLOAT_to_BFLOAT16", "expected values truncated to bfloat16; ONNX Runtime rounds to nearest even" },
	{ "test_castlike_FLOAT_to_BFLOAT16_expanded",
	  "expected values truncated to bfloat16; ONNX Runtime rounds to nearest even" },
};

static const char *
differs_why(const char *name)
{
	for (size_t i = 0; i < sizeof(reference_differs) / sizeof(reference_differs[0]); i++)
		if (strcmp(reference_differs[i][0], name) == 0)
			return reference_differs[i][1];
	return NULL;
}

static int
by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static void
run_suite(tally *t)
{
	struct dirent **names;
	int n = scandir(DATA_DIR, &names, NULL, by_name);

	cr_assert_gt(n, 0, "no conformance suite at " DATA_DIR " (Debian package libonnx-testdata)");
	for (int i = 0; i < n; i++) {
		char path[4096], why[1024] = "";
		Onnx__ModelProto *m;
		uint8_t *bytes;
		size_t len;
		int sets = 0, result = 1;

		if (strncmp(names[i]->d_name, "test_", 5) != 0) {
			free(names[i]);
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s/model.onnx", DATA_DIR, names[i]->d_name);
		if (!file_exists(path)) {
			free(names[i]);
			continue;
		}
		bytes = read_all(path, &len);
		m = onnx__model_proto__unpack(NULL, len, bytes);
		free(bytes);
		cr_assert_not_null(m, "%s does not parse", path);
		if (m->graph && m->graph->n_node == 1 && scs_eval_has(m->graph->node[0]->op_type) &&
		    (m->graph->node[0]->domain == NULL || m->graph->node[0]->domain[0] == '\0')) {
			for (int s = 0; result == 1; s++) {
				char set[4096];

				snprintf(set, sizeof(set), "%s/%s/test_data_set_%d", DATA_DIR, names[i]->d_name, s);
				if (!file_exists(set))
					break;
				result = run_set(set, m, why, sizeof(why));
				sets++;
			}
			if (sets == 0) {
				result = 0;
				snprintf(why, sizeof(why), "no data set");
			}
			t->run++;
			if (differs_why(names[i]->d_name) && result != 0) {
				if (result == 1)
					append(&t->failures, &t->failures_len, "%s: equals the suite's values, which differ from "
					    "ONNX Runtime's\n", names[i]->d_name);
				result = 0;
				snprintf(why, sizeof(why), "%s", differs_why(names[i]->d_name));
			}
			if (result == 1)
				t->passed++;
			else if (result == 0) {
				t->skipped++;
				append(&t->skipped_text, &t->skipped_len, "%s: %s\n", names[i]->d_name, why);
			} else
				append(&t->failures, &t->failures_len, "%s: %s\n", names[i]->d_name, why);
		}
		onnx__model_proto__free_unpacked(m, NULL);
		free(names[i]);
	}
	free(names);
}

/* Remove the lines of @text that start with '#'. */
static void
drop_comments(char *text)
{
	char *w = text;

	for (char *r = text; *r;) {
		size_t n = strcspn(r, "\n") + (r[strcspn(r, "\n")] == '\n');

		if (r[0] != '#') {
			memmove(w, r, n);
			w += n;
		}
		r += n;
	}
	*w = '\0';
}

Test(eval, conformance_node_tests_of_every_implemented_operator)
{
	tally t = { 0 };
	char *expected, *path;
	size_t len;

	run_suite(&t);
	fprintf(stderr, "eval: conformance tests %d, passed %d, skipped %d\n", t.run, t.passed, t.skipped);
	cr_assert_null(t.failures, "wrong results:\n%s", t.failures);
	/* the evaluator computes most tests of its operators, not a handful */
	cr_assert_gt(t.run, 200, "only %d tests found", t.run);
	cr_assert_geq(t.passed * 10, t.run * 8, "only %d of %d passed", t.passed, t.run);
	/* the skipped list in the tree is exactly what this run skipped, with the same reasons */
	path = path_in(SCS_TEST_SRC_DIR, "tests/eval-skipped.txt");
	expected = (char *)read_all(path, &len);
	expected = realloc(expected, len + 1);
	expected[len] = '\0';
	drop_comments(expected);
	if (t.skipped_text == NULL)
		t.skipped_text = calloc(1, 1);
	if (strcmp(expected, t.skipped_text) != 0) {
		char *actual = path_in(SCS_TEST_BUILD_DIR, "eval-skipped.txt");

		write_all(actual, t.skipped_text, strlen(t.skipped_text));
		cr_assert_fail("tests/eval-skipped.txt is not what was skipped (this run's list: %s)", actual);
	}
	free(expected);
	free(path);
	free(t.skipped_text);
}

/* ---- cases the suite does not cover ---- */

static Onnx__NodeProto *
node_new(const char *op, size_t n_in, size_t n_out)
{
	static char *names[] = { "a", "b", "c", "d" };
	Onnx__NodeProto *n = calloc(1, sizeof(*n));

	onnx__node_proto__init(n);
	n->op_type = (char *)op;
	n->input = names;
	n->n_input = n_in;
	n->output = names;
	n->n_output = n_out;
	return n;
}

static void
node_attr_int(Onnx__NodeProto *n, const char *name, int64_t v)
{
	Onnx__AttributeProto *a = calloc(1, sizeof(*a));

	onnx__attribute_proto__init(a);
	a->name = (char *)name;
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
	a->i = v;
	a->has_i = 1;
	n->attribute = realloc(n->attribute, (n->n_attribute + 1) * sizeof(*n->attribute));
	n->attribute[n->n_attribute++] = a;
}

static void
node_free(Onnx__NodeProto *n)
{
	for (size_t i = 0; i < n->n_attribute; i++)
		free(n->attribute[i]);
	free(n->attribute);
	free(n);
}

/* A 1-D tensor of @n elements of @dtype from @bytes. */
static scs_eval_tensor
vec(int dtype, size_t n, const void *bytes)
{
	scs_eval_tensor t;
	int64_t d = (int64_t)n;
	char why[128];

	cr_assert_eq(scs_eval_tensor_alloc(&t, dtype, 1, &d, 0, why, sizeof(why)), SCS_OK);
	memcpy(t.data, bytes, n * scs_eval_esize(dtype));
	return t;
}

/* Run @n on @in; the result code, *out filled when SCS_OK. */
static int
eval1(Onnx__NodeProto *n, scs_eval_tensor *in, size_t n_in, scs_eval_tensor *out, uint64_t max_bytes, int *inexact)
{
	char why[256];
	scs_eval_call c = { .node = n, .opset = 21, .in = in, .n_in = n_in, .out = out, .n_out = n->n_output,
		.max_bytes = max_bytes, .why = why, .why_len = sizeof(why) };
	int rc = scs_eval_run(&c);

	if (inexact)
		*inexact = c.inexact;
	if (rc != SCS_OK)
		cr_assert_neq(why[0], '\0', "a refusal without a reason");
	return rc;
}

Test(eval, float16_add_is_computed_in_float_and_rounded_once)
{
	/* 2048 + 1 = 2049: halfway between float16 neighbours 2048 and 2050, ties to even (2048);
	 * 2048 + 3 = 2051 -> 2052; 0.1 + 0.2 in float16 (0x2e66 + 0x3266, a tie) -> 0x34cc: ONNX Runtime 1.30 gives these */
	uint16_t a[3] = { 0x6800, 0x6800, 0x2e66 }, b[3] = { 0x3c00, 0x4200, 0x3266 }, want[3] = { 0x6800, 0x6802, 0x34cc };
	scs_eval_tensor in[2] = { vec(SCS_DT_FLOAT16, 3, a), vec(SCS_DT_FLOAT16, 3, b) }, out = { 0 };
	Onnx__NodeProto *n = node_new("Add", 2, 1);

	cr_assert_eq(eval1(n, in, 2, &out, 0, NULL), SCS_OK);
	cr_assert_eq(out.dtype, SCS_DT_FLOAT16);
	cr_assert_arr_eq(out.data, want, sizeof(want));
	scs_eval_tensor_free(&out);
	scs_eval_tensor_free(&in[0]);
	scs_eval_tensor_free(&in[1]);
	node_free(n);
}

Test(eval, cast_to_bfloat16_rounds_to_nearest_even_as_onnx_runtime)
{
	/* ONNX Runtime 1.30 gives 0.48046875, 1, 1.015625 for these (ties to even) */
	float x[3] = { 0.479903906583786f, 1.00390625f, 1.01171875f };
	uint16_t want[3] = { 0x3ef6, 0x3f80, 0x3f82 };
	scs_eval_tensor in = vec(SCS_DT_FLOAT, 3, x), out = { 0 };
	Onnx__NodeProto *n = node_new("Cast", 1, 1);

	node_attr_int(n, "to", SCS_DT_BFLOAT16);
	cr_assert_eq(eval1(n, &in, 1, &out, 0, NULL), SCS_OK);
	cr_assert_arr_eq(out.data, want, sizeof(want));
	scs_eval_tensor_free(&out);
	scs_eval_tensor_free(&in);
	node_free(n);
}

Test(eval, undefined_integer_results_are_declined)
{
	int32_t a[2] = { 7, INT32_MIN }, zero[2] = { 0, 1 }, minus[2] = { 1, -1 };
	int8_t a8[1] = { -128 }, m8[1] = { -1 };
	scs_eval_tensor x = vec(SCS_DT_INT32, 2, a), z = vec(SCS_DT_INT32, 2, zero), m = vec(SCS_DT_INT32, 2, minus);
	scs_eval_tensor in[2], out = { 0 };
	Onnx__NodeProto *n = node_new("Div", 2, 1);

	in[0] = x;
	in[1] = z;
	cr_assert_eq(eval1(n, in, 2, &out, 0, NULL), SCS_EVAL_DECLINED, "division by zero");
	in[1] = m;
	cr_assert_eq(eval1(n, in, 2, &out, 0, NULL), SCS_EVAL_DECLINED, "INT32_MIN / -1");
	cr_assert_null(out.data);
	/* int8 divides in int: -128 / -1 = 128, wrapped to -128 */
	in[0] = vec(SCS_DT_INT8, 1, a8);
	in[1] = vec(SCS_DT_INT8, 1, m8);
	cr_assert_eq(eval1(n, in, 2, &out, 0, NULL), SCS_OK);
	cr_assert_eq((int8_t)out.data[0], -128);
	scs_eval_tensor_free(&out);
	scs_eval_tensor_free(&in[0]);
	scs_eval_tensor_free(&in[1]);
	scs_eval_tensor_free(&x);
	scs_eval_tensor_free(&z);
	scs_eval_tensor_free(&m);
	node_free(n);
}

Test(eval, integer_arithmetic_wraps_at_the_width)
{
	int64_t a[1] = { INT64_MAX }, b[1] = { 1 }, want = INT64_MIN, got;
	scs_eval_tensor in[2] = { vec(SCS_DT_INT64, 1, a), vec(SCS_DT_INT64, 1, b) }, out = { 0 };
	Onnx__NodeProto *n = node_new("Add", 2, 1);

	cr_assert_eq(eval1(n, in, 2, &out, 0, NULL), SCS_OK);
	memcpy(&got, out.data, 8);
	cr_assert_eq(got, want);
	scs_eval_tensor_free(&out);
	scs_eval_tensor_free(&in[0]);
	scs_eval_tensor_free(&in[1]);
	node_free(n);
}

Test(eval, casts_out_of_range_and_nan_to_integers_are_declined)
{
	float x[2] = { 1.0f, NAN }, y[1] = { 300.0f };
	scs_eval_tensor a = vec(SCS_DT_FLOAT, 2, x), b = vec(SCS_DT_FLOAT, 1, y), out = { 0 };
	Onnx__NodeProto *n = node_new("Cast", 1, 1);

	node_attr_int(n, "to", SCS_DT_INT32);
	cr_assert_eq(eval1(n, &a, 1, &out, 0, NULL), SCS_EVAL_DECLINED);
	n->attribute[0]->i = SCS_DT_UINT8;
	cr_assert_eq(eval1(n, &b, 1, &out, 0, NULL), SCS_EVAL_DECLINED);
	n->attribute[0]->i = SCS_DT_INT16;
	cr_assert_eq(eval1(n, &b, 1, &out, 0, NULL), SCS_OK);
	cr_assert_eq(out.data[0] | out.data[1] << 8, 300);
	scs_eval_tensor_free(&out);
	scs_eval_tensor_free(&a);
	scs_eval_tensor_free(&b);
	node_free(n);
}

Test(eval, gather_out_of_range_is_declined_and_negative_counts_back)
{
	float d[3] = { 1, 2, 3 };
	int64_t bad[1] = { 3 }, neg[1] = { -1 };
	scs_eval_tensor in[2] = { vec(SCS_DT_FLOAT, 3, d), vec(SCS_DT_INT64, 1, bad) }, out = { 0 };
	Onnx__NodeProto *n = node_new("Gather", 2, 1);
	float got;

	cr_assert_eq(eval1(n, in, 2, &out, 0, NULL), SCS_EVAL_DECLINED);
	memcpy(in[1].data, neg, 8);
	cr_assert_eq(eval1(n, in, 2, &out, 0, NULL), SCS_OK);
	memcpy(&got, out.data, 4);
	cr_assert_eq(got, 3.0f);
	scs_eval_tensor_free(&out);
	scs_eval_tensor_free(&in[0]);
	scs_eval_tensor_free(&in[1]);
	node_free(n);
}

Test(eval, outputs_over_the_byte_cap_are_not_made)
{
	float d[4] = { 1, 2, 3, 4 };
	int64_t rep[1] = { 1000 };
	scs_eval_tensor in[2] = { vec(SCS_DT_FLOAT, 4, d), vec(SCS_DT_INT64, 1, rep) }, out = { 0 };
	Onnx__NodeProto *n = node_new("Tile", 2, 1);

	cr_assert_eq(eval1(n, in, 2, &out, 16000 - 1, NULL), SCS_EVAL_TOO_BIG);
	cr_assert_null(out.data);
	cr_assert_eq(eval1(n, in, 2, &out, 16000, NULL), SCS_OK);
	cr_assert_eq(out.n, 4000);
	scs_eval_tensor_free(&out);
	scs_eval_tensor_free(&in[0]);
	scs_eval_tensor_free(&in[1]);
	node_free(n);
}

Test(eval, float_sums_of_more_than_two_terms_are_marked_inexact)
{
	float d[3] = { 1e8f, 1, -1e8f };
	int32_t i[3] = { 1, 2, 3 };
	scs_eval_tensor a = vec(SCS_DT_FLOAT, 3, d), b = vec(SCS_DT_INT32, 3, i), out = { 0 };
	Onnx__NodeProto *n = node_new("ReduceSum", 1, 1);
	int inexact = -1;

	cr_assert_eq(eval1(n, &a, 1, &out, 0, &inexact), SCS_OK);
	cr_assert_eq(inexact, 1);
	scs_eval_tensor_free(&out);
	cr_assert_eq(eval1(n, &b, 1, &out, 0, &inexact), SCS_OK);
	cr_assert_eq(inexact, 0);
	cr_assert_eq(out.data[0], 6);
	scs_eval_tensor_free(&out);
	scs_eval_tensor_free(&a);
	scs_eval_tensor_free(&b);
	node_free(n);
}

Test(eval, sizes_that_would_overflow_are_declined)
{
	float d[2] = { 1, 2 };
	int64_t pads[2] = { INT64_MAX, 0 }, shape[3] = { INT64_MAX / 2, 4, -1 }, split[2] = { INT64_MAX, 2 - INT64_MAX };
	scs_eval_tensor in[2] = { vec(SCS_DT_FLOAT, 2, d), vec(SCS_DT_INT64, 2, pads) }, out[2] = { 0 };
	Onnx__NodeProto *n = node_new("Pad", 2, 1);

	cr_assert_eq(eval1(n, in, 2, out, 0, NULL), SCS_EVAL_DECLINED, "Pad by INT64_MAX");
	scs_eval_tensor_free(&in[1]);
	n->op_type = "Reshape";
	in[1] = vec(SCS_DT_INT64, 3, shape);
	cr_assert_eq(eval1(n, in, 2, out, 0, NULL), SCS_EVAL_DECLINED, "Reshape to dims whose product overflows");
	scs_eval_tensor_free(&in[1]);
	n->op_type = "Split";
	n->n_output = 2;
	in[1] = vec(SCS_DT_INT64, 2, split);
	cr_assert_eq(eval1(n, in, 2, out, 0, NULL), SCS_EVAL_DECLINED, "Split sizes whose sum overflows");
	cr_assert_null(out[0].data);
	scs_eval_tensor_free(&in[0]);
	scs_eval_tensor_free(&in[1]);
	node_free(n);
}

/* A 2-D tensor of @d0 x @d1 elements of @dtype from @bytes. */
static scs_eval_tensor
mat(int dtype, int64_t d0, int64_t d1, const void *bytes)
{
	scs_eval_tensor t;
	int64_t d[2] = { d0, d1 };
	char why[128];

	cr_assert_eq(scs_eval_tensor_alloc(&t, dtype, 2, d, 0, why, sizeof(why)), SCS_OK);
	memcpy(t.data, bytes, (size_t)(d0 * d1) * scs_eval_esize(dtype));
	return t;
}

/* Run ArgMax/ArgMin @op on @in with @axis, @keep, @last; the int64 indices into @got (at most 8). */
static void
arg_run(const char *op, scs_eval_tensor *in, int64_t axis, int64_t keep, int64_t last, size_t want_rank,
    const int64_t *want, size_t n_want)
{
	Onnx__NodeProto *n = node_new(op, 1, 1);
	scs_eval_tensor out = { 0 };

	node_attr_int(n, "axis", axis);
	node_attr_int(n, "keepdims", keep);
	node_attr_int(n, "select_last_index", last);
	cr_assert_eq(eval1(n, in, 1, &out, 0, NULL), SCS_OK, "%s axis %lld", op, (long long)axis);
	cr_assert_eq(out.dtype, SCS_DT_INT64);
	cr_assert_eq(out.rank, want_rank, "%s axis %lld keepdims %lld: rank %zu", op, (long long)axis, (long long)keep,
	    out.rank);
	cr_assert_eq(out.n, n_want);
	cr_assert_arr_eq(out.data, want, n_want * 8, "%s axis %lld select_last_index %lld", op, (long long)axis,
	    (long long)last);
	scs_eval_tensor_free(&out);
	node_free(n);
}

/* ONNX Runtime 1.30 gives these (ties: the first index, or the last with select_last_index) */
Test(eval, argmax_and_argmin_take_the_first_or_last_of_equals)
{
	float x[6] = { 1, 5, 5, -0.0f, 0.0f, -3 };
	int8_t i8[6] = { -128, 127, 127, 0, -128, 0 };
	uint64_t u64[6] = { UINT64_MAX, 0, UINT64_MAX, 1, 1, 0 };
	scs_eval_tensor f = mat(SCS_DT_FLOAT, 2, 3, x), s = mat(SCS_DT_INT8, 2, 3, i8), u = mat(SCS_DT_UINT64, 2, 3, u64);

	arg_run("ArgMax", &f, 1, 1, 0, 2, (const int64_t[]){ 1, 0 }, 2);
	arg_run("ArgMax", &f, -1, 0, 1, 1, (const int64_t[]){ 2, 1 }, 2);
	arg_run("ArgMin", &f, 1, 0, 0, 1, (const int64_t[]){ 0, 2 }, 2);
	arg_run("ArgMax", &f, 0, 0, 0, 1, (const int64_t[]){ 0, 0, 0 }, 3);
	arg_run("ArgMax", &s, 1, 0, 1, 1, (const int64_t[]){ 2, 2 }, 2);
	arg_run("ArgMin", &s, -2, 1, 1, 2, (const int64_t[]){ 0, 1, 1 }, 3);
	arg_run("ArgMax", &u, 1, 0, 0, 1, (const int64_t[]){ 0, 0 }, 2);
	arg_run("ArgMin", &u, 1, 0, 1, 1, (const int64_t[]){ 1, 2 }, 2);
	scs_eval_tensor_free(&f);
	scs_eval_tensor_free(&s);
	scs_eval_tensor_free(&u);
}

Test(eval, argmax_of_a_nan_or_an_empty_axis_is_declined)
{
	float x[4] = { 1, NAN, 2, 3 };
	scs_eval_tensor f = mat(SCS_DT_FLOAT, 2, 2, x), e = mat(SCS_DT_FLOAT, 2, 0, x), out = { 0 };
	Onnx__NodeProto *n = node_new("ArgMax", 1, 1);

	node_attr_int(n, "axis", 1);
	cr_assert_eq(eval1(n, &f, 1, &out, 0, NULL), SCS_EVAL_DECLINED, "a NaN has no index the spec gives");
	cr_assert_eq(eval1(n, &e, 1, &out, 0, NULL), SCS_EVAL_DECLINED, "an axis of no elements");
	cr_assert_null(out.data);
	scs_eval_tensor_free(&f);
	scs_eval_tensor_free(&e);
	node_free(n);
}

/* IsInf's detect_positive / detect_negative, IsNaN of NaNs of either sign, float16 and double */
Test(eval, isinf_and_isnan_read_every_float_type)
{
	float x[5] = { INFINITY, -INFINITY, NAN, -NAN, 3e38f };
	double d[5] = { INFINITY, -INFINITY, NAN, -NAN, 1e308 };
	uint16_t h[5] = { 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x7bff };
	static const struct { const char *op; int pos, neg; uint8_t want[5]; } cases[] = {
		{ "IsInf", 1, 1, { 1, 1, 0, 0, 0 } },
		{ "IsInf", 1, 0, { 1, 0, 0, 0, 0 } },
		{ "IsInf", 0, 1, { 0, 1, 0, 0, 0 } },
		{ "IsInf", 0, 0, { 0, 0, 0, 0, 0 } },
		{ "IsNaN", 1, 1, { 0, 0, 1, 1, 0 } },
	};
	scs_eval_tensor in[3] = { vec(SCS_DT_FLOAT, 5, x), vec(SCS_DT_DOUBLE, 5, d), vec(SCS_DT_FLOAT16, 5, h) };

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
		for (size_t t = 0; t < 3; t++) {
			Onnx__NodeProto *n = node_new(cases[k].op, 1, 1);
			scs_eval_tensor out = { 0 };

			node_attr_int(n, "detect_positive", cases[k].pos);
			node_attr_int(n, "detect_negative", cases[k].neg);
			cr_assert_eq(eval1(n, &in[t], 1, &out, 0, NULL), SCS_OK);
			cr_assert_eq(out.dtype, SCS_DT_BOOL);
			cr_assert_arr_eq(out.data, cases[k].want, 5, "%s case %zu type %zu", cases[k].op, k, t);
			scs_eval_tensor_free(&out);
			node_free(n);
		}
	for (size_t t = 0; t < 3; t++)
		scs_eval_tensor_free(&in[t]);
}
