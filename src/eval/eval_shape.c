/*
 * eval_shape.c: the evaluator's kernels that move elements without
 * computing on them (any element type of whole bytes): Identity, Shape,
 * Size, Gather, GatherElements, Unsqueeze, Squeeze, Concat, Split,
 * Reshape, Flatten, Transpose, Slice, ConstantOfShape, Expand, Tile, Pad
 * (Where, which moves too, is elementwise: eval_math.c).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "eval/eval_impl.h"
#include "util/half.h"
#include "util/num.h"

#define R SCS_EVAL_MAX_RANK

/* The next row-major multi-index of @dims (idx all 0 after the last). */
static void
next_index(uint64_t *idx, const int64_t *dims, size_t rank)
{
	for (size_t a = rank; a-- > 0;) {
		if (++idx[a] < (uint64_t)dims[a])
			return;
		idx[a] = 0;
	}
}

static uint64_t
prod(const int64_t *dims, size_t from, size_t to)
{
	uint64_t p = 1;

	for (size_t i = from; i < to; i++)
		p *= (uint64_t)dims[i];
	return p;
}

/* Output 0 as a copy of @t with dims @dims (same element count). */
static int
copy_as(scs_eval_call *c, const scs_eval_tensor *t, size_t rank, const int64_t *dims)
{
	int rc;

	if ((rc = scs_eval_out(c, 0, t->dtype, rank, dims)) != SCS_OK)
		return rc;
	if (c->out[0].n != t->n)
		return scs_eval_decline(c, "%llu elements cannot take the new shape", (unsigned long long)t->n);
	if (t->n)
		memcpy(c->out[0].data, t->data, scs_eval_bytes(t));
	return SCS_OK;
}

static int
need(scs_eval_call *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (scs_eval_in(c, i) == NULL)
			return scs_eval_decline(c, "input %zu is missing", i);
	return SCS_OK;
}

int
scs_eval_k_identity(scs_eval_call *c)
{
	int rc;

	if ((rc = need(c, 1)) != SCS_OK)
		return rc;
	return copy_as(c, &c->in[0], c->in[0].rank, c->in[0].dims);
}

int
scs_eval_k_shape(scs_eval_call *c)
{
	int64_t r, start, end, dims[1];
	int rc;

	if ((rc = need(c, 1)) != SCS_OK)
		return rc;
	r = (int64_t)c->in[0].rank;
	start = scs_eval_attr_int(c, "start", 0);
	end = scs_eval_attr_int(c, "end", r);
	if (start < 0)
		start += r;
	if (end < 0)
		end += r;
	start = start < 0 ? 0 : start > r ? r : start;
	end = end < 0 ? 0 : end > r ? r : end;
	dims[0] = end > start ? end - start : 0;
	if ((rc = scs_eval_out(c, 0, SCS_DT_INT64, 1, dims)) != SCS_OK)
		return rc;
	for (int64_t i = 0; i < dims[0]; i++)
		scs_store_le64(c->out[0].data + 8 * i, (uint64_t)c->in[0].dims[start + i]);
	return SCS_OK;
}

int
scs_eval_k_size(scs_eval_call *c)
{
	int rc;

	if ((rc = need(c, 1)) != SCS_OK || (rc = scs_eval_out(c, 0, SCS_DT_INT64, 0, NULL)) != SCS_OK)
		return rc;
	scs_store_le64(c->out[0].data, c->in[0].n);
	return SCS_OK;
}

