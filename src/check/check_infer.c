/*
 * check_infer.c: --full: the main graph through our type and shape
 * inference (infer/), each contradiction one problem of the "infer" rule:
 * a node's output inferred of another element type, rank or fixed dim than
 * the model declares (graph outputs, value_info), an input of an element
 * type its operator's schema does not take there, inputs of one type
 * variable of different element types. And what ONNX's own inference
 * refuses where the shapes are known: an axis (or axes, perm) out of range
 * for its input's rank, dims that do not broadcast, a matrix product of
 * inner dims that differ, an input of too low a rank for its operator, an
 * output declared of another shape than the opset-6 arithmetic's rule
 * gives (its first input's). What inference cannot tell is never a
 * problem. Runs only on a graph in order with its names made once.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_impl.h"
#include "infer/infer.h"
#include "onnx/attr.h"
#include "onnx/dtype.h"
#include "onnx/opschema.h"
#include "model/scope.h"
#include "util/num.h"

typedef struct infer_ctx {
	chk *c;
	const Onnx__GraphProto *g;
	size_t cursor;                /* where the last node was found */
} infer_ctx;

/* "float32 [2, 3]" of @f into @buf. */
static void
facts_text(char *buf, size_t len, const scs_vfacts *f)
{
	size_t at = (size_t)snprintf(buf, len, "%s", f->elem > 0 ? scs_dtype_name(f->elem) : "of unknown type");

	if (f->rank < 0 || at >= len)
		return;
	at += (size_t)snprintf(buf + at, len - at, " [");
	for (int d = 0; d < f->rank && at < len; d++)
		at += f->dims[d] >= 0 ? (size_t)snprintf(buf + at, len - at, "%s%lld", d ? ", " : "", (long long)f->dims[d]) :
		    (size_t)snprintf(buf + at, len - at, "%s?", d ? ", " : "");
	if (at < len)
		snprintf(buf + at, len - at, "]");
}

/* The index of node @n in the graph (nodes come in order: from the last one found). */
static size_t
node_index(infer_ctx *x, const Onnx__NodeProto *n)
{
	for (size_t k = 0; k < x->g->n_node; k++) {
		size_t i = (x->cursor + k) % x->g->n_node;

		if (x->g->node[i] == n) {
			x->cursor = i;
			return i;
		}
	}
	return 0;
}

static void
on_conflict(void *ctx, const Onnx__NodeProto *n, size_t output, const scs_vfacts *declared, const scs_vfacts *inferred)
{
	infer_ctx *x = ctx;
	chk_where w = { "main", n, node_index(x, n) };
	char d[200], i[200];

	facts_text(d, sizeof(d), declared);
	facts_text(i, sizeof(i), inferred);
	chk_problem(x->c, SCS_RULE_INFER, &w, "output '%s' is declared %s but comes out %s", n->output[output], d, i);
}

/* The outputs of node @n (index @idx) against the element types its schema makes. */
static void
check_output_types(chk *c, const scs_infer *inf, const Onnx__NodeProto *n, size_t idx, const scs_opschema *s)
{
	chk_where w = { "main", n, idx };

	for (size_t k = 0; k < n->n_output; k++) {
		int fo = scs_opschema_output_formal(s, k), tv;
		uint64_t allowed;
		scs_vfacts f;

		if (fo < 0 || !n->output[k][0] || !scs_infer_get(inf, n->output[k], &f) || f.elem <= 0 || f.elem >= 64)
			continue;
		tv = s->outputs[fo].type_var;
		allowed = tv >= 0 && tv < s->n_type_vars ? s->type_vars[tv].allowed : s->outputs[fo].concrete;
		if (allowed && !(allowed & SCS_OPSCHEMA_BIT(f.elem)))
			chk_problem(c, SCS_RULE_INFER, &w, "output %zu ('%s') comes out %s, which %s-%d does not make", k,
			    n->output[k], scs_dtype_name(f.elem), s->op_type, s->since_version);
	}
}

/* The inputs and outputs of node @n (index @idx) against the element types its schema takes and makes. */
/* 1 when @name is one of @g's sparse initializers. */
static int
sparse_initializer(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_sparse_initializer; i++) {
		const Onnx__TensorProto *v = g->sparse_initializer[i]->values;

		if (v && v->name && strcmp(v->name, name) == 0)
			return 1;
	}
	return 0;
}

