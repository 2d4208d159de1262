/*
 * infer_util.c: the shape rules' toolkit (see infer_impl.h): the dim
 * symbols and the facts a declared type gives, the constants a rule may
 * read, broadcasting. Calls neither the driver (infer.c) nor the rules.
 *
 * SPDX-License-Identifier: MIT
 */
#include "infer/infer.h"
#include "infer/infer_impl.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "onnx/dtype.h"
#include "util/err.h"
#include "util/num.h"

/* ---- dim symbols, declared types ---- */

/* The symbol of dim_param @name, interned into @inf: -1 - k for symbol k; -1 (nameless) when it cannot be kept. */
static int64_t
symbol(scs_infer *inf, const char *name)
{
	char *copy;
	int64_t k;

	if (inf == NULL || name == NULL || name[0] == 0)
		return -1;
	if (scs_strmap_get(&inf->sym_index, name, &k))
		return -1 - k;
	if (scs_grow(&inf->syms, &inf->cap_syms, inf->n_syms, sizeof(*inf->syms), 16, "the symbols") < 0)
		goto nomem;
	if ((copy = strdup(name)) == NULL)
		goto nomem;
	if (scs_strmap_put(&inf->sym_index, copy, (int64_t)inf->n_syms + 1) < 0) {
		free(copy);
		goto nomem;
	}
	inf->syms[inf->n_syms++] = copy;
	return -1 - (int64_t)inf->n_syms;
nomem:
	inf->nomem = 1;
	return -1;
}

const char *
scs_infer_dim_name(const scs_infer *inf, int64_t dim)
{
	return inf && dim < -1 && (uint64_t)(-1 - dim) <= inf->n_syms ? inf->syms[-2 - dim] : NULL;
}

void
scs_infer_facts_from_type(scs_vfacts *f, const Onnx__TypeProto *type, scs_infer *inf)
{
	const Onnx__TypeProto__Tensor *tt;

	if (!type || type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || (tt = type->tensor_type) == NULL)
		return;
	if (f->elem <= 0 && tt->has_elem_type)
		f->elem = tt->elem_type;
	if (f->rank < 0 && tt->shape && tt->shape->n_dim <= SCS_INFER_MAX_RANK) {
		f->rank = (int)tt->shape->n_dim;
		f->declared = tt->shape;
		for (size_t d = 0; d < tt->shape->n_dim; d++) {
			const Onnx__TensorShapeProto__Dimension *dim = tt->shape->dim[d];

			if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
				f->dims[d] = dim->dim_value >= 0 ? dim->dim_value : -1;
			else if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
				f->dims[d] = symbol(inf, dim->dim_param);
			else
				f->dims[d] = -1;
		}
	}
}

/* ---- constants the shape rules read (Reshape's shape, axes, ...) ---- */

static const Onnx__TensorProto *
const_of(const scs_infer_consts *c, const char *name)
{
	int64_t i;

	return name && scs_strmap_get(&c->by_name, name, &i) ? c->t[i] : NULL;
}

int
scs_infer_const_add(scs_infer_consts *c, const char *name, const Onnx__TensorProto *t)
{
	int rc;

	if (!name || !name[0])
		return SCS_OK;
	if ((rc = scs_grow(&c->t, &c->cap, c->n, sizeof(*c->t), 64, "the constant list")) < 0)
		return rc;
	c->t[c->n] = t;
	return scs_strmap_put(&c->by_name, name, (int64_t)c->n++);
}

/* The int64 (or int32) values of constant @name: count, or -1 when not a small integer constant. */
int
scs_infer_const_ints(scs_infer *inf, const scs_infer_consts *c, const char *name, int64_t *out)
{
	const Onnx__TensorProto *t = const_of(c, name);
	uint8_t raw[SCS_INFER_MAX_CONST * 8];
	int64_t n;
	uint32_t id;
	size_t w;

	if (t == NULL && name && scs_strmap_get(&c->pv_by_name, name, &n)) {
		const scs_infer_pval *p = &c->pv[n];

		for (int i = 0; i < p->n; i++)
			if (p->kind[i] != SCS_PV_NUM)
				return -1;
			else
				out[i] = p->v[i];
		return p->n;
	}
	if (t == NULL || (t->data_type != SCS_DT_INT64 && t->data_type != SCS_DT_INT32))
		return -1;
	if ((n = scs_tensor_elems(t)) < 0 || n > SCS_INFER_MAX_CONST)
		return -1;
	w = t->data_type == SCS_DT_INT64 ? 8 : 4;
	if (scs_model_payload_of(inf->m, t, &id)) {
		if (scs_payloads_read(inf->m->payloads, id, 0, raw, (size_t)n * w) < 0)
			return -1;
	} else if (t->data_type == SCS_DT_INT64 && t->n_int64_data == (size_t)n) {
		for (int64_t i = 0; i < n; i++)
			out[i] = t->int64_data[i];
		return (int)n;
	} else {
		return -1;
	}
	for (int64_t i = 0; i < n; i++)
		out[i] = w == 8 ? (int64_t)scs_load_le64(raw + i * 8) : (int32_t)scs_load_le32(raw + i * 4);
	return (int)n;
}

