/*
 * test_pack.c: the protobuf writer (src/onnx/pack.c). Without payloads its bytes
 * are protobuf-c's own packing of the same message, field for field, but for
 * each graph's initializers, which come first, in runs (in_writer_order()
 * moves them in protobuf-c's bytes, which changes no length) (unknown
 * fields, packed and unpacked repeated fields, negative varints, oneofs,
 * nested graphs); with payloads, each referenced tensor carries raw_data
 * with the payload's bytes and never the private field, so a model of raw
 * tensors comes out as protobuf-c packs the model it was read from.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "model/model.h"
#include "onnx/dtype.h"
#include "onnx/pack.h"
#include "io/store.h"
#include "support.h"

/* ---- an output in memory ---- */

typedef struct mem_out {
	uint8_t *data;
	size_t len, cap;
	scs_payloads *set;        /* payload bytes come from here */
	size_t n_writes, n_payloads;
} mem_out;

static void
mem_add(mem_out *o, const void *data, size_t len)
{
	if (o->len + len > o->cap) {
		o->cap = (o->len + len) * 2 + 64;
		o->data = realloc(o->data, o->cap);
		cr_assert_not_null(o->data);
	}
	if (len)
		memcpy(o->data + o->len, data, len);
	o->len += len;
}

static int
mem_write(void *ctx, const void *data, size_t len)
{
	mem_out *o = ctx;

	o->n_writes++;
	mem_add(o, data, len);
	return SCS_OK;
}

static int
mem_payload(void *ctx, uint32_t id)
{
	mem_out *o = ctx;
	uint64_t len = o->set->items[id].key.len;
	uint8_t *bytes = malloc(len ? len : 1);
	int rc;

	cr_assert_not_null(bytes);
	o->n_payloads++;
	if ((rc = scs_payloads_read(o->set, id, 0, bytes, (size_t)len)) == SCS_OK)
		mem_add(o, bytes, (size_t)len);
	free(bytes);
	return rc;
}

/* @msg written by scs_pack_write() (payloads from @set) into @o. */
static int
pack_into(mem_out *o, const ProtobufCMessage *msg, scs_payloads *set)
{
	scs_pack_out out = { mem_write, mem_payload, o };

	memset(o, 0, sizeof(*o));
	o->set = set;
	return scs_pack_write(msg, set, &out);
}

/* @msg as protobuf-c packs it (malloc'd). */
static uint8_t *
protobuf_c_bytes(const ProtobufCMessage *msg, size_t *len)
{
	uint8_t *bytes;

	*len = protobuf_c_message_get_packed_size(msg);
	bytes = malloc(*len ? *len : 1);
	cr_assert_not_null(bytes);
	cr_assert_eq(protobuf_c_message_pack(msg, bytes), *len);
	return bytes;
}

/* ---- protobuf-c's bytes in the writer's order ---- */

/* The messages whose fields hold graphs, down to each graph's initializers. */
enum kind { LEAF, MODEL, TRAINING, FUNCTION, GRAPH, NODE, ATTRIBUTE };

static enum kind
kind_of_field(enum kind k, uint64_t num)
{
	switch (k) {
	case MODEL: return num == 7 ? GRAPH : num == 20 ? TRAINING : num == 25 ? FUNCTION : LEAF;
	case TRAINING: return num == 1 || num == 2 ? GRAPH : LEAF;
	case FUNCTION: return num == 7 ? NODE : LEAF;
	case GRAPH: return num == 1 ? NODE : LEAF;
	case NODE: return num == 5 ? ATTRIBUTE : LEAF;
	case ATTRIBUTE: return num == 6 || num == 11 ? GRAPH : LEAF;
	default: return LEAF;
	}
}

static uint64_t
get_varint(const uint8_t *p, size_t len, size_t *at)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		cr_assert_lt(*at, len, "a varint runs past its message");
		v |= (uint64_t)(p[*at] & 0x7f) << shift;
		if (!(p[(*at)++] & 0x80))
			return v;
	}
	cr_assert_fail("a varint longer than 10 bytes");
	return 0;
}

/* One field of a message: where it starts, where its value (of a length-delimited field) starts, its end. */
typedef struct wire_field {
	size_t start, value, end;
	uint64_t num;
	int delimited;
} wire_field;

