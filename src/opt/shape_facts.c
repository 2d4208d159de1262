/*
 * shape_facts.c: values made from dims, element by element, and what the
 * shape passes do with them (see shape_facts.h): a node whose value is
 * known in every element becomes a constant; a Reshape's target becomes a
 * constant with 0 (copy) and at most one -1 where that is exact.
 *
 * A value is followed back through at most STEPS values and SCS_SHAPE_MAX
 * elements, so each look costs a bounded number of steps whatever the
 * graph's size (and however often its pieces are shared).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <string.h>

#include "onnx/attr.h"
#include "onnx/dtype.h"
#include "util/num.h"
#include "opt/shape_facts.h"

#define STEPS 64

/* Up to @max integers of constant @name (int32 or int64, rank 0 or 1) into @v: 1, *n, *rank, *dtype; 0 when not. */
static int
typed_ints(scs_opt_ctx *ctx, int scope, const char *name, int64_t *v, size_t max, size_t *n, int *rank, int *dtype)
{
	scs_opt_const c;
	char why[256];
	int r;

	if (!name || !name[0] || (r = scs_opt_constant(&c, ctx, scope, name, why, sizeof(why))) == 0)
		return 0;
	if (r < 0)
		return r;
	if ((c.dtype != SCS_DT_INT64 && c.dtype != SCS_DT_INT32) || c.rank > 1 || c.n_elems < 0 ||
	    (uint64_t)c.n_elems > max)
		return 0;
	*n = (size_t)c.n_elems;
	*rank = (int)c.rank;
	*dtype = c.dtype;
	if (*n && (r = scs_opt_read_int64s(ctx, &c, 0, *n, v)) < 0)
		return r;
	return 1;
}

static int value_of(scs_opt_ctx *ctx, int scope, const char *name, scs_shape_value *out, int *left);

/* As typed_ints, for integers of either type. */
static int
const_ints(scs_opt_ctx *ctx, int scope, const char *name, int64_t *v, size_t max, size_t *n, int *rank)
{
	int dtype;

	return typed_ints(ctx, scope, name, v, max, n, rank, &dtype);
}

/* The constant @name as a value of known elements: 1, 0 when it is not a small int32/int64 vector or scalar. */
static int
from_constant(scs_opt_ctx *ctx, int scope, const char *name, scs_shape_value *out)
{
	int64_t v[SCS_SHAPE_MAX];
	int r;

	if ((r = typed_ints(ctx, scope, name, v, SCS_SHAPE_MAX, &out->n, &out->rank, &out->dtype)) <= 0)
		return r;
	for (size_t i = 0; i < out->n; i++) {
		memset(&out->e[i], 0, sizeof(out->e[i]));
		out->e[i].known = 1;
		out->e[i].v = v[i];
	}
	return 1;
}

/* The integer attribute list @name of @node into @v: 1 and *n; 0 when absent or too long. */
static int
attr_ints(const Onnx__NodeProto *node, const char *name, int64_t *v, size_t max, size_t *n)
{
	const Onnx__AttributeProto *a = scs_attr_find(node, name);

	if (!a || a->n_ints > max)
		return 0;
	*n = a->n_ints;
	for (size_t i = 0; i < a->n_ints; i++)
		v[i] = a->ints[i];
	return 1;
}