static void
check_input_types(chk *c, const scs_strmap *untyped, const scs_infer *inf, const Onnx__NodeProto *n, size_t idx)
{
	const char *domain = n->domain ? n->domain : "";
	chk_where w = { "main", n, idx };
	const scs_opschema *s;
	int64_t version;
	int first_elem[256];
	size_t first_at[256];

	if (domain[0] != '\0' || (version = chk_opset(c->opsets, "")) < 0 ||
	    (s = scs_opschema_find("", n->op_type, version)) == NULL || s->deprecated)
		return;
	check_output_types(c, inf, n, idx, s);
	/* ONNX's inference types a sparse initializer sparse_tensor, which no operator's schema takes */
	for (size_t k = 0; k < n->n_input; k++)
		if (n->input[k][0] && sparse_initializer(c->m->proto->graph, n->input[k])) {
			chk_problem(c, SCS_RULE_INFER, &w, "input %zu ('%s') is a sparse initializer, and %s-%d takes no sparse "
			    "tensor there", k, n->input[k], s->op_type, s->since_version);
			return;
		}
	for (int t = 0; t < 256; t++)
		first_elem[t] = 0;
	for (size_t k = 0; k < n->n_input; k++) {
		scs_vfacts f;
		uint64_t allowed;
		int fo;

		if (!n->input[k][0] || !scs_infer_get(inf, n->input[k], &f) || f.elem <= 0 || f.elem >= 64 ||
		    scs_strmap_get(untyped, n->input[k], &f.dims[0]))
			continue;     /* (a value ONNX's inference leaves untyped is of no type there) */
		allowed = scs_opschema_input_allowed(s, k);
		if (allowed && !(allowed & SCS_OPSCHEMA_BIT(f.elem))) {
			chk_problem(c, SCS_RULE_INFER, &w, "input %zu ('%s') is %s, which %s-%d does not take there", k,
			    n->input[k], scs_dtype_name(f.elem), s->op_type, s->since_version);
			continue;
		}
		if ((fo = scs_opschema_input_formal(s, k)) < 0 || s->inputs[fo].type_var < 0 ||
		    s->inputs[fo].heterogeneous)
			continue;
		if (first_elem[s->inputs[fo].type_var] == 0) {
			first_elem[s->inputs[fo].type_var] = f.elem;
			first_at[s->inputs[fo].type_var] = k;
		} else if (first_elem[s->inputs[fo].type_var] != f.elem) {
			chk_problem(c, SCS_RULE_INFER, &w, "input %zu ('%s') is %s but input %zu is %s, and %s-%d wants one "
			    "type for both (%s)", k, n->input[k], scs_dtype_name(f.elem), first_at[s->inputs[fo].type_var],
			    scs_dtype_name(first_elem[s->inputs[fo].type_var]), s->op_type, s->since_version,
			    s->type_vars[s->inputs[fo].type_var].name);
		}
	}
}

/* ---- what ONNX's inference refuses where the ranks and dims are known ---- */

typedef struct shape_consts {
	scs_strmap names;
	scs_strmap untyped;           /* values ONNX's inference leaves without a type (check_untyped) */
	int built;                    /* 1: names made; -1: could not be */
} shape_consts;

typedef struct shape_ctx {
	chk *c;
	shape_consts *consts;
	const scs_infer *inf;
	const Onnx__NodeProto *n;
	chk_where w;
	int64_t opset;
} shape_ctx;

/* Input @i's facts when its rank is known: 1, else 0. */
static int
known(const shape_ctx *s, size_t i, scs_vfacts *f)
{
	return i < s->n->n_input && s->n->input[i][0] && scs_infer_get(s->inf, s->n->input[i], f) && f->rank >= 0;
}

/*
 * The main graph's constants by name, made at the first need: an
 * initializer (k), a sealed record (n_initializer + k) or a Constant
 * node's value (-1 - k).
 */