static size_t
wire_fields(const uint8_t *p, size_t len, wire_field **out)
{
	size_t n = 0, at = 0;

	*out = NULL;
	while (at < len) {
		wire_field f = { .start = at };
		uint64_t tag = get_varint(p, len, &at), l;

		f.num = tag >> 3;
		switch (tag & 7) {
		case 0: get_varint(p, len, &at); break;
		case 1: at += 8; break;
		case 5: at += 4; break;
		case 2:
			l = get_varint(p, len, &at);
			f.delimited = 1;
			f.value = at;
			at += l;
			break;
		default: cr_assert_fail("wire type %u", (unsigned)(tag & 7));
		}
		cr_assert_leq(at, len, "a field runs past its message");
		f.end = at;
		*out = realloc(*out, (n + 1) * sizeof(**out));
		cr_assert_not_null(*out);
		(*out)[n++] = f;
	}
	return n;
}

static int
run_of_record(const uint8_t *p, const wire_field *f)
{
	Onnx__TensorProto *t = onnx__tensor_proto__unpack(NULL, f->end - f->value, p + f->value);
	int run;

	cr_assert_not_null(t, "an initializer protobuf-c packed does not unpack");
	run = scs_pack_init_run(t);
	onnx__tensor_proto__free_unpacked(t, NULL);
	return run;
}

static size_t in_writer_order(const uint8_t *p, size_t len, enum kind k, uint8_t *out);

static size_t
copy_field(const uint8_t *p, const wire_field *f, enum kind k, uint8_t *out)
{
	enum kind child = f->delimited ? kind_of_field(k, f->num) : LEAF;

	if (child == LEAF) {
		memcpy(out, p + f->start, f->end - f->start);
		return f->end - f->start;
	}
	memcpy(out, p + f->start, f->value - f->start);
	return f->value - f->start + in_writer_order(p + f->value, f->end - f->value, child, out + (f->value - f->start));
}

/*
 * Message @p of kind @k with every graph's fields in the order the writer
 * gives them (pack.h): a graph's initializers (field 5) first, run 0, 1, then
 * 2 (scs_pack_init_run()), each in its order, then its other fields as they
 * were. Moving fields changes no length, so @out holds @len bytes.
 */
static size_t
in_writer_order(const uint8_t *p, size_t len, enum kind k, uint8_t *out)
{
	wire_field *fs;
	size_t n = wire_fields(p, len, &fs), w = 0;

	if (k == GRAPH)
		for (int run = 0; run <= 2; run++)
			for (size_t i = 0; i < n; i++)
				if (fs[i].num == 5 && fs[i].delimited && run_of_record(p, &fs[i]) == run)
					w += copy_field(p, &fs[i], k, out + w);
	for (size_t i = 0; i < n; i++)
		if (!(k == GRAPH && fs[i].num == 5 && fs[i].delimited))
			w += copy_field(p, &fs[i], k, out + w);
	free(fs);
	cr_assert_eq(w, len);
	return w;
}

static enum kind
kind_of_message(const ProtobufCMessage *msg)
{
	return msg->descriptor == &onnx__model_proto__descriptor ? MODEL
	    : msg->descriptor == &onnx__graph_proto__descriptor  ? GRAPH
	    : msg->descriptor == &onnx__node_proto__descriptor   ? NODE
	    : msg->descriptor == &onnx__function_proto__descriptor ? FUNCTION
	    : LEAF;
}

/* @msg as protobuf-c packs it, its graphs' fields put in the writer's order (malloc'd). */
static uint8_t *
expected_bytes(const ProtobufCMessage *msg, size_t *len)
{
	uint8_t *pc = protobuf_c_bytes(msg, len), *out = malloc(*len ? *len : 1);

	cr_assert_not_null(out);
	in_writer_order(pc, *len, kind_of_message(msg), out);
	free(pc);
	return out;
}

/* The writer, with no payload in sight, writes what protobuf-c writes (in its order). */
static void
expect_as_protobuf_c(const ProtobufCMessage *msg, const char *what)
{
	scs_payloads none;
	mem_out o;
	uint8_t *want;
	size_t want_len;

	memset(&none, 0, sizeof(none));
	want = expected_bytes(msg, &want_len);
	cr_assert_eq(pack_into(&o, msg, &none), SCS_OK, "%s: %s", what, scs_err_msg());
	cr_assert_eq(o.len, want_len, "%s: %zu bytes written, protobuf-c packs %zu", what, o.len, want_len);
	cr_assert_eq(scs_pack_size(msg, &none), want_len, "%s: sized at %llu, protobuf-c packs %zu", what,
	    (unsigned long long)scs_pack_size(msg, &none), want_len);
	cr_assert_arr_eq(o.data, want, want_len, "%s: bytes differ from protobuf-c's", what);
	free(want);
	free(o.data);
}