int
scs_eval_k_gather(scs_eval_call *c)
{
	const scs_eval_tensor *d = &c->in[0], *ix = &c->in[1];
	int64_t dims[R];
	size_t axis, esize, rank, block;
	uint64_t outer, n_ix;
	uint8_t *o;
	int rc;

	if ((rc = need(c, 2)) != SCS_OK || (rc = scs_eval_axis(c, scs_eval_attr_int(c, "axis", 0), d->rank, &axis)) != 0)
		return rc;
	if (ix->dtype != SCS_DT_INT64 && ix->dtype != SCS_DT_INT32)
		return scs_eval_decline(c, "indices of %s", scs_dtype_name(ix->dtype));
	rank = d->rank - 1 + ix->rank;
	if (rank > R)
		return scs_eval_decline(c, "rank %zu", rank);
	memcpy(dims, d->dims, axis * sizeof(*dims));
	memcpy(dims + axis, ix->dims, ix->rank * sizeof(*dims));
	memcpy(dims + axis + ix->rank, d->dims + axis + 1, (d->rank - axis - 1) * sizeof(*dims));
	if ((rc = scs_eval_out(c, 0, d->dtype, rank, dims)) != SCS_OK)
		return rc;
	esize = scs_eval_esize(d->dtype);
	outer = prod(d->dims, 0, axis);
	block = (size_t)prod(d->dims, axis + 1, d->rank) * esize;
	n_ix = ix->n;
	o = c->out[0].data;
	for (uint64_t i = 0; i < outer; i++)
		for (uint64_t j = 0; j < n_ix; j++, o += block) {
			int64_t k = scs_eval_get_int(ix, j);

			if (k < -d->dims[axis] || k >= d->dims[axis])
				return scs_eval_decline(c, "index %lld out of range [%lld, %lld)", (long long)k,
				    (long long)-d->dims[axis], (long long)d->dims[axis]);
			if (k < 0)
				k += d->dims[axis];
			memcpy(o, d->data + (i * (uint64_t)d->dims[axis] + (uint64_t)k) * block, block);
		}
	return SCS_OK;
}

int
scs_eval_k_gather_elements(scs_eval_call *c)
{
	const scs_eval_tensor *d = &c->in[0], *ix = &c->in[1];
	uint64_t idx[R] = { 0 }, st[R];
	size_t axis, esize;
	int rc;

	if ((rc = need(c, 2)) != SCS_OK || (rc = scs_eval_axis(c, scs_eval_attr_int(c, "axis", 0), d->rank, &axis)) != 0)
		return rc;
	if (ix->dtype != SCS_DT_INT64 && ix->dtype != SCS_DT_INT32)
		return scs_eval_decline(c, "indices of %s", scs_dtype_name(ix->dtype));
	if (ix->rank != d->rank)
		return scs_eval_decline(c, "indices of rank %zu for data of rank %zu", ix->rank, d->rank);
	for (size_t a = 0; a < d->rank; a++)
		if (a != axis && ix->dims[a] > d->dims[a])
			return scs_eval_decline(c, "indices dim %zu over the data's", a);
	if ((rc = scs_eval_out(c, 0, d->dtype, ix->rank, ix->dims)) != SCS_OK)
		return rc;
	esize = scs_eval_esize(d->dtype);
	scs_eval_strides(d->dims, d->rank, st);
	for (uint64_t j = 0; j < ix->n; j++, next_index(idx, ix->dims, ix->rank)) {
		int64_t k = scs_eval_get_int(ix, j);
		uint64_t off = 0;

		if (k < -d->dims[axis] || k >= d->dims[axis])
			return scs_eval_decline(c, "index %lld out of range", (long long)k);
		if (k < 0)
			k += d->dims[axis];
		for (size_t a = 0; a < d->rank; a++)
			off += (a == axis ? (uint64_t)k : idx[a]) * st[a];
		memcpy(c->out[0].data + j * esize, d->data + off * esize, esize);
	}
	return SCS_OK;
}

/* Axes from input 1 (opset >= @in_from) or attribute "axes", normalized to @rank, no repeats. */
static int
axes_of(scs_eval_call *c, int64_t in_from, size_t rank, int *mask, size_t *n)
{
	int64_t v[R];
	int present, rc;

	memset(mask, 0, R * sizeof(*mask));
	if ((rc = scs_eval_ints(c, c->opset >= in_from ? 1 : (size_t)-1, c->opset >= in_from ? NULL : "axes", v, R, n,
	    &present)) != SCS_OK)
		return rc;
	for (size_t i = 0; i < *n; i++) {
		size_t a;

		if ((rc = scs_eval_axis(c, v[i], rank, &a)) != SCS_OK)
			return rc;
		if (mask[a])
			return scs_eval_decline(c, "axis %lld repeated", (long long)v[i]);
		mask[a] = 1;
	}
	return SCS_OK;
}