static int
consts_index(shape_ctx *s)
{
	const Onnx__GraphProto *g = s->c->m->proto->graph;
	scs_sealed *sl = scs_sealed_of(g);
	int rc = 0;

	if (s->consts->built)
		return s->consts->built > 0;
	s->consts->built = -1;
	for (size_t i = 0; rc >= 0 && i < g->n_initializer; i++)
		if (g->initializer[i]->name)
			rc = scs_strmap_put(&s->consts->names, g->initializer[i]->name, (int64_t)i);
	for (size_t i = 0; rc >= 0 && sl && i < sl->n; i++)
		if (!sl->items[i]->removed)
			rc = scs_strmap_put(&s->consts->names, scs_sealed_name(sl->items[i]), (int64_t)(g->n_initializer + i));
	for (size_t i = 0; rc >= 0 && i < g->n_node; i++)
		if (scs_node_constant(g->node[i]) && g->node[i]->n_output == 1)
			rc = scs_strmap_put(&s->consts->names, g->node[i]->output[0], -1 - (int64_t)i);
	if (rc < 0) {
		s->c->rc = SCS_ENOMEM;
		return 0;
	}
	s->consts->built = 1;
	return 1;
}

/* The int64/int32 values of constant @name (@max at most) into @out: their count, or -1. */
static int
const_ints(shape_ctx *s, const char *name, int64_t *out, int max)
{
	const Onnx__GraphProto *g = s->c->m->proto->graph;
	const Onnx__TensorProto *t;
	uint8_t raw[SCS_INFER_MAX_RANK * 2 * 8];
	int64_t at, n;
	uint32_t id;
	size_t w;

	if (!consts_index(s) || !scs_strmap_get(&s->consts->names, name, &at))
		return -1;
	t = at < 0 ? scs_node_constant(g->node[-1 - at]) : (size_t)at < g->n_initializer ? g->initializer[at] :
	    scs_sealed_get(scs_sealed_of(g), (size_t)at - g->n_initializer);
	if (t == NULL || (t->data_type != SCS_DT_INT64 && t->data_type != SCS_DT_INT32) ||
	    (n = scs_tensor_elems(t)) < 0 || n > max || n > SCS_INFER_MAX_RANK * 2)
		return -1;
	w = t->data_type == SCS_DT_INT64 ? 8 : 4;
	if (scs_model_payload_of(s->c->m, t, &id)) {
		if (scs_payloads_read(s->c->m->payloads, id, 0, raw, (size_t)n * w) < 0)
			return -1;
		for (int64_t i = 0; i < n; i++)
			out[i] = w == 8 ? (int64_t)scs_load_le64(raw + i * 8) : (int32_t)scs_load_le32(raw + i * 4);
	} else if (w == 8 && t->n_int64_data == (size_t)n) {
		for (int64_t i = 0; i < n; i++)
			out[i] = t->int64_data[i];
	} else if (w == 4 && t->n_int32_data == (size_t)n) {
		for (int64_t i = 0; i < n; i++)
			out[i] = t->int32_data[i];
	} else {
		return -1;
	}
	return (int)n;
}

/* What the model declares of value @name (a graph output or value_info) in *@f: 1, or 0 when nothing. */
static int
declared(const shape_ctx *s, const char *name, scs_vfacts *f)
{
	const Onnx__GraphProto *g = s->c->m->proto->graph;

	memset(f, 0, sizeof(*f));
	f->rank = -1;
	for (size_t i = 0; i < g->n_output + g->n_value_info; i++) {
		const Onnx__ValueInfoProto *d = i < g->n_output ? g->output[i] : g->value_info[i - g->n_output];

		if (d->name && strcmp(d->name, name) == 0 && d->type) {
			scs_infer_facts_from_type(f, d->type, NULL);
			return 1;
		}
	}
	return 0;
}

/* The axes of @s's node, from attribute @attr or (when absent) its input @input: count, or -1. */
static int
axes(shape_ctx *s, const char *attr, size_t input, int64_t *out)
{
	const Onnx__AttributeProto *a = scs_attr_find(s->n, attr);

	if (a) {
		if (a->n_ints > SCS_INFER_MAX_RANK * 2)
			return -1;
		for (size_t i = 0; i < a->n_ints; i++)
			out[i] = a->ints[i];
		return (int)a->n_ints;
	}
	if (input < s->n->n_input && s->n->input[input][0])
		return const_ints(s, s->n->input[input], out, SCS_INFER_MAX_RANK * 2);
	return -1;
}

