/*
 * check_tensor.c: tensors and sparse tensors by the checker's rules. A
 * tensor has a data type, holds its elements in one value field (none when
 * it has no elements), strings only in string_data, and as many bytes of
 * payload (or strings) as its dims need; a sparse tensor has rank-1 values,
 * positive dims, and int64 indices in range and increasing. The scanner has
 * refused most bad payloads already (model.h); a payload is looked at here
 * through its length in the payload set, and read only for sparse indices.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_impl.h"
#include "onnx/dtype.h"
#include "util/num.h"

int
chk_elems(const int64_t *dims, size_t n, int64_t *out)
{
	int64_t e = 1;

	for (size_t i = 0; i < n; i++) {
		if (dims[i] < 0 || (dims[i] > 0 && e > INT64_MAX / dims[i]))
			return -1;
		e *= dims[i];
	}
	*out = e;
	return 0;
}

/* Value fields @t sets, the payload (in the skeleton instead of the typed
 * field or raw_data it came from) counted when it holds bytes. */
static int
value_fields(const chk *c, const Onnx__TensorProto *t, uint64_t *payload_len, int *has_payload)
{
	uint32_t id;
	int n = (t->n_float_data > 0) + (t->n_int32_data > 0) + (t->n_string_data > 0) + (t->n_int64_data > 0) +
	    (t->has_raw_data && t->raw_data.len > 0) + (t->n_double_data > 0) + (t->n_uint64_data > 0);

	*payload_len = 0;
	*has_payload = scs_model_payload_of(c->m, t, &id);
	if (*has_payload) {
		if (id >= c->m->payloads->n)
			return -1;
		*payload_len = c->m->payloads->items[id].key.len;
		n += *payload_len > 0;
	}
	return n;
}

void
chk_tensor(chk *c, const Onnx__TensorProto *t, const chk_where *w, const char *what)
{
	int dt = t->data_type, fields, has_payload;
	uint64_t len, want;
	int64_t elems;

	if (!t->has_data_type || dt == SCS_DT_UNDEFINED) {
		chk_problem(c, SCS_RULE_TENSOR, w, "%s has no data type", what);
		return;
	}
	if (!scs_dtype_known(dt)) {
		chk_problem(c, SCS_RULE_TENSOR, w, "%s has unknown data type %d", what, dt);
		return;
	}
	if ((fields = value_fields(c, t, &len, &has_payload)) < 0) {
		chk_problem(c, SCS_RULE_TENSOR, w, "%s refers to a payload the model does not have", what);
		return;
	}
	if (chk_elems(t->dims, t->n_dims, &elems) < 0) {
		chk_problem(c, SCS_RULE_TENSOR, w, "%s has a negative dim or too many elements", what);
		return;
	}
	if (elems == 0 && fields != 0) {
		chk_problem(c, SCS_RULE_TENSOR, w, "%s has no elements (a dim is 0) but holds data", what);
		return;
	}
	if (elems != 0 && fields == 0) {
		chk_problem(c, SCS_RULE_TENSOR, w, "%s has %lld elements but holds no data", what, (long long)elems);
		return;
	}
	if (elems != 0 && fields > 1) {
		chk_problem(c, SCS_RULE_TENSOR, w, "%s holds its data in more than one field", what);
		return;
	}
	if (dt == SCS_DT_STRING) {
		if (t->has_raw_data && t->raw_data.len > 0)
			chk_problem(c, SCS_RULE_TENSOR, w, "%s holds strings in raw_data (strings go in string_data)", what);
		else if (elems != 0 && t->n_string_data == 0)
			chk_problem(c, SCS_RULE_TENSOR, w, "%s holds strings in a field other than string_data", what);
		else if ((uint64_t)elems != t->n_string_data)
			chk_problem(c, SCS_RULE_TENSOR, w, "%s has %zu strings, its dims need %lld", what, t->n_string_data,
			    (long long)elems);
		return;
	}
	if (!has_payload)
		return;
	want = ((uint64_t)elems * scs_dtype_bits(dt) + 7) / 8;
	if (elems > 0 && (uint64_t)elems > UINT64_MAX / 64)
		want = UINT64_MAX;
	if (len != want)
		chk_problem(c, SCS_RULE_TENSOR, w, "%s holds %llu bytes of %s, its dims need %llu", what,
		    (unsigned long long)len, scs_dtype_name(dt), (unsigned long long)want);
}

/* Sparse indices @ix (int64, @n values, rank @rank: 1 linear, 2 coordinates)
 * of a tensor of dims @dims (@n_dims) with @nnz values: in range and
 * increasing. Read from the payload in blocks. */
