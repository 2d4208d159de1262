/*
 * test_bad_input.c: every kind of bad input ends with one message naming
 * the file and the problem, a corrupt-input code, and nothing at the target.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/err.h"
#include "onnx.pb-c.h"
#include "scs4onnx.h"
#include "support.h"
#include "util/wire.h"

static char *dir, *in, *out;

static void
setup(void)
{
	dir = tmpdir_new();
	in = path_in(dir, "in.onnx");
	out = path_in(dir, "out.onnx");
}

static void
teardown(void)
{
	free(in);
	free(out);
	tmpdir_remove(dir);
}

/* Shrinking @in fails with @code, names the file and says @what; nothing is left behind. */
static void
expect_refused(int code, const char *what)
{
	scs_report rep = SCS_REPORT_INIT;
	int rc = scs_shrink(&rep, in, out, NULL);

	scs_report_dispose(&rep);
	cr_assert_eq(rc, code, "rc %d (%s), wanted %d", rc, scs_err_msg(), code);
	cr_assert_not_null(strstr(scs_err_msg(), in), "message does not name the file: %s", scs_err_msg());
	cr_assert_not_null(strstr(scs_err_msg(), what), "message lacks '%s': %s", what, scs_err_msg());
	cr_assert_not(file_exists(out), "an output was written");
	cr_assert_eq(count_files(dir, ".out.onnx"), 0, "a temporary file was left");
	cr_assert_eq(count_files(dir, ".scs4onnx-store"), 0, "a temporary store was left");
}

static void
write_bytes(const void *p, size_t n)
{
	write_all(in, p, n);
}

Test(bad_input, empty_file, .init = setup, .fini = teardown)
{
	write_bytes("", 0);
	expect_refused(SCS_ECORRUPT, "empty");
}

Test(bad_input, truncated_at_every_offset, .init = setup, .fini = teardown)
{
	char *tiny = fixture("tiny.onnx");
	size_t len;
	uint8_t *bytes = read_all(tiny, &len);
	scs_report rep = SCS_REPORT_INIT;

	cr_assert_not_null(bytes);
	for (size_t cut = 1; cut < len; cut++) {
		write_bytes(bytes, cut);
		int rc = scs_shrink(&rep, in, out, NULL);

		scs_report_dispose(&rep);
		cr_assert_eq(rc, SCS_ECORRUPT, "cut at %zu of %zu: rc %d (%s)", cut, len, rc, scs_err_msg());
		cr_assert_not_null(strstr(scs_err_msg(), in), "cut at %zu: %s", cut, scs_err_msg());
		cr_assert_not(file_exists(out), "cut at %zu: an output was written", cut);
		/* in the user's words, not the wire format's */
		cr_expect_null(strstr(scs_err_msg(), "runs past the end"), "cut at %zu: %s", cut, scs_err_msg());
	}
	free(bytes);
	free(tiny);
}

Test(bad_input, length_past_the_end, .init = setup, .fini = teardown)
{
	/* ModelProto.graph claims 200 bytes, 3 follow */
	static const uint8_t b[] = { 0x3a, 0xc8, 0x01, 0x0a, 0x01, 0x00 };

	write_bytes(b, sizeof(b));
	expect_refused(SCS_ECORRUPT, "in.onnx: truncated: the file ends at byte 6 inside ModelProto.graph "
	    "(200 bytes from offset 3)");
}

/* A field's length, a nested message's and a tag cut short: the file ends inside them. */
Test(bad_input, truncated_says_where_the_file_ends, .init = setup, .fini = teardown)
{
	/* graph { node { op_type: "Re" } } with the op_type 10 bytes long, 2 there; then with the graph 20 long */
	static const uint8_t nested[] = { 0x3a, 0x06, 0x0a, 0x04, 0x22, 0x0a, 0x52, 0x65 };
	static const uint8_t cut[] = { 0x3a, 0x14, 0x0a, 0x04, 0x22, 0x02, 0x52, 0x65 };
	/* ir_version's varint cut after its continuation byte */
	static const uint8_t varint[] = { 0x08, 0x88 };
	/* an unknown field's length cut */
	static const uint8_t unknown[] = { 0x08, 0x08, 0xfa, 0x01, 0x09, 0x00 };

	write_bytes(nested, sizeof(nested));
	expect_refused(SCS_ECORRUPT, "in.onnx: truncated: the file ends at byte 8 inside NodeProto.op_type "
	    "(10 bytes from offset 6)");
	write_bytes(cut, sizeof(cut));
	expect_refused(SCS_ECORRUPT, "in.onnx: truncated: the file ends at byte 8 inside ModelProto.graph "
	    "(20 bytes from offset 2)");
	write_bytes(varint, sizeof(varint));
	expect_refused(SCS_ECORRUPT, "in.onnx: truncated: the file ends at byte 2 inside ModelProto");
	write_bytes(unknown, sizeof(unknown));
	expect_refused(SCS_ECORRUPT, "in.onnx: truncated: the file ends at byte 6 inside ModelProto field 31 "
	    "(9 bytes from offset 5)");
}