/* ---- a model with every kind of field, built by hand ---- */

static ProtobufCMessageUnknownField
unknown(uint32_t tag, ProtobufCWireType wt, const char *data, size_t len)
{
	ProtobufCMessageUnknownField u = { tag, wt, len, (uint8_t *)data };

	return u;
}

Test(pack, writes_what_protobuf_c_packs_for_every_kind_of_field)
{
	Onnx__ModelProto model;
	Onnx__GraphProto graph, branch;
	Onnx__NodeProto node, inner, *nodes[1], *inner_nodes[1];
	Onnx__AttributeProto floats, ints, then_branch, tensor_attr, *attrs[4];
	Onnx__TensorProto t, init, *inits[1], *sparse_tensors[2];
	Onnx__SparseTensorProto sparse, *sparses[1];
	Onnx__StringStringEntryProto loc, *ext[1];
	Onnx__ValueInfoProto vi, *vis[1];
	Onnx__TypeProto type;
	Onnx__TypeProto__Tensor tt;
	Onnx__TensorShapeProto shape;
	Onnx__TensorShapeProto__Dimension d0, d1, *dims[2];
	Onnx__OperatorSetIdProto opset, *opsets[1];
	Onnx__FunctionProto fn, *fns[1];
	ProtobufCMessageUnknownField model_unknown[2], tensor_unknown[3], node_unknown[1];
	float fl[] = { 1.5f, -0.0f, 3e38f };
	int64_t in[] = { 0, -1, 300, INT64_MIN };
	int64_t tdims[] = { 2, 3 };
	int32_t i32[] = { -1, 127, 128, INT32_MIN };
	int64_t i64[] = { -2, 1LL << 40 };
	double dbl[] = { 0.1, -2.5 };
	uint64_t u64[] = { 0, UINT64_MAX };
	ProtobufCBinaryData strs[2] = { { 3, (uint8_t *)"abc" }, { 0, NULL } };
	int64_t sp_dims[] = { 10 };
	char *fn_inputs[] = { "x", "" };
	char big_doc[300];

	memset(big_doc, 'd', sizeof(big_doc) - 1);
	big_doc[sizeof(big_doc) - 1] = '\0';

	/* a tensor with packed repeated fields of every kind, negative varints and unknown fields */
	onnx__tensor_proto__init(&t);
	t.name = "typed";
	t.n_dims = 2;
	t.dims = tdims;
	t.has_data_type = 1;
	t.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
	t.n_float_data = 3;
	t.float_data = fl;
	t.n_int32_data = 4;
	t.int32_data = i32;
	t.n_int64_data = 2;
	t.int64_data = i64;
	t.n_double_data = 2;
	t.double_data = dbl;
	t.n_uint64_data = 2;
	t.uint64_data = u64;
	t.n_string_data = 2;
	t.string_data = strs;
	t.doc_string = "";
	t.has_data_location = 1;
	t.data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__DEFAULT;
	tensor_unknown[0] = unknown(100, PROTOBUF_C_WIRE_TYPE_VARINT, "\x96\x01", 2);
	tensor_unknown[1] = unknown(101, PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED, "\x03xyz", 4);
	tensor_unknown[2] = unknown(102, PROTOBUF_C_WIRE_TYPE_32BIT, "\x01\x02\x03\x04", 4);
	t.base.n_unknown_fields = 3;
	t.base.unknown_fields = tensor_unknown;

	/* an initializer with external data and empty raw_data that is present */
	onnx__tensor_proto__init(&init);
	init.name = "w";
	init.has_raw_data = 1;
	onnx__string_string_entry_proto__init(&loc);
	loc.key = "location";
	loc.value = "w.bin";
	ext[0] = &loc;
	init.n_external_data = 1;
	init.external_data = ext;
	init.has_data_location = 1;
	init.data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	inits[0] = &init;

	/* a sparse tensor */
	onnx__sparse_tensor_proto__init(&sparse);
	sparse_tensors[0] = &t;
	sparse_tensors[1] = &init;
	sparse.values = sparse_tensors[0];
	sparse.indices = sparse_tensors[1];
	sparse.n_dims = 1;
	sparse.dims = sp_dims;
	sparses[0] = &sparse;

	/* attributes: unpacked repeated floats and ints, a nested graph, a tensor */
	onnx__attribute_proto__init(&floats);
	floats.name = "fs";
	floats.has_type = 1;
	floats.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS;
	floats.n_floats = 3;
	floats.floats = fl;
	onnx__attribute_proto__init(&ints);
	ints.name = "is";
	ints.n_ints = 4;
	ints.ints = in;
	onnx__node_proto__init(&inner);
	inner.op_type = "Identity";
	inner.doc_string = big_doc;     /* a nested message whose length takes two bytes */
	inner_nodes[0] = &inner;
	onnx__graph_proto__init(&branch);
	branch.name = "then";
	branch.n_node = 1;
	branch.node = inner_nodes;
	onnx__attribute_proto__init(&then_branch);
	then_branch.name = "then_branch";
	then_branch.g = &branch;
	onnx__attribute_proto__init(&tensor_attr);
	tensor_attr.name = "value";
	tensor_attr.t = &t;
	attrs[0] = &floats;
	attrs[1] = &ints;
	attrs[2] = &then_branch;
	attrs[3] = &tensor_attr;
	onnx__node_proto__init(&node);
	node.op_type = "If";
	node.n_attribute = 4;
	node.attribute = attrs;
	node_unknown[0] = unknown(77, PROTOBUF_C_WIRE_TYPE_64BIT, "\1\2\3\4\5\6\7\10", 8);
	node.base.n_unknown_fields = 1;
	node.base.unknown_fields = node_unknown;
	nodes[0] = &node;

	/* a value with both members of a oneof in use across its dims */
	onnx__tensor_shape_proto__dimension__init(&d0);
	d0.value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
	d0.dim_value = -7;
	onnx__tensor_shape_proto__dimension__init(&d1);
	d1.value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
	d1.dim_param = "batch";
	dims[0] = &d0;
	dims[1] = &d1;
	onnx__tensor_shape_proto__init(&shape);
	shape.n_dim = 2;
	shape.dim = dims;
	onnx__type_proto__tensor__init(&tt);
	tt.has_elem_type = 1;
	tt.elem_type = 1;
	tt.shape = &shape;
	onnx__type_proto__init(&type);
	type.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	type.tensor_type = &tt;
	onnx__value_info_proto__init(&vi);
	vi.name = "x";
	vi.type = &type;
	vis[0] = &vi;

	onnx__graph_proto__init(&graph);
	graph.name = "main";
	graph.n_node = 1;
	graph.node = nodes;
	graph.n_initializer = 1;
	graph.initializer = inits;
	graph.n_sparse_initializer = 1;
	graph.sparse_initializer = sparses;
	graph.n_input = 1;
	graph.input = vis;

	onnx__function_proto__init(&fn);
	fn.name = "f";
	fn.n_input = 2;
	fn.input = fn_inputs;
	fn.n_node = 1;
	fn.node = inner_nodes;

	onnx__operator_set_id_proto__init(&opset);
	opset.domain = "";
	opset.has_version = 1;
	opset.version = 21;
	opsets[0] = &opset;
	fns[0] = &fn;
	onnx__model_proto__init(&model);
	model.has_ir_version = 1;
	model.ir_version = 10;
	model.n_opset_import = 1;
	model.opset_import = opsets;
	model.producer_name = "test";
	model.graph = &graph;
	model.n_functions = 1;
	model.functions = fns;
	model_unknown[0] = unknown(999, PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED, "\x02hi", 3);
	model_unknown[1] = unknown(3, PROTOBUF_C_WIRE_TYPE_VARINT, "\x01", 1);   /* a known number with an unknown wire type */
	model.base.n_unknown_fields = 2;
	model.base.unknown_fields = model_unknown;

	expect_as_protobuf_c(&t.base, "the tensor");
	expect_as_protobuf_c(&node.base, "the node");
	expect_as_protobuf_c(&model.base, "the model");
}