/* Shape(x): the dims [start, end) of x, each known or the dim it is. */
static int
of_shape(scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *node, scs_shape_value *out)
{
	scs_vfacts f;
	int64_t r, start, end;
	int rc, d = scs_opt_def_scope(ctx, scope, node->input[0]);

	/* an overridable default (a graph input with an initializer) is not folded into anything */
	if (d < 0 || (scs_opt_is_input(ctx, d, node->input[0]) && scs_opt_initializer(ctx, d, node->input[0])))
		return 0;
	if ((rc = scs_opt_facts(ctx, scope, node->input[0], &f)) <= 0)
		return rc;
	if (f.rank < 0 || f.rank > SCS_SHAPE_MAX)
		return 0;
	r = f.rank;
	start = scs_attr_int(node, "start", 0);
	end = scs_attr_int(node, "end", r);
	start = start < 0 ? start + r : start;
	end = end < 0 ? end + r : end;
	start = start < 0 ? 0 : start > r ? r : start;
	end = end < 0 ? 0 : end > r ? r : end;
	out->rank = 1;
	out->dtype = SCS_DT_INT64;
	out->n = 0;
	for (int64_t k = start; k < end; k++) {
		scs_shape_elem *e = &out->e[out->n++];

		memset(e, 0, sizeof(*e));
		if (f.dims[k] >= 0) {
			e->known = 1;
			e->v = f.dims[k];
		} else {
			e->of = node->input[0];
			e->scope = d;
			e->dim = (int)k;
			e->sym = f.dims[k];
		}
	}
	return 1;
}

/* Gather(data, indices) on axis 0 of a vector, by constant indices. */
static int
of_gather(scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *node, scs_shape_value *out, int *left)
{
	int64_t idx[SCS_SHAPE_MAX], axis = scs_attr_int(node, "axis", 0);
	scs_shape_value d;
	size_t n;
	int rank, r;

	if (node->n_input < 2 || (axis != 0 && axis != -1))
		return 0;
	if ((r = value_of(ctx, scope, node->input[0], &d, left)) <= 0)
		return r;
	if (d.rank != 1)
		return 0;
	if ((r = const_ints(ctx, scope, node->input[1], idx, SCS_SHAPE_MAX, &n, &rank)) <= 0)
		return r;
	out->rank = rank;
	out->dtype = d.dtype;
	out->n = n;
	for (size_t i = 0; i < n; i++) {
		int64_t k = idx[i] < 0 ? idx[i] + (int64_t)d.n : idx[i];

		if (k < 0 || k >= (int64_t)d.n)
			return 0;     /* out of range: the node fails, nothing to fold */
		out->e[i] = d.e[k];
	}
	return 1;
}

/* Slice of a vector by constant starts, ends, axes and steps (attributes before opset 10). */
static int
of_slice(scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *node, scs_shape_value *out, int *left)
{
	int64_t starts[2], ends[2], axes[2] = { 0 }, steps[2] = { 1 }, first;
	size_t ns, ne, na = 1, nst = 1;
	uint64_t count;
	scs_shape_value d;
	int rank, r, old = scs_opt_opset(ctx, scope, "") < 10;

	if ((r = value_of(ctx, scope, node->input[0], &d, left)) <= 0)
		return r;
	if (d.rank != 1)
		return 0;
	if (old) {
		if (!attr_ints(node, "starts", starts, 2, &ns) || !attr_ints(node, "ends", ends, 2, &ne) ||
		    (scs_attr_find(node, "axes") && !attr_ints(node, "axes", axes, 2, &na)))
			return 0;
	} else {
		if (node->n_input < 3)
			return 0;
		if ((r = const_ints(ctx, scope, node->input[1], starts, 2, &ns, &rank)) <= 0 ||
		    (r = const_ints(ctx, scope, node->input[2], ends, 2, &ne, &rank)) <= 0)
			return r;
		if (node->n_input > 3 && node->input[3][0] &&
		    (r = const_ints(ctx, scope, node->input[3], axes, 2, &na, &rank)) <= 0)
			return r;
		if (node->n_input > 4 && node->input[4][0] &&
		    (r = const_ints(ctx, scope, node->input[4], steps, 2, &nst, &rank)) <= 0)
			return r;
	}
	if (ns != 1 || ne != 1 || na != 1 || nst != 1 || (axes[0] != 0 && axes[0] != -1))
		return 0;
	if (scs_slice_span((int64_t)d.n, starts[0], ends[0], steps[0], &first, &count) < 0)
		return 0;     /* not settled (see num.h): left to the runtime */
	out->rank = 1;
	out->dtype = d.dtype;
	out->n = (size_t)count;
	for (uint64_t i = 0; i < count; i++)
		out->e[i] = d.e[first + (int64_t)i * steps[0]];
	return 1;
}