/* Bytes that start no field of a protobuf message: not an ONNX model, in those words. */
Test(bad_input, not_an_onnx_model, .init = setup, .fini = teardown)
{
	static const struct {
		const char *bytes;
		size_t len;
		const char *offset;
	} files[] = {
		{ "\x00\x01\x02\x03", 4, "offset 0" },                   /* field number 0 */
		{ "\x0b\x0c", 2, "offset 0" },                             /* a group (wire type 3) */
		{ "\x08\x01\x0c", 3, "offset 2" },                        /* an end of group, after ir_version */
		{ "\x0e", 1, "offset 0" },                                  /* wire type 6 */
		{ "\x0f", 1, "offset 0" },                                  /* wire type 7 */
		{ "\xff\xd8\xff\xe0\x00\x10JFIF", 10, "offset 0" },          /* a JPEG */
		{ "{\"graph\": []}\n", 14, "offset 0" },                   /* JSON */
	};
	char want[128];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		write_bytes(files[i].bytes, files[i].len);
		snprintf(want, sizeof(want), "in.onnx: not an ONNX model (%s: bytes that start no field of an ONNX message)",
		    files[i].offset);
		expect_refused(SCS_ECORRUPT, want);
		cr_expect_null(strstr(scs_err_msg(), "group"), "%s", scs_err_msg());
		cr_expect_null(strstr(scs_err_msg(), "field number"), "%s", scs_err_msg());
	}
}

Test(bad_input, varint_over_ten_bytes, .init = setup, .fini = teardown)
{
	static const uint8_t b[] = { 0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 };

	write_bytes(b, sizeof(b));
	expect_refused(SCS_ECORRUPT, "offset 1: varint");
}

Test(bad_input, wrong_wire_type_for_a_known_field, .init = setup, .fini = teardown)
{
	/* ModelProto.graph (field 7) as a varint */
	static const uint8_t b[] = { 0x08, 0x08, 0x38, 0x01 };

	write_bytes(b, sizeof(b));
	expect_refused(SCS_ECORRUPT, "offset 2: ModelProto.graph (field 7) has wire type varint");
}

static void
add_field(uint8_t **buf, size_t *len, uint32_t field, const uint8_t *data, size_t n)
{
	uint8_t head[2 * SCS_WIRE_VARINT_MAX];
	size_t h = scs_wire_put_varint(head, (uint64_t)field << 3 | SCS_WIRE_LEN);

	h += scs_wire_put_varint(head + h, n);
	*buf = realloc(*buf, *len + h + n);
	memcpy(*buf + *len, head, h);
	memcpy(*buf + *len + h, data, n);
	*len += h + n;
}

Test(bad_input, nesting_deeper_than_the_limit, .init = setup, .fini = teardown)
{
	uint8_t *graph = NULL, *attr, *node, *model = NULL;
	size_t graph_len = 0, attr_len, node_len, model_len = 0;

	/* If inside If inside If ...: three messages a level */
	for (int level = 0; level < 40; level++) {
		attr = NULL;
		attr_len = 0;
		add_field(&attr, &attr_len, 1, (const uint8_t *)"then_branch", 11);
		add_field(&attr, &attr_len, 6, graph ? graph : (const uint8_t *)"", graph_len);
		node = NULL;
		node_len = 0;
		add_field(&node, &node_len, 4, (const uint8_t *)"If", 2);
		add_field(&node, &node_len, 5, attr, attr_len);
		free(graph);
		graph = NULL;
		graph_len = 0;
		add_field(&graph, &graph_len, 1, node, node_len);
		free(attr);
		free(node);
	}
	add_field(&model, &model_len, 7, graph, graph_len);
	write_bytes(model, model_len);
	free(graph);
	free(model);
	expect_refused(SCS_ECORRUPT, "nested deeper");
}

