/*
 * transposed_readers.c: the readers of a constant that another constant
 * holds transposed (see pass.h). A MatMul reading the copy as its weight
 * becomes a Gemm of the kept constant with transB=1 (Reshapes around it for
 * an activation of rank 3 and more): ONNX Runtime computes that bit for bit
 * like the MatMul at every optimization level, where a MatMul of a
 * Transpose node does not. A reader that only moves data, or computes
 * element by element, reads a Transpose node of the kept constant that
 * takes the copy's name. Anything else is refused, as is a MatMul that one
 * of ONNX Runtime's fusions would take elsewhere than the Gemm.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "onnx/attr.h"
#include "onnx/dtype.h"
#include "onnx/ortkernels.h"
#include "model/array.h"
#include "model/graph.h"
#include "model/scope.h"
#include "shrink/pass.h"

/* Readers that read the copy through a Transpose node: they move data or
 * compute element by element, so whether an input is a stored constant does
 * not change their results. */
static const char *const moves[] = {
	"Gather", "GatherElements", "GatherND", "Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze",
	"Slice", "Concat", "Expand", "Add", "Sub", "Mul", "Div", "Cast",
};

/* Lowest opset of the Gemm form: Gemm without its C input. */
#define GEMM_MIN_OPSET 11

typedef struct reader {
	Onnx__NodeProto *node;
	int gemm;                 /* 1: a MatMul that becomes a Gemm */
	int rank;                 /* its A input's rank */
} reader;

typedef struct plan {
	scs_model *m;
	Onnx__GraphProto *g;
	const char *copy;
	int dtype;
	const int64_t *dims;
	int64_t opset;
	const scs_transposed_shapes *shapes;
	scs_scopes scopes;        /* built when a rank is looked for in an enclosing scope */
	int scopes_built;
	reader *r;
	size_t n;
	int moves;                /* readers through the Transpose node */
} plan;

static int
is_move(const char *op)
{
	for (size_t i = 0; i < sizeof(moves) / sizeof(moves[0]); i++)
		if (strcmp(op, moves[i]) == 0)
			return 1;
	return 0;
}

static const char *
node_label(const Onnx__NodeProto *n)
{
	return n->name && n->name[0] ? n->name : n->n_output ? n->output[0] : "";
}

/* The node of @g whose output is @name, or NULL. */
static Onnx__NodeProto *
producer(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_node; i++)
		for (size_t j = 0; j < g->node[i]->n_output; j++)
			if (strcmp(g->node[i]->output[j], name) == 0)
				return g->node[i];
	return NULL;
}

static int
reads(const Onnx__NodeProto *n, const char *name)
{
	for (size_t j = 0; j < n->n_input; j++)
		if (strcmp(n->input[j], name) == 0)
			return 1;
	return 0;
}

/* The declared rank of @name in @list (dims into @dims, -1 where unknown), or -1. */
static int
declared_in(Onnx__ValueInfoProto **list, size_t n, const char *name, int64_t *dims, int max)
{
	for (size_t i = 0; i < n; i++) {
		Onnx__TensorShapeProto *s;

		if (!list[i]->name || strcmp(list[i]->name, name) != 0)
			continue;
		if (!list[i]->type || !list[i]->type->tensor_type || !(s = list[i]->type->tensor_type->shape))
			return -1;
		if (s->n_dim > (size_t)max)
			return -1;
		for (size_t k = 0; k < s->n_dim; k++)
			dims[k] = s->dim[k]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE ?
			    s->dim[k]->dim_value : -1;
		return (int)s->n_dim;
	}
	return -1;
}

/* The declared shape of @name in graph @g. */
static int
declared(const Onnx__GraphProto *g, const char *name, int64_t *dims, int max)
{
	int rank;

	if ((rank = declared_in(g->input, g->n_input, name, dims, max)) >= 0)
		return rank;
	if ((rank = declared_in(g->value_info, g->n_value_info, name, dims, max)) >= 0)
		return rank;
	return declared_in(g->output, g->n_output, name, dims, max);
}

