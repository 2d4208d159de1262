/*
 * opt_const.c: the optimizer's constants (see opt.h): which values are
 * constants, reading their elements and bytes in pieces, and writing new
 * payloads in pieces into the store.
 *
 * SPDX-License-Identifier: MIT
 */
#include "opt/opt.h"
#include "opt/opt_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx/dtype.h"
#include "eval/eval.h"
#include "util/half.h"
#include "util/num.h"
#include "io/store.h"

/* ---- constants ---- */

int64_t
scs_opt_const_dim(const scs_opt_const *c, size_t i)
{
	if (c->t)
		return i < c->t->n_dims ? c->t->dims[i] : 1;
	return c->n_elems;     /* value_floats / value_ints: one dim */
}

/* A Constant node's value given by value_float(s) / value_int(s): the attribute, else NULL. */
static const Onnx__AttributeProto *
constant_list_attr(const Onnx__NodeProto *n)
{
	const Onnx__AttributeProto *a;

	if (!n->op_type || strcmp(n->op_type, "Constant") != 0 || !scs_is_onnx_domain(n->domain) || n->n_attribute != 1)
		return NULL;
	a = n->attribute[0];
	if (!a->name || (a->ref_attr_name && a->ref_attr_name[0]))
		return NULL;
	if (strcmp(a->name, "value_float") == 0 || strcmp(a->name, "value_floats") == 0 ||
	    strcmp(a->name, "value_int") == 0 || strcmp(a->name, "value_ints") == 0)
		return a;
	return NULL;
}

int
scs_opt_constant(scs_opt_const *out, scs_opt_ctx *ctx, int scope, const char *name, char *why, size_t why_len)
{
	int d = scs_opt_def_scope(ctx, scope, name);
	Onnx__NodeProto *p;
	const Onnx__AttributeProto *a;

	memset(out, 0, sizeof(*out));
	if (d < 0) {
		snprintf(why, why_len, "'%s' is defined nowhere", name);
		return 0;
	}
	out->scope = d;
	out->t = scs_opt_initializer(ctx, d, name);
	if (scs_opt_is_input(ctx, d, name)) {
		if (out->t)
			snprintf(why, why_len, "'%s' is a graph input with a default (an initializer): a caller may "
			    "override it", name);
		else
			snprintf(why, why_len, "'%s' is a graph input, not a constant", name);
		out->t = NULL;
		return 0;
	}
	if (out->t == NULL && (p = scs_opt_producer(ctx, d, name)) != NULL) {
		if ((out->t = scs_node_constant(p)) != NULL) {
			out->node = p;
		} else if ((a = constant_list_attr(p)) != NULL) {
			out->node = p;
			out->attr = a;
			out->dtype = a->name[6] == 'f' ? SCS_DT_FLOAT : SCS_DT_INT64;
			out->rank = a->name[strlen(a->name) - 1] == 's' ? 1 : 0;
			out->n_elems = out->rank ? (int64_t)(out->dtype == SCS_DT_FLOAT ? a->n_floats : a->n_ints) : 1;
			return 1;
		} else {
			snprintf(why, why_len, "'%s' is computed by a %s node, not a constant", name,
			    p->op_type ? p->op_type : "?");
			return 0;
		}
	}
	if (out->t == NULL) {
		snprintf(why, why_len, "'%s' is not a constant (a sparse initializer or a function input)", name);
		return 0;
	}
	out->dtype = out->t->data_type;
	out->rank = out->t->n_dims;
	if ((out->n_elems = scs_tensor_elems(out->t)) < 0) {
		snprintf(why, why_len, "constant '%s' has a negative or too large dim", name);
		return 0;
	}
	return 1;
}

int
scs_opt_readable(int dtype)
{
	switch (dtype) {
	case SCS_DT_FLOAT: case SCS_DT_DOUBLE: case SCS_DT_FLOAT16: case SCS_DT_BFLOAT16:
	case SCS_DT_INT8: case SCS_DT_INT16: case SCS_DT_INT32: case SCS_DT_INT64:
	case SCS_DT_UINT8: case SCS_DT_UINT16: case SCS_DT_UINT32: case SCS_DT_UINT64: case SCS_DT_BOOL:
		return 1;
	default:
		return 0;
	}
}