/* Concat of vectors on axis 0. */
static int
of_concat(scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *node, scs_shape_value *out, int *left)
{
	int64_t axis = scs_attr_int(node, "axis", 0);
	scs_shape_value p;
	int r;

	if ((axis != 0 && axis != -1) || node->n_input == 0)
		return 0;
	out->rank = 1;
	out->n = 0;
	for (size_t i = 0; i < node->n_input; i++) {
		if ((r = value_of(ctx, scope, node->input[i], &p, left)) <= 0)
			return r;
		if (p.rank != 1)
			return 0;
		if ((i > 0 && p.dtype != out->dtype) || out->n + p.n > SCS_SHAPE_MAX)
			return 0;
		out->dtype = p.dtype;
		memcpy(&out->e[out->n], p.e, p.n * sizeof(p.e[0]));
		out->n += p.n;
	}
	return 1;
}

/* Unsqueeze of a scalar into [1] or Squeeze of [1] into a scalar, on axis 0 (axes an attribute before opset 13). */
static int
of_squeeze(scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *node, scs_shape_value *out, int *left, int un)
{
	int64_t axes[2];
	size_t na = 0;
	int rank, r;

	if ((r = value_of(ctx, scope, node->input[0], out, left)) <= 0)
		return r;
	if (scs_opt_opset(ctx, scope, "") < 13) {
		if (scs_attr_find(node, "axes") && !attr_ints(node, "axes", axes, 2, &na))
			return 0;
	} else if (node->n_input > 1 && node->input[1][0] &&
	    (r = const_ints(ctx, scope, node->input[1], axes, 2, &na, &rank)) <= 0) {
		return r;
	}
	if (un) {
		if (out->rank != 0 || na != 1 || (axes[0] != 0 && axes[0] != -1))
			return 0;
		out->rank = 1;
		return 1;
	}
	if (out->rank != 1 || out->n != 1 || (na == 1 && axes[0] != 0 && axes[0] != -1) || na > 1)
		return 0;
	out->rank = 0;
	return 1;
}

/* Cast to int64 or int32 of such a value: known numbers must fit (no wrap followed), unknown ones are marked. */
static int
of_cast(scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *node, scs_shape_value *out, int *left)
{
	int64_t to = scs_attr_int(node, "to", 0);
	int r;

	if (to != SCS_DT_INT64 && to != SCS_DT_INT32)
		return 0;
	if ((r = value_of(ctx, scope, node->input[0], out, left)) <= 0)
		return r;
	for (size_t i = 0; to == SCS_DT_INT32 && i < out->n; i++) {
		if (out->e[i].known && (out->e[i].v < INT32_MIN || out->e[i].v > INT32_MAX))
			return 0;
		out->e[i].narrowed |= !out->e[i].known;
	}
	out->dtype = (int)to;
	return 1;
}

/* 1 when no attribute of @node refers to a function's attribute. */
static int
plain_attrs(const Onnx__NodeProto *node)
{
	for (size_t i = 0; i < node->n_attribute; i++)
		if (node->attribute[i]->ref_attr_name && node->attribute[i]->ref_attr_name[0])
			return 0;
	return 1;
}