int
scs_eval_k_unsqueeze(scs_eval_call *c)
{
	const scs_eval_tensor *t = &c->in[0];
	int mask[R];
	int64_t dims[R];
	size_t n, rank, k = 0;
	int rc;

	if ((rc = need(c, 1)) != SCS_OK)
		return rc;
	/* the rank is the input's plus the number of axes, which count once each */
	if ((rc = scs_eval_ints(c, c->opset >= 13 ? 1 : (size_t)-1, c->opset >= 13 ? NULL : "axes", dims, R, &n,
	    &(int){ 0 })) != SCS_OK)
		return rc;
	rank = t->rank + n;
	if (rank > R)
		return scs_eval_decline(c, "rank %zu", rank);
	if ((rc = axes_of(c, 13, rank, mask, &n)) != SCS_OK)
		return rc;
	for (size_t a = 0; a < rank; a++)
		dims[a] = mask[a] ? 1 : t->dims[k++];
	return copy_as(c, t, rank, dims);
}

int
scs_eval_k_squeeze(scs_eval_call *c)
{
	const scs_eval_tensor *t = &c->in[0];
	int mask[R];
	int64_t dims[R];
	size_t n, rank = 0;
	int rc;

	if ((rc = need(c, 1)) != SCS_OK || (rc = axes_of(c, 13, t->rank, mask, &n)) != SCS_OK)
		return rc;
	for (size_t a = 0; a < t->rank; a++) {
		if (n == 0)
			mask[a] = t->dims[a] == 1;
		else if (mask[a] && t->dims[a] != 1)
			return scs_eval_decline(c, "axis %zu has dim %lld, not 1", a, (long long)t->dims[a]);
		if (!mask[a])
			dims[rank++] = t->dims[a];
	}
	return copy_as(c, t, rank, dims);
}

int
scs_eval_k_concat(scs_eval_call *c)
{
	const scs_eval_tensor *t0 = scs_eval_in(c, 0);
	int64_t dims[R];
	size_t axis, esize;
	uint64_t outer;
	uint8_t *o;
	int rc;

	if (t0 == NULL)
		return scs_eval_decline(c, "no inputs");
	if ((rc = scs_eval_axis(c, scs_eval_attr_int(c, "axis", 0), t0->rank, &axis)) != SCS_OK)
		return rc;
	memcpy(dims, t0->dims, t0->rank * sizeof(*dims));
	dims[axis] = 0;
	for (size_t i = 0; i < c->n_in; i++) {
		const scs_eval_tensor *t = &c->in[i];

		if (t->dtype != t0->dtype || t->rank != t0->rank)
			return scs_eval_decline(c, "input %zu differs in type or rank", i);
		for (size_t a = 0; a < t->rank; a++)
			if (a != axis && t->dims[a] != t0->dims[a])
				return scs_eval_decline(c, "input %zu differs in dim %zu", i, a);
		if (t->dims[axis] > INT64_MAX - dims[axis])
			return scs_eval_decline(c, "dims overflow");
		dims[axis] += t->dims[axis];
	}
	if ((rc = scs_eval_out(c, 0, t0->dtype, t0->rank, dims)) != SCS_OK)
		return rc;
	esize = scs_eval_esize(t0->dtype);
	outer = prod(dims, 0, axis);
	o = c->out[0].data;
	for (uint64_t i = 0; i < outer; i++)
		for (size_t j = 0; j < c->n_in; j++) {
			size_t block = (size_t)prod(c->in[j].dims, axis, c->in[j].rank) * esize;

			if (block)
				memcpy(o, c->in[j].data + i * block, block);
			o += block;
		}
	return SCS_OK;
}