/*
 * A graph lists its initializers before its nodes, large ones first (64 KiB
 * of elements: run 0, or 1 for int64 and int32), each run in the graph's
 * order; strings, unknown types and unknown or zero dims are small.
 */
Test(pack, a_graph_lists_its_initializers_first_in_runs)
{
	enum { N = 9 };
	static const int32_t types[N] = { SCS_DT_FLOAT, SCS_DT_INT64, SCS_DT_FLOAT, SCS_DT_INT32, SCS_DT_UINT8,
		SCS_DT_STRING, SCS_DT_FLOAT, 99, SCS_DT_BFLOAT16 };
	/* elements of each: 16 K floats (64 KiB), 8 K int64, 16 K - 1 floats, 16 K int32, 64 K uint8, strings, a zero dim, unknown type, 32 K bf16 */
	static const int64_t dims[N][2] = { { 128, 128 }, { 8, 1024 }, { 16383, 1 }, { 16384, 1 }, { 256, 256 },
		{ 70000, 1 }, { 0, 1 << 20 }, { 1 << 20, 1 }, { 256, 128 } };
	static const int want_run[N] = { 0, 1, 2, 1, 0, 2, 2, 2, 0 };
	static const char *const want_order[N] = { "t0", "t4", "t8", "t1", "t3", "t2", "t5", "t6", "t7" };
	Onnx__ModelProto model = ONNX__MODEL_PROTO__INIT, *back;
	Onnx__GraphProto graph = ONNX__GRAPH_PROTO__INIT;
	Onnx__NodeProto node = ONNX__NODE_PROTO__INIT, *nodes[1] = { &node };
	Onnx__TensorProto ts[N], *inits[N];
	char names[N][4];
	char *in[1] = { "t0" }, *out[1] = { "y" };
	scs_payloads none;
	mem_out o;
	size_t at;

	for (int i = 0; i < N; i++) {
		onnx__tensor_proto__init(&ts[i]);
		snprintf(names[i], sizeof(names[i]), "t%d", i);
		ts[i].name = names[i];
		ts[i].has_data_type = 1;
		ts[i].data_type = types[i];
		ts[i].n_dims = 2;
		ts[i].dims = (int64_t *)dims[i];
		inits[i] = &ts[i];
		cr_assert_eq(scs_pack_init_run(&ts[i]), want_run[i], "t%d is in run %d", i, scs_pack_init_run(&ts[i]));
	}
	node.op_type = "Identity";
	node.n_input = 1;
	node.input = in;
	node.n_output = 1;
	node.output = out;
	graph.name = "g";
	graph.n_node = 1;
	graph.node = nodes;
	graph.n_initializer = N;
	graph.initializer = inits;
	model.has_ir_version = 1;
	model.ir_version = 8;
	model.graph = &graph;
	expect_as_protobuf_c(&model.base, "the model of nine initializers");

	memset(&none, 0, sizeof(none));
	cr_assert_eq(pack_into(&o, &model.base, &none), SCS_OK);
	at = 3;    /* past ir_version (2 bytes) and the graph's tag */
	cr_assert(o.data[0] == 0x08 && o.data[2] == 0x3a);
	get_varint(o.data, o.len, &at);
	cr_assert_eq(o.data[at], (5 << 3) | 2, "the graph's first field is not an initializer");
	back = onnx__model_proto__unpack(NULL, o.len, o.data);
	cr_assert_not_null(back);
	cr_assert_eq(back->graph->n_initializer, N);
	for (int i = 0; i < N; i++)
		cr_assert_str_eq(back->graph->initializer[i]->name, want_order[i], "initializer %d", i);
	onnx__model_proto__free_unpacked(back, NULL);
	free(o.data);
}