/* Each of @k axes @v within [lo, hi]; else the problem, once. */
static void
axes_in(const shape_ctx *s, const char *what, const int64_t *v, int k, int64_t lo, int64_t hi, int rank)
{
	for (int i = 0; i < k; i++)
		if ((v[i] < lo || v[i] > hi) && lo > hi) {
			chk_problem(s->c, SCS_RULE_INFER, &s->w, "%s %lld is out of range: input 0 is a scalar, which has "
			    "no axis", what, (long long)v[i]);
			return;
		} else if (v[i] < lo || v[i] > hi) {
			chk_problem(s->c, SCS_RULE_INFER, &s->w, "%s %lld is out of range for input 0 of rank %d "
			    "(it takes %lld to %lld)", what, (long long)v[i], rank, (long long)lo, (long long)hi);
			return;
		}
}

/* The axis rules: an axis attribute or axes of a known rank. */
static void
check_axes(shape_ctx *s, const scs_vfacts *x)
{
	const char *op = s->n->op_type;
	int64_t v[SCS_INFER_MAX_RANK * 2];
	int r = x->rank, k;

	/* (before opset 11, ONNX's rules of ArgMax, ArgMin, Reduce*, Unsqueeze, Softmax and the like do not look) */
	if (strcmp(op, "Concat") == 0 || strcmp(op, "Gather") == 0 || strcmp(op, "Split") == 0 ||
	    (s->opset >= 11 && (strcmp(op, "Softmax") == 0 || strcmp(op, "LogSoftmax") == 0 ||
	    strcmp(op, "Hardmax") == 0 || strcmp(op, "ArgMax") == 0 || strcmp(op, "ArgMin") == 0))) {
		const Onnx__AttributeProto *a = scs_attr_find(s->n, "axis");

		if (a && (op[0] != 'C' || s->opset >= 4)) {
			v[0] = a->i;
			axes_in(s, "axis", v, 1, -(int64_t)r, r - 1, r);
		}
	} else if ((strcmp(op, "TopK") == 0 || (s->opset >= 11 && (strcmp(op, "Compress") == 0 ||
	    strcmp(op, "OneHot") == 0))) && scs_attr_find(s->n, "axis")) {
		int one = op[0] == 'O';     /* OneHot's axis is one of its output, a rank more */

		v[0] = scs_attr_int(s->n, "axis", -1);
		if (!one || s->n->n_input > 0)
			axes_in(s, "axis", v, 1, -(int64_t)r - one, r - 1 + one, r);
	} else if (strcmp(op, "Flatten") == 0 && scs_attr_find(s->n, "axis")) {
		v[0] = scs_attr_int(s->n, "axis", 1);
		axes_in(s, "axis", v, 1, s->opset >= 11 ? -(int64_t)r : 0, r, r);
	} else if (strcmp(op, "Transpose") == 0) {
		const Onnx__AttributeProto *p = scs_attr_find(s->n, "perm");

		if (p && p->n_ints == (size_t)r)
			axes_in(s, "perm's axis", p->ints, (int)p->n_ints, 0, r - 1, r);
	} else if (s->opset >= 11 && strncmp(op, "Reduce", 6) == 0 && (k = axes(s, "axes", 1, v)) > 0) {
		axes_in(s, "axis", v, k, -(int64_t)r, r - 1, r);
	} else if (s->opset >= 11 && strcmp(op, "Unsqueeze") == 0 && (k = axes(s, "axes", 1, v)) > 0) {
		axes_in(s, "axis", v, k, -(int64_t)(r + k), r + k - 1, r);
	} else if (strcmp(op, "Slice") == 0 && s->opset >= 10 && s->n->n_input > 3 && s->n->input[3][0] &&
	    (k = const_ints(s, s->n->input[3], v, SCS_INFER_MAX_RANK * 2)) > 0) {
		axes_in(s, "axis", v, k, -(int64_t)r, r - 1, r);
	} else if (strcmp(op, "Squeeze") == 0 && (k = axes(s, "axes", 1, v)) > 0) {
		for (int i = 0; i < k; i++) {
			int64_t a = v[i] < 0 ? v[i] + r : v[i];

			if (a >= 0 && a < r && x->dims[a] >= 0 && x->dims[a] != 1) {
				chk_problem(s->c, SCS_RULE_INFER, &s->w, "it squeezes axis %lld of input 0, which is %lld, not 1",
				    (long long)v[i], (long long)x->dims[a]);
				return;
			}
		}
	}
}