int
scs_eval_k_split(scs_eval_call *c)
{
	const scs_eval_tensor *t = &c->in[0];
	int64_t sizes[256], dims[R], total = 0, num;
	size_t axis, n, esize;
	uint64_t outer, inner, at = 0;
	int present, rc;

	if ((rc = need(c, 1)) != SCS_OK || (rc = scs_eval_axis(c, scs_eval_attr_int(c, "axis", 0), t->rank, &axis)) != 0)
		return rc;
	if (c->n_out > 256)
		return scs_eval_decline(c, "%zu outputs", c->n_out);
	if ((rc = scs_eval_ints(c, c->opset >= 13 ? 1 : (size_t)-1, c->opset >= 13 ? NULL : "split", sizes, 256, &n,
	    &present)) != SCS_OK)
		return rc;
	if (!present || n == 0) {
		num = scs_eval_attr_int(c, "num_outputs", (int64_t)c->n_out);
		if (num != (int64_t)c->n_out || num <= 0)
			return scs_eval_decline(c, "num_outputs %lld for %zu outputs", (long long)num, c->n_out);
		if (scs_eval_attr(c, "num_outputs") == NULL && t->dims[axis] % num)
			return scs_eval_decline(c, "dim %lld does not split in %lld", (long long)t->dims[axis],
			    (long long)num);
		for (int64_t i = 0; i < num; i++) {
			int64_t chunk = (t->dims[axis] + num - 1) / num, left = t->dims[axis] - i * chunk;

			sizes[i] = left < 0 ? 0 : left < chunk ? left : chunk;
		}
		n = (size_t)num;
	}
	if (n != c->n_out)
		return scs_eval_decline(c, "%zu sizes for %zu outputs", n, c->n_out);
	for (size_t i = 0; i < n; i++) {
		if (sizes[i] < 0 || sizes[i] > t->dims[axis])
			return scs_eval_decline(c, "a size of %lld", (long long)sizes[i]);
		total += sizes[i];
	}
	if (total != t->dims[axis])
		return scs_eval_decline(c, "sizes add up to %lld, not %lld", (long long)total, (long long)t->dims[axis]);
	esize = scs_eval_esize(t->dtype);
	outer = prod(t->dims, 0, axis);
	inner = prod(t->dims, axis + 1, t->rank) * esize;
	memcpy(dims, t->dims, t->rank * sizeof(*dims));
	for (size_t j = 0; j < n; j++) {
		size_t block = (size_t)((uint64_t)sizes[j] * inner);

		dims[axis] = sizes[j];
		if ((rc = scs_eval_out(c, j, t->dtype, t->rank, dims)) != SCS_OK)
			return rc;
		for (uint64_t i = 0; i < outer && block; i++)
			memcpy(c->out[j].data + i * block, t->data + i * (uint64_t)t->dims[axis] * inner + at, block);
		at += block;
	}
	return SCS_OK;
}

int
scs_eval_k_reshape(scs_eval_call *c)
{
	const scs_eval_tensor *t = &c->in[0];
	int64_t dims[R], known = 1;
	size_t n;
	int present, rc, unknown = -1, allowzero = (int)scs_eval_attr_int(c, "allowzero", 0);

	if ((rc = need(c, 1)) != SCS_OK)
		return rc;
	if ((rc = scs_eval_ints(c, c->opset >= 5 ? 1 : (size_t)-1, c->opset >= 5 ? NULL : "shape", dims, R, &n,
	    &present)) != SCS_OK)
		return rc;
	if (!present)
		return scs_eval_decline(c, "no shape");
	for (size_t a = 0; a < n; a++) {
		if (dims[a] == 0 && !allowzero) {
			if (a >= t->rank)
				return scs_eval_decline(c, "0 at dim %zu past the input's rank", a);
			dims[a] = t->dims[a];
		}
		if (dims[a] == -1) {
			if (unknown >= 0)
				return scs_eval_decline(c, "two -1 dims");
			unknown = (int)a;
		} else if (dims[a] < 0)
			return scs_eval_decline(c, "dim %lld", (long long)dims[a]);
		else if (dims[a] && known > INT64_MAX / dims[a])
			return scs_eval_decline(c, "dims overflow");
		else
			known *= dims[a];
	}
	if (unknown >= 0) {
		if (known == 0 || t->n % (uint64_t)known)
			return scs_eval_decline(c, "-1 cannot be inferred");
		dims[unknown] = (int64_t)(t->n / (uint64_t)known);
	}
	return copy_as(c, t, n, dims);
}

