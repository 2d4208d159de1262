/*
 * infer.c: value facts (see infer.h). The shape rules cover the operators
 * exported models are made of (elementwise and broadcasting ops, MatMul,
 * Gemm, Reshape, Transpose, Gather, Concat, Slice, Squeeze/Unsqueeze,
 * reductions, Shape, Expand, ...; the neural-network operators' rules are
 * in infer_nn.c, their toolkit in infer_util.c; the values of small integer
 * tensors that Reshape and others read as their targets are followed in
 * infer_values.c); anything else leaves its outputs' shapes unknown, and
 * the split avoids cutting there.
 *
 * SPDX-License-Identifier: MIT
 */
#include "infer/infer.h"
#include "infer/infer_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "onnx/dtype.h"
#include "util/err.h"
#include "util/num.h"
#include "onnx/opschema.h"
#include "model/scope.h"

/*
 * The position of @name's facts in inf->items, added (unknown) when new.
 * items moves when it grows: hold positions across calls, never pointers.
 */
static int
slot(size_t *out, scs_infer *inf, const char *name)
{
	int64_t i;
	int rc;

	if (scs_strmap_get(&inf->index, name, &i)) {
		*out = (size_t)i;
		return SCS_OK;
	}
	if ((rc = scs_grow(&inf->items, &inf->cap, inf->n, sizeof(*inf->items), 256, "the value facts")) < 0)
		return rc;
	if (scs_strmap_put(&inf->index, name, (int64_t)inf->n) < 0)
		return scs_err_set(SCS_ENOMEM, "cannot grow the value facts");
	memset(&inf->items[inf->n], 0, sizeof(inf->items[0]));
	inf->items[inf->n].rank = -1;
	*out = inf->n++;
	return SCS_OK;
}

/* The facts at position @at. */
static void
facts_load(const scs_infer *inf, size_t at, scs_vfacts *out)
{
	const scs_vfacts_packed *p = &inf->items[at];

	memset(out, 0, sizeof(*out));
	out->elem = p->elem;
	out->rank = p->rank;
	out->declared = p->declared;
	if (p->rank > 0)
		memcpy(out->dims, inf->dims + p->dims_at, (size_t)p->rank * sizeof(int64_t));
}

/* Keep @f at position @at. A rank is set once: what is already known
 * stays, but its dims may learn more (a number or a name where they had
 * none), in place. */