static const char *const broadcasting7[] = {
	"Add", "And", "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Div", "Equal", "Greater",
	"GreaterOrEqual", "Less", "LessOrEqual", "Mod", "Mul", "Or", "Pow", "Sub", "Xor", NULL
};
static const char *const broadcasting8[] = { "Max", "Mean", "Min", "Sum", "Where", NULL };

/* Inputs whose known dims do not broadcast (numpy's rules: from the end, equal or one of them 1). */
static void
check_broadcast(const shape_ctx *s)
{
	const char *const *l;
	int64_t acc[SCS_INFER_MAX_RANK];
	int rank = 0, hit = 0;

	for (l = broadcasting7; *l && !hit; l++)
		hit = strcmp(*l, s->n->op_type) == 0 && s->opset >= 7;
	for (l = broadcasting8; *l && !hit; l++)
		hit = strcmp(*l, s->n->op_type) == 0 && s->opset >= 8;
	if (!hit)
		return;
	/* acc[d]: dim d counted from the end, of the inputs so far */
	for (size_t i = 0; i < s->n->n_input; i++) {
		scs_vfacts f;

		if (!known(s, i, &f))
			continue;
		for (int d = 0; d < f.rank; d++) {
			int64_t a = d < rank ? acc[d] : 1, b = f.dims[f.rank - 1 - d];

			if (a >= 0 && b >= 0 && a != b && a != 1 && b != 1) {
				chk_problem(s->c, SCS_RULE_INFER, &s->w, "input %zu ('%s') does not broadcast with the "
				    "inputs before it: a dim of %lld against one of %lld", i, s->n->input[i], (long long)b,
				    (long long)a);
				return;
			}
			/* a number but 1 wins; an unknown against 1 stays unknown */
			acc[d] = a >= 0 && a != 1 ? a : b >= 0 && b != 1 ? b : a < 0 || b < 0 ? -1 : 1;
		}
		if (f.rank > rank)
			rank = f.rank;
	}
}

/* Before opset 7, ONNX infers Add, Sub, Mul and Div's output of its first input's shape. */
static void
check_legacy_arith(const shape_ctx *s, const scs_vfacts *x)
{
	const char *op = s->n->op_type;
	scs_vfacts o;

	if (s->opset >= 7 || (strcmp(op, "Add") && strcmp(op, "Sub") && strcmp(op, "Mul") && strcmp(op, "Div")) ||
	    s->n->n_output < 1)
		return;
	/* the output's declaration (inference gives the broadcast shape, which ONNX's rule does not) */
	if (!declared(s, s->n->output[0], &o) || o.rank < 0)
		return;
	for (int d = 0; d < o.rank && o.rank == x->rank; d++)
		if (o.dims[d] >= 0 && x->dims[d] >= 0 && o.dims[d] != x->dims[d])
			o.rank = -2;
	if (o.rank != x->rank)
		chk_problem(s->c, SCS_RULE_INFER, &s->w, "output '%s' is declared of another shape than input 0 "
		    "('%s'), and before opset 7 %s's output has its first input's shape", s->n->output[0], s->n->input[0], op);
}