int
scs_eval_k_flatten(scs_eval_call *c)
{
	const scs_eval_tensor *t = &c->in[0];
	int64_t dims[2], axis;
	int rc;

	if ((rc = need(c, 1)) != SCS_OK)
		return rc;
	axis = scs_eval_attr_int(c, "axis", 1);
	if (axis < 0)
		axis += (int64_t)t->rank;
	if (axis < 0 || axis > (int64_t)t->rank)
		return scs_eval_decline(c, "axis out of range");
	dims[0] = (int64_t)prod(t->dims, 0, (size_t)axis);
	dims[1] = (int64_t)prod(t->dims, (size_t)axis, t->rank);
	return copy_as(c, t, 2, dims);
}

/* Output 0 of @dtype and @dims, element k copied from @t's element src(idx) (or @fill when src < 0). */
typedef int64_t (*src_fn)(void *p, const uint64_t *idx);

static int
map_elems(scs_eval_call *c, const scs_eval_tensor *t, size_t rank, const int64_t *dims, src_fn src, void *p,
    const uint8_t *fill)
{
	uint64_t idx[R] = { 0 };
	size_t esize = scs_eval_esize(t->dtype);
	int rc;

	if ((rc = scs_eval_out(c, 0, t->dtype, rank, dims)) != SCS_OK)
		return rc;
	for (uint64_t k = 0; k < c->out[0].n; k++, next_index(idx, dims, rank)) {
		int64_t s = src(p, idx);

		memcpy(c->out[0].data + k * esize, s < 0 ? fill : t->data + (uint64_t)s * esize, esize);
	}
	return SCS_OK;
}

typedef struct perm_map {
	size_t rank;
	size_t perm[R];
	uint64_t st[R];
} perm_map;

static int64_t
perm_src(void *p, const uint64_t *idx)
{
	perm_map *m = p;
	uint64_t off = 0;

	for (size_t a = 0; a < m->rank; a++)
		off += idx[a] * m->st[m->perm[a]];
	return (int64_t)off;
}

int
scs_eval_k_transpose(scs_eval_call *c)
{
	const scs_eval_tensor *t = &c->in[0];
	const Onnx__AttributeProto *pa = scs_eval_attr(c, "perm");
	perm_map m = { .rank = t->rank };
	int64_t dims[R];
	int seen[R] = { 0 }, rc;

	if ((rc = need(c, 1)) != SCS_OK)
		return rc;
	if (pa && pa->n_ints != t->rank)
		return scs_eval_decline(c, "perm of %zu for rank %zu", pa->n_ints, t->rank);
	for (size_t a = 0; a < t->rank; a++) {
		int64_t v = pa ? pa->ints[a] : (int64_t)(t->rank - 1 - a);

		if (v < 0 || v >= (int64_t)t->rank || seen[v]++)
			return scs_eval_decline(c, "perm is not a permutation");
		m.perm[a] = (size_t)v;
		dims[a] = t->dims[v];
	}
	scs_eval_strides(t->dims, t->rank, m.st);
	return map_elems(c, t, t->rank, dims, perm_src, &m, NULL);
}

typedef struct slice_map {
	size_t rank;
	int64_t start[R], step[R];
	uint64_t st[R];
} slice_map;

