/*
 * eval_util.c: the evaluator's toolkit (eval_impl.h): its tensors and
 * buffers, element loads and comparison, and what the kernels share:
 * attributes, integer lists, axes, broadcasting. Calls neither the
 * dispatch (eval.c) nor the kernels. Built a second time with its test
 * hook (SCS_TEST_HOOKS: the largest buffer allocated) for the library the
 * tests link.
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx/attr.h"
#include "eval/eval_impl.h"
#include "util/half.h"
#include "util/num.h"

int
scs_eval_decline(scs_eval_call *c, const char *fmt, ...)
{
	va_list ap;

	if (c->why_len) {
		va_start(ap, fmt);
		vsnprintf(c->why, c->why_len, fmt, ap);
		va_end(ap);
	}
	return SCS_EVAL_DECLINED;
}

/* ---- tensors ---- */

#ifdef SCS_TEST_HOOKS
static uint64_t largest_alloc;

uint64_t
scs_eval_largest_for_tests(int reset)
{
	uint64_t v = largest_alloc;

	if (reset)
		largest_alloc = 0;
	return v;
}
#endif

void *
scs_eval_alloc(size_t len)
{
#ifdef SCS_TEST_HOOKS
	if (len > largest_alloc)
		largest_alloc = len;
#endif
	return calloc(len ? len : 1, 1);
}

size_t
scs_eval_esize(int dtype)
{
	unsigned bits;

	if (dtype == SCS_DT_STRING || dtype == SCS_DT_COMPLEX64 || dtype == SCS_DT_COMPLEX128)
		return 0;
	bits = scs_dtype_bits(dtype);
	return bits % 8 ? 0 : bits / 8;
}

uint64_t
scs_eval_bytes(const scs_eval_tensor *t)
{
	return t->n * scs_eval_esize(t->dtype);
}

void
scs_eval_tensor_free(scs_eval_tensor *t)
{
	if (t == NULL)
		return;
	free(t->data);
	memset(t, 0, sizeof(*t));
}

int
scs_eval_size(uint64_t *out, uint64_t *n_out, int dtype, size_t rank, const int64_t *dims, uint64_t max_bytes,
    uint64_t max_hold, char *why, size_t why_len)
{
	size_t esize = scs_eval_esize(dtype), len;
	uint64_t n = 1, bytes;

	if (esize == 0) {
		snprintf(why, why_len, "%s elements", scs_dtype_name(dtype));
		return SCS_EVAL_DECLINED;
	}
	if (rank > SCS_EVAL_MAX_RANK) {
		snprintf(why, why_len, "rank %zu over %d", rank, SCS_EVAL_MAX_RANK);
		return SCS_EVAL_DECLINED;
	}
	for (size_t i = 0; i < rank; i++)
		if (dims[i] < 0 || scs_u64_mul(&n, n, (uint64_t)dims[i]) < 0) {
			snprintf(why, why_len, "a result of dims out of range");
			return SCS_EVAL_DECLINED;
		}
	if (scs_u64_mul(&bytes, n, esize) < 0 || (max_bytes && bytes > max_bytes) || scs_u64_to_size(&len, bytes) < 0) {
		snprintf(why, why_len, "a result of %llu elements (%s) over the %llu byte limit", (unsigned long long)n,
		    scs_dtype_name(dtype), (unsigned long long)max_bytes);
		return SCS_EVAL_TOO_BIG;
	}
	if (max_hold && bytes > max_hold) {
		snprintf(why, why_len, "output too large to hold: %llu bytes (over %llu)", (unsigned long long)bytes,
		    (unsigned long long)max_hold);
		return SCS_EVAL_TOO_LARGE;
	}
	*out = bytes;
	if (n_out)
		*n_out = n;
	return SCS_OK;
}

/* scs_eval_tensor_alloc, also TOO_LARGE over @max_hold bytes (0: none). */
static int
tensor_alloc(scs_eval_tensor *t, int dtype, size_t rank, const int64_t *dims, uint64_t max_bytes, uint64_t max_hold,
    char *why, size_t why_len)
{
	uint64_t n, bytes;
	int rc;

	memset(t, 0, sizeof(*t));
	if ((rc = scs_eval_size(&bytes, &n, dtype, rank, dims, max_bytes, max_hold, why, why_len)) != SCS_OK)
		return rc;
	if ((t->data = scs_eval_alloc((size_t)bytes)) == NULL)
		return scs_err_set(SCS_ENOMEM, "evaluator: cannot allocate %llu bytes", (unsigned long long)bytes);
	t->dtype = dtype;
	t->rank = rank;
	if (rank)
		memcpy(t->dims, dims, rank * sizeof(*dims));
	t->n = n;
	return SCS_OK;
}