/* Concat's inputs: one rank, and the same dims but along the axis. */
static void
check_concat(const shape_ctx *s, const scs_vfacts *x)
{
	int64_t axis = scs_attr_int(s->n, "axis", 0);
	scs_vfacts f;

	axis += axis < 0 ? x->rank : 0;
	for (size_t i = 1; i < s->n->n_input; i++) {
		if (!known(s, i, &f))
			continue;
		if (f.rank != x->rank) {
			chk_problem(s->c, SCS_RULE_INFER, &s->w, "input %zu ('%s') is of rank %d and input 0 of rank %d: "
			    "Concat joins tensors of one rank", i, s->n->input[i], f.rank, x->rank);
			return;
		}
		for (int d = 0; d < f.rank; d++)
			if (d != axis && f.dims[d] >= 0 && x->dims[d] >= 0 && f.dims[d] != x->dims[d]) {
				chk_problem(s->c, SCS_RULE_INFER, &s->w, "input %zu ('%s') has %lld in dim %d and input 0 %lld: "
				    "only the dims along axis %lld may differ", i, s->n->input[i], (long long)f.dims[d], d,
				    (long long)x->dims[d], (long long)axis);
				return;
			}
	}
}

/* Split's sizes (attribute or constant input) add up to the dim along its axis. */
static void
check_split(shape_ctx *s, const scs_vfacts *x)
{
	int64_t axis = scs_attr_int(s->n, "axis", 0), v[SCS_INFER_MAX_RANK * 2], sum = 0;
	const Onnx__AttributeProto *a = scs_attr_find(s->n, "split");
	int k = -1;

	axis += axis < 0 ? x->rank : 0;
	if (axis < 0 || axis >= x->rank || x->dims[axis] < 0)
		return;
	if (a && a->n_ints <= SCS_INFER_MAX_RANK * 2) {
		k = (int)a->n_ints;
		for (int i = 0; i < k; i++)
			v[i] = a->ints[i];
	} else if (!a && s->n->n_input > 1 && s->n->input[1][0]) {
		k = const_ints(s, s->n->input[1], v, SCS_INFER_MAX_RANK * 2);
	}
	for (int i = 0; i < k; i++)
		sum = v[i] < 0 || sum > INT64_MAX - v[i] ? -1 : sum + v[i];
	if (k > 0 && sum >= 0 && sum != x->dims[axis])
		chk_problem(s->c, SCS_RULE_INFER, &s->w, "its sizes add up to %lld, and input 0 has %lld along axis %lld",
		    (long long)sum, (long long)x->dims[axis], (long long)axis);
}