static int64_t
slice_src(void *p, const uint64_t *idx)
{
	slice_map *m = p;
	int64_t off = 0;

	for (size_t a = 0; a < m->rank; a++)
		off += (m->start[a] + (int64_t)idx[a] * m->step[a]) * (int64_t)m->st[a];
	return off;
}

int
scs_eval_k_slice(scs_eval_call *c)
{
	const scs_eval_tensor *t = &c->in[0];
	int64_t starts[R], ends[R], axes[R], steps[R], dims[R];
	size_t ns, ne, na, nst;
	slice_map m = { .rank = t->rank };
	int seen[R] = { 0 }, p1, p2, p3, p4, rc;
	int old = c->opset < 10;

	if ((rc = need(c, 1)) != SCS_OK ||
	    (rc = scs_eval_ints(c, old ? (size_t)-1 : 1, "starts", starts, R, &ns, &p1)) != SCS_OK ||
	    (rc = scs_eval_ints(c, old ? (size_t)-1 : 2, "ends", ends, R, &ne, &p2)) != SCS_OK ||
	    (rc = scs_eval_ints(c, old ? (size_t)-1 : 3, "axes", axes, R, &na, &p3)) != SCS_OK ||
	    (rc = scs_eval_ints(c, old ? (size_t)-1 : 4, NULL, steps, R, &nst, &p4)) != SCS_OK)
		return rc;
	if (!p1 || !p2 || ns != ne || (p3 && na != ns) || (p4 && nst != ns))
		return scs_eval_decline(c, "starts, ends, axes and steps differ in length");
	for (size_t a = 0; a < t->rank; a++) {
		m.start[a] = 0;
		m.step[a] = 1;
		dims[a] = t->dims[a];
	}
	for (size_t i = 0; i < ns; i++) {
		int64_t s = starts[i], e = ends[i], step = p4 ? steps[i] : 1, first;
		uint64_t count;
		size_t a;

		if ((rc = scs_eval_axis(c, p3 ? axes[i] : (int64_t)i, t->rank, &a)) != SCS_OK)
			return rc;
		if (seen[a]++)
			return scs_eval_decline(c, "axis %zu repeated", a);
		if (step == 0)
			return scs_eval_decline(c, "step 0");
		if (scs_slice_span(t->dims[a], s, e, step, &first, &count) < 0)
			return scs_eval_decline(c, "an end of %lld with step %lld (ONNX Runtime slices to the start, the spec's "
			    "clamping takes nothing)", (long long)e, (long long)step);
		dims[a] = (int64_t)count;
		m.start[a] = first;
		m.step[a] = step;
	}
	scs_eval_strides(t->dims, t->rank, m.st);
	return map_elems(c, t, t->rank, dims, slice_src, &m, NULL);
}

int
scs_eval_k_constant_of_shape(scs_eval_call *c)
{
	const Onnx__AttributeProto *va = scs_eval_attr(c, "value");
	scs_eval_tensor v = { 0 };
	int64_t dims[R];
	size_t n, esize;
	int present, rc, dtype = SCS_DT_FLOAT;

	if ((rc = need(c, 1)) != SCS_OK || (rc = scs_eval_ints(c, 0, NULL, dims, R, &n, &present)) != SCS_OK)
		return rc;
	if (c->in[0].rank != 1)
		return scs_eval_decline(c, "a shape of rank %zu", c->in[0].rank);
	if (va) {
		if (va->t == NULL || c->tensor_of == NULL)
			return scs_eval_decline(c, "value is not a tensor");
		if ((rc = c->tensor_of(c->tensor_payload, va->t, &v, c->why, c->why_len)) != SCS_OK)
			return rc;
		if (v.n != 1) {
			scs_eval_tensor_free(&v);
			return scs_eval_decline(c, "value has %llu elements", (unsigned long long)v.n);
		}
		dtype = v.dtype;
	}
	if ((rc = scs_eval_out(c, 0, dtype, n, dims)) == SCS_OK && va) {
		esize = scs_eval_esize(dtype);
		for (uint64_t k = 0; k < c->out[0].n; k++)
			memcpy(c->out[0].data + k * esize, v.data, esize);
	}
	scs_eval_tensor_free(&v);
	return rc;
}