int
scs_eval_tensor_alloc(scs_eval_tensor *t, int dtype, size_t rank, const int64_t *dims, uint64_t max_bytes, char *why,
    size_t why_len)
{
	return tensor_alloc(t, dtype, rank, dims, max_bytes, 0, why, why_len);
}

int
scs_eval_out(scs_eval_call *c, size_t i, int dtype, size_t rank, const int64_t *dims)
{
	if (i >= c->n_out)
		return scs_eval_decline(c, "output %zu is not named", i);
	scs_eval_tensor_free(&c->out[i]);
	return tensor_alloc(&c->out[i], dtype, rank, dims, c->max_bytes, c->max_hold, c->why, c->why_len);
}

int
scs_eval_from_proto(const Onnx__TensorProto *t, scs_eval_tensor *out, char *why, size_t why_len)
{
	size_t esize = scs_eval_esize(t->data_type), n_typed;
	uint8_t *p;
	int rc;

	memset(out, 0, sizeof(*out));
	if (t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
		snprintf(why, why_len, "external data");
		return SCS_EVAL_DECLINED;
	}
	if (t->n_dims > SCS_EVAL_MAX_RANK) {
		snprintf(why, why_len, "rank %zu", t->n_dims);
		return SCS_EVAL_DECLINED;
	}
	if ((rc = scs_eval_tensor_alloc(out, t->data_type, t->n_dims, t->dims, 0, why, why_len)) != SCS_OK)
		return rc;
	p = out->data;
	if (t->has_raw_data) {
		if (t->raw_data.len != out->n * esize) {
			scs_eval_tensor_free(out);
			snprintf(why, why_len, "raw_data of %zu bytes for %llu elements", t->raw_data.len,
			    (unsigned long long)out->n);
			return SCS_EVAL_DECLINED;
		}
		if (t->raw_data.len)
			memcpy(p, t->raw_data.data, t->raw_data.len);
		return SCS_OK;
	}
	switch (scs_dtype_field(t->data_type)) {
	case SCS_TF_FLOAT: n_typed = t->n_float_data; break;
	case SCS_TF_INT32: n_typed = t->n_int32_data; break;
	case SCS_TF_INT64: n_typed = t->n_int64_data; break;
	case SCS_TF_DOUBLE: n_typed = t->n_double_data; break;
	case SCS_TF_UINT64: n_typed = t->n_uint64_data; break;
	default: n_typed = (size_t)-1; break;
	}
	if (n_typed != out->n) {
		scs_eval_tensor_free(out);
		snprintf(why, why_len, "%zu typed values for %llu elements", n_typed, (unsigned long long)out->n);
		return SCS_EVAL_DECLINED;
	}
	for (uint64_t k = 0; k < out->n; k++, p += esize) {
		uint32_t u32;
		uint64_t u64;

		switch (scs_dtype_field(t->data_type)) {
		case SCS_TF_FLOAT:
			memcpy(&u32, &t->float_data[k], 4);
			scs_store_le32(p, u32);
			break;
		case SCS_TF_INT32:
			u32 = (uint32_t)t->int32_data[k];
			if (esize == 1)
				p[0] = (uint8_t)u32;
			else if (esize == 2)
				scs_store_le16(p, (uint16_t)u32);
			else
				scs_store_le32(p, u32);
			break;
		case SCS_TF_INT64: scs_store_le64(p, (uint64_t)t->int64_data[k]); break;
		case SCS_TF_DOUBLE:
			memcpy(&u64, &t->double_data[k], 8);
			scs_store_le64(p, u64);
			break;
		default:
			if (esize == 4)
				scs_store_le32(p, (uint32_t)t->uint64_data[k]);
			else
				scs_store_le64(p, t->uint64_data[k]);
			break;
		}
	}
	return SCS_OK;
}

static int
is_float(int dt)
{
	return dt == SCS_DT_FLOAT || dt == SCS_DT_DOUBLE || dt == SCS_DT_FLOAT16 || dt == SCS_DT_BFLOAT16;
}