/* Ranks and inner dims of the matrix and neural-network operators. */
static void
check_nn(shape_ctx *s, const scs_vfacts *x)
{
	const char *op = s->n->op_type;
	int64_t v[SCS_INFER_MAX_RANK * 2];
	scs_vfacts b, o;
	int k;

	if (strcmp(op, "MatMul") == 0 && known(s, 1, &b) && x->rank >= 1 && b.rank >= 1) {
		int64_t ka = x->dims[x->rank - 1], kb = b.dims[b.rank >= 2 ? b.rank - 2 : 0];

		if (ka >= 0 && kb >= 0 && ka != kb)
			chk_problem(s->c, SCS_RULE_INFER, &s->w, "the inner dims of the matrix product differ: %lld in "
			    "input 0, %lld in input 1", (long long)ka, (long long)kb);
	} else if (strcmp(op, "Gemm") == 0 && s->opset >= 7) {
		for (size_t i = 0; i < 2; i++)
			if ((i == 0 || known(s, 1, &b)) && (i == 0 ? x->rank : b.rank) != 2) {
				chk_problem(s->c, SCS_RULE_INFER, &s->w, "input %zu is of rank %d, and Gemm takes matrices",
				    i, i == 0 ? x->rank : b.rank);
				return;
			}
	} else if ((strcmp(op, "Conv") == 0 || strcmp(op, "ConvTranspose") == 0 || strcmp(op, "MaxPool") == 0 ||
	    strcmp(op, "AveragePool") == 0 || strcmp(op, "LpPool") == 0) && x->rank < 2) {
		chk_problem(s->c, SCS_RULE_INFER, &s->w, "input 0 is of rank %d, and %s takes a batch, channels and "
		    "spatial dims", x->rank, op);
	} else if (strcmp(op, "Conv") == 0 && !scs_attr_find(s->n, "kernel_shape") && known(s, 1, &b) &&
	    b.rank != x->rank && declared(s, s->n->output[0], &o) && o.rank >= 0 && o.rank != b.rank) {
		/* ONNX takes the window from the weights: its output has their rank */
		chk_problem(s->c, SCS_RULE_INFER, &s->w, "input 1 (the weights) is of rank %d and input 0 of rank %d, "
		    "and output '%s' is declared of rank %d", b.rank, x->rank, s->n->output[0], o.rank);
	} else if (strcmp(op, "Conv") == 0 || strcmp(op, "MaxPool") == 0 || strcmp(op, "AveragePool") == 0 ||
	    strcmp(op, "LpPool") == 0) {
		const Onnx__AttributeProto *ks = scs_attr_find(s->n, "kernel_shape");

		if (ks && ks->n_ints != (size_t)(x->rank - 2))
			chk_problem(s->c, SCS_RULE_INFER, &s->w, "kernel_shape has %zu dims, and input 0 of rank %d has "
			    "%d spatial ones", ks->n_ints, x->rank, x->rank - 2);
	} else if ((strcmp(op, "DepthToSpace") == 0 || strcmp(op, "SpaceToDepth") == 0) && x->rank != 4) {
		chk_problem(s->c, SCS_RULE_INFER, &s->w, "input 0 is of rank %d, and %s takes rank 4", x->rank, op);
	} else if (strcmp(op, "Tile") == 0 && s->opset >= 6 && s->n->n_input > 1 &&
	    (k = const_ints(s, s->n->input[1], v, SCS_INFER_MAX_RANK * 2)) >= 0 && k != x->rank) {
		chk_problem(s->c, SCS_RULE_INFER, &s->w, "it repeats %d dims of input 0, which has %d", k, x->rank);
	} else if (strcmp(op, "Pad") == 0 && s->opset >= 11 && s->n->n_input > 1 && s->n->input[1][0] &&
	    (s->n->n_input < 4 || !s->n->input[3][0]) &&
	    (k = const_ints(s, s->n->input[1], v, SCS_INFER_MAX_RANK * 2)) >= 0 && k != 2 * x->rank) {
		chk_problem(s->c, SCS_RULE_INFER, &s->w, "it has %d pads for input 0 of rank %d, which takes %d", k,
		    x->rank, 2 * x->rank);
	} else if (strcmp(op, "Expand") == 0 && s->opset >= 8 && s->n->n_input > 1 &&
	    (k = const_ints(s, s->n->input[1], v, SCS_INFER_MAX_RANK)) >= 0) {
		for (int d = 1; d <= k && d <= x->rank; d++) {
			int64_t a = x->dims[x->rank - d], t = v[k - d];

			if (a >= 0 && a != 1 && t != 1 && t != a) {
				chk_problem(s->c, SCS_RULE_INFER, &s->w, "input 0 does not broadcast to the shape it is "
				    "expanded to: a dim of %lld against one of %lld", (long long)a, (long long)t);
				return;
			}
		}
	} else if (strcmp(op, "Split") == 0 && s->opset >= 2) {
		check_split(s, x);
	} else if (strcmp(op, "Concat") == 0 && s->opset >= 4) {
		check_concat(s, x);
	} else if (strcmp(op, "Reshape") == 0 && s->opset >= 5 && s->n->n_input > 1) {
		int minus = 0;

		k = const_ints(s, s->n->input[1], v, SCS_INFER_MAX_RANK);

		for (int i = 0; i < k; i++)
			minus += v[i] == -1;
		if (minus > 1)
			chk_problem(s->c, SCS_RULE_INFER, &s->w, "its shape has -1 %d times, and only one dim can be "
			    "inferred", minus);
	}
}

/* What ONNX's inference refuses at node @n (index @idx) of the main graph. */
static void
check_shapes(chk *c, shape_consts *k, const scs_infer *inf, const Onnx__NodeProto *n, size_t idx)
{
	shape_ctx s = { c, k, inf, n, { "main", n, idx }, chk_opset(c->opsets, "") };
	size_t before = c->out->n;
	scs_vfacts x;

	if ((n->domain && n->domain[0]) || !n->op_type || s.opset < 0)
		return;
	check_broadcast(&s);
	if (c->out->n != before || !known(&s, 0, &x))
		return;
	check_axes(&s, &x);
	if (c->out->n == before)
		check_nn(&s, &x);
	if (c->out->n == before)
		check_legacy_arith(&s, &x);
}