/* The rank of @name (dims into @dims): from the caller's shapes, else
 * declared in @p->g or, for a name of an enclosing scope, there; -1 when
 * unknown, < -1 on error. */
static int
shape_of(plan *p, const char *name, int64_t *dims, int max)
{
	int rank, s;

	if (p->shapes && p->shapes->fn && (rank = p->shapes->fn(p->shapes->ctx, name, dims, max)) >= 0)
		return rank;
	if ((rank = declared(p->g, name, dims, max)) >= 0 || producer(p->g, name))
		return rank;
	if (!p->scopes_built) {
		if ((rank = scs_scopes_build(&p->scopes, p->m->proto)) < 0)
			return rank;
		p->scopes_built = 1;
	}
	for (s = scs_scopes_of(&p->scopes, p->g); s >= 0; s = p->scopes.items[s].parent) {
		const scs_scope *sc = &p->scopes.items[s];

		if (sc->graph == NULL)
			break;
		if (sc->graph != p->g && (rank = declared(sc->graph, name, dims, max)) >= 0)
			return rank;
		if (scs_strmap_get(&sc->defs, name, NULL) && sc->graph != p->g)
			return -1;              /* defined there, not declared */
	}
	return -1;
}

/* ONNX Runtime fuses the MatMul @n with what makes its A input or reads its
 * output (MatMulAddFusion, MatMulScaleFusion, MatMulTransposeFusion,
 * MatMulBNFusion): 1 and the reason in @why. Refuses every such pattern
 * whatever its constants, which is more than the runtime fuses. */
static int
fused(const plan *p, const Onnx__NodeProto *n, char *why, size_t why_len)
{
	const Onnx__GraphProto *g = p->g;
	const Onnx__NodeProto *a = producer(g, n->input[0]);

	if (a && (strcmp(a->op_type, "Transpose") == 0 || strcmp(a->op_type, "Mul") == 0 ||
	    strcmp(a->op_type, "Div") == 0)) {
		snprintf(why, why_len, "node '%.200s' (MatMul) reads the output of %s node '%.200s', which ONNX Runtime "
		    "fuses into it", node_label(n), a->op_type, node_label(a));
		return 1;
	}
	if (a && strcmp(a->op_type, "Cast") == 0 && a->n_input > 0 && (a = producer(g, a->input[0])) != NULL &&
	    strcmp(a->op_type, "Transpose") == 0) {
		snprintf(why, why_len, "node '%.200s' (MatMul) reads a Cast of Transpose node '%.200s', which ONNX Runtime "
		    "fuses into it", node_label(n), node_label(a));
		return 1;
	}
	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *r = g->node[i];
		const char *op = r->op_type;

		if (!reads(r, n->output[0]))
			continue;
		if (strcmp(op, "Add") == 0 || strcmp(op, "Mul") == 0 || strcmp(op, "Div") == 0 ||
		    strcmp(op, "BatchNormalization") == 0) {
			snprintf(why, why_len, "node '%.200s' (MatMul) is read by %s node '%.200s', which ONNX Runtime fuses "
			    "with it", node_label(n), op, node_label(r));
			return 1;
		}
		if (strcmp(op, "Reshape") == 0) {
			for (size_t k = 0; k < g->n_node; k++)
				if (strcmp(g->node[k]->op_type, "BatchNormalization") == 0 && reads(g->node[k], r->output[0])) {
					snprintf(why, why_len, "node '%.200s' (MatMul) is read through Reshape node '%.200s' by "
					    "BatchNormalization node '%.200s', which ONNX Runtime fuses with it", node_label(n),
					    node_label(r), node_label(g->node[k]));
					return 1;
				}
		}
	}
	return 0;
}

/* May MatMul @n (reading the copy as B) become a Gemm? 1 with its A input's
 * rank in *rank; 0 with the reason in @why. */