/* The value of output 0 of @node (scope @scope). */
static int
node_value(scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *node, scs_shape_value *out, int *left)
{
	const char *op = node->op_type;

	if (!op || !scs_is_onnx_domain(node->domain) || node->n_input == 0 || !node->input[0][0] || !plain_attrs(node))
		return 0;
	if (strcmp(op, "Shape") == 0)
		return of_shape(ctx, scope, node, out);
	if (strcmp(op, "Gather") == 0)
		return of_gather(ctx, scope, node, out, left);
	if (strcmp(op, "Slice") == 0)
		return of_slice(ctx, scope, node, out, left);
	if (strcmp(op, "Concat") == 0)
		return of_concat(ctx, scope, node, out, left);
	if (strcmp(op, "Unsqueeze") == 0 || strcmp(op, "Squeeze") == 0)
		return of_squeeze(ctx, scope, node, out, left, op[0] == 'U');
	if (strcmp(op, "Cast") == 0)
		return of_cast(ctx, scope, node, out, left);
	if (strcmp(op, "Identity") == 0)
		return value_of(ctx, scope, node->input[0], out, left);
	return 0;
}

static int
value_of(scs_opt_ctx *ctx, int scope, const char *name, scs_shape_value *out, int *left)
{
	Onnx__NodeProto *p;
	int d, r;

	if (--*left < 0 || !name || !name[0])
		return 0;
	if ((r = from_constant(ctx, scope, name, out)) != 0)
		return r;
	if ((d = scs_opt_def_scope(ctx, scope, name)) < 0 || (p = scs_opt_producer(ctx, d, name)) == NULL ||
	    p->n_output < 1 || strcmp(p->output[0], name) != 0)
		return 0;
	return node_value(ctx, d, p, out, left);
}

int
scs_shape_value_of(scs_opt_ctx *ctx, int scope, const char *name, scs_shape_value *out)
{
	int left = STEPS;

	memset(out, 0, sizeof(*out));
	return value_of(ctx, scope, name, out, &left);
}

int
scs_shape_is_shape_of(scs_opt_ctx *ctx, int scope, const char *name)
{
	int d = scs_opt_def_scope(ctx, scope, name);
	const Onnx__NodeProto *p = d >= 0 ? scs_opt_producer(ctx, d, name) : NULL;

	return p && p->op_type && strcmp(p->op_type, "Shape") == 0 && scs_is_onnx_domain(p->domain);
}

int
scs_shape_all_known(const scs_shape_value *v)
{
	for (size_t i = 0; i < v->n; i++)
		if (!v->e[i].known)
			return 0;
	return 1;
}