/* Element @k of raw little-endian bytes @p of type @dt, as a double or an int64 (*i). */
static double
elem_at(const uint8_t *p, int dt, int64_t *i)
{
	uint64_t u64;
	double d;

	switch (dt) {
	case SCS_DT_FLOAT: case SCS_DT_DOUBLE: case SCS_DT_FLOAT16: case SCS_DT_BFLOAT16:
		d = scs_eval_load_float(p, dt);
		*i = isfinite(d) && fabs(d) < 9.2e18 ? (int64_t)d : 0;
		return d;
	case SCS_DT_INT8: *i = (int8_t)p[0]; return (double)*i;
	case SCS_DT_UINT8: case SCS_DT_BOOL: *i = p[0]; return (double)*i;
	case SCS_DT_INT16: *i = (int16_t)scs_load_le16(p); return (double)*i;
	case SCS_DT_UINT16: *i = scs_load_le16(p); return (double)*i;
	case SCS_DT_INT32: *i = (int32_t)scs_load_le32(p); return (double)*i;
	case SCS_DT_UINT32: *i = scs_load_le32(p); return (double)*i;
	case SCS_DT_INT64: *i = (int64_t)scs_load_le64(p); return (double)*i;
	case SCS_DT_UINT64: u64 = scs_load_le64(p); *i = (int64_t)u64; return (double)u64;
	default: *i = 0; return 0;
	}
}