static int
gemm_ok(plan *p, const Onnx__NodeProto *n, int *rank, char *why, size_t why_len)
{
	const scs_ortkernel *k;
	int64_t dims[SCS_TRANSPOSED_MAX_RANK];
	int types[SCS_ORTK_MAX_TV] = { 0 };

	if (p->dtype != SCS_DT_FLOAT && p->dtype != SCS_DT_FLOAT16) {
		snprintf(why, why_len, "node '%.200s' (MatMul) reads it as %s, for which a Gemm is not known to compute "
		    "what the MatMul does in ONNX Runtime", node_label(n), scs_dtype_name(p->dtype));
		return 0;
	}
	if (p->opset < GEMM_MIN_OPSET) {
		snprintf(why, why_len, "node '%.200s' (MatMul): the model imports opset %lld, below %d where Gemm's C "
		    "input became optional", node_label(n), (long long)p->opset, GEMM_MIN_OPSET);
		return 0;
	}
	/* float16: the runtime casts around the MatMul and the Gemm alike */
	types[0] = p->dtype == SCS_DT_FLOAT16 ? SCS_DT_FLOAT : p->dtype;
	if (scs_ortkernel_lookup(&k, "", "Gemm", p->opset) != SCS_ORTK_FOUND || !scs_ortkernel_has(k, types)) {
		snprintf(why, why_len, "node '%.200s' (MatMul): ONNX Runtime has no Gemm kernel for %s at opset %lld",
		    node_label(n), scs_dtype_name(p->dtype), (long long)p->opset);
		return 0;
	}
	if (n->n_input != 2 || n->n_output != 1 || !n->input[0][0] || strcmp(n->input[0], p->copy) == 0) {
		snprintf(why, why_len, "node '%.200s' (MatMul) reads it as both inputs or has other inputs",
		    node_label(n));
		return 0;
	}
	if (fused(p, n, why, why_len))
		return 0;
	if ((*rank = shape_of(p, n->input[0], dims, SCS_TRANSPOSED_MAX_RANK)) < -1)
		return *rank;
	if (*rank < 2) {
		snprintf(why, why_len, "node '%.200s' (MatMul): the rank of its input '%.200s' is %s", node_label(n),
		    n->input[0], *rank < 0 ? "unknown" : "below 2");
		return 0;
	}
	/* below opset 14 Reshape copies a 0 of its shape from the input: the
	 * dims between the first and the last must be known and not 0 */
	for (int d = 1; p->opset < 14 && d + 1 < *rank; d++)
		if (dims[d] <= 0) {
			snprintf(why, why_len, "node '%.200s' (MatMul): dim %d of its input '%.200s' is %s, and Reshape "
			    "before opset 14 takes a 0 for the input's dim", node_label(n), d, n->input[0],
			    dims[d] < 0 ? "unknown" : "0");
			return 0;
		}
	return 1;
}

/* A node of a nested graph of @n reads @name from the outer scope. */
static int
reads_nested(const Onnx__NodeProto *n, const char *name, int *out)
{
	scs_names names = { 0 };
	int rc;

	*out = 0;
	if ((rc = scs_node_reads(n, &names)) < 0) {
		free(names.items);
		return rc;
	}
	for (size_t i = 0; i < names.n; i++)
		if (strcmp(names.items[i], name) == 0)
			*out = !reads(n, name);
	free(names.items);
	return SCS_OK;
}

static void
plan_dispose(plan *p)
{
	if (p->scopes_built)
		scs_scopes_dispose(&p->scopes);
	free(p->r);
}

/* Study every reader of the copy: 1 when all can be rewritten (the list in
 * @p), 0 with the reason in @why, < 0 on error. */