/* A model whose one initializer has external data at @location (offset 0, @length bytes). */
static void
write_external_model(const char *location, uint64_t length, int dtype)
{
	Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
	Onnx__GraphProto g = ONNX__GRAPH_PROTO__INIT;
	Onnx__TensorProto t = ONNX__TENSOR_PROTO__INIT, *tp = &t;
	Onnx__StringStringEntryProto e[3] = { ONNX__STRING_STRING_ENTRY_PROTO__INIT,
		ONNX__STRING_STRING_ENTRY_PROTO__INIT, ONNX__STRING_STRING_ENTRY_PROTO__INIT };
	Onnx__StringStringEntryProto *ep[3] = { &e[0], &e[1], &e[2] };
	Onnx__OperatorSetIdProto op = ONNX__OPERATOR_SET_ID_PROTO__INIT, *opp = &op;
	int64_t dims[1] = { 4 };
	char len_text[32];
	uint8_t *buf;
	size_t n;

	snprintf(len_text, sizeof(len_text), "%llu", (unsigned long long)length);
	e[0].key = "location";
	e[0].value = (char *)location;
	e[1].key = "offset";
	e[1].value = "0";
	e[2].key = "length";
	e[2].value = len_text;
	t.name = "w";
	t.n_dims = 1;
	t.dims = dims;
	t.has_data_type = 1;
	t.data_type = dtype;
	t.has_data_location = 1;
	t.data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	t.n_external_data = 3;
	t.external_data = ep;
	g.name = "g";
	g.n_initializer = 1;
	g.initializer = &tp;
	m.has_ir_version = 1;
	m.ir_version = 8;
	m.graph = &g;
	op.has_version = 1;
	op.version = 13;
	m.n_opset_import = 1;
	m.opset_import = &opp;
	n = onnx__model_proto__get_packed_size(&m);
	buf = malloc(n);
	onnx__model_proto__pack(&m, buf);
	write_bytes(buf, n);
	free(buf);
}

Test(bad_input, external_location_with_dotdot, .init = setup, .fini = teardown)
{
	write_external_model("../w.bin", 16, 1);
	expect_refused(SCS_ECORRUPT, "contains '..'");
}

Test(bad_input, external_location_absolute, .init = setup, .fini = teardown)
{
	write_external_model("/etc/passwd", 16, 1);
	expect_refused(SCS_ECORRUPT, "is absolute");
}

Test(bad_input, external_location_through_a_link_out_of_the_folder, .init = setup, .fini = teardown)
{
	char *outside = tmpdir_new(), *target = path_in(outside, "w.bin"), *link = path_in(dir, "w.bin");

	write_all(target, "0123456789abcdef", 16);
	cr_assert_eq(symlink(target, link), 0);
	write_external_model("w.bin", 16, 1);
	expect_refused(SCS_ECORRUPT, "outside the model's folder");
	free(target);
	free(link);
	tmpdir_remove(outside);
}

Test(bad_input, external_file_missing, .init = setup, .fini = teardown)
{
	char *want;

	write_external_model("w.bin", 16, 1);
	cr_assert_geq(asprintf(&want, "external data file 'w.bin' is missing from the folder '%s' (No such file or "
	    "directory)", dir), 0);
	expect_refused(SCS_ECORRUPT, want);
	free(want);
}

Test(bad_input, external_file_too_short, .init = setup, .fini = teardown)
{
	char *data = path_in(dir, "w.bin");

	write_all(data, "01234567", 8);
	write_external_model("w.bin", 16, 1);
	expect_refused(SCS_ECORRUPT, "is too short");
	free(data);
}

Test(bad_input, unknown_data_type, .init = setup, .fini = teardown)
{
	char *data = path_in(dir, "w.bin");

	write_all(data, "0123456789abcdef", 16);
	write_external_model("w.bin", 16, 99);
	expect_refused(SCS_ECORRUPT, "tensor 'w': unknown data type 99");
	free(data);
}

Test(bad_input, the_tool_prints_one_line_and_exits_1, .init = setup, .fini = teardown)
{
	static const uint8_t b[] = { 0x3a, 0xc8, 0x01, 0x0a };
	char *text;

	write_bytes(b, sizeof(b));
	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s'", in, out), 1, "output: %s", text);
	cr_assert_eq(strncmp(text, "scs4onnx-shrink: error: ", 24), 0, "got: %s", text);
	cr_assert_not_null(strstr(text, in), "got: %s", text);
	cr_assert_eq(strchr(text, '\n') - text + 1, (long)strlen(text), "more than one line: %s", text);
	cr_assert_not(file_exists(out));
	free(text);
}