static void
check_indices(chk *c, const Onnx__TensorProto *ix, const int64_t *dims, size_t n_dims, uint64_t nnz,
    const chk_where *w, const char *what)
{
	enum { BLOCK = 4096 };
	int64_t buf[BLOCK], total = 1, prev = -1, cur = 0;
	uint64_t n = nnz * (ix->n_dims == 2 ? n_dims : 1), done = 0;
	size_t j = 0;
	uint32_t id;
	int rc;

	if (!scs_model_payload_of(c->m, ix, &id) || id >= c->m->payloads->n ||
	    c->m->payloads->items[id].key.len < n * 8)
		return;      /* chk_tensor has said what is wrong */
	for (size_t i = 0; i < n_dims; i++)
		total *= dims[i];
	while (done < n) {
		size_t take = n - done > BLOCK ? BLOCK : (size_t)(n - done);

		if ((rc = scs_payloads_read(c->m->payloads, id, done * 8, buf, take * 8)) < 0) {
			chk_problem(c, SCS_RULE_SPARSE, w, "%s: its indices cannot be read (%s)", what, scs_err_msg());
			return;
		}
		for (size_t i = 0; i < take; i++) {
			int64_t v = (int64_t)scs_load_le64((const uint8_t *)&buf[i]);
			uint64_t at = (done + i) / (ix->n_dims == 2 ? n_dims : 1);

			if (ix->n_dims == 1) {
				if (v < 0 || v >= total) {
					chk_problem(c, SCS_RULE_SPARSE, w, "%s: index %lld (value %llu) is outside 0..%lld", what,
					    (long long)v, (unsigned long long)at, (long long)total - 1);
					return;
				}
				cur = v;
			} else {
				if (v < 0 || v >= dims[j]) {
					chk_problem(c, SCS_RULE_SPARSE, w, "%s: index %lld of dim %zu (value %llu) is outside "
					    "0..%lld", what, (long long)v, j, (unsigned long long)at, (long long)dims[j] - 1);
					return;
				}
				cur = (j == 0 ? 0 : cur) * dims[j] + v;
				if (++j < n_dims)
					continue;
				j = 0;
			}
			if (cur <= prev) {
				chk_problem(c, SCS_RULE_SPARSE, w, "%s: the indices of value %llu do not come after the "
				    "previous value's", what, (unsigned long long)at);
				return;
			}
			prev = cur;
		}
		done += take;
	}
}

void
chk_sparse(chk *c, const Onnx__SparseTensorProto *s, const chk_where *w, const char *what)
{
	const Onnx__TensorProto *v = s->values, *ix = s->indices;
	size_t bad_before = c->out->n;
	uint32_t failed = c->out->failed;
	uint64_t nnz;
	int64_t total;

	if (v == NULL) {
		chk_problem(c, SCS_RULE_SPARSE, w, "%s has no values", what);
		return;
	}
	chk_tensor(c, v, w, what);
	if (v->n_dims != 1) {
		chk_problem(c, SCS_RULE_SPARSE, w, "%s: its values are of rank %zu, not 1", what, v->n_dims);
		return;
	}
	nnz = v->dims[0] < 0 ? 0 : (uint64_t)v->dims[0];
	if (s->n_dims == 0) {
		chk_problem(c, SCS_RULE_SPARSE, w, "%s has no dims", what);
		return;
	}
	for (size_t i = 0; i < s->n_dims; i++)
		if (s->dims[i] <= 0) {
			chk_problem(c, SCS_RULE_SPARSE, w, "%s: dim %zu is %lld, not positive", what, i, (long long)s->dims[i]);
			return;
		}
	if (chk_elems(s->dims, s->n_dims, &total) < 0) {
		chk_problem(c, SCS_RULE_SPARSE, w, "%s has too many elements", what);
		return;
	}
	if (ix == NULL) {
		if (nnz != 0)
			chk_problem(c, SCS_RULE_SPARSE, w, "%s has %llu values but no indices", what, (unsigned long long)nnz);
		return;
	}
	chk_tensor(c, ix, w, what);
	if (ix->data_type != SCS_DT_INT64) {
		chk_problem(c, SCS_RULE_SPARSE, w, "%s: its indices are %s, not int64", what, scs_dtype_name(ix->data_type));
		return;
	}
	if (ix->n_dims != 1 && ix->n_dims != 2) {
		chk_problem(c, SCS_RULE_SPARSE, w, "%s: its indices are of rank %zu, not 1 or 2", what, ix->n_dims);
		return;
	}
	if ((uint64_t)ix->dims[0] != nnz) {
		chk_problem(c, SCS_RULE_SPARSE, w, "%s: %lld indices for %llu values", what, (long long)ix->dims[0],
		    (unsigned long long)nnz);
		return;
	}
	if (ix->n_dims == 2 && (uint64_t)ix->dims[1] != s->n_dims) {
		chk_problem(c, SCS_RULE_SPARSE, w, "%s: indices of %lld coordinates for a tensor of rank %zu", what,
		    (long long)ix->dims[1], s->n_dims);
		return;
	}
	if (c->out->n == bad_before && c->out->failed == failed)
		check_indices(c, ix, s->dims, s->n_dims, nnz, w, what);
}