/*
 * Opset 1: ONNX's inference gives Pad-1 no rule, so its output has no type
 * unless the model declares one; the operators below pass the lack on (to
 * their outputs the model does not declare), the ones after refuse it: their
 * rules read the input's type. Seen against onnx.checker's full check.
 */
static const char *const untyped_passes[] = {
	"Add", "Concat", "Dropout", "Mul", "Neg", "Pad", "Relu", "Sigmoid", "Tanh", NULL
};
static const char *const untyped_refused[] = {
	"AveragePool", "Conv", "DepthToSpace", "Flatten", "GlobalAveragePool", "GlobalMaxPool", "Hardmax",
	"Identity", "LRN", "LogSoftmax", "LpNormalization", "MatMul", "MaxPool", "ReduceL1", "ReduceL2",
	"ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum",
	"ReduceSumSquare", "Slice", "Softmax", "Softplus", "Softsign", "SpaceToDepth", "Squeeze", "Transpose",
	"Unsqueeze", NULL
};

/* The values of an opset-1 graph that ONNX's inference leaves without a type, where an operator needs one. */
static void
check_untyped(chk *c, shape_consts *k)
{
	const Onnx__GraphProto *g = c->m->proto->graph;
	shape_ctx s = { c, k, NULL, NULL, { "main", NULL, 0 }, 1 };
	scs_strmap *none = &k->untyped;
	scs_vfacts f;
	int64_t v;

	if (chk_opset(c->opsets, "") != 1)
		return;
	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *n = g->node[i];
		size_t in = SIZE_MAX;

		if ((n->domain && n->domain[0]) || !n->op_type)
			continue;
		for (size_t j = 0; in == SIZE_MAX && j < n->n_input; j++)
			if (n->input[j][0] && scs_strmap_get(none, n->input[j], &v))
				in = j;
		if (in != SIZE_MAX && scs_str_listed(n->op_type, untyped_refused)) {
			s.w.node = n;
			s.w.index = i;
			chk_problem(c, SCS_RULE_INFER, &s.w, "input %zu ('%s') has no type: ONNX's inference gives Pad-1's "
			    "output none, the model declares none, and %s needs one", in, n->input[in], n->op_type);
			continue;
		}
		if (strcmp(n->op_type, "Pad") != 0 && (in == SIZE_MAX || !scs_str_listed(n->op_type, untyped_passes)))
			continue;
		for (size_t j = 0; j < n->n_output; j++)
			if (n->output[j][0] && !(declared(&s, n->output[j], &f) && f.elem > 0) &&
			    scs_strmap_put(none, n->output[j], 1) < 0)
				c->rc = SCS_ENOMEM;
	}
}

void
chk_infer(chk *c)
{
	const Onnx__GraphProto *g = c->m->proto->graph;
	infer_ctx x = { c, g, 0 };
	shape_consts consts;
	scs_infer inf;
	size_t *order;
	int rc;

	/* inference follows the nodes in order: a graph out of order, or naming a value twice, is told already */
	if (g == NULL || (c->out->failed & ((1u << SCS_RULE_ORDER) | (1u << SCS_RULE_SSA))))
		return;
	if ((order = malloc((g->n_node ? g->n_node : 1) * sizeof(*order))) == NULL) {
		c->rc = SCS_ENOMEM;
		return;
	}
	for (size_t i = 0; i < g->n_node; i++)
		order[i] = i;
	memset(&consts, 0, sizeof(consts));
	rc = scs_infer_graph_checked(&inf, (scs_model *)c->m, order, g->n_node, on_conflict, &x);
	if (rc == SCS_OK)
		check_untyped(c, &consts);
	if (rc == SCS_OK)
		for (size_t i = 0; i < g->n_node; i++) {
			check_input_types(c, &consts.untyped, &inf, g->node[i], i);
			check_shapes(c, &consts, &inf, g->node[i], i);
		}
	else if (rc == SCS_ENOMEM)
		c->rc = rc;
	/* another failure is inference giving up on something it cannot tell: not a problem of the model */
	scs_infer_dispose(&inf);
	scs_strmap_dispose(&consts.names);
	scs_strmap_dispose(&consts.untyped);
	free(order);
}