static int
make_plan(plan *p, char *why, size_t why_len)
{
	Onnx__GraphProto *g = p->g;
	int rc;

	p->opset = scs_model_opset(p->m->proto, "");
	for (size_t i = 0; i < g->n_output; i++)
		if (g->output[i]->name && strcmp(g->output[i]->name, p->copy) == 0) {
			snprintf(why, why_len, "it is an output of the graph");
			return 0;
		}
	for (size_t i = 0; i < g->n_input; i++)
		if (g->input[i]->name && strcmp(g->input[i]->name, p->copy) == 0) {
			snprintf(why, why_len, "it is an input of the graph");
			return 0;
		}
	if (p->dims[0] <= 0 || p->dims[1] <= 0) {
		snprintf(why, why_len, "it holds no element");
		return 0;
	}
	if ((p->r = calloc(g->n_node ? g->n_node : 1, sizeof(*p->r))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate the reader list");
	for (size_t i = 0; i < g->n_node; i++) {
		Onnx__NodeProto *n = g->node[i];
		reader *r = &p->r[p->n];
		int nested;

		if (!reads(n, p->copy)) {
			if (n->n_attribute && (rc = reads_nested(n, p->copy, &nested)) < 0)
				return rc;
			if (n->n_attribute && nested) {
				snprintf(why, why_len, "node '%.200s' (%s) reads it in a nested graph", node_label(n), n->op_type);
				return 0;
			}
			continue;
		}
		if (scs_is_onnx_domain(n->domain) && strcmp(n->op_type, "MatMul") == 0 && n->n_input == 2 &&
		    strcmp(n->input[1], p->copy) == 0) {
			if ((rc = gemm_ok(p, n, &r->rank, why, why_len)) <= 0)
				return rc;
			r->gemm = 1;
		} else if (scs_is_onnx_domain(n->domain) && is_move(n->op_type)) {
			p->moves = 1;
		} else {
			snprintf(why, why_len, "node '%.200s' (%s) reads it, and only MatMul (as B) and data movement or "
			    "element-wise nodes can read the kept constant", node_label(n), n->op_type);
			return 0;
		}
		r->node = n;
		p->n++;
	}
	return 1;
}

int
scs_transposed_readers_check(scs_model *m, Onnx__GraphProto *g, const char *copy, int dtype, const int64_t dims[2],
    const scs_transposed_shapes *shapes, char *why, size_t why_len)
{
	plan p = { .m = m, .g = g, .copy = copy, .dtype = dtype, .dims = dims, .shapes = shapes };
	int rc;

	if (why_len)
		why[0] = 0;
	rc = make_plan(&p, why, why_len);
	plan_dispose(&p);
	return rc;
}

/* ---- the rewrite ---- */

typedef struct names {
	scs_scopes scopes;
	scs_strmap taken;         /* node names of the model and names given out (keys borrowed) */
} names;

static int
taken(void *ctx, const char *name)
{
	names *nm = ctx;

	return scs_strmap_get(&nm->taken, name, NULL) || scs_scopes_defined_anywhere(&nm->scopes, name);
}

/* A fresh name "@base@what" (or with _1, _2, ...), taken from now on; NULL on ENOMEM. */
static char *
fresh(names *nm, const char *base, const char *what)
{
	char *want, *got;
	size_t len = strlen(base) + strlen(what) + 1;

	if ((want = malloc(len)) == NULL)
		return NULL;
	snprintf(want, len, "%s%s", base, what);
	got = scs_fresh_name(want, "_", taken, nm, 1);
	free(want);
	if (got && scs_strmap_put(&nm->taken, got, 1) < 0) {
		free(got);
		return NULL;
	}
	return got;
}

/* A new default-domain node taking ownership of the malloc'd @name and
 * @outputs[0]; the inputs are copied. NULL on ENOMEM (@name and @out freed). */
static Onnx__NodeProto *
node_new(const char *op, char *name, const char *const *inputs, size_t n_inputs, char *out)
{
	Onnx__NodeProto *n = malloc(sizeof(*n));
	int ok = 1;

	if (n == NULL) {
		free(name);
		free(out);
		return NULL;
	}
	onnx__node_proto__init(n);
	n->name = name;
	n->op_type = strdup(op);
	n->input = calloc(n_inputs ? n_inputs : 1, sizeof(*n->input));
	n->output = malloc(sizeof(*n->output));
	if (n->input)
		for (; n->n_input < n_inputs && ok; n->n_input++)
			ok = (n->input[n->n_input] = strdup(inputs[n->n_input])) != NULL;
	if (n->output) {
		n->output[0] = out;
		n->n_output = 1;
	} else {
		free(out);
	}
	if (!ok || !name || !n->op_type || !n->input || !n->output || !out) {
		protobuf_c_message_free_unpacked(&n->base, NULL);
		return NULL;
	}
	return n;
}

/* A Constant node of @v (rank 1) named after @base: int64, or int32 when @narrow (Slice's
 * indices, as the lossless downcast would leave them: a second run then changes nothing). */
static Onnx__NodeProto *
ints_node_of(names *nm, const char *base, const char *what, const int64_t *v, size_t len, int narrow)
{
	size_t esize = narrow ? 4 : 8;
	Onnx__NodeProto *n = node_new("Constant", fresh(nm, base, what), NULL, 0, fresh(nm, base, what));
	Onnx__AttributeProto *a = scs_attr_new("value", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR);
	Onnx__TensorProto *t = malloc(sizeof(*t));

	if (n == NULL || a == NULL || t == NULL)
		goto fail;
	onnx__tensor_proto__init(t);
	a->t = t;
	t->has_data_type = 1;
	t->data_type = narrow ? SCS_DT_INT32 : SCS_DT_INT64;
	/* raw_data, little-endian: the form every writer of ours gives a payload, so a second run writes the same bytes */
	if ((t->dims = malloc(sizeof(*t->dims))) == NULL || (t->raw_data.data = malloc(len * esize + 1)) == NULL)
		goto fail;
	t->dims[0] = (int64_t)len;
	t->n_dims = 1;
	for (size_t i = 0; i < len; i++)
		for (size_t b = 0; b < esize; b++)
			t->raw_data.data[i * esize + b] = (uint8_t)((uint64_t)v[i] >> (8 * b));
	t->raw_data.len = len * esize;
	t->has_raw_data = 1;
	if (scs_attr_put(n, a) < 0) {
		protobuf_c_message_free_unpacked(&n->base, NULL);
		return NULL;
	}
	return n;
fail:
	if (a)
		protobuf_c_message_free_unpacked(&a->base, NULL);
	if (n)
		protobuf_c_message_free_unpacked(&n->base, NULL);
	return NULL;
}

static Onnx__NodeProto *
ints_node(names *nm, const char *base, const char *what, const int64_t *v, size_t len)
{
	return ints_node_of(nm, base, what, v, len, 0);
}

/* Replace the string *@slot of the tree with a copy of @s. */
static int
set_str(char **slot, const char *s)
{
	char *copy = strdup(s);

	if (copy == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot copy a name");
	scs_arena_release(*slot);
	*slot = copy;
	return SCS_OK;
}

/* The node list being built: nodes added here are the list's until it
 * replaces the graph's (the graph's own nodes are only borrowed). */
typedef struct list {
	Onnx__NodeProto **items;
	unsigned char *mine;      /* 1: made here, freed on failure */
	size_t n, cap;
} list;

static int
push(list *l, Onnx__NodeProto *n, int mine)
{
	if (n == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot make a node");
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		Onnx__NodeProto **items = realloc(l->items, cap * sizeof(*items));
		unsigned char *m = items ? realloc(l->mine, cap) : NULL;

		if (items)
			l->items = items;
		if (m == NULL) {
			if (mine)
				protobuf_c_message_free_unpacked(&n->base, NULL);
			return scs_err_set(SCS_ENOMEM, "cannot grow a node list");
		}
		l->mine = m;
		l->cap = cap;
	}
	l->items[l->n] = n;
	l->mine[l->n++] = (unsigned char)mine;
	return SCS_OK;
}

static int
push_new(list *l, Onnx__NodeProto *n)
{
	return push(l, n, 1);
}

/* The Transpose node of @kept named @copy. */
static int
push_transpose(list *l, names *nm, const char *copy, const char *kept)
{
	static const int64_t perm[2] = { 1, 0 };
	Onnx__NodeProto *t;
	char *out = strdup(copy);
	int rc;

	if ((t = node_new("Transpose", fresh(nm, copy, "/Transpose"), &kept, 1, out)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot make a node");
	if ((rc = scs_attr_put_ints(t, "perm", perm, 2)) < 0) {
		protobuf_c_message_free_unpacked(&t->base, NULL);
		return rc;
	}
	return push_new(l, t);
}

/*
 * MatMul @n (A of rank @rank, B the copy) as Gemm(A', kept, transB=1): in
 * place for rank 2; for rank 3 and more, A' = Reshape(A, [-1, K]) and the
 * Gemm's output reshaped to A's leading dims and N under the MatMul's
 * output name. Pushes the nodes before the Gemm, the Gemm, then those after.
 */
static int
push_gemm(list *l, names *nm, const plan *p, Onnx__NodeProto *n, int rank, const char *kept)
{
	const char *base = node_label(n), *in[3];
	int64_t k_shape[2] = { -1, p->dims[0] }, n_dim = p->dims[1], zero = 0, last = -1;
	Onnx__NodeProto *c_in, *reshape_in, *shape, *c_n, *concat, *back, *c_s = NULL, *c_e = NULL, *slice = NULL;
	char *flat, *out, *lead;
	int rc;

	if ((rc = set_str(&n->op_type, "Gemm")) < 0 || (rc = set_str(&n->input[1], kept)) < 0 ||
	    (rc = scs_attr_put_int(n, "transB", 1)) < 0)
		return rc;
	if (rank == 2)
		return push(l, n, 0);
	/* A' = Reshape(A, [-1, K]) */
	if ((rc = push_new(l, c_in = ints_node(nm, base, "/gemm_in_shape", k_shape, 2))) < 0)
		return rc;
	in[0] = n->input[0];
	in[1] = c_in->output[0];
	if ((flat = fresh(nm, base, "/gemm_in")) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot make a name");
	if ((rc = push_new(l, reshape_in = node_new("Reshape", fresh(nm, base, "/gemm_in_reshape"), in, 2, flat))) < 0)
		return rc;
	/* the shape back: A's dims but the last, then N */
	in[0] = n->input[0];
	if ((lead = fresh(nm, base, p->opset >= 15 ? "/gemm_lead" : "/gemm_a_shape")) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot make a name");
	if ((rc = push_new(l, shape = node_new("Shape", fresh(nm, base, "/gemm_shape"), in, 1, lead))) < 0)
		return rc;
	if (p->opset >= 15) {
		if ((rc = scs_attr_put_int(shape, "start", 0)) < 0 || (rc = scs_attr_put_int(shape, "end", -1)) < 0)
			return rc;
	} else {
		if ((rc = push_new(l, c_s = ints_node_of(nm, base, "/gemm_lead_start", &zero, 1, 1))) < 0 ||
		    (rc = push_new(l, c_e = ints_node_of(nm, base, "/gemm_lead_end", &last, 1, 1))) < 0)
			return rc;
		in[0] = shape->output[0];
		in[1] = c_s->output[0];
		in[2] = c_e->output[0];
		if ((lead = fresh(nm, base, "/gemm_lead")) == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot make a name");
		if ((rc = push_new(l, slice = node_new("Slice", fresh(nm, base, "/gemm_lead_slice"), in, 3, lead))) < 0)
			return rc;
	}
	if ((rc = push_new(l, c_n = ints_node(nm, base, "/gemm_n", &n_dim, 1))) < 0)
		return rc;
	in[0] = slice ? slice->output[0] : shape->output[0];
	in[1] = c_n->output[0];
	if ((out = fresh(nm, base, "/gemm_out_shape")) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot make a name");
	if ((rc = push_new(l, concat = node_new("Concat", fresh(nm, base, "/gemm_out_concat"), in, 2, out))) < 0 ||
	    (rc = scs_attr_put_int(concat, "axis", 0)) < 0)
		return rc;
	/* the Gemm reads A' and writes a fresh name; the Reshape back takes the MatMul's output name */
	if ((rc = set_str(&n->input[0], reshape_in->output[0])) < 0 || (rc = push(l, n, 0)) < 0)
		return rc;
	if ((out = fresh(nm, base, "/gemm_out")) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot make a name");
	in[0] = out;
	in[1] = concat->output[0];
	back = node_new("Reshape", fresh(nm, base, "/gemm_out_reshape"), in, 2, strdup(n->output[0]));
	if (back == NULL) {
		free(out);
		return scs_err_set(SCS_ENOMEM, "cannot make a node");
	}
	scs_arena_release(n->output[0]);
	n->output[0] = out;
	if ((rc = push_new(l, back)) < 0)
		return rc;
	return p->opset >= 14 ? scs_attr_put_int(back, "allowzero", 1) : SCS_OK;
}

static int
names_init(names *nm, scs_model *m)
{
	int rc;

	memset(nm, 0, sizeof(*nm));
	if ((rc = scs_scopes_build(&nm->scopes, m->proto)) < 0)
		return rc;
	for (size_t s = 0; s < nm->scopes.n; s++) {
		size_t *n;
		Onnx__NodeProto **nodes = *scs_scope_nodes(&nm->scopes.items[s], &n);

		for (size_t i = 0; i < *n; i++)
			if (nodes[i]->name && nodes[i]->name[0] && (rc = scs_strmap_put(&nm->taken, nodes[i]->name, 1)) < 0)
				return rc;
	}
	return SCS_OK;
}

int
scs_transposed_readers_rewrite(scs_model *m, Onnx__GraphProto *g, const char *copy, const char *kept, int dtype,
    const int64_t dims[2], const scs_transposed_shapes *shapes)
{
	plan p = { .m = m, .g = g, .copy = copy, .dtype = dtype, .dims = dims, .shapes = shapes };
	char why[512];
	names nm;
	list l = { 0 };
	size_t kept_at = g->n_node, first = g->n_node, ri = 0;
	int rc, front;

	if ((rc = make_plan(&p, why, sizeof(why))) <= 0) {
		plan_dispose(&p);
		return rc < 0 ? rc : scs_err_set(SCS_EUSAGE, "'%s' cannot read '%s' transposed: %s", copy, kept, why);
	}
	if ((rc = names_init(&nm, m)) < 0)
		goto done;
	/* the kept constant's node, and the first reader: a kept Constant node
	 * after a reader moves to the front */
	for (size_t i = 0; i < g->n_node; i++) {
		if (kept_at == g->n_node && strcmp(g->node[i]->op_type, "Constant") == 0 && g->node[i]->n_output == 1 &&
		    strcmp(g->node[i]->output[0], kept) == 0)
			kept_at = i;
		if (first == g->n_node && p.n && p.r[0].node == g->node[i])
			first = i;
	}
	front = kept_at == g->n_node || kept_at > first;
	if (kept_at < g->n_node && front && (rc = push(&l, g->node[kept_at], 0)) < 0)
		goto done;
	if (front && p.moves && (rc = push_transpose(&l, &nm, copy, kept)) < 0)
		goto done;
	for (size_t i = 0; i < g->n_node; i++) {
		Onnx__NodeProto *n = g->node[i];

		if (i == kept_at && front)
			continue;
		if (ri < p.n && p.r[ri].node == n && p.r[ri].gemm) {
			rc = push_gemm(&l, &nm, &p, n, p.r[ri++].rank, kept);
		} else {
			ri += ri < p.n && p.r[ri].node == n;
			rc = push(&l, n, 0);
		}
		if (rc < 0)
			goto done;
		if (i == kept_at && !front && p.moves && (rc = push_transpose(&l, &nm, copy, kept)) < 0)
			goto done;
	}
	scs_arena_release(g->node);
	g->node = l.items;
	g->n_node = l.n;
	l.items = NULL;
	l.n = 0;
done:
	for (size_t i = 0; i < l.n; i++)
		if (l.mine[i])
			protobuf_c_message_free_unpacked(&l.items[i]->base, NULL);
	free(l.items);
	free(l.mine);
	scs_strmap_dispose(&nm.taken);
	scs_scopes_dispose(&nm.scopes);
	plan_dispose(&p);
	return rc;
}