static int
facts_store(scs_infer *inf, size_t at, const scs_vfacts *f)
{
	scs_vfacts_packed *p = &inf->items[at];
	int64_t *grown;
	size_t cap;

	p->elem = f->elem;
	p->declared = f->declared;
	if (p->rank >= 0 && f->rank == p->rank && f->rank > 0)
		memcpy(inf->dims + p->dims_at, f->dims, (size_t)f->rank * sizeof(int64_t));
	if (p->rank >= 0 || f->rank < 0)
		return SCS_OK;
	if (inf->n_dims + (size_t)f->rank > UINT32_MAX)
		return scs_err_set(SCS_ENOMEM, "too many dims for the value facts");
	if (inf->n_dims + (size_t)f->rank > inf->cap_dims) {
		cap = inf->cap_dims ? inf->cap_dims * 2 : 1024;
		if ((grown = realloc(inf->dims, cap * sizeof(*grown))) == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot grow the value facts");
		inf->dims = grown;
		inf->cap_dims = cap;
	}
	if (f->rank > 0)
		memcpy(inf->dims + inf->n_dims, f->dims, (size_t)f->rank * sizeof(int64_t));
	p->dims_at = (uint32_t)inf->n_dims;
	p->rank = (int8_t)f->rank;
	inf->n_dims += (size_t)f->rank;
	return SCS_OK;
}

int
scs_infer_get(const scs_infer *inf, const char *name, scs_vfacts *out)
{
	int64_t i;

	if (!scs_strmap_get(&inf->index, name, &i))
		return 0;
	facts_load(inf, (size_t)i, out);
	return 1;
}

int
scs_infer_describable(const scs_infer *inf, const char *name)
{
	scs_vfacts f;

	return scs_infer_get(inf, name, &f) && f.elem > 0 && f.rank >= 0;
}

static int
declare(scs_infer *inf, Onnx__ValueInfoProto *vi)
{
	size_t at;
	int rc;

	if (!vi->name || !vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
		return SCS_OK;
	scs_vfacts f;

	if ((rc = slot(&at, inf, vi->name)) < 0)
		return rc;
	facts_load(inf, at, &f);
	scs_infer_facts_from_type(&f, vi->type, inf);
	return facts_store(inf, at, &f);
}

static int
set_tensor(scs_infer *inf, const char *name, const Onnx__TensorProto *t)
{
	scs_vfacts f;
	size_t at;
	int rc;

	if (!name || !name[0])
		return SCS_OK;
	if ((rc = slot(&at, inf, name)) < 0)
		return rc;
	facts_load(inf, at, &f);
	if (f.elem <= 0)
		f.elem = t->data_type;
	if (f.rank < 0 && t->n_dims <= SCS_INFER_MAX_RANK) {
		f.rank = (int)t->n_dims;
		for (size_t d = 0; d < t->n_dims; d++)     /* a scalar's dims may be NULL */
			f.dims[d] = t->dims[d] >= 0 ? t->dims[d] : -1;
	}
	return facts_store(inf, at, &f);
}

/* ---- the rules ---- */

static const char *const same_shape[] = {
	"Abs", "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Cast", "CastLike", "Ceil",
	"Celu", "Clip", "Cos", "Cosh", "CumSum", "Elu", "Erf", "Exp", "Floor", "Gelu", "HardSigmoid",
	"HardSwish", "Hardmax", "Identity", "InstanceNormalization", "IsInf", "IsNaN", "LRN",
	"LeakyRelu", "Log", "LogSoftmax", "LpNormalization", "MeanVarianceNormalization",
	"Mish", "Neg", "Not", "Reciprocal", "Relu", "Round", "Selu", "Shrink", "Sigmoid", "Sign", "Sin",
	"Sinh", "Softmax", "Softplus", "Softsign", "Sqrt", "Tan", "Tanh", "ThresholdedRelu", "Trilu",
	"SimplifiedLayerNormalization", "SkipLayerNormalization", "QuantizeLinear", "DequantizeLinear", "Swish", NULL
};

static const char *const broadcasting[] = {
	"Add", "And", "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Div", "Equal", "Greater",
	"GreaterOrEqual", "Less", "LessOrEqual", "Max", "Mean", "Min", "Mod", "Mul", "Or", "PRelu", "Pow", "Sub",
	"Sum", "Where", "Xor", NULL
};

/*
 * The axes @n names, from its "axes" attribute or (newer opsets) its second
 * input, into @out (SCS_INFER_MAX_CONST of them at most): their count; -2 when it names
 * none; -1 when they are unknown or too many.
 */
static int
axes_of(scs_infer *inf, const scs_infer_consts *c, const Onnx__NodeProto *n, int64_t *out)
{
	const Onnx__AttributeProto *ax = scs_attr_find(n, "axes");

	if (ax) {
		if (ax->n_ints > SCS_INFER_MAX_CONST)
			return -1;
		for (size_t i = 0; i < ax->n_ints; i++)
			out[i] = ax->ints[i];
		return (int)ax->n_ints;
	}
	if (n->n_input > 1 && n->input[1][0])
		return scs_infer_const_ints(inf, c, n->input[1], out);
	return -2;
}

/* Set @mark[a] for each of the @k axes @v of a rank @r tensor; -1 when one is out of range or named twice. */
static int
mark_axes(int *mark, const int64_t *v, int k, int r)
{
	for (int i = 0; i < k; i++) {
		int64_t at = v[i] < 0 ? v[i] + r : v[i];

		if (at < 0 || at >= r || mark[at])
			return -1;
		mark[at] = 1;
	}
	return 0;
}

/* Input @i's facts when its rank is known, else NULL. */
static const scs_vfacts *
known_input(const Onnx__NodeProto *n, const scs_vfacts *in, size_t i)
{
	return i < n->n_input && in[i].rank >= 0 ? &in[i] : NULL;
}

/*
 * Pad and TopK (both outputs): the input's rank; with constant pads (as an
 * input from opset 11, an attribute before; no axes), each dim grown by its
 * pads, or passed on, name and all, where they are 0; with a constant K
 * over a known dim, the input's dims with K along the axis. As ONNX infers them.
 */
static void
pad_topk(scs_infer *inf, const scs_infer_consts *c, const Onnx__NodeProto *n, const scs_vfacts *x, scs_vfacts *o)
{
	const Onnx__AttributeProto *a;
	int64_t v[SCS_INFER_MAX_CONST], axis;
	int r = x->rank, k = -1, mode;

	scs_infer_unknown_dims(o, r);
	if (n->op_type[0] == 'T') {
		axis = scs_attr_int(n, "axis", -1);
		axis += axis < 0 ? r : 0;
		if (axis < 0 || axis >= r || x->dims[axis] < 0)
			return;
		if (n->n_input > 1 && n->input[1][0])
			k = scs_infer_const_ints(inf, c, n->input[1], v) == 1 && v[0] >= 0 ? 1 : -1;
		else if ((a = scs_attr_find(n, "k")) != NULL && a->i >= 0)     /* TopK-1 */
			v[0] = a->i, k = 1;
		if (k != 1 || v[0] > x->dims[axis])
			return;     /* unknown, or invalid: K past the dim */
		memcpy(o->dims, x->dims, (size_t)r * sizeof(o->dims[0]));
		o->dims[axis] = v[0];
		return;
	}
	if (n->n_input > 3 && n->input[3][0])
		return;     /* axes (opset 18) */
	if (n->n_input > 1 && n->input[1][0]) {
		k = scs_infer_const_ints(inf, c, n->input[1], v);
	} else if ((a = scs_attr_find(n, "pads")) != NULL && a->n_ints <= SCS_INFER_MAX_CONST) {
		k = (int)a->n_ints;
		for (int i = 0; i < k; i++)
			v[i] = a->ints[i];
	}
	if (k != 2 * r)
		return;
	mode = scs_attr_is(n, "mode", "reflect", 0) ? SCS_PAD_REFLECT : scs_attr_is(n, "mode", "edge", 0) ?
	    SCS_PAD_EDGE : scs_attr_is(n, "mode", "wrap", 0) ? SCS_PAD_WRAP : SCS_PAD_CONSTANT;
	for (int i = 0; i < r; i++) {
		int64_t b = v[i], e = v[r + i], d = x->dims[i];     /* negative pads crop */

		if ((b || e) && mode != SCS_PAD_CONSTANT && (d < 0 || scs_pad_refused(mode, d, b, e)))
			continue;     /* unknown, or refused by ONNX Runtime */
		if (d < 0 && b == 0 && e == 0)
			o->dims[i] = d;
		else if (d >= 0 && d <= INT64_MAX / 2 && b > -INT32_MAX && b < INT32_MAX && e > -INT32_MAX && e < INT32_MAX &&
		    d + b + e >= 0)
			o->dims[i] = d + b + e;
	}
}

/*
 * Reshape of @x (NULL when its rank is unknown) by its target, a constant
 * or a followed value (infer_values.c) whose elements may be dims: a
 * symbol is the output dim where it cannot be a 0 that copies another
 * (allowzero, or the input's own dim there is the same symbol); an unknown
 * element gives an unknown dim, and -1 is computed only from numbers.
 * An invalid shape (two -1, a dim below -1, a 0 past the input's rank or
 * beside -1 with allowzero, element counts that differ or pass INT64_MAX)
 * leaves the output unknown: ONNX Runtime refuses the node, and a dim
 * written or folded from it would make a model that runs.
 */
static void
reshape_rule(scs_infer *inf, const scs_infer_consts *c, const Onnx__NodeProto *n, const scs_vfacts *x, scs_vfacts *o)
{
	scs_infer_pval t;
	int64_t known = 1, total = 1;
	int infer_at = -1, allowzero = scs_attr_int(n, "allowzero", 0) != 0;

	if (!scs_infer_value(inf, c, n->input[1], &t) || t.scalar || t.n > SCS_INFER_MAX_RANK)
		return;
	for (int i = 0; i < t.n; i++) {
		int64_t d = t.v[i];

		if (t.kind[i] == SCS_PV_UNK) {
			known = -1;
			o->dims[i] = -1;
			continue;
		}
		if (t.kind[i] == SCS_PV_SYM) {
			known = -1;
			o->dims[i] = allowzero || (x && i < x->rank && x->dims[i] == d) ? d : -1;
			continue;
		}
		if (d < -1 || (d == -1 && infer_at >= 0))
			return;
		if (d == 0 && !allowzero) {
			if (!x || i >= x->rank)
				return;
			d = x->dims[i];     /* copied, name and all */
		}
		if (d == -1 && t.v[i] == -1)
			infer_at = i;
		else
			known = d < 0 || known < 0 ? -1 : scs_infer_dim_mul(known, d);
		o->dims[i] = d;
	}
	if (x)
		for (int i = 0; i < x->rank; i++)
			total = x->dims[i] < 0 || total < 0 ? -1 : scs_infer_dim_mul(total, x->dims[i]);
	else
		total = -1;
	if (infer_at >= 0 && allowzero && known == 0)
		return;
	if (total >= 0 && known >= 0 && (infer_at >= 0 ? known == 0 || total % known != 0 : known != total))
		return;
	if (infer_at >= 0)
		o->dims[infer_at] = total >= 0 && known > 0 ? total / known : -1;
	o->rank = t.n;
}

/* Output 0's shape of @n; the facts of its inputs are in @in[0 .. n->n_input) (rank -1 when unknown). */
static void
shape_rule(scs_infer *inf, const scs_infer_consts *c, const Onnx__NodeProto *n, const scs_vfacts *in, scs_vfacts *o)
{
	const char *op = n->op_type;
	int64_t v[SCS_INFER_MAX_CONST];
	int k, r;

#define IN(i) known_input(n, in, (size_t)(i))
	if (scs_str_listed(op, same_shape) && IN(0)) {
		*o = *IN(0);
		return;
	}
	if (scs_str_listed(op, broadcasting)) {
		scs_vfacts acc;

		if (!IN(0))
			return;
		acc = *IN(0);
		for (size_t i = 1; i < n->n_input; i++)
			if (!IN(i) || !scs_infer_broadcast(&acc, IN(i), &acc))
				return;
		o->rank = acc.rank;
		memcpy(o->dims, acc.dims, sizeof(o->dims));
		return;
	}
	if ((strcmp(op, "Pad") == 0 || strcmp(op, "TopK") == 0) && IN(0)) {
		pad_topk(inf, c, n, IN(0), o);
		return;
	}
	if (strcmp(op, "MatMul") == 0 || strcmp(op, "MatMulInteger") == 0 || strcmp(op, "QLinearMatMul") == 0) {
		const scs_vfacts *a = IN(0), *b = IN(op[0] == 'Q' ? 3 : 1);
		scs_vfacts ba, bb, batch;

		if (!a || !b || a->rank < 1 || b->rank < 1)
			return;
		if (a->dims[a->rank - 1] >= 0 && b->dims[b->rank >= 2 ? b->rank - 2 : 0] >= 0 &&
		    a->dims[a->rank - 1] != b->dims[b->rank >= 2 ? b->rank - 2 : 0])
			return;     /* invalid: the inner dims differ */
		if (a->rank == 1 && b->rank == 1) {
			o->rank = 0;
			return;
		}
		/* batch dims broadcast; the last two follow the matrix product */
		memset(&ba, 0, sizeof(ba));
		memset(&bb, 0, sizeof(bb));
		ba.rank = a->rank > 2 ? a->rank - 2 : 0;
		bb.rank = b->rank > 2 ? b->rank - 2 : 0;
		memcpy(ba.dims, a->dims, (size_t)ba.rank * 8);
		memcpy(bb.dims, b->dims, (size_t)bb.rank * 8);
		scs_infer_broadcast(&ba, &bb, &batch);
		r = batch.rank;
		memcpy(o->dims, batch.dims, (size_t)r * 8);
		if (a->rank >= 2)
			o->dims[r++] = a->dims[a->rank - 2];
		if (b->rank >= 2)
			o->dims[r++] = b->dims[b->rank - 1];
		o->rank = r;
		return;
	}
	if (strcmp(op, "Gemm") == 0 && IN(0) && IN(1) && IN(0)->rank == 2 && IN(1)->rank == 2) {
		int64_t ka = IN(0)->dims[scs_attr_int(n, "transA", 0) ? 0 : 1];
		int64_t kb = IN(1)->dims[scs_attr_int(n, "transB", 0) ? 1 : 0];

		if (ka >= 0 && kb >= 0 && ka != kb)
			return;     /* invalid: the inner dims differ */
		o->rank = 2;
		o->dims[0] = IN(0)->dims[scs_attr_int(n, "transA", 0) ? 1 : 0];
		o->dims[1] = IN(1)->dims[scs_attr_int(n, "transB", 0) ? 0 : 1];
		return;
	}
	if (strcmp(op, "Reshape") == 0 && n->n_input > 1) {
		reshape_rule(inf, c, n, IN(0), o);
		return;
	}
	if (strcmp(op, "Transpose") == 0 && IN(0)) {
		const Onnx__AttributeProto *p = scs_attr_find(n, "perm");

		int seen[SCS_INFER_MAX_RANK] = { 0 };

		r = IN(0)->rank;
		if (p && p->n_ints != (size_t)r)
			return;     /* invalid: perm is not a permutation of the axes */
		for (int i = 0; p && i < r; i++)
			if (p->ints[i] < 0 || p->ints[i] >= r || seen[p->ints[i]]++)
				return;
		for (int i = 0; i < r; i++)
			o->dims[i] = p ? IN(0)->dims[p->ints[i]] : IN(0)->dims[r - 1 - i];
		o->rank = r;
		return;
	}
	if (strcmp(op, "Gather") == 0 && IN(0) && IN(1)) {
		int64_t axis = scs_attr_int(n, "axis", 0);

		r = IN(0)->rank;
		if (axis < 0)
			axis += r;
		if (axis < 0 || axis >= r || r + IN(1)->rank - 1 > SCS_INFER_MAX_RANK)
			return;
		if (!scs_infer_indices_ok(inf, c, n->input[1], IN(0)->dims[axis]))
			return;     /* invalid: ONNX Runtime refuses the node */
		k = 0;
		for (int i = 0; i < axis; i++)
			o->dims[k++] = IN(0)->dims[i];
		for (int i = 0; i < IN(1)->rank; i++)
			o->dims[k++] = IN(1)->dims[i];
		for (int i = (int)axis + 1; i < r; i++)
			o->dims[k++] = IN(0)->dims[i];
		o->rank = k;
		return;
	}
	if (strcmp(op, "Concat") == 0 && IN(0)) {
		int64_t axis = scs_attr_int(n, "axis", 0);

		*o = *IN(0);
		o->declared = NULL;
		if (axis < 0)
			axis += o->rank;
		/* an axis out of range, ranks or other dims that differ: invalid, unknown */
		if (axis < 0 || axis >= o->rank) {
			o->rank = -1;
			return;
		}
		for (size_t i = 1; i < n->n_input; i++) {
			if (!IN(i)) {
				o->dims[axis] = -1;
				continue;
			}
			if (IN(i)->rank != o->rank) {
				o->rank = -1;
				return;
			}
			/* the other dims are the same in every input: whichever says most */
			for (int d = 0; d < o->rank; d++) {
				if (d != axis && o->dims[d] >= 0 && IN(i)->dims[d] >= 0 && o->dims[d] != IN(i)->dims[d]) {
					o->rank = -1;
					return;
				}
				o->dims[d] = d == axis ? scs_infer_dim_add(o->dims[d], IN(i)->dims[d]) :
				    scs_infer_dim_pick(o->dims[d], IN(i)->dims[d]);
			}
		}
		return;
	}
	if ((strcmp(op, "Unsqueeze") == 0 || strcmp(op, "Squeeze") == 0) && IN(0)) {
		int sq = op[0] == 'S', drop[SCS_INFER_MAX_RANK] = { 0 };

		k = axes_of(inf, c, n, v);
		if (k == -1 || (k == -2 && !sq))     /* Squeeze without axes: every dim of size 1 */
			return;
		r = IN(0)->rank;
		if (sq) {
			if (k == -2) {
				for (int i = 0; i < r; i++) {
					if (IN(0)->dims[i] < 0)
						return;
					drop[i] = IN(0)->dims[i] == 1;
				}
			} else if (mark_axes(drop, v, k, r) < 0) {
				return;
			}
			for (int i = 0; i < r; i++)
				if (drop[i] && IN(0)->dims[i] >= 0 && IN(0)->dims[i] != 1)
					return;     /* invalid: a dim squeezed away is 1 */
			o->rank = 0;
			for (int i = 0; i < r; i++)
				if (!drop[i])
					o->dims[o->rank++] = IN(0)->dims[i];
		} else {
			int out_r = r + k, src = 0;

			if (out_r > SCS_INFER_MAX_RANK)
				return;
			if (mark_axes(drop, v, k, out_r) < 0)
				return;
			for (int i = 0; i < out_r; i++)
				o->dims[i] = drop[i] ? 1 : IN(0)->dims[src++];
			o->rank = out_r;
		}
		return;
	}
	if (strncmp(op, "Reduce", 6) == 0 || strcmp(op, "ArgMax") == 0 || strcmp(op, "ArgMin") == 0) {
		int keep = (int)scs_attr_int(n, "keepdims", 1), red[SCS_INFER_MAX_RANK] = { 0 };

		if (!IN(0))
			return;
		r = IN(0)->rank;
		if (strncmp(op, "Arg", 3) == 0) {
			k = 1;
			v[0] = scs_attr_int(n, "axis", 0);
		} else if ((k = axes_of(inf, c, n, v)) == -1) {
			return;
		}
		if (k == -2)
			k = 0;
		if (mark_axes(red, v, k, r) < 0)
			return;
		if (k == 0 && !scs_attr_int(n, "noop_with_empty_axes", 0))
			for (int i = 0; i < r; i++)
				red[i] = 1;
		o->rank = 0;
		for (int i = 0; i < r; i++) {
			if (!red[i])
				o->dims[o->rank++] = IN(0)->dims[i];
			else if (keep)
				o->dims[o->rank++] = 1;
		}
		return;
	}
	if (strcmp(op, "Shape") == 0 && IN(0)) {
		/* opset 15: dims [start, end) of the shape, negative from the end, clamped */
		int64_t start = scs_attr_int(n, "start", 0), end = scs_attr_int(n, "end", IN(0)->rank);

		r = IN(0)->rank;
		start = start < 0 ? (start + r < 0 ? 0 : start + r) : (start > r ? r : start);
		end = end < 0 ? (end + r < 0 ? 0 : end + r) : (end > r ? r : end);
		o->rank = 1;
		o->dims[0] = end > start ? end - start : 0;
		return;
	}
	if (strcmp(op, "Size") == 0) {
		o->rank = 0;
		return;
	}
	if (strcmp(op, "Flatten") == 0 && IN(0)) {
		int64_t axis = scs_attr_int(n, "axis", 1);

		r = IN(0)->rank;
		if (axis < 0)
			axis += r;
		if (axis < 0 || axis > r)
			return;
		/* [product of the dims before axis, product of the rest] */
		o->rank = 2;
		o->dims[0] = o->dims[1] = 1;
		for (int i = 0; i < r; i++)
			o->dims[i < axis ? 0 : 1] = scs_infer_dim_mul(o->dims[i < axis ? 0 : 1], IN(0)->dims[i]);
		return;
	}
	if ((strcmp(op, "Range") == 0) || strcmp(op, "NonZero") == 0) {
		double a, b, d;

		scs_infer_unknown_dims(o, strcmp(op, "Range") == 0 ? 1 : 2);
		if (strcmp(op, "NonZero") == 0 && IN(0))
			o->dims[0] = IN(0)->rank;
		/* constant start, limit, delta: max(ceil((limit - start) / delta), 0) elements */
		if (op[0] == 'R' && n->n_input == 3 && scs_infer_const_number(inf, c, n->input[0], &a) &&
		    scs_infer_const_number(inf, c, n->input[1], &b) && scs_infer_const_number(inf, c, n->input[2], &d) && d != 0 &&
		    ceil((b - a) / d) < 9e18)
			o->dims[0] = ceil((b - a) / d) > 0 ? (int64_t)ceil((b - a) / d) : 0;
		return;
	}
	if (strcmp(op, "Tile") == 0 && IN(0)) {
		*o = *IN(0);
		o->declared = NULL;
		if (n->n_input < 2 || scs_infer_const_ints(inf, c, n->input[1], v) != o->rank)
			scs_infer_unknown_dims(o, o->rank);
		else
			for (int i = 0; i < o->rank; i++)
				o->dims[i] = v[i] >= 0 ? scs_infer_dim_mul(o->dims[i], v[i]) : -1;
		return;
	}
	if (strcmp(op, "Slice") == 0 && IN(0)) {
		int64_t st[SCS_INFER_MAX_CONST], en[SCS_INFER_MAX_CONST], ax[SCS_INFER_MAX_CONST], sp[SCS_INFER_MAX_CONST];
		int done[SCS_INFER_MAX_RANK] = { 0 };

		*o = *IN(0);
		o->declared = NULL;
		r = o->rank;
		k = n->n_input >= 3 ? scs_infer_const_ints(inf, c, n->input[1], st) : -1;
		if (k < 0 || scs_infer_const_ints(inf, c, n->input[2], en) != k ||
		    (n->n_input > 3 && n->input[3][0] && scs_infer_const_ints(inf, c, n->input[3], ax) != k) ||
		    (n->n_input > 4 && n->input[4][0] && scs_infer_const_ints(inf, c, n->input[4], sp) != k)) {
			scs_infer_unknown_dims(o, r);
			return;
		}
		for (int i = 0; i < k; i++) {
			int64_t a = n->n_input > 3 && n->input[3][0] ? ax[i] : i, step = n->n_input > 4 && n->input[4][0] ?
			    sp[i] : 1, dim, first;
			uint64_t count;

			a += a < 0 ? r : 0;
			if (a < 0 || a >= r || done[a] || step == 0) {
				scs_infer_unknown_dims(o, r);
				return;
			}
			done[a] = 1;
			if ((dim = IN(0)->dims[a]) < 0) {
				/* all of it ([0, INT64_MAX) by 1, as exporters write it): the dim, name and all */
				o->dims[a] = st[i] == 0 && en[i] == INT64_MAX && step == 1 ? dim : -1;
				continue;
			}
			/* the clamping of the spec and ONNX Runtime; unknown where they part (scs_slice_span) */
			o->dims[a] = scs_slice_span(dim, st[i], en[i], step, &first, &count) < 0 || count > INT64_MAX ? -1 :
			    (int64_t)count;
		}
		return;
	}
	if (strncmp(op, "Random", 6) == 0 && strstr(op, "Like") == NULL) {
		const Onnx__AttributeProto *sh = scs_attr_find(n, "shape");

		if (sh && sh->n_ints <= SCS_INFER_MAX_RANK) {
			o->rank = (int)sh->n_ints;
			for (size_t i = 0; i < sh->n_ints; i++)
				o->dims[i] = sh->ints[i] >= 0 ? sh->ints[i] : -1;
		}
		return;
	}
	if ((strcmp(op, "Expand") == 0 || strcmp(op, "ConstantOfShape") == 0) && n->n_input > 0) {
		scs_vfacts target;
		int at = op[0] == 'E' ? 1 : 0;

		if (n->n_input <= (size_t)at)
			return;
		memset(&target, 0, sizeof(target));
		if ((k = scs_infer_const_ints(inf, c, n->input[at], v)) >= 0 && k <= SCS_INFER_MAX_RANK) {
			target.rank = k;
			for (int i = 0; i < k; i++)
				if ((target.dims[i] = v[i]) < 0)
					return;     /* invalid: a negative dim */
		} else if (IN(at) && IN(at)->rank == 1 && IN(at)->dims[0] >= 0 && IN(at)->dims[0] <= SCS_INFER_MAX_RANK) {
			/* a shape of known length: the rank, not the dims */
			scs_infer_unknown_dims(&target, (int)IN(at)->dims[0]);
		} else {
			return;
		}
		if (op[0] == 'C') {
			*o = target;
		} else if (IN(0)) {
			scs_infer_broadcast(IN(0), &target, o);
		}
		return;
	}
#undef IN
}

/* The element type of @n's output @j, from the schema and its inputs' facts @in; 0 when unknown. */
static int64_t
output_elem(scs_infer *inf, const Onnx__NodeProto *n, size_t j, const scs_vfacts *in)
{
	const Onnx__AttributeProto *a;
	const scs_opschema *sc;
	int64_t t = 0;
	int fo, tv;
	uint64_t cm;

	if (strcmp(n->op_type, "Cast") == 0)
		return (a = scs_attr_find(n, "to")) != NULL ? a->i : 0;
	if (strcmp(n->op_type, "CastLike") == 0)
		return n->n_input > 1 ? in[1].elem : 0;
	if (strcmp(n->op_type, "ConstantOfShape") == 0)
		return (a = scs_attr_find(n, "value")) && a->t ? a->t->data_type : SCS_DT_FLOAT;
	if ((strcmp(n->op_type, "RandomNormal") == 0 || strcmp(n->op_type, "RandomUniform") == 0) && j == 0)
		return (a = scs_attr_find(n, "dtype")) != NULL ? a->i : SCS_DT_FLOAT;
	if ((sc = scs_opschema_find(n->domain, n->op_type, scs_model_opset(inf->m->proto, n->domain))) == NULL)
		return 0;
	fo = scs_opschema_output_formal(sc, j);
	tv = fo >= 0 ? sc->outputs[fo].type_var : -1;
	cm = fo >= 0 ? sc->outputs[fo].concrete : 0;
	if (tv >= 0 && tv < sc->n_type_vars && !sc->type_vars[tv].container)
		cm = sc->type_vars[tv].allowed;     /* a constraint of one type (Shape's T1, Less's T1) settles it */
	if (cm && (cm & (cm - 1)) == 0) {
		while (!(cm & ((uint64_t)1 << t)))
			t++;
		return t;
	}
	for (size_t i = 0; tv >= 0 && i < n->n_input; i++) {
		int fi = scs_opschema_input_formal(sc, i);

		if (fi >= 0 && sc->inputs[fi].type_var == tv && in[i].elem > 0)
			return in[i].elem;
	}
	return 0;
}

/* 1 when inferred @o contradicts declared @f: both know the element type,
 * the rank or a dim, and differ. */
static int
contradicts(const scs_vfacts *f, const scs_vfacts *o)
{
	if (f->elem > 0 && o->elem > 0 && f->elem != o->elem)
		return 1;
	if (f->rank < 0 || o->rank < 0)
		return 0;
	if (f->rank != o->rank)
		return 1;
	for (int d = 0; d < f->rank; d++)
		if (f->dims[d] >= 0 && o->dims[d] >= 0 && f->dims[d] != o->dims[d])
			return 1;
	return 0;
}

static int
infer_node(scs_infer *inf, const scs_infer_consts *c, const Onnx__NodeProto *n)
{
	scs_vfacts *in, o, f;
	size_t at;
	int64_t t;
	int rc = SCS_OK;

	if (!n->op_type || !scs_is_onnx_domain(n->domain) || n->n_output == 0)
		return SCS_OK;
	/* copies, not pointers: adding the outputs below may move inf->items */
	if ((in = calloc(n->n_input ? n->n_input : 1, sizeof(*in))) == NULL)
		return scs_err_set(SCS_ENOMEM, "node '%s': cannot gather its inputs' facts", n->name ? n->name : "");
	for (size_t i = 0; i < n->n_input; i++)
		if (!n->input[i][0] || !scs_infer_get(inf, n->input[i], &in[i]))
			in[i].rank = -1;
	for (size_t j = 0; rc == SCS_OK && j < n->n_output; j++) {
		if (!n->output[j][0])
			continue;
		memset(&o, 0, sizeof(o));
		o.rank = -1;
		if (scs_infer_nn(inf, c, n, in, j, &o)) {
			t = o.elem > 0 ? o.elem : output_elem(inf, n, j, in);
		} else {
			t = output_elem(inf, n, j, in);
			if (j == 0)
				shape_rule(inf, c, n, in, &o);
			else if (strcmp(n->op_type, "TopK") == 0 && n->n_input > 0 && in[0].rank >= 0)
				pad_topk(inf, c, n, &in[0], &o);     /* both outputs have one shape */
		}
		/* the shape rules copy whole facts: the type is settled here, and only a type this build knows */
		o.elem = scs_dtype_known(t) ? (int32_t)t : 0;
		o.declared = NULL;
		for (int d = 0; d < o.rank; d++)
			if (o.dims[d] < -1 && scs_infer_dim_name(inf, o.dims[d]) == NULL)
				o.dims[d] = -1;     /* no symbol: a negative a rule took from a file */
		if ((rc = slot(&at, inf, n->output[j])) < 0)
			break;
		facts_load(inf, at, &f);
		if (inf->conflict && contradicts(&f, &o))
			inf->conflict(inf->conflict_ctx, n, j, &f, &o);
		/*
		 * Declarations win; inference fills what they leave open, as ONNX
		 * merges: a declared unknown dim takes an inferred number, a
		 * nameless one an inferred name (and the declared shape is then
		 * no longer what the value has).
		 */
		if (f.elem <= 0)
			f.elem = o.elem;
		if (f.rank < 0 && o.rank >= 0) {
			f.rank = o.rank;
			memcpy(f.dims, o.dims, sizeof(f.dims));
		} else if (f.rank == o.rank) {
			for (int d = 0; d < o.rank; d++)
				if (f.dims[d] < 0 && (o.dims[d] >= 0 || (f.dims[d] == -1 && o.dims[d] < -1))) {
					f.dims[d] = o.dims[d];
					f.declared = NULL;
				}
		}
		rc = facts_store(inf, at, &f);
	}
	free(in);
	return rc;
}

/* Most values inference follows are few integers (shapes, axes). */
#define SEALED_VALUES_MAX 64

/*
 * The sealed initializers of the graph (model/sealed.h): each one's type
 * and dims; the values of the small integer ones too, opened into tensors
 * of their own (a view would not outlive the next record).
 */
static int
sealed_facts(scs_infer *inf, scs_infer_consts *c, scs_sealed *sl)
{
	int rc = SCS_OK;

	for (size_t i = 0; rc == SCS_OK && i < sl->n; i++) {
		Onnx__TensorProto *t = scs_sealed_get(sl, i);
		uint64_t n = 1;

		if (t == NULL)
			continue;
		for (size_t d = 0; d < t->n_dims && n <= SEALED_VALUES_MAX; d++)
			n = t->dims[d] < 0 ? SEALED_VALUES_MAX + 1 : n * (uint64_t)t->dims[d];
		if ((t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__INT64 || t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__INT32) &&
		    n <= SEALED_VALUES_MAX) {
			if ((t = scs_sealed_keep(t)) == NULL)
				return scs_err_set(SCS_ENOMEM, "cannot open an initializer");
			if ((rc = set_tensor(inf, t->name, t)) == SCS_OK)
				rc = scs_infer_const_add(c, t->name, t);
		} else {
			rc = set_tensor(inf, t->name, t);
		}
	}
	return rc;
}

int
scs_infer_graph(scs_infer *inf, scs_model *m, const size_t *order, size_t n_order)
{
	return scs_infer_graph_checked(inf, m, order, n_order, NULL, NULL);
}

int
scs_infer_graph_checked(scs_infer *inf, scs_model *m, const size_t *order, size_t n_order,
    void (*conflict)(void *ctx, const Onnx__NodeProto *n, size_t output, const scs_vfacts *declared,
    const scs_vfacts *inferred), void *ctx)
{
	Onnx__GraphProto *g = m->proto->graph;
	scs_infer_consts c;
	Onnx__TensorProto *t;
	int rc = SCS_OK;

	memset(inf, 0, sizeof(*inf));
	memset(&c, 0, sizeof(c));
	inf->m = m;
	inf->conflict = conflict;
	inf->conflict_ctx = ctx;
	for (size_t i = 0; rc == SCS_OK && i < g->n_input; i++)
		rc = declare(inf, g->input[i]);
	for (size_t i = 0; rc == SCS_OK && i < g->n_output; i++)
		rc = declare(inf, g->output[i]);
	for (size_t i = 0; rc == SCS_OK && i < g->n_value_info; i++)
		rc = declare(inf, g->value_info[i]);
	for (size_t i = 0; rc == SCS_OK && i < g->n_initializer; i++)
		if ((rc = set_tensor(inf, g->initializer[i]->name, g->initializer[i])) == SCS_OK)
			rc = scs_infer_const_add(&c, g->initializer[i]->name, g->initializer[i]);
	if ((rc == SCS_OK) && scs_sealed_of(g))
		rc = sealed_facts(inf, &c, scs_sealed_of(g));
	for (size_t i = 0; rc == SCS_OK && i < g->n_node; i++)
		if ((t = scs_node_constant(g->node[i])) != NULL && (rc = set_tensor(inf, g->node[i]->output[0], t)) == SCS_OK)
			rc = scs_infer_const_add(&c, g->node[i]->output[0], t);
	for (size_t k = 0; rc == SCS_OK && k < n_order; k++)
		if ((rc = infer_node(inf, &c, g->node[order[k]])) == SCS_OK)
			rc = scs_infer_values_node(inf, &c, g->node[order[k]]);
	if (rc == SCS_OK && inf->nomem)
		rc = scs_err_set(SCS_ENOMEM, "cannot keep the names of the dims");
	scs_strmap_dispose(&c.by_name);
	free(c.t);
	scs_strmap_dispose(&c.pv_by_name);
	free(c.pv);
	return rc;
}

/* A new shape of @rank dims (unknown where negative, named by @inf's symbols when it is not NULL); NULL on ENOMEM. */
static Onnx__TensorShapeProto *
shape_of(const int64_t *dims, size_t rank, const scs_infer *inf)
{
	Onnx__TensorShapeProto *shape = calloc(1, sizeof(*shape));
	const char *name;

	if (shape == NULL)
		return NULL;
	onnx__tensor_shape_proto__init(shape);
	if ((shape->dim = calloc(rank ? rank : 1, sizeof(*shape->dim))) == NULL) {
		free(shape);
		return NULL;
	}
	for (size_t d = 0; d < rank; d++) {
		if ((shape->dim[d] = malloc(sizeof(**shape->dim))) == NULL) {
			protobuf_c_message_free_unpacked(&shape->base, NULL);
			return NULL;
		}
		shape->n_dim++;
		onnx__tensor_shape_proto__dimension__init(shape->dim[d]);
		if (dims[d] >= 0) {
			shape->dim[d]->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
			shape->dim[d]->dim_value = dims[d];
		} else if ((name = scs_infer_dim_name(inf, dims[d])) != NULL) {
			if ((shape->dim[d]->dim_param = strdup(name)) == NULL) {
				protobuf_c_message_free_unpacked(&shape->base, NULL);
				return NULL;
			}
			shape->dim[d]->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
		}
	}
	return shape;
}

Onnx__ValueInfoProto *
scs_infer_value_info(const scs_infer *inf, const char *name)
{
	scs_vfacts facts, *f = scs_infer_get(inf, name, &facts) ? &facts : NULL;
	Onnx__ValueInfoProto *vi = calloc(1, sizeof(*vi));
	Onnx__TypeProto *type = calloc(1, sizeof(*type));
	Onnx__TypeProto__Tensor *tt = calloc(1, sizeof(*tt));
	Onnx__TensorShapeProto *shape = NULL;

	if (!vi || !type || !tt || !f)
		goto fail;
	onnx__value_info_proto__init(vi);
	onnx__type_proto__init(type);
	onnx__type_proto__tensor__init(tt);
	type->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	type->tensor_type = tt;
	vi->type = type;
	tt->has_elem_type = 1;
	tt->elem_type = f->elem;
	if (f->declared) {
		shape = (Onnx__TensorShapeProto *)scs_model_copy(inf->m, (ProtobufCMessage *)&f->declared->base);
	} else if (f->rank >= 0) {
		shape = shape_of(f->dims, (size_t)f->rank, inf);
	}
	if (shape == NULL && f->rank >= 0)
		goto fail;
	tt->shape = shape;
	if ((vi->name = strdup(name)) == NULL)
		goto fail;
	return vi;
fail:
	if (vi && vi->type) {
		protobuf_c_message_free_unpacked(&vi->base, NULL);
	} else {
		free(vi);
		free(type);
		free(tt);
	}
	return NULL;
}

/*
 * --input-shape may fill in what input @vi leaves open (a symbolic or
 * unknown dim, or no shape at all), never contradict it: the same rank and
 * every fixed dim as declared; else SCS_EUSAGE naming the declaration.
 */
static int
fits_declared(const Onnx__ValueInfoProto *vi, const char *spec, const int64_t *dims, size_t rank)
{
	const Onnx__TensorShapeProto *shape = vi->type->tensor_type->shape;
	char decl[256];
	size_t len = 0, bad = SIZE_MAX;

	if (shape == NULL)
		return SCS_OK;
	for (size_t i = 0; i < shape->n_dim; i++) {
		const Onnx__TensorShapeProto__Dimension *d = shape->dim[i];
		int fixed = d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;

		if (fixed && i < rank && d->dim_value != dims[i] && bad == SIZE_MAX)
			bad = i;
		if (len < sizeof(decl)) {
			if (fixed)
				len += (size_t)snprintf(decl + len, sizeof(decl) - len, "%s%lld", i ? "," : "",
				    (long long)d->dim_value);
			else
				len += (size_t)snprintf(decl + len, sizeof(decl) - len, "%s%s", i ? "," : "",
				    d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && d->dim_param[0] ?
				    d->dim_param : "?");
		}
	}
	if (shape->n_dim != rank)
		return scs_err_set(SCS_EUSAGE, "--input-shape '%s': input %s is declared [%s] (rank %zu), not of rank %zu",
		    spec, vi->name, decl, shape->n_dim, rank);
	if (bad != SIZE_MAX)
		return scs_err_set(SCS_EUSAGE, "--input-shape '%s': input %s is declared [%s]: dim %zu is %lld, not %lld",
		    spec, vi->name, decl, bad, (long long)shape->dim[bad]->dim_value, (long long)dims[bad]);
	return SCS_OK;
}

int
scs_infer_set_input_shape(scs_model *m, const char *spec)
{
	Onnx__GraphProto *g = m->proto->graph;
	const char *eq = strrchr(spec, '='), *p;
	Onnx__TensorShapeProto *shape;
	Onnx__ValueInfoProto *vi = NULL;
	int64_t dims[SCS_INFER_MAX_RANK];
	size_t rank = 0;
	int rc;

	if (eq == NULL || eq == spec)
		return scs_err_set(SCS_EUSAGE, "--input-shape takes NAME=DIM,DIM,... (such as x=1,3,224,224), not '%s'", spec);
	for (p = eq + 1; *p; p += *p == ',') {
		char *end;
		long long d = strtoll(p, &end, 10);

		if (end == p || d < 0 || (*end && *end != ',') || rank == SCS_INFER_MAX_RANK)
			return scs_err_set(SCS_EUSAGE, "--input-shape '%s': dims are numbers 0 or more, at most %d of them",
			    spec, SCS_INFER_MAX_RANK);
		dims[rank++] = d;
		p = end;
	}
	for (size_t i = 0; g && i < g->n_input; i++)
		if (g->input[i]->name && strlen(g->input[i]->name) == (size_t)(eq - spec) &&
		    strncmp(g->input[i]->name, spec, (size_t)(eq - spec)) == 0)
			vi = g->input[i];
	if (vi == NULL || !vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !vi->type->tensor_type)
		return scs_err_set(SCS_EUSAGE, "--input-shape '%s': the model has no tensor input of that name", spec);
	if ((rc = fits_declared(vi, spec, dims, rank)) < 0)
		return rc;
	if ((shape = shape_of(dims, rank, NULL)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a shape");
	if (vi->type->tensor_type->shape)
		scs_model_free_part(&vi->type->tensor_type->shape->base);
	vi->type->tensor_type->shape = shape;
	return SCS_OK;
}

void
scs_infer_dispose(scs_infer *inf)
{
	scs_strmap_dispose(&inf->index);
	free(inf->items);
	free(inf->dims);
	scs_strmap_dispose(&inf->sym_index);
	for (size_t i = 0; i < inf->n_syms; i++)
		free(inf->syms[i]);
	free(inf->syms);
	memset(inf, 0, sizeof(*inf));
}