int
scs_infer_value(scs_infer *inf, const scs_infer_consts *c, const char *name, scs_infer_pval *out)
{
	const Onnx__TensorProto *t = const_of(c, name);
	int64_t v[SCS_INFER_MAX_CONST], at;
	int k;

	if (name && scs_strmap_get(&c->pv_by_name, name, &at)) {
		*out = c->pv[at];
		return 1;
	}
	if (t == NULL || t->n_dims > 1 || (k = scs_infer_const_ints(inf, c, name, v)) < 0 || k > SCS_INFER_MAX_PVAL)
		return 0;
	if (t->n_dims == 0 && k != 1)
		return 0;
	memset(out, 0, sizeof(*out));
	out->n = (int8_t)k;
	out->scalar = t->n_dims == 0;
	memcpy(out->v, v, (size_t)k * sizeof(v[0]));
	return 1;
}

/* The one number of constant @name (int32, int64, float, double) in *out: 1, or 0 when it is not one. */
int
scs_infer_const_number(scs_infer *inf, const scs_infer_consts *c, const char *name, double *out)
{
	const Onnx__TensorProto *t = const_of(c, name);
	int64_t v[SCS_INFER_MAX_CONST];
	uint8_t raw[8];
	uint32_t id, u32;
	uint64_t u64;
	float f;

	if (t == NULL || scs_tensor_elems(t) != 1)
		return 0;
	if (t->data_type == SCS_DT_INT64 || t->data_type == SCS_DT_INT32) {
		if (scs_infer_const_ints(inf, c, name, v) != 1)
			return 0;
		*out = (double)v[0];
		return 1;
	}
	if (t->data_type == SCS_DT_FLOAT && !scs_model_payload_of(inf->m, t, &id) && t->n_float_data == 1) {
		*out = t->float_data[0];
		return 1;
	}
	if ((t->data_type != SCS_DT_FLOAT && t->data_type != SCS_DT_DOUBLE) || !scs_model_payload_of(inf->m, t, &id) ||
	    scs_payloads_read(inf->m->payloads, id, 0, raw, t->data_type == SCS_DT_FLOAT ? 4 : 8) < 0)
		return 0;
	if (t->data_type == SCS_DT_FLOAT) {
		u32 = scs_load_le32(raw);
		memcpy(&f, &u32, 4);
		*out = f;
	} else {
		u64 = scs_load_le64(raw);
		memcpy(out, &u64, 8);
	}
	return 1;
}

int
scs_infer_indices_ok(scs_infer *inf, const scs_infer_consts *c, const char *name, int64_t dim)
{
	int64_t v[SCS_INFER_MAX_CONST];
	int k;

	if (dim < 0 || (k = scs_infer_const_ints(inf, c, name, v)) < 0)
		return 1;
	for (int i = 0; i < k; i++)
		if (v[i] < -dim || v[i] >= dim)
			return 0;
	return 1;
}

int
scs_infer_const_floats(scs_infer *inf, const scs_infer_consts *c, const char *name, float *out)
{
	const Onnx__TensorProto *t = const_of(c, name);
	uint8_t raw[SCS_INFER_MAX_CONST * 4];
	uint32_t id, u32;
	int64_t n;

	if (t == NULL || t->data_type != SCS_DT_FLOAT || (n = scs_tensor_elems(t)) < 0 || n > SCS_INFER_MAX_CONST)
		return -1;
	if (!scs_model_payload_of(inf->m, t, &id)) {
		if (t->n_float_data != (size_t)n)
			return -1;
		for (int64_t i = 0; i < n; i++)
			out[i] = t->float_data[i];
		return (int)n;
	}
	if (scs_payloads_read(inf->m->payloads, id, 0, raw, (size_t)n * 4) < 0)
		return -1;
	for (int64_t i = 0; i < n; i++) {
		u32 = scs_load_le32(raw + i * 4);
		memcpy(&out[i], &u32, 4);
	}
	return (int)n;
}

/* ---- broadcasting ---- */

/* numpy broadcasting of @a and @b into @out; 0 when the ranks are unknown */
int
scs_infer_broadcast(const scs_vfacts *a, const scs_vfacts *b, scs_vfacts *out)
{
	int64_t dims[SCS_INFER_MAX_RANK];
	int r;

	if (a->rank < 0 || b->rank < 0)
		return 0;
	r = a->rank > b->rank ? a->rank : b->rank;
	/* into a copy: @out may be @a, whose dims are read at lower positions than they are written */
	for (int i = 0; i < r; i++) {
		int ia = i - (r - a->rank), ib = i - (r - b->rank);
		dims[i] = scs_infer_broadcast_dim(ia >= 0 ? a->dims[ia] : 1, ib >= 0 ? b->dims[ib] : 1);
	}
	memcpy(out->dims, dims, (size_t)r * sizeof(dims[0]));
	out->rank = r;
	return 1;
}

void
scs_infer_unknown_dims(scs_vfacts *f, int rank)
{
	f->rank = rank;
	for (int i = 0; i < rank && i < SCS_INFER_MAX_RANK; i++)
		f->dims[i] = -1;
}