int
scs_eval_k_expand(scs_eval_call *c)
{
	const scs_eval_tensor *t = &c->in[0];
	scs_eval_bcast b;
	int64_t shape[R];
	size_t n, esize;
	int present, rc;

	if ((rc = need(c, 2)) != SCS_OK || (rc = scs_eval_ints(c, 1, NULL, shape, R, &n, &present)) != SCS_OK)
		return rc;
	if ((rc = scs_eval_bcast_init(c, &b, &t, 1, shape, n)) != SCS_OK ||
	    (rc = scs_eval_out(c, 0, t->dtype, b.rank, b.dims)) != SCS_OK)
		return rc;
	esize = scs_eval_esize(t->dtype);
	for (uint64_t k = 0; k < b.n; k++, scs_eval_bcast_next(&b))
		memcpy(c->out[0].data + k * esize, t->data + b.off[0] * esize, esize);
	return SCS_OK;
}

typedef struct tile_map {
	size_t rank;
	const int64_t *dims;
	uint64_t st[R];
} tile_map;

static int64_t
tile_src(void *p, const uint64_t *idx)
{
	tile_map *m = p;
	uint64_t off = 0;

	for (size_t a = 0; a < m->rank; a++)
		off += idx[a] % (uint64_t)m->dims[a] * m->st[a];
	return (int64_t)off;
}

int
scs_eval_k_tile(scs_eval_call *c)
{
	const scs_eval_tensor *t = &c->in[0];
	tile_map m = { .rank = t->rank, .dims = t->dims };
	int64_t rep[R], dims[R];
	size_t n;
	int present, rc;

	if ((rc = need(c, 2)) != SCS_OK || (rc = scs_eval_ints(c, 1, NULL, rep, R, &n, &present)) != SCS_OK)
		return rc;
	if (n != t->rank)
		return scs_eval_decline(c, "%zu repeats for rank %zu", n, t->rank);
	for (size_t a = 0; a < n; a++) {
		if (rep[a] < 0 || (t->dims[a] && rep[a] > INT64_MAX / t->dims[a]))
			return scs_eval_decline(c, "repeats %lld", (long long)rep[a]);
		dims[a] = t->dims[a] * rep[a];
	}
	scs_eval_strides(t->dims, t->rank, m.st);
	return map_elems(c, t, t->rank, dims, tile_src, &m, NULL);
}

typedef struct pad_map {
	size_t rank;
	int mode;
	const int64_t *dims;
	int64_t begin[R];
	uint64_t st[R];
} pad_map;

static int64_t
pad_src(void *p, const uint64_t *idx)
{
	pad_map *m = p;
	int64_t off = 0;

	for (size_t a = 0; a < m->rank; a++) {
		int64_t x = (int64_t)idx[a] - m->begin[a], d = m->dims[a], per;

		if (x < 0 || x >= d) {
			switch (m->mode) {
			case SCS_PAD_CONSTANT: return -1;
			case SCS_PAD_EDGE: x = x < 0 ? 0 : d - 1; break;
			case SCS_PAD_WRAP: x = (x % d + d) % d; break;
			default:
				per = 2 * (d - 1);
				x = per ? (x % per + per) % per : 0;
				if (x >= d)
					x = per - x;
				break;
			}
		}
		off += x * (int64_t)m->st[a];
	}
	return off;
}