double
scs_eval_load_float(const void *p, int dtype)
{
	uint32_t u32;
	uint64_t u64;
	float f;
	double d;

	switch (dtype) {
	case SCS_DT_FLOAT:
		u32 = scs_load_le32(p);
		memcpy(&f, &u32, 4);
		return f;
	case SCS_DT_DOUBLE:
		u64 = scs_load_le64(p);
		memcpy(&d, &u64, 8);
		return d;
	case SCS_DT_FLOAT16: return scs_half_to_float(scs_load_le16(p));
	default: return scs_bf16_to_float(scs_load_le16(p));
	}
}

static double
get_double(const scs_eval_tensor *t, uint64_t k)
{
	return scs_eval_load_float(t->data + k * scs_eval_esize(t->dtype), t->dtype);
}

int
scs_eval_equal(const scs_eval_tensor *a, const scs_eval_tensor *b, double rtol, double atol, char *why,
    size_t why_len)
{
	size_t esize = scs_eval_esize(a->dtype);

	if (a->dtype != b->dtype) {
		snprintf(why, why_len, "element type %s, expected %s", scs_dtype_name(a->dtype), scs_dtype_name(b->dtype));
		return 0;
	}
	if (a->rank != b->rank || (a->rank && memcmp(a->dims, b->dims, a->rank * sizeof(a->dims[0])) != 0)) {
		snprintf(why, why_len, "rank %zu (dim 0: %lld), expected rank %zu (dim 0: %lld)", a->rank,
		    a->rank ? (long long)a->dims[0] : -1LL, b->rank, b->rank ? (long long)b->dims[0] : -1LL);
		return 0;
	}
	for (uint64_t k = 0; k < a->n; k++) {
		if (memcmp(a->data + k * esize, b->data + k * esize, esize) == 0)
			continue;
		if (is_float(a->dtype)) {
			double x = get_double(a, k), y = get_double(b, k);

			if ((isnan(x) && isnan(y)) || (rtol > 0 && fabs(x - y) <= atol + rtol * fabs(y)))
				continue;
			snprintf(why, why_len, "element %llu is %.17g, expected %.17g", (unsigned long long)k, x, y);
		} else
			snprintf(why, why_len, "element %llu is %lld, expected %lld", (unsigned long long)k,
			    (long long)scs_eval_get_int(a, k), (long long)scs_eval_get_int(b, k));
		return 0;
	}
	return 1;
}

/* ---- what kernels share ---- */

const Onnx__AttributeProto *
scs_eval_attr(const scs_eval_call *c, const char *name)
{
	return scs_attr_find(c->node, name);
}

int64_t
scs_eval_attr_int(const scs_eval_call *c, const char *name, int64_t dflt)
{
	return scs_attr_int(c->node, name, dflt);
}

const scs_eval_tensor *
scs_eval_in(const scs_eval_call *c, size_t i)
{
	return i < c->n_in && c->in[i].dtype ? &c->in[i] : NULL;
}

int64_t
scs_eval_get_int(const scs_eval_tensor *t, uint64_t k)
{
	const uint8_t *p = t->data + k * scs_eval_esize(t->dtype);
	double d;

	switch (t->dtype) {
	case SCS_DT_INT8: return (int8_t)p[0];
	case SCS_DT_UINT8: case SCS_DT_BOOL: return p[0];
	case SCS_DT_INT16: return (int16_t)scs_load_le16(p);
	case SCS_DT_UINT16: return scs_load_le16(p);
	case SCS_DT_INT32: return (int32_t)scs_load_le32(p);
	case SCS_DT_UINT32: return scs_load_le32(p);
	case SCS_DT_INT64: case SCS_DT_UINT64: return (int64_t)scs_load_le64(p);
	default:
		if (!is_float(t->dtype))
			return 0;
		d = get_double(t, k);
		return isfinite(d) && fabs(d) < 9.2e18 ? (int64_t)d : 0;
	}
}