static int
read_elems(scs_opt_ctx *ctx, const scs_opt_const *c, uint64_t first, size_t count, double *dv, int64_t *iv)
{
	scs_opt_state *st = ctx->st;
	unsigned bits = scs_dtype_bits(c->dtype);
	size_t esize = bits / 8, per, take;
	uint32_t id;
	int64_t ival;
	double dval;
	int rc;

	if (!scs_opt_readable(c->dtype))
		return scs_err_set(SCS_EUNSUPPORTED, "optimizer: cannot read %s values", scs_dtype_name(c->dtype));
	if (first > (uint64_t)c->n_elems || count > (uint64_t)c->n_elems - first)
		return scs_err_set(SCS_ERANGE, "optimizer: elements %llu..%llu of a constant of %lld",
		    (unsigned long long)first, (unsigned long long)(first + count), (long long)c->n_elems);
	if (c->attr) {
		for (size_t k = 0; k < count; k++) {
			const Onnx__AttributeProto *a = c->attr;
			size_t at = (size_t)first + k;

			if (c->dtype == SCS_DT_FLOAT) {
				dval = c->rank ? a->floats[at] : a->f;
				ival = isfinite(dval) && fabs(dval) < 9.2e18 ? (int64_t)dval : 0;
			} else {
				ival = c->rank ? a->ints[at] : a->i;
				dval = (double)ival;
			}
			if (dv)
				dv[k] = dval;
			if (iv)
				iv[k] = ival;
		}
		return SCS_OK;
	}
	if (count == 0)
		return SCS_OK;
	if (!scs_model_payload_of(ctx->m, c->t, &id))
		return scs_err_set(SCS_ECORRUPT, "constant '%s' has no data", c->t->name ? c->t->name : "");
	if (st->rbuf == NULL && (st->rbuf = malloc(SCS_CHUNK_LEN)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate a read buffer");
	per = SCS_CHUNK_LEN / esize;
	for (size_t done = 0; done < count; done += take) {
		take = count - done < per ? count - done : per;
		if ((rc = scs_payloads_read(ctx->m->payloads, id, (first + done) * esize, st->rbuf, take * esize)) < 0)
			return rc;
		for (size_t k = 0; k < take; k++) {
			dval = elem_at(st->rbuf + k * esize, c->dtype, &ival);
			if (dv)
				dv[done + k] = dval;
			if (iv)
				iv[done + k] = ival;
		}
	}
	return SCS_OK;
}

int
scs_opt_read_doubles(scs_opt_ctx *ctx, const scs_opt_const *c, uint64_t first, size_t count, double *out)
{
	return read_elems(ctx, c, first, count, out, NULL);
}

int
scs_opt_read_int64s(scs_opt_ctx *ctx, const scs_opt_const *c, uint64_t first, size_t count, int64_t *out)
{
	return read_elems(ctx, c, first, count, NULL, out);
}

int
scs_opt_read_raw(scs_opt_ctx *ctx, const scs_opt_const *c, uint64_t off, size_t len, void *out)
{
	uint8_t *p = out;
	uint32_t id;

	if (c->attr) {
		int is_float = c->dtype == SCS_DT_FLOAT;
		size_t esize = is_float ? 4 : 8;
		uint64_t n = (uint64_t)c->n_elems;

		if (off > n * esize || len > n * esize - off)
			return scs_err_set(SCS_ERANGE, "optimizer: bytes past the end of a constant");
		for (size_t k = 0; k < len; k++) {
			uint64_t at = (off + k) / esize, byte = (off + k) % esize, u = 0;

			if (is_float) {
				float f = c->rank ? c->attr->floats[at] : c->attr->f;
				uint32_t u32;

				memcpy(&u32, &f, 4);
				u = u32;
			} else
				u = (uint64_t)(c->rank ? c->attr->ints[at] : c->attr->i);
			p[k] = (uint8_t)(u >> (8 * byte));
		}
		return SCS_OK;
	}
	if (len == 0)
		return SCS_OK;
	if (!scs_model_payload_of(ctx->m, c->t, &id))
		return scs_err_set(SCS_ECORRUPT, "constant '%s' has no data", c->t->name ? c->t->name : "");
	/* a read of any length: the store and derived payloads go a chunk at a time themselves */
	return scs_payloads_read(ctx->m->payloads, id, off, p, len);
}

/* ---- writing payloads ---- */

int
scs_opt_writer_open(scs_opt_writer *w, scs_opt_ctx *ctx, int dtype)
{
	scs_store_writer *sw;
	int rc;

	memset(w, 0, sizeof(*w));
	if (!scs_opt_readable(dtype))
		return scs_err_set(SCS_EUNSUPPORTED, "optimizer: cannot write %s values", scs_dtype_name(dtype));
	if (ctx->m->payloads->store == NULL)
		return scs_err_set(SCS_EUSAGE, "optimizer: new payloads need a store");
	if ((w->buf = malloc(SCS_CHUNK_LEN)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate a write buffer");
	if ((rc = scs_store_writer_open(&sw, ctx->m->payloads->store)) < 0) {
		free(w->buf);
		w->buf = NULL;
		return rc;
	}
	w->ctx = ctx;
	w->w = sw;
	w->dtype = dtype;
	return SCS_OK;
}

static int
writer_flush(scs_opt_writer *w)
{
	int rc = SCS_OK;

	if (w->used)
		rc = scs_store_writer_write(w->w, w->buf, w->used);
	w->used = 0;
	return rc;
}

/* Append one element given as a double (@d) or an int64 (@i, when @is_int). */
static int
writer_put(scs_opt_writer *w, double d, int64_t i, int is_int)
{
	size_t esize = scs_dtype_bits(w->dtype) / 8;
	uint8_t *p;
	uint64_t u;
	float f;
	int rc;

	if (w->used + esize > SCS_CHUNK_LEN && (rc = writer_flush(w)) < 0)
		return rc;
	p = w->buf + w->used;
	if (!is_int && w->dtype != SCS_DT_FLOAT && w->dtype != SCS_DT_DOUBLE && w->dtype != SCS_DT_FLOAT16 &&
	    w->dtype != SCS_DT_BFLOAT16)
		i = isfinite(d) && fabs(d) < 9.2e18 ? (int64_t)d : 0;
	if (is_int)
		d = (double)i;
	switch (w->dtype) {
	case SCS_DT_FLOAT:
		f = (float)d;
		memcpy(&u, &f, 4);
		scs_store_le32(p, (uint32_t)u);
		break;
	case SCS_DT_DOUBLE:
		memcpy(&u, &d, 8);
		scs_store_le64(p, u);
		break;
	case SCS_DT_FLOAT16: scs_store_le16(p, scs_half_from_double(d)); break;
	case SCS_DT_BFLOAT16: scs_store_le16(p, scs_bf16_from_double(d)); break;
	case SCS_DT_BOOL: p[0] = i != 0; break;
	case SCS_DT_INT8: case SCS_DT_UINT8: p[0] = (uint8_t)i; break;
	case SCS_DT_INT16: case SCS_DT_UINT16: scs_store_le16(p, (uint16_t)i); break;
	case SCS_DT_INT32: case SCS_DT_UINT32: scs_store_le32(p, (uint32_t)i); break;
	default: scs_store_le64(p, (uint64_t)i); break;
	}
	w->used += esize;
	w->n_elems++;
	return SCS_OK;
}

int
scs_opt_writer_put_doubles(scs_opt_writer *w, const double *v, size_t n)
{
	size_t k = 0;
	int rc;

	/* float and double: a run at a time (the general path costs a switch per element) */
	while (k < n && (w->dtype == SCS_DT_FLOAT || w->dtype == SCS_DT_DOUBLE)) {
		size_t esize = w->dtype == SCS_DT_FLOAT ? 4 : 8, room = (SCS_CHUNK_LEN - w->used) / esize, take;
		uint8_t *p = w->buf + w->used;

		if (room == 0) {
			if ((rc = writer_flush(w)) < 0)
				return rc;
			continue;
		}
		take = n - k < room ? n - k : room;
		for (size_t i = 0; i < take; i++, p += esize) {
			uint64_t u = 0;

			if (esize == 4) {
				float f = (float)v[k + i];

				memcpy(&u, &f, 4);
				scs_store_le32(p, (uint32_t)u);
			} else {
				memcpy(&u, &v[k + i], 8);
				scs_store_le64(p, u);
			}
		}
		w->used += take * esize;
		w->n_elems += take;
		k += take;
	}
	for (; k < n; k++)
		if ((rc = writer_put(w, v[k], 0, 0)) < 0)
			return rc;
	return SCS_OK;
}

int
scs_opt_writer_put_int64s(scs_opt_writer *w, const int64_t *v, size_t n)
{
	int rc;

	for (size_t k = 0; k < n; k++)
		if ((rc = writer_put(w, 0, v[k], 1)) < 0)
			return rc;
	return SCS_OK;
}

int
scs_opt_writer_put_raw(scs_opt_writer *w, const void *bytes, size_t len)
{
	const uint8_t *p = bytes;
	size_t esize = scs_dtype_bits(w->dtype) / 8, take;
	int rc;

	if (esize == 0 || len % esize)
		return scs_err_set(SCS_EUSAGE, "optimizer: %zu bytes of %s values", len, scs_dtype_name(w->dtype));
	while (len) {
		if (w->used == SCS_CHUNK_LEN && (rc = writer_flush(w)) < 0)
			return rc;
		take = SCS_CHUNK_LEN - w->used < len ? SCS_CHUNK_LEN - w->used : len;
		memcpy(w->buf + w->used, p, take);
		w->used += take;
		p += take;
		len -= take;
	}
	w->n_elems += (uint64_t)(p - (const uint8_t *)bytes) / esize;
	return SCS_OK;
}

int
scs_opt_writer_finish(uint32_t *payload, scs_opt_writer *w)
{
	scs_payload pl;
	scs_blob blob;
	int rc;

	if ((rc = writer_flush(w)) < 0) {
		scs_opt_writer_abort(w);
		return rc;
	}
	rc = scs_store_writer_finish(&blob, w->w);
	w->w = NULL;
	free(w->buf);
	w->buf = NULL;
	if (rc < 0)
		return rc;
	memset(&pl, 0, sizeof(pl));
	scs_payload_at_store(&pl, &blob);
	return scs_payloads_add(w->ctx->m->payloads, &pl, payload);
}

void
scs_opt_writer_abort(scs_opt_writer *w)
{
	if (w == NULL)
		return;
	if (w->w)
		scs_store_writer_abort(w->w);
	free(w->buf);
	w->w = NULL;
	w->buf = NULL;
}