int
scs_eval_k_pad(scs_eval_call *c)
{
	const scs_eval_tensor *t = &c->in[0], *cv;
	const Onnx__AttributeProto *ma = scs_eval_attr(c, "mode");
	pad_map m = { .rank = t->rank, .dims = t->dims };
	int64_t pads[2 * R], axes[R], dims[R], all[2 * R] = { 0 };
	uint8_t fill[8] = { 0 };
	size_t np, na, esize = scs_eval_esize(t->dtype);
	int p1, p3, rc, old = c->opset < 11;

	if ((rc = need(c, 1)) != SCS_OK)
		return rc;
	if ((rc = scs_eval_ints(c, old ? (size_t)-1 : 1, c->opset < 2 ? "paddings" : "pads", pads, 2 * R, &np, &p1)) !=
	    SCS_OK || (rc = scs_eval_ints(c, old ? (size_t)-1 : 3, NULL, axes, R, &na, &p3)) != SCS_OK)
		return rc;
	if (!p3)
		for (na = 0; na < t->rank; na++)
			axes[na] = (int64_t)na;
	if (!p1 || np != 2 * na)
		return scs_eval_decline(c, "%zu pads for %zu axes", np, na);
	for (size_t i = 0; i < na; i++) {
		size_t a;

		if ((rc = scs_eval_axis(c, axes[i], t->rank, &a)) != SCS_OK)
			return rc;
		if (pads[i] < -((int64_t)1 << 48) || pads[i] > (int64_t)1 << 48 || pads[na + i] < -((int64_t)1 << 48) ||
		    pads[na + i] > (int64_t)1 << 48)
			return scs_eval_decline(c, "pads out of range");
		all[a] = pads[i];
		all[t->rank + a] = pads[na + i];
	}
	m.mode = SCS_PAD_CONSTANT;
	if (ma && ma->has_s) {
		const char *s = (const char *)ma->s.data;
		size_t l = ma->s.len;

		if (l == 7 && memcmp(s, "reflect", 7) == 0)
			m.mode = SCS_PAD_REFLECT;
		else if (l == 4 && memcmp(s, "edge", 4) == 0)
			m.mode = SCS_PAD_EDGE;
		else if (l == 4 && memcmp(s, "wrap", 4) == 0)
			m.mode = SCS_PAD_WRAP;
		else if (!(l == 8 && memcmp(s, "constant", 8) == 0))
			return scs_eval_decline(c, "mode %.*s", (int)l, s);
	}
	for (size_t a = 0; a < t->rank; a++) {
		if (t->dims[a] > (int64_t)1 << 60)
			return scs_eval_decline(c, "dim %zu out of range", a);
		m.begin[a] = all[a];
		dims[a] = t->dims[a] + all[a] + all[t->rank + a];
		if (dims[a] < 0)
			return scs_eval_decline(c, "pads remove more than dim %zu", a);
		if (scs_pad_refused(m.mode, t->dims[a], all[a], all[t->rank + a]))
			return scs_eval_decline(c, "pads %lld, %lld of dim %lld in this mode (ONNX Runtime refuses them)",
			    (long long)all[a], (long long)all[t->rank + a], (long long)t->dims[a]);
	}
	if (old) {
		float v = scs_eval_attr(c, "value") ? scs_eval_attr(c, "value")->f : 0.0f;
		double d = v;
		uint16_t h;

		if (t->dtype == SCS_DT_FLOAT)
			memcpy(fill, &v, 4);
		else if (t->dtype == SCS_DT_DOUBLE)
			memcpy(fill, &d, 8);
		else if (t->dtype == SCS_DT_FLOAT16 || t->dtype == SCS_DT_BFLOAT16) {
			h = t->dtype == SCS_DT_FLOAT16 ? scs_half_from_float(v) : scs_bf16_from_float(v);
			memcpy(fill, &h, 2);
		} else if (v != 0)
			return scs_eval_decline(c, "a value for %s", scs_dtype_name(t->dtype));
	} else if ((cv = scs_eval_in(c, 2)) != NULL) {
		if (cv->dtype != t->dtype || cv->n != 1)
			return scs_eval_decline(c, "constant_value is not one %s", scs_dtype_name(t->dtype));
		memcpy(fill, cv->data, esize);
	}
	scs_eval_strides(t->dims, t->rank, m.st);
	return map_elems(c, t, t->rank, dims, pad_src, &m, fill);
}