/* Every model the suites read, as protobuf-c reads it, comes out as protobuf-c packs it. */
Test(pack, writes_every_fixture_as_protobuf_c_packs_it)
{
	static const char *const names[] = {
		"tiny.onnx", "encodings.onnx", "slice.onnx", "unsorted.onnx", "dead_end.onnx", "dup_basic.onnx",
		"dup_encodings.onnx", "external.onnx", "if_outer.onnx", "loop_dup.onnx", "nested_if.onnx",
		"shadow.onnx", "func_dup.onnx", "gather_typed.onnx", "many_small_ext.onnx", "opt_function.onnx",
		"fold_nested.onnx", "bn_nested.onnx",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *path = fixture(names[i]);
		Onnx__ModelProto *p = load_proto(path);

		cr_assert_not_null(p, "%s does not parse", path);
		expect_as_protobuf_c(&p->base, names[i]);
		free_proto(p);
		free(path);
	}
}

/* ---- payloads ---- */

static scs_store *st;

static void
open_store(void)
{
	scratch_setup();
	cr_assert_eq(scs_store_open(&st, NULL, scratch_dir), SCS_OK, "%s", scs_err_msg());
}

static void
close_store(void)
{
	scs_store_close(st);
	scratch_teardown();
}

static int
no_private_field(void *ctx, Onnx__TensorProto *t)
{
	(void)ctx;
	return t->has_scs_payload;
}