int
scs_eval_ints(scs_eval_call *c, size_t i, const char *attr, int64_t *out, size_t max, size_t *n, int *present)
{
	const scs_eval_tensor *t = scs_eval_in(c, i);
	const Onnx__AttributeProto *a;

	*n = 0;
	*present = 0;
	if (t) {
		if (t->dtype != SCS_DT_INT64 && t->dtype != SCS_DT_INT32)
			return scs_eval_decline(c, "input %zu is %s, not integers", i, scs_dtype_name(t->dtype));
		if (t->n > max)
			return scs_eval_decline(c, "input %zu has %llu values", i, (unsigned long long)t->n);
		for (uint64_t k = 0; k < t->n; k++)
			out[k] = scs_eval_get_int(t, k);
		*n = (size_t)t->n;
		*present = 1;
		return SCS_OK;
	}
	if (attr && (a = scs_eval_attr(c, attr)) != NULL) {
		if (a->n_ints > max)
			return scs_eval_decline(c, "attribute %s has %zu values", attr, a->n_ints);
		if (a->n_ints)
			memcpy(out, a->ints, a->n_ints * sizeof(*out));
		*n = a->n_ints;
		*present = 1;
	}
	return SCS_OK;
}

int
scs_eval_axis(scs_eval_call *c, int64_t axis, size_t rank, size_t *out)
{
	if (axis < -(int64_t)rank || axis >= (int64_t)rank)
		return scs_eval_decline(c, "axis %lld out of range for rank %zu", (long long)axis, rank);
	*out = (size_t)(axis < 0 ? axis + (int64_t)rank : axis);
	return SCS_OK;
}

void
scs_eval_strides(const int64_t *dims, size_t rank, uint64_t *strides)
{
	uint64_t s = 1;

	for (size_t i = rank; i-- > 0;) {
		strides[i] = s;
		s *= (uint64_t)dims[i];
	}
}

int
scs_eval_bcast_init(scs_eval_call *c, scs_eval_bcast *b, const scs_eval_tensor *const *t, size_t k,
    const int64_t *extra, size_t extra_rank)
{
	memset(b, 0, sizeof(*b));
	if (k > SCS_EVAL_EW_MAX)
		return scs_eval_decline(c, "%zu operands to broadcast", k);
	b->k = k;
	b->rank = extra_rank;
	for (size_t j = 0; j < k; j++)
		if (t[j]->rank > b->rank)
			b->rank = t[j]->rank;
	if (b->rank > SCS_EVAL_MAX_RANK)
		return scs_eval_decline(c, "rank %zu", b->rank);
	for (size_t a = 0; a < b->rank; a++)
		b->dims[a] = 1;
	for (size_t j = 0; j <= k; j++) {
		size_t r = j < k ? t[j]->rank : extra_rank;
		const int64_t *d = j < k ? t[j]->dims : extra;

		for (size_t a = 0; a < r; a++) {
			int64_t *o = &b->dims[b->rank - r + a];

			if (d[a] < 0)
				return scs_eval_decline(c, "a negative dim");
			if (*o == 1)
				*o = d[a];
			else if (d[a] != 1 && d[a] != *o)
				return scs_eval_decline(c, "dims %lld and %lld do not broadcast", (long long)*o,
				    (long long)d[a]);
		}
	}
	b->n = 1;
	for (size_t a = 0; a < b->rank; a++)
		b->n *= (uint64_t)b->dims[a];
	for (size_t j = 0; j < k; j++) {
		uint64_t s = 1;
		size_t r = t[j]->rank;

		for (size_t a = r; a-- > 0;) {
			b->stride[j][b->rank - r + a] = t[j]->dims[a] == 1 ? 0 : s;
			s *= (uint64_t)t[j]->dims[a];
		}
	}
	return SCS_OK;
}

void
scs_eval_bcast_next(scs_eval_bcast *b)
{
	for (size_t a = b->rank; a-- > 0;) {
		for (size_t j = 0; j < b->k; j++)
			b->off[j] += b->stride[j][a];
		if (++b->idx[a] < (uint64_t)b->dims[a])
			return;
		for (size_t j = 0; j < b->k; j++)
			b->off[j] -= b->stride[j][a] * (uint64_t)b->dims[a];
		b->idx[a] = 0;
	}
}

void
scs_eval_bcast_seek(scs_eval_bcast *b, uint64_t k)
{
	memset(b->off, 0, sizeof(b->off));
	for (size_t a = b->rank; a-- > 0;) {
		b->idx[a] = b->dims[a] ? k % (uint64_t)b->dims[a] : 0;
		k = b->dims[a] ? k / (uint64_t)b->dims[a] : 0;
		for (size_t j = 0; j < b->k; j++)
			b->off[j] += b->idx[a] * b->stride[j][a];
	}
}