int
scs_shape_install(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, size_t j, uint32_t payload, int dtype,
    const int64_t *dims, size_t rank, Onnx__TensorProto **t)
{
	const char *out = node->output[j], *name, *in[1];
	Onnx__TensorProto *tp;
	Onnx__NodeProto *id;
	char why[256];
	int rc;

	if ((rc = scs_opt_fresh_name(&name, ctx, out)) < 0)
		return rc;
	if ((tp = scs_opt_tensor_new(ctx, name, dtype, dims, rank, payload)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate a folded constant");
	if ((rc = scs_opt_add_constant(ctx, scope, tp, node)) < 0)
		return rc;
	if (t)
		*t = tp;
	if (!scs_opt_is_pinned(ctx, scope, out) && (rc = scs_opt_rename(ctx, scope, out, name, why, sizeof(why))) != 0)
		return rc < 0 ? rc : SCS_OK;
	/* a name that must stay (a graph output), or a rename refused: an Identity of the constant makes it */
	in[0] = name;
	if ((id = scs_opt_node_new("Identity", NULL, in, 1, &out, 1)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate a node");
	return scs_opt_insert_node(ctx, scope, node, id);
}

/* The numbers of @v (all known) written as a new payload: *payload. */
static int
write_numbers(scs_opt_ctx *ctx, const int64_t *v, size_t n, int dtype, uint32_t *payload)
{
	scs_opt_writer w;
	int rc;

	if ((rc = scs_opt_writer_open(&w, ctx, dtype)) < 0)
		return rc;
	if ((rc = scs_opt_writer_put_int64s(&w, v, n)) < 0) {
		scs_opt_writer_abort(&w);
		return rc;
	}
	return scs_opt_writer_finish(payload, &w);
}

/* "[2, 'N', 4]": the elements of @v for a report, into @buf. */
static void
describe(const scs_shape_value *v, char *buf, size_t len)
{
	size_t at = 0;

	at += (size_t)snprintf(buf, len, "%s", v->rank ? "[" : "");
	for (size_t i = 0; i < v->n && at < len; i++) {
		const scs_shape_elem *e = &v->e[i];

		if (e->known)
			at += (size_t)snprintf(buf + at, len - at, "%s%lld", i ? ", " : "", (long long)e->v);
		else
			at += (size_t)snprintf(buf + at, len - at, "%sdim %d of '%s'", i ? ", " : "", e->dim, e->of);
	}
	if (at < len)
		snprintf(buf + at, len - at, "%s", v->rank ? "]" : "");
}

int
scs_shape_fold(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, int explain, Onnx__TensorProto **t)
{
	scs_shape_value v;
	int64_t nums[SCS_SHAPE_MAX], dims[1];
	uint32_t payload;
	char text[512];
	int r = 0, left = STEPS;

	if (t)
		*t = NULL;
	memset(&v, 0, sizeof(v));
	if (node->n_output != 1 || !node->output[0][0] || (r = node_value(ctx, scope, node, &v, &left)) <= 0)
		return r;
	for (size_t i = 0; i < v.n; i++)
		if (!v.e[i].known) {
			if (!explain)
				return 0;
			r = scs_opt_refuse(ctx, scope, node, "not replaced by a constant: dim %d of '%s' is not known", v.e[i].dim,
			    v.e[i].of);
			return r < 0 ? r : 0;
		}
	if (!scs_opt_n_uses(ctx, scope, node->output[0]) && !scs_opt_is_pinned(ctx, scope, node->output[0]))
		return 0;     /* dead: eliminate_deadend's */
	for (size_t i = 0; i < v.n; i++)
		nums[i] = v.e[i].v;
	dims[0] = (int64_t)v.n;
	describe(&v, text, sizeof(text));
	if ((r = write_numbers(ctx, nums, v.n, v.dtype, &payload)) < 0 ||
	    (r = scs_shape_install(ctx, scope, node, 0, payload, v.dtype, dims, (size_t)v.rank, t)) < 0 ||
	    (r = scs_opt_drop_node(ctx, scope, node)) < 0)
		return r;
	if ((r = scs_opt_did(ctx, scope, node, "replaced by the constant %s: the dims it reads are known", text)) < 0)
		return r;
	return 1;
}

/* 1 when output dim @i of a Reshape to @v is provably not 0 (data dims @f, @allowzero). */
static int
nonzero_at(const scs_shape_value *v, size_t i, const scs_vfacts *f, int allowzero)
{
	const scs_shape_elem *e = &v->e[i];

	if (!e->known)
		return 0;     /* a dim of some value: 0 is a dim like any other */
	if (e->v > 0)
		return 1;
	if (e->v == 0 && !allowzero)
		return f->rank > (int)i && f->dims[i] > 0;     /* copies the data's dim */
	return 0;     /* 0 with allowzero; -1 (what it stands for may be 0) */
}

/* 1 when every output dim but @skip of a Reshape to @v is provably not 0. */
static int
others_nonzero(const scs_shape_value *v, size_t skip, const scs_vfacts *f, int allowzero)
{
	for (size_t i = 0; i < v->n; i++)
		if (i != skip && !nonzero_at(v, i, f, allowzero))
			return 0;
	return 1;
}

/* 1 when unknown element @e is the data's (@data, read in @scope, dims @f) dim @i. */
static int
same_dim(scs_opt_ctx *ctx, int scope, const char *data, const scs_vfacts *f, const scs_shape_elem *e, size_t i)
{
	if (e->dim == (int)i && strcmp(e->of, data) == 0 && e->scope == scs_opt_def_scope(ctx, scope, data))
		return 1;
	return e->sym < -1 && f->rank > (int)i && f->dims[i] == e->sym;
}

/* Refused for @why (a format), reported only when @explain: 0, or the error. */
#define REFUSE(explain, ...) \
	do { \
		int rc_ = (explain) ? scs_opt_refuse(__VA_ARGS__) : 0; \
		return rc_ < 0 ? rc_ : 0; \
	} while (0)

int
scs_shape_reshape(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, int explain)
{
	int64_t opset = scs_opt_opset(ctx, scope, ""), nums[SCS_SHAPE_MAX], dims[1];
	int allowzero = opset >= 14 && scs_attr_int(node, "allowzero", 0) != 0, r;
	size_t unknown = 0, minus = 0, last = 0;
	const char *name;
	Onnx__TensorProto *tp;
	scs_shape_value v;
	scs_opt_const c;
	uint32_t payload;
	scs_vfacts f;
	char why[256], text[512];

	if (opset < 5 || node->n_input < 2 || !node->input[0][0] || !node->input[1][0])
		return 0;
	if ((r = scs_opt_constant(&c, ctx, scope, node->input[1], why, sizeof(why))) != 0)
		return r < 0 ? r : 0;     /* a constant already (or its reader's business) */
	if ((r = scs_shape_value_of(ctx, scope, node->input[1], &v)) <= 0)
		return r;
	if (v.rank != 1 || v.dtype != SCS_DT_INT64)
		return 0;     /* not a target ONNX Runtime takes: left as it is */
	if ((r = scs_opt_facts(ctx, scope, node->input[0], &f)) < 0)
		return r;
	describe(&v, text, sizeof(text));
	for (size_t i = 0; i < v.n; i++) {
		scs_shape_elem *e = &v.e[i];

		if (e->known) {
			nums[i] = e->v;
			minus += e->v == -1;
			continue;
		}
		if (e->narrowed && !others_nonzero(&v, i, &f, allowzero))
			REFUSE(explain, ctx, scope, node, "target %s not made constant: element %zu went through a Cast to "
			    "int32 and another output dim may be 0", text, i);
		if (!allowzero && same_dim(ctx, scope, node->input[0], &f, e, i)) {
			nums[i] = 0;     /* copies the data's dim, which it is */
			continue;
		}
		unknown++;
		last = i;
	}
	if (unknown > 1)
		REFUSE(explain, ctx, scope, node, "target %s not made constant: %zu of its dims are unknown and not "
		    "the data's own, and one -1 can stand for one only", text, unknown);
	if (unknown == 1) {
		if (minus)
			REFUSE(explain, ctx, scope, node, "target %s not made constant: it has a -1 already and dim %zu "
			    "is unknown", text, last);
		if (!others_nonzero(&v, last, &f, allowzero))
			REFUSE(explain, ctx, scope, node, "target %s not made constant: dim %zu would be -1, but another "
			    "output dim may be 0, and -1 cannot be told then", text, last);
		nums[last] = -1;
	}
	dims[0] = (int64_t)v.n;
	if ((r = write_numbers(ctx, nums, v.n, SCS_DT_INT64, &payload)) < 0 ||
	    (r = scs_opt_fresh_name(&name, ctx, node->input[1])) < 0)
		return r;
	if ((tp = scs_opt_tensor_new(ctx, name, SCS_DT_INT64, dims, 1, payload)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate a constant target");
	if ((r = scs_opt_add_constant(ctx, scope, tp, node)) < 0 || (r = scs_opt_set_input(ctx, node, 1, name)) < 0)
		return r;
	for (size_t i = 0; i < v.n; i++) {
		v.e[i].known = 1;
		v.e[i].v = nums[i];
	}
	describe(&v, why, sizeof(why));
	if ((r = scs_opt_did(ctx, scope, node, "target %s is now the constant %s", text, why)) < 0)
		return r;
	return 1;
}