/*
 * A model whose tensors hold raw_data: read by the scanner, every payload is
 * a reference; written, it is byte for byte what protobuf-c packs from the
 * file as protobuf-c reads it, and no tensor carries the private field.
 */
Test(pack, writes_payloads_as_raw_data_and_never_the_private_field, .init = open_store, .fini = close_store)
{
	static const char *const names[] = { "dup_basic.onnx", "nested_if.onnx", "func_dup.onnx", "many_small.onnx" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *path = fixture(names[i]);
		Onnx__ModelProto *p = load_proto(path), *back;
		scs_pack_plan *plan;
		scs_model *m;
		mem_out o;
		uint8_t *want;
		size_t want_len;

		cr_assert_not_null(p, "%s does not parse", path);
		want = expected_bytes(&p->base, &want_len);
		cr_assert_eq(scs_model_load(&m, path, st, NULL), SCS_OK, "%s", scs_err_msg());
		cr_assert_eq(pack_into(&o, &m->proto->base, m->payloads), SCS_OK, "%s: %s", names[i], scs_err_msg());
		cr_assert_gt(o.n_payloads, 0, "%s: no payload was written", names[i]);
		cr_assert_eq(o.len, want_len, "%s: %zu bytes written, protobuf-c packs %zu", names[i], o.len, want_len);
		cr_assert_eq(scs_pack_size(&m->proto->base, m->payloads), want_len, "%s: sized wrong", names[i]);
		cr_assert_eq(scs_pack_plan_make(&plan, &m->proto->base, m->payloads), SCS_OK, "%s", scs_err_msg());
		cr_assert_eq(scs_pack_plan_len(plan), want_len, "%s: planned wrong", names[i]);
		scs_pack_plan_free(plan);
		cr_assert_arr_eq(o.data, want, want_len, "%s: bytes differ", names[i]);
		back = onnx__model_proto__unpack(NULL, o.len, o.data);
		cr_assert_not_null(back);
		cr_assert_eq(scs_walk_tensors(&back->base, no_private_field, NULL), 0, "%s: a tensor was written with its id",
		    names[i]);
		onnx__model_proto__free_unpacked(back, NULL);
		scs_model_free(m);
		free_proto(p);
		free(want);
		free(o.data);
		free(path);
	}
}

/* Nothing is written for a reference the set does not hold: the sizing pass finds it first. */
Test(pack, a_reference_past_the_set_is_refused_before_a_byte_is_written)
{
	Onnx__TensorProto t;
	scs_payloads none;
	mem_out o;

	memset(&none, 0, sizeof(none));
	onnx__tensor_proto__init(&t);
	t.name = "lost";
	t.has_scs_payload = 1;
	t.scs_payload = ((uint64_t)1 << 32) + 5;
	cr_assert_eq(pack_into(&o, &t.base, &none), SCS_ECORRUPT);
	cr_assert_not_null(strstr(scs_err_msg(), "'lost'"), "message was: %s", scs_err_msg());
	cr_assert_not_null(strstr(scs_err_msg(), "4294967301"), "message was: %s", scs_err_msg());
	cr_assert_eq(o.n_writes, 0, "%zu writes", o.n_writes);
	free(o.data);
}

/* An id is a value of the skeleton: a copy keeps it, past 2^32 too. */
Test(pack, a_copy_keeps_payload_ids_past_32_bits, .init = open_store, .fini = close_store)
{
	char *path = fixture("tiny.onnx");
	Onnx__TensorProto t, *copy;
	scs_model *m;

	cr_assert_eq(scs_model_load(&m, path, st, NULL), SCS_OK, "%s", scs_err_msg());
	onnx__tensor_proto__init(&t);
	t.name = "far";
	t.has_scs_payload = 1;
	t.scs_payload = ((uint64_t)1 << 32) + 7;
	copy = (Onnx__TensorProto *)scs_model_copy(m, &t.base);
	cr_assert_not_null(copy, "%s", scs_err_msg());
	cr_assert_eq(copy->has_scs_payload, 1);
	cr_assert_eq(copy->scs_payload, ((uint64_t)1 << 32) + 7, "copied as %llu", (unsigned long long)copy->scs_payload);
	cr_assert_eq(copy->has_raw_data, 0);
	scs_model_free_message(m, &copy->base);
	scs_model_free(m);
	free(path);
}