Test(bad_input, an_existing_output_is_left_as_it_was, .init = setup, .fini = teardown)
{
	static const uint8_t b[] = { 0x3a, 0xc8, 0x01, 0x0a };
	uint8_t *kept;
	size_t len;

	write_all(out, "precious", 8);
	write_bytes(b, sizeof(b));
	scs_report rep = SCS_REPORT_INIT;

	cr_assert_eq(scs_shrink(&rep, in, out, NULL), SCS_ECORRUPT);
	scs_report_dispose(&rep);
	kept = read_all(out, &len);
	cr_assert_eq(len, 8);
	cr_assert_arr_eq(kept, "precious", 8);
	free(kept);
}

Test(bad_input, a_special_file_as_output_is_refused_and_kept, .init = setup, .fini = teardown)
{
	char *src = fixture("tiny.onnx"), *fifo = path_in(dir, "fifo"), *text;
	struct stat st;

	cr_assert_eq(mkfifo(fifo, 0600), 0);
	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s'", src, fifo), 1, "output: %s", text);
	cr_assert_not_null(strstr(text, "not a regular file"), "got: %s", text);
	cr_assert_eq(stat(fifo, &st), 0);
	cr_assert(S_ISFIFO(st.st_mode), "the FIFO was replaced");
	cr_assert_eq(count_files(dir, ".fifo"), 0, "a temporary file was left");
	free(text);
	free(fifo);
	free(src);
}

Test(bad_input, random_byte_flips_never_crash, .init = setup, .fini = teardown)
{
	char *src = fixture("if_outer.onnx");
	size_t len;
	uint8_t *good = read_all(src, &len), *bad = malloc(len);
	uint32_t seed = 12345;
	scs_report rep = SCS_REPORT_INIT;
	int rc;

	/* whatever a flip does, the answer is a model or a corrupt-input error */
	for (int round = 0; round < 400; round++) {
		memcpy(bad, good, len);
		for (int k = 0; k < 1 + round % 4; k++) {
			seed = seed * 1103515245u + 12345u;
			bad[(seed >> 8) % len] ^= (uint8_t)(1u << ((seed >> 4) % 8));
		}
		write_bytes(bad, len);
		rc = scs_shrink(&rep, in, out, NULL);
		scs_report_dispose(&rep);
		cr_assert(rc == SCS_OK || rc == SCS_ECORRUPT || rc == SCS_EUNSUPPORTED, "round %d: rc %d: %s", round, rc,
		    scs_err_msg());
		if (rc != SCS_OK)
			cr_assert_not(file_exists(out), "round %d: failed but wrote", round);
		unlink(out);
	}
	free(good);
	free(bad);
	free(src);
}

Test(bad_input, an_unnamed_initializer_under_forced_extraction, .init = setup, .fini = teardown)
{
	/* found by the fuzzer: a constant without a name was compared with the
	 * wanted name by strcmp(NULL, ...). ir_version 8, opset 13, a graph whose
	 * one initializer (float[2], raw_data) has no name. */
	static const uint8_t b[] = { 0x08, 0x08, 0x42, 0x02, 0x10, 0x0d, 0x3a, 0x10, 0x2a, 0x0e, 0x08, 0x02, 0x10, 0x01,
		0x4a, 0x08, 0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0x40 };
	static const char *const names[] = { "w" };
	scs_shrink_options o = SCS_SHRINK_OPTIONS_INIT;
	scs_report rep = SCS_REPORT_INIT;
	int rc;

	o.forced_constant_names = names;
	o.n_forced_constant_names = 1;
	write_bytes(b, sizeof(b));
	rc = scs_shrink(&rep, in, out, &o);
	cr_assert_eq(rc, SCS_OK, "rc %d: %s", rc, scs_err_msg());
	cr_assert_eq(rep.unexported.n, 1, "'w' is reported as not exported");
	cr_assert_str_eq(rep.unexported.items[0].name, "w");
	cr_assert_str_eq(rep.unexported.items[0].detail, "not a constant of the main graph");
	scs_report_dispose(&rep);
	cr_assert(file_exists(out));
}
