/*
 * pass_transposed.c: one copy of a 2-D constant that a model also holds
 * transposed (see pass.h).
 *
 * Candidates are the 2-D constants dedup studies (initializers and
 * Constant-node values of the main graph and the bodies nested in it), of
 * a fixed-size element type of whole bytes. A first walk takes a digest of
 * each one's (element type, dims): only a constant [A, B] for which some
 * other has [B, A] gets a record. Each record then gets two signatures
 * from a grid of sampled elements whose rows and columns follow from the
 * dims: sig, over its own elements, and sig_t, over the same positions of
 * its transposed view, so that Y [B, A] equals X [A, B] transposed only
 * when sig(Y) == sig_t(X). The records are sorted by (element type, dims,
 * sig) and each one looks its transposed key up: linear in the number of
 * constants apart from the sort, never pairwise.
 *
 * A match is confirmed byte for byte (confirm()): the side with fewer
 * columns is read in blocks of rows of at most BLOCK_LEN bytes, and for
 * each block the matching band of columns of the other side, one
 * contiguous segment per row, so that each side is read about once and
 * the memory is a few MiB whatever the size. Payloads in the store are read
 * through a window of one store chunk.
 *
 * The copy met first (model order, then dedup's order) is kept when its
 * scope encloses the other's; otherwise the later one is kept when its
 * scope encloses the first's; copies in sibling scopes are left alone, with
 * a reason. A graph output is never rewritten. A copy read only as the B
 * input of MatMuls is preferred for the rewrite: each MatMul becomes a Gemm
 * of the kept copy with transB=1 (transposed_readers.c), which ONNX Runtime
 * computes bit for bit as the MatMul at every level, and no Transpose is
 * left for the runtime to fold back into a second copy. Otherwise the
 * other copy becomes a
 * Transpose (perm [1, 0]) of the kept one, whose output has the removed
 * constant's name, so that its readers are unchanged: a Constant node is
 * replaced where it is, an initializer is removed and the Transpose goes to
 * the front of its graph's nodes, after the kept copy's Constant node (which
 * moves to the front of its own graph). Across models the rewritten copy
 * reads a new constant of its own model (a fresh name) holding the kept
 * copy's payload.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infer/infer.h"
#include "model/array.h"
#include "model/graph.h"
#include "util/buf.h"
#include "onnx/dtype.h"
#include "util/err.h"
#include "util/hash.h"
#include "io/payload.h"
#include "io/source.h"
#include "onnx/opschema.h"
#include "shrink/pass.h"
#include "model/scope.h"
#include "util/strmap.h"

enum { K_INIT = 1, K_CONST = 2 };
enum { ROLE_NONE = 0, ROLE_KEPT = 1, ROLE_GONE = 2 };

/* The sampled grid: GRID_ROWS rows by GRID_COLS columns of the [R, C] view. */
#define GRID_ROWS 6
#define GRID_COLS 8
/* A payload up to this long is read whole for its signatures. */
#define SIG_WHOLE_LEN ((size_t)64 << 10)
/* The rows of the side with fewer columns read at once, at most. */
#define BLOCK_LEN ((size_t)4 << 20)

#ifdef SCS_TEST_HOOKS
static size_t test_block_len;

void
scs_pass_transposed_block_for_tests(size_t len)
{
	test_block_len = len < BLOCK_LEN ? len : BLOCK_LEN;
}

#define BLOCK (test_block_len ? test_block_len : BLOCK_LEN)
#else
#define BLOCK BLOCK_LEN
#endif

typedef struct tcand {
	Onnx__TensorProto *t;     /* kept (scs_sealed_keep) */
	Onnx__NodeProto *node;    /* K_CONST: the Constant node */
	const char *name;
	int64_t rows, cols;
	uint64_t sig, sig_t;
	uint32_t model;
	uint32_t order;
	uint32_t payload;
	int32_t scope;
	int32_t data_type;
	int8_t kind;
	int8_t pinned;
	int8_t role;
	int8_t moved;             /* K_CONST kept: moved to the front of its scope */
	int8_t bad_input;         /* the input of bad_op that reads it */
	int8_t matmul_b;          /* read as the B input of a MatMul (which bad_op does not count) */
	int8_t other_reader;      /* read by a node other than such a MatMul */
	const char *bad_op;       /* a reader that may compute otherwise from a computed input; NULL: none */
	int64_t next;             /* the next record of the same name, or -1 */
} tcand;

/* A node for the front of its scope's nodes. */
typedef struct tfront {
	int scope;
	int fresh;                /* 1: made here, not in the model yet */
	Onnx__NodeProto *node;
} tfront;

typedef struct tmodel {
	scs_model *m;
	scs_scopes scopes;
	int64_t opset;            /* the default domain's; 0: not imported */
	int64_t ir_version;
	int main_root;            /* the main graph's scope */
	scs_strmap node_names;    /* every node's name and those given out (built when first needed) */
	int have_node_names;
	scs_strmap taken;         /* tensor names given out */
	char **owned;             /* names given out */
	size_t n_owned;
	tfront *fronts;
	size_t n_fronts, cap_fronts;
	void **gone;              /* initializers removed */
	size_t n_gone, cap_gone;
	Onnx__TensorProto **added;   /* new initializers of the main graph */
	size_t n_added, cap_added;
	scs_infer inf;            /* the main graph's facts, for the Gemm rewrite (built when first needed) */
	int have_inf;             /* 1: inf built; -1: the graph could not be ordered */
} tmodel;

typedef struct tpass {
	tmodel *models;
	size_t n_models;
	scs_transposed_result *res;
	size_t model;             /* the model the walk is in */
	tcand *c;
	size_t n, cap;
	uint64_t *digests;        /* first walk: digest of each candidate's (type, rows, cols) */
	size_t n_digests, cap_digests;
	uint32_t order;
	uint8_t *whole;           /* SIG_WHOLE_LEN bytes */
	uint8_t *block;           /* BLOCK_LEN bytes */
	uint8_t *seg;             /* BLOCK_LEN bytes */
	uint8_t *win;             /* SCS_CHUNK_LEN bytes */
} tpass;

/* Reads of one payload: a file's read exactly, others through a window of one store chunk. */
typedef struct reader {
	scs_payloads *set;
	uint32_t id;
	uint64_t len;
	uint8_t *win;             /* NULL: read directly */
	uint64_t win_off;
	size_t win_len;           /* 0: nothing held */
} reader;

static void
reader_init(reader *r, scs_payloads *set, uint32_t id, uint8_t *win)
{
	r->set = set;
	r->id = id;
	r->len = set->items[id].key.len;
	r->win = win;
	r->win_off = 0;
	r->win_len = 0;
}

static int
reader_read(reader *r, uint64_t off, void *buf, size_t len)
{
	const scs_payload *p = &r->set->items[r->id];
	uint64_t start;
	int rc;

	/* a file's bytes read exactly (a segment per row: no read-ahead to throw away) */
	if (p->where == SCS_AT_FILE && off <= r->len && len <= r->len - off)
		return scs_source_read(r->set->files[p->file], buf, len, p->off + off);
	if (r->win == NULL || len > SCS_CHUNK_LEN / 2)
		return scs_payloads_read(r->set, r->id, off, buf, len);
	if (r->win_len == 0 || off < r->win_off || off + len > r->win_off + r->win_len) {
		start = off / SCS_CHUNK_LEN * SCS_CHUNK_LEN;
		if (off + len > start + SCS_CHUNK_LEN)
			return scs_payloads_read(r->set, r->id, off, buf, len);
		r->win_len = 0;
		r->win_off = start;
		if ((rc = scs_payloads_read(r->set, r->id, start, r->win,
		    (size_t)(r->len - start < SCS_CHUNK_LEN ? r->len - start : SCS_CHUNK_LEN))) < 0)
			return rc;
		r->win_len = (size_t)(r->len - start < SCS_CHUNK_LEN ? r->len - start : SCS_CHUNK_LEN);
	}
	memcpy(buf, r->win + (off - r->win_off), len);
	return SCS_OK;
}

/* ---- the sampled grid ---- */

static uint64_t
mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Index @k of GRID_ROWS (@salt 0) or GRID_COLS (@salt 1) sampled ones in [0, @n):
 * the first and the last, the others spread by a hash of the dims. */
static int64_t
grid_at(int64_t rows, int64_t cols, int salt, int k, int count, int64_t n)
{
	if (n <= count)
		return k < n ? k : n - 1;
	if (k == 0)
		return 0;
	if (k == count - 1)
		return n - 1;
	return (int64_t)(mix(((uint64_t)rows * 0x100000001b3ull) ^ ((uint64_t)cols << 7) ^ (uint64_t)(salt * 64 + k)) %
	    (uint64_t)n);
}

int
scs_pass_transposed_sampled(int64_t rows, int64_t cols, int64_t i, int64_t j)
{
	int in_rows = 0, in_cols = 0;

	for (int a = 0; a < GRID_ROWS; a++)
		in_rows |= grid_at(rows, cols, 0, a, GRID_ROWS, rows) == i;
	for (int b = 0; b < GRID_COLS; b++)
		in_cols |= grid_at(rows, cols, 1, b, GRID_COLS, cols) == j;
	return in_rows && in_cols;
}

/* The byte offsets in @c of the elements its signatures read: own[a * GRID_COLS + b]
 * is (a, b) of the grid of its [rows, cols] view, tr[...] that of its transposed view. */
static void
grid_offsets(const tcand *c, size_t e, uint64_t own[GRID_ROWS * GRID_COLS], uint64_t tr[GRID_ROWS * GRID_COLS])
{
	int64_t ri[GRID_ROWS], cj[GRID_COLS], ti[GRID_ROWS], tj[GRID_COLS];

	/* own grid: rows ri of [rows, cols], columns cj */
	for (int a = 0; a < GRID_ROWS; a++)
		ri[a] = grid_at(c->rows, c->cols, 0, a, GRID_ROWS, c->rows);
	for (int b = 0; b < GRID_COLS; b++)
		cj[b] = grid_at(c->rows, c->cols, 1, b, GRID_COLS, c->cols);
	/* the transposed view's grid: rows ti of [cols, rows], columns tj */
	for (int a = 0; a < GRID_ROWS; a++)
		ti[a] = grid_at(c->cols, c->rows, 0, a, GRID_ROWS, c->cols);
	for (int b = 0; b < GRID_COLS; b++)
		tj[b] = grid_at(c->cols, c->rows, 1, b, GRID_COLS, c->rows);
	/* element (ti[a], tj[b]) of the view is (tj[b], ti[a]) of @c */
	for (int a = 0; a < GRID_ROWS; a++)
		for (int b = 0; b < GRID_COLS; b++) {
			own[a * GRID_COLS + b] = ((uint64_t)ri[a] * (uint64_t)c->cols + (uint64_t)cj[b]) * e;
			tr[a * GRID_COLS + b] = ((uint64_t)tj[b] * (uint64_t)c->cols + (uint64_t)ti[a]) * e;
		}
}

/* Candidates whose sampled elements are asked of the disk ahead of the one signed, at most. */
#define SIG_AHEAD 64

/*
 * Ask the disk for the elements signatures() will read of @c (the whole
 * payload when it reads it whole): a cold element costs a read of its own
 * that waits for the disk, 96 per candidate one after another; asked ahead,
 * the disk serves a window of candidates at once (scs_payloads_prefetch()).
 */
static void
prefetch_signatures(tpass *p, const tcand *c)
{
	scs_payloads *set = p->models[c->model].m->payloads;
	size_t e = scs_dtype_bits(c->data_type) / 8, len = (size_t)(c->rows * c->cols) * e;
	uint64_t own[GRID_ROWS * GRID_COLS], tr[GRID_ROWS * GRID_COLS];

	if (len <= SIG_WHOLE_LEN) {
		scs_payloads_prefetch(set, c->payload, 0, len);
		return;
	}
	grid_offsets(c, e, own, tr);
	for (int k = 0; k < GRID_ROWS * GRID_COLS; k++) {
		scs_payloads_prefetch(set, c->payload, own[k], e);
		scs_payloads_prefetch(set, c->payload, tr[k], e);
	}
}

/*
 * The signatures of @c: sig over the grid of its [rows, cols] view, sig_t
 * over the grid of its transposed [cols, rows] view (element (i, j) of that
 * view is element (j, i) of @c).
 */
static int
signatures(tpass *p, tcand *c)
{
	scs_payloads *set = p->models[c->model].m->payloads;
	size_t e = scs_dtype_bits(c->data_type) / 8, len = (size_t)(c->rows * c->cols) * e;
	uint8_t own[GRID_ROWS * GRID_COLS * 16], tr[GRID_ROWS * GRID_COLS * 16];
	uint64_t own_off[GRID_ROWS * GRID_COLS], tr_off[GRID_ROWS * GRID_COLS];
	reader r;
	int whole = len <= SIG_WHOLE_LEN, rc;

	if (whole && (rc = scs_payloads_read(set, c->payload, 0, p->whole, len)) < 0)
		return rc;
	reader_init(&r, set, c->payload, p->win);
	grid_offsets(c, e, own_off, tr_off);
	for (int k = 0; k < GRID_ROWS * GRID_COLS; k++) {
		if (whole)
			memcpy(own + k * e, p->whole + own_off[k], e);
		else if ((rc = reader_read(&r, own_off[k], own + k * e, e)) < 0)
			return rc;
	}
	/* the transposed view's column by column: row by row of @c */
	for (int b = 0; b < GRID_COLS; b++)
		for (int a = 0; a < GRID_ROWS; a++) {
			int k = a * GRID_COLS + b;

			if (whole)
				memcpy(tr + k * e, p->whole + tr_off[k], e);
			else if ((rc = reader_read(&r, tr_off[k], tr + k * e, e)) < 0)
				return rc;
		}
	c->sig = scs_hash64(own, GRID_ROWS * GRID_COLS * e);
	c->sig_t = scs_hash64(tr, GRID_ROWS * GRID_COLS * e);
	return SCS_OK;
}

/* 1 when the @n elements of @e bytes at @seg equal those at @col, @stride bytes apart. */
static inline int
column_equal_of(const uint8_t *seg, const uint8_t *col, size_t n, size_t stride, size_t e)
{
	for (size_t r = 0; r < n; r++, col += stride)
		if (memcmp(seg + r * e, col, e) != 0)
			return 0;
	return 1;
}

/* column_equal_of(), with the common sizes known to the compiler (a compare each, not a call). */
static int
column_equal(const uint8_t *seg, const uint8_t *col, size_t n, size_t stride, size_t e)
{
	switch (e) {
	case 1:
		return column_equal_of(seg, col, n, stride, 1);
	case 2:
		return column_equal_of(seg, col, n, stride, 2);
	case 4:
		return column_equal_of(seg, col, n, stride, 4);
	default:
		return column_equal_of(seg, col, n, stride, e);
	}
}

/*
 * 1 when @y [B, A] equals @x [A, B] transposed, byte for byte; 0 when not.
 * The side with fewer columns (s, [sr, sc]; the one in the store when the
 * other lies in a file) is read in tiles of at most
 * BLOCK_LEN bytes, rows [r0, r0 + h) by columns [c0, c0 + w); for each
 * tile, rows c0 .. c0 + w of the other side (o, [sc, sr]), columns
 * [r0, r0 + h): one segment each.
 */
static int
confirm(tpass *p, const tcand *x, const tcand *y)
{
	scs_payloads *set = p->models[x->model].m->payloads;
	const tcand *s = y->cols <= x->cols ? y : x, *o = s == y ? x : y;
	uint64_t sr, sc, e = scs_dtype_bits(x->data_type) / 8, w, h;
	reader rs, ro;
	int rc;

	/* segments are cheap to read from a file, dear from the store (a chunk decoded for each) */
	if (set->items[s->payload].where == SCS_AT_FILE && set->items[o->payload].where != SCS_AT_FILE) {
		const tcand *t = s;

		s = o;
		o = t;
	}
	sr = (uint64_t)s->rows;
	sc = (uint64_t)s->cols;
	reader_init(&rs, set, s->payload, NULL);
	reader_init(&ro, set, o->payload, p->win);
	w = sc < BLOCK / e ? sc : BLOCK / e;
	if (w == 0)
		w = 1;
	h = BLOCK / (w * e);
	if (h > sr)
		h = sr;
	if (h == 0)
		h = 1;
	for (uint64_t c0 = 0; c0 < sc; c0 += w) {
		uint64_t ww = sc - c0 < w ? sc - c0 : w;

		for (uint64_t r0 = 0; r0 < sr; r0 += h) {
			uint64_t hh = sr - r0 < h ? sr - r0 : h;

			if (ww == sc) {
				if ((rc = reader_read(&rs, r0 * sc * e, p->block, (size_t)(hh * sc * e))) < 0)
					return rc;
			} else {
				for (uint64_t r = 0; r < hh; r++)
					if ((rc = reader_read(&rs, ((r0 + r) * sc + c0) * e, p->block + r * ww * e,
					    (size_t)(ww * e))) < 0)
						return rc;
			}
			for (uint64_t c = 0; c < ww; c++) {
				if ((rc = reader_read(&ro, ((c0 + c) * sr + r0) * e, p->seg, (size_t)(hh * e))) < 0)
					return rc;
				if (!column_equal(p->seg, p->block + c * e, (size_t)hh, (size_t)(ww * e), (size_t)e))
					return 0;
			}
		}
	}
	return 1;
}

/* ---- candidates ---- */

/* The fixed element size of @dt in bytes; 0 for strings, sub-byte types and unknown ones. */
static size_t
elem_size(int dt)
{
	unsigned bits = dt == SCS_DT_STRING ? 0 : scs_dtype_bits(dt);

	return bits >= 8 && bits % 8 == 0 ? bits / 8 : 0;
}

static uint64_t
dims_digest(int dt, int64_t rows, int64_t cols)
{
	int64_t v[3] = { dt, rows, cols };

	return scs_hash64(v, sizeof(v));
}

/* Is scope @s nested in (or) the main graph's? */
static int
under_main(const tmodel *tm, int s)
{
	while (s >= 0 && tm->scopes.items[s].parent >= 0)
		s = tm->scopes.items[s].parent;
	return s == tm->main_root;
}

/* 1 and the dims when @t is a candidate of @tm (see the top). */
static int
study(const tmodel *tm, int scope, Onnx__TensorProto *t, Onnx__NodeProto *node, const char *name, uint32_t *id)
{
	if (name == NULL || name[0] == '\0' || !under_main(tm, scope))
		return 0;
	/* an initializer that is also a graph input is an overridable default */
	if (node == NULL && scs_strmap_get(&tm->scopes.items[scope].inputs, name, NULL))
		return 0;
	if (t->n_dims != 2 || t->dims[0] <= 0 || t->dims[1] <= 0 || elem_size(t->data_type) == 0)
		return 0;
	if (!scs_model_payload_of(tm->m, t, id))
		return 0;
	return tm->m->payloads->items[*id].key.len == (uint64_t)t->dims[0] * (uint64_t)t->dims[1] *
	    elem_size(t->data_type);
}

static int
add_digest(void *ctx, int scope, Onnx__TensorProto *t, Onnx__NodeProto *node, const char *name)
{
	tpass *p = ctx;
	uint32_t id;
	int rc;

	if (!study(&p->models[p->model], scope, t, node, name, &id))
		return SCS_OK;
	if ((rc = scs_grow(&p->digests, &p->cap_digests, p->n_digests, sizeof(*p->digests), 256, "the key list")) < 0)
		return rc;
	p->digests[p->n_digests++] = dims_digest(t->data_type, t->dims[0], t->dims[1]);
	return SCS_OK;
}

static int
cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int
cmp_digest(const void *pa, const void *pb)
{
	return cmp_u64(*(const uint64_t *)pa, *(const uint64_t *)pb);
}

/* How many candidates have digest @d (at most 2 counted). */
static int
count_digest(const tpass *p, uint64_t d)
{
	size_t lo = 0, hi = p->n_digests;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->digests[mid] < d)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->n_digests && p->digests[lo] == d ? 1 + (lo + 1 < p->n_digests && p->digests[lo + 1] == d) : 0;
}

static int
add_cand(void *ctx, int scope, Onnx__TensorProto *t, Onnx__NodeProto *node, const char *name)
{
	tpass *p = ctx;
	tmodel *tm = &p->models[p->model];
	uint32_t id;
	int64_t rows, cols;
	tcand *c;
	int rc;

	if (!study(tm, scope, t, node, name, &id))
		return SCS_OK;
	rows = t->dims[0];
	cols = t->dims[1];
	p->order++;
	/* a constant no other one equals transposed by its dims gets no record */
	if (count_digest(p, dims_digest(t->data_type, cols, rows)) < (rows == cols ? 2 : 1))
		return SCS_OK;
	if (node == NULL) {
		if ((t = scs_sealed_keep(t)) == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot keep a constant");
		name = t->name;
	}
	if ((rc = scs_grow(&p->c, &p->cap, p->n, sizeof(*p->c), 64, "the constant list")) < 0)
		return rc;
	c = &p->c[p->n];
	memset(c, 0, sizeof(*c));
	c->t = t;
	c->node = node;
	c->name = name;
	c->rows = rows;
	c->cols = cols;
	c->model = (uint32_t)p->model;
	c->order = p->order;
	c->payload = id;
	c->scope = scope;
	c->data_type = t->data_type;
	c->kind = node ? K_CONST : K_INIT;
	c->pinned = (int8_t)scs_strmap_get(&tm->scopes.items[scope].pinned, name, NULL);
	p->n++;
	return SCS_OK;
}

/* By (element type, rows, cols, sig), then order. */
static int
cmp_key(const void *pa, const void *pb)
{
	const tcand *a = pa, *b = pb;
	int r;

	if ((r = cmp_u64((uint64_t)a->data_type, (uint64_t)b->data_type)) || (r = cmp_u64((uint64_t)a->rows, (uint64_t)b->rows)) ||
	    (r = cmp_u64((uint64_t)a->cols, (uint64_t)b->cols)) || (r = cmp_u64(a->sig, b->sig)))
		return r;
	return cmp_u64(a->order, b->order);
}

/* The first record of key (@dt, @rows, @cols, @sig) in the sorted p->c, or p->n. */
static size_t
lookup(const tpass *p, int32_t dt, int64_t rows, int64_t cols, uint64_t sig)
{
	tcand k;
	size_t lo = 0, hi = p->n;

	memset(&k, 0, sizeof(k));
	k.data_type = dt;
	k.rows = rows;
	k.cols = cols;
	k.sig = sig;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_key(&p->c[mid], &k) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- the readers ---- */

/*
 * Does ONNX Runtime compute input @i of a default-domain @op the same, bit
 * for bit, whether it is a constant or a node's output? So for operators
 * that only move or pick elements, or map each one on its own: never for
 * those whose kernels prepack a constant input (MatMul's and Gemm's B,
 * Conv's weights, the recurrent weights, ...) and compute another way
 * from a computed one, nor for arithmetic whose float16 precision depends
 * on the nodes around it.
 */
static int
exact_reader(const char *op, size_t i)
{
	static const char *const any_input[] = { "Gather", "GatherElements", "GatherND", "Concat", "Identity", "Shape",
		"Size", NULL };
	static const char *const first_input[] = { "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Slice",
		"Expand", "Tile", "Split", "DequantizeLinear", NULL };

	for (size_t k = 0; any_input[k]; k++)
		if (strcmp(op, any_input[k]) == 0)
			return 1;
	for (size_t k = 0; first_input[k]; k++)
		if (strcmp(op, first_input[k]) == 0)
			return i == 0;
	return 0;
}

/* The scope whose definition of @name a reference in scope @s reaches (-1: none). */
static int
defining_scope(const tmodel *tm, int s, const char *name)
{
	while (s >= 0 && !scs_strmap_get(&tm->scopes.items[s].defs, name, NULL))
		s = tm->scopes.items[s].parent;
	return s;
}

/* Mark the records whose readers include one that exact_reader() refuses (bad_op). */
static int
check_readers(tpass *p)
{
	scs_strmap first = SCS_STRMAP_INIT;
	int64_t at;
	int rc = SCS_OK;

	for (size_t i = 0; i < p->n; i++) {
		p->c[i].next = scs_strmap_get(&first, p->c[i].name, &at) ? at : -1;
		if ((rc = scs_strmap_put(&first, p->c[i].name, (int64_t)i)) < 0)
			goto done;
	}
	for (size_t k = 0; k < p->n_models; k++) {
		const tmodel *tm = &p->models[k];

		for (size_t s = 0; s < tm->scopes.n; s++) {
			size_t *n;
			Onnx__NodeProto **nodes = *scs_scope_nodes((scs_scope *)&tm->scopes.items[s], &n);

			for (size_t j = 0; j < *n; j++) {
				const Onnx__NodeProto *node = nodes[j];

				for (size_t i = 0; i < node->n_input; i++) {
					int def;

					if (!node->input[i] || !scs_strmap_get(&first, node->input[i], &at))
						continue;
					def = defining_scope(tm, (int)s, node->input[i]);
					for (; at >= 0; at = p->c[at].next) {
						tcand *c = &p->c[at];

						if (c->model != k || c->scope != def)
							continue;
						if (scs_is_onnx_domain(node->domain) && strcmp(node->op_type, "MatMul") == 0 &&
						    i == 1) {
							c->matmul_b = 1;
							continue;
						}
						c->other_reader = 1;
						if (c->bad_op || (scs_is_onnx_domain(node->domain) && exact_reader(node->op_type, i)))
							continue;
						c->bad_op = node->op_type;
						c->bad_input = (int8_t)(i < 127 ? i : 127);
					}
				}
			}
		}
	}
done:
	scs_strmap_dispose(&first);
	return rc;
}

/* ---- the rewrite ---- */

/* 1 when no scope from @from up to (not including) @top defines @name:
 * a reference in @from reaches the definition in @top. */
static int
capture_free(const tmodel *tm, int from, int top, const char *name)
{
	for (int s = from; s != top && s >= 0; s = tm->scopes.items[s].parent)
		if (scs_strmap_get(&tm->scopes.items[s].defs, name, NULL))
			return 0;
	return 1;
}

static int
node_name_taken(void *ctx, const char *name)
{
	return scs_strmap_get(ctx, name, NULL);
}

static int
tensor_name_taken(void *ctx, const char *name)
{
	tmodel *tm = ctx;

	return scs_scopes_defined_anywhere(&tm->scopes, name) || scs_strmap_get(&tm->taken, name, NULL);
}

/* Every node name of @tm's scopes (once). */
static int
index_node_names(tmodel *tm)
{
	int rc;

	if (tm->have_node_names)
		return SCS_OK;
	tm->have_node_names = 1;
	for (size_t s = 0; s < tm->scopes.n; s++) {
		size_t *n;
		Onnx__NodeProto **nodes = *scs_scope_nodes(&tm->scopes.items[s], &n);

		for (size_t i = 0; i < *n; i++)
			if (nodes[i]->name && nodes[i]->name[0] && (rc = scs_strmap_put(&tm->node_names, nodes[i]->name, 1)) < 0)
				return rc;
	}
	return SCS_OK;
}

/* Keep @s (malloc'd) until the pass ends, as a name given out in @map. */
static int
own(tmodel *tm, scs_strmap *map, char *s)
{
	char **grown = realloc(tm->owned, (tm->n_owned + 1) * sizeof(*grown));

	if (grown == NULL) {
		free(s);
		return scs_err_set(SCS_ENOMEM, "cannot allocate a name");
	}
	tm->owned = grown;
	tm->owned[tm->n_owned++] = s;
	return scs_strmap_put(map, s, 1);
}

/* A node name of @tm no node has: @base itself when free. */
static int
fresh_node_name(tmodel *tm, const char *base, char **out)
{
	int rc;

	if ((rc = index_node_names(tm)) < 0)
		return rc;
	if ((*out = scs_fresh_name(base, "_scs", node_name_taken, &tm->node_names, 1)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a name");
	return SCS_OK;
}

/* A new Transpose node (perm [1, 0]) @input -> @output named @name (NULL: none); NULL on ENOMEM. */
static Onnx__NodeProto *
transpose_node(const char *input, const char *output, const char *name)
{
	Onnx__NodeProto *node = calloc(1, sizeof(*node));
	Onnx__AttributeProto *a = calloc(1, sizeof(*a));

	if (node == NULL || a == NULL) {
		free(node);
		free(a);
		return NULL;
	}
	onnx__node_proto__init(node);
	onnx__attribute_proto__init(a);
	a->name = strdup("perm");
	a->has_type = 1;
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
	if ((a->ints = malloc(2 * sizeof(*a->ints))) != NULL) {
		a->ints[0] = 1;
		a->ints[1] = 0;
		a->n_ints = 2;
	}
	node->op_type = strdup("Transpose");
	node->domain = strdup("");
	if (name)
		node->name = strdup(name);
	if ((node->input = malloc(sizeof(char *))) != NULL && (node->input[0] = strdup(input)) != NULL)
		node->n_input = 1;
	if ((node->output = malloc(sizeof(char *))) != NULL && (node->output[0] = strdup(output)) != NULL)
		node->n_output = 1;
	if ((node->attribute = malloc(sizeof(a))) != NULL) {
		node->attribute[0] = a;
		node->n_attribute = 1;
	}
	if (!a->name || !a->ints || !node->op_type || !node->domain || (name && !node->name) || !node->n_input ||
	    !node->n_output || !node->n_attribute) {
		if (!node->n_attribute)
			scs_model_free_part(&a->base);
		if (node->input && !node->n_input) {
			free(node->input);
			node->input = NULL;
		}
		if (node->output && !node->n_output) {
			free(node->output);
			node->output = NULL;
		}
		scs_model_free_part(&node->base);
		return NULL;
	}
	return node;
}

static int
add_front(tmodel *tm, int s, Onnx__NodeProto *node, int fresh)
{
	int rc;

	if ((rc = scs_grow(&tm->fronts, &tm->cap_fronts, tm->n_fronts, sizeof(*tm->fronts), 16, "the node list")) < 0)
		return rc;
	tm->fronts[tm->n_fronts++] = (tfront){ s, fresh, node };
	return SCS_OK;
}

/* Why @gone's model cannot read @gone through a Transpose, or NULL when it can. */
static const char *
cannot_transpose(const tmodel *tm, const tcand *gone)
{
	const scs_opschema *s;

	if (tm->opset <= 0)
		return "the model imports no default-domain opset for a Transpose";
	s = scs_opschema_find("", "Transpose", tm->opset);
	if (s == NULL || !(scs_opschema_input_allowed(s, 0) & SCS_OPSCHEMA_BIT(gone->data_type)))
		return "Transpose of this opset does not take its element type";
	return NULL;
}

/* The name @gone's model reads @kept by: @kept's own, or (another model) a new constant holding its payload. */
static int
kept_source(tpass *p, const tcand *kept, const tcand *gone, const char **source)
{
	tmodel *tm = &p->models[gone->model];
	Onnx__TensorProto *holder;
	char *fresh;
	int rc;

	*source = kept->name;
	if (kept->model == gone->model)
		return SCS_OK;
	/* the kept copy's name where this model has it free */
	if ((fresh = scs_fresh_name(kept->name, "_scs", tensor_name_taken, tm, 1)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a name");
	if ((rc = own(tm, &tm->taken, fresh)) < 0)
		return rc;
	*source = fresh;
	if ((holder = scs_tensor_copy_named(tm->m, kept->t, fresh)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot copy a constant");
	if (tm->ir_version >= 4) {
		if ((rc = scs_grow(&tm->added, &tm->cap_added, tm->n_added, sizeof(*tm->added), 8, "the initializer list")) < 0) {
			scs_model_free_message(tm->m, &holder->base);
			return rc;
		}
		tm->added[tm->n_added++] = holder;
	} else {
		Onnx__NodeProto *cn = scs_constant_node_new(holder);

		if (cn == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot add a Constant node");
		if ((rc = add_front(tm, gone->scope, cn, 1)) < 0) {
			scs_model_free_message(tm->m, &cn->base);
			return rc;
		}
	}
	return SCS_OK;
}

/* @gone, an initializer, is removed from its graph when the lists are settled. */
static int
drop_initializer(tmodel *tm, const tcand *gone)
{
	int rc;

	if ((rc = scs_grow(&tm->gone, &tm->cap_gone, tm->n_gone, sizeof(*tm->gone), 16, "the removal list")) < 0)
		return rc;
	tm->gone[tm->n_gone++] = gone->t;
	return SCS_OK;
}

/* The pair is settled: @gone now read as @what (its dims and type, its bytes saved, follow in the report). */
static int
settled(tpass *p, tcand *kept, tcand *gone, const char *what)
{
	uint64_t bytes = p->models[gone->model].m->payloads->items[gone->payload].key.len;
	char detail[512], size[32];

	kept->role = ROLE_KEPT;
	gone->role = ROLE_GONE;
	scs_human_size(size, bytes);
	snprintf(detail, sizeof(detail), "%s %s, %s", what, scs_dtype_name(gone->data_type), size);
	p->res->bytes += bytes;
	return scs_pass_notes_add(&p->res->rewritten, gone->name, detail);
}

static int
skip(tpass *p, const tcand *gone, const tcand *kept, const char *why)
{
	char text[1024];

	snprintf(text, sizeof(text), "equal to '%s' transposed, but %s", kept->name, why);
	return scs_pass_notes_add(&p->res->skipped, gone->name, text);
}

/*
 * @gone becomes a Transpose of @kept: read by name where @kept's scope
 * encloses it (same model), or of a new constant of @gone's model holding
 * @kept's payload (another model).
 */
static int
rewrite(tpass *p, tcand *kept, tcand *gone)
{
	tmodel *tm = &p->models[gone->model], *tk = &p->models[kept->model];
	const char *why, *source = kept->name;
	Onnx__NodeProto *node = NULL, *replaced = NULL;
	char *node_name = NULL, what[320];
	int rc;

	if ((why = cannot_transpose(tm, gone)) != NULL)
		return skip(p, gone, kept, why);
	if (kept->model == gone->model && !capture_free(tm, gone->scope, kept->scope, kept->name))
		return skip(p, gone, kept, "a graph between them defines that name");
	if ((rc = kept_source(p, kept, gone, &source)) < 0)
		return rc;
	/* a kept Constant node goes to the front of its scope, before every use */
	if (kept->kind == K_CONST && !kept->moved) {
		if ((rc = add_front(tk, kept->scope, kept->node, 0)) < 0)
			return rc;
		kept->moved = 1;
	}
	if (gone->kind == K_CONST) {
		Onnx__NodeProto swap;

		/* replaced where it is: the Constant node takes the Transpose's fields, which frees its own after */
		if ((node = transpose_node(source, gone->name, gone->node->name)) == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot make a Transpose node");
		swap = *gone->node;
		*gone->node = *node;
		*node = swap;
		replaced = node;
		gone->name = gone->node->output[0];
	} else {
		char base[256];

		snprintf(base, sizeof(base), "Transpose_%s", gone->name);
		if ((rc = fresh_node_name(tm, base, &node_name)) < 0)
			return rc;
		if ((rc = own(tm, &tm->node_names, node_name)) < 0)
			return rc;
		if ((node = transpose_node(source, gone->name, node_name)) == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot make a Transpose node");
		if ((rc = add_front(tm, gone->scope, node, 1)) < 0) {
			scs_model_free_message(tm->m, &node->base);
			return rc;
		}
		if ((rc = drop_initializer(tm, gone)) < 0)
			return rc;
	}
	snprintf(what, sizeof(what), "Transpose(%s) [%lld, %lld]", source, (long long)gone->rows, (long long)gone->cols);
	rc = settled(p, kept, gone, what);
	if (replaced)
		scs_model_free_message(tm->m, &replaced->base);
	return rc;
}

/* ---- the Gemm rewrite: a copy read only by MatMuls (as B) ---- */

/* The rank and dims of @name from the main graph's facts (scs_transposed_shapes). */
static int
infer_rank(void *ctx, const char *name, int64_t *dims, int max)
{
	const tmodel *tm = ctx;
	scs_vfacts f;

	if (tm->have_inf != 1 || !scs_infer_get(&tm->inf, name, &f) || f.rank < 0 || f.rank > max)
		return -1;
	for (int i = 0; i < f.rank; i++)
		dims[i] = f.dims[i] >= 0 ? f.dims[i] : -1;
	return f.rank;
}

/* The facts of @tm's main graph, once (a graph that cannot be ordered has none). */
static int
need_infer(tmodel *tm)
{
	Onnx__GraphProto *g = tm->m->proto->graph;
	scs_names *reads;
	size_t *order = NULL, n_order = 0;
	int rc = SCS_OK;

	if (tm->have_inf || g == NULL)
		return SCS_OK;
	if ((reads = calloc(g->n_node ? g->n_node : 1, sizeof(*reads))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot order the nodes");
	for (size_t i = 0; rc == SCS_OK && i < g->n_node; i++)
		rc = scs_node_reads(g->node[i], &reads[i]);
	if (rc == SCS_OK)
		rc = scs_graph_order(&order, &n_order, g, reads, NULL, "the graph");
	for (size_t i = 0; i < g->n_node; i++)
		free(reads[i].items);
	free(reads);
	if (rc == SCS_ECORRUPT) {
		scs_err_clear();
		tm->have_inf = -1;
		return SCS_OK;
	}
	if (rc == SCS_OK && (rc = scs_infer_graph(&tm->inf, tm->m, order, n_order)) == SCS_OK)
		tm->have_inf = 1;
	free(order);
	return rc;
}

/*
 * Can @gone, read only as the B input of MatMuls of its own graph, be
 * removed, its MatMuls reading @kept through Gemm(transB=1)? 1 yes, 0 no
 * (the reason in @why when the readers refuse), < 0 on error.
 */
static int
gemm_ok(tpass *p, const tcand *kept, const tcand *gone, char *why, size_t cap)
{
	tmodel *tm = &p->models[gone->model];
	Onnx__GraphProto *g = tm->scopes.items[gone->scope].graph;
	scs_transposed_shapes shapes = { infer_rank, tm };
	int64_t dims[2] = { gone->rows, gone->cols };
	int rc;

	if (!gone->matmul_b || gone->other_reader || gone->bad_op || gone->pinned || g == NULL)
		return 0;
	if (kept->model == gone->model && (!scs_scope_encloses(&tm->scopes, kept->scope, gone->scope) ||
	    !capture_free(tm, gone->scope, kept->scope, kept->name)))
		return 0;
	if ((rc = need_infer(tm)) < 0)
		return rc;
	return scs_transposed_readers_check(tm->m, g, gone->name, gone->data_type, dims, &shapes, why, cap);
}

/* @gone's MatMuls read @kept through Gemm(transB=1), and @gone goes. */
static int
rewrite_gemm(tpass *p, tcand *kept, tcand *gone)
{
	tmodel *tm = &p->models[gone->model], *tk = &p->models[kept->model];
	scs_scope *sc = &tm->scopes.items[gone->scope];
	scs_transposed_shapes shapes = { infer_rank, tm };
	int64_t dims[2] = { gone->rows, gone->cols };
	const char *source;
	char what[320];
	int rc;

	if ((rc = kept_source(p, kept, gone, &source)) < 0)
		return rc;
	/* a kept Constant node of an enclosing graph goes to its front (in the same graph the rewrite orders it) */
	if (kept->kind == K_CONST && !kept->moved && (kept->model != gone->model || kept->scope != gone->scope)) {
		if ((rc = add_front(tk, kept->scope, kept->node, 0)) < 0)
			return rc;
		kept->moved = 1;
	}
	if ((rc = scs_transposed_readers_rewrite(tm->m, sc->graph, gone->name, source, gone->data_type, dims,
	    &shapes)) < 0)
		return rc;
	if (gone->kind == K_CONST) {
		if ((rc = scs_scope_drop_node(tm->m, sc, gone->node)) < 0)
			return rc;
	} else if ((rc = drop_initializer(tm, gone)) < 0) {
		return rc;
	}
	snprintf(what, sizeof(what), "Gemm(transB=1) of %s [%lld, %lld]", source, (long long)gone->cols,
	    (long long)gone->rows);
	return settled(p, kept, gone, what);
}

/* @gone through Gemm of @kept when gemm_ok(): 1 done, 0 not (nothing changed), < 0 error. */
static int
gemm_pair(tpass *p, tcand *kept, tcand *gone, char *why, size_t cap)
{
	int rc;

	why[0] = '\0';
	if ((rc = gemm_ok(p, kept, gone, why, cap)) < 0)
		return rc;
	if (rc == 0) {
		char text[512];

		if (why[0]) {
			snprintf(text, sizeof(text), "its MatMuls cannot read it through Gemm(transB=1): %s", why);
			snprintf(why, cap, "%s", text);
		}
		return 0;
	}
	return (rc = rewrite_gemm(p, kept, gone)) < 0 ? rc : 1;
}

/* Why @c cannot become a Transpose (into @buf), or NULL when it can. */
static const char *
why_kept(const tcand *c, char *buf, size_t cap)
{
	if (c->pinned)
		return "it is a graph output";
	if (c->bad_op == NULL && c->matmul_b)
		return "it is read as a MatMul's B input, which ONNX Runtime computes otherwise from a node's output "
		    "than from a constant";
	if (c->bad_op == NULL)
		return NULL;
	snprintf(buf, cap, "it is read by %s (input %d), which ONNX Runtime may compute otherwise from a node's "
	    "output than from a constant", c->bad_op, c->bad_input);
	return buf;
}

/*
 * The pair @a (met first) and @b, equal transposed: which to keep, and the
 * rewrite. Only a copy that is no graph output and whose readers compute
 * the same from a node's output (exact_reader) may be rewritten: the first
 * one met is kept when both may, where its scope encloses the other's.
 */
static int
settle_pair(tpass *p, tcand *a, tcand *b)
{
	char why_a[256], why_b[256];
	char gemm_a[512], gemm_b[512];
	const char *na, *nb;
	tcand *kept;
	int rc;

	/* a copy whose MatMuls can read the other through Gemm(transB=1) goes first */
	if ((rc = gemm_pair(p, a, b, gemm_b, sizeof(gemm_b))) != 0 || (rc = gemm_pair(p, b, a, gemm_a, sizeof(gemm_a))) != 0)
		return rc < 0 ? rc : SCS_OK;
	na = gemm_a[0] ? gemm_a : why_kept(a, why_a, sizeof(why_a));
	nb = gemm_b[0] ? gemm_b : why_kept(b, why_b, sizeof(why_b));
	if (na && nb) {
		char both[600];

		if (a->pinned && b->pinned)
			return SCS_OK;
		snprintf(both, sizeof(both), "neither can be read through a Transpose: %s; and '%s': %s", nb, a->name, na);
		return skip(p, b, a, both);
	}
	if (a->model != b->model)
		return nb ? rewrite(p, b, a) : rewrite(p, a, b);
	{
		const tmodel *tm = &p->models[a->model];
		int a_up = scs_scope_encloses(&tm->scopes, a->scope, b->scope);
		int b_up = scs_scope_encloses(&tm->scopes, b->scope, a->scope);

		if (na == NULL && nb == NULL)
			kept = a_up ? a : b_up ? b : NULL;
		else if (nb == NULL)
			kept = a_up ? a : NULL;
		else
			kept = b_up ? b : NULL;
		if (kept == NULL)
			return skip(p, nb ? a : b, nb ? b : a, na == NULL && nb == NULL ? "neither graph encloses the other" :
			    "the graph of the copy to keep does not enclose it");
		return rewrite(p, kept, kept == a ? b : a);
	}
}

/* Look up the copies equal to @x transposed, and settle each. */
static int
match(tpass *p, tcand *x)
{
	scs_payloads *set = p->models[x->model].m->payloads;
	size_t at = lookup(p, x->data_type, x->cols, x->rows, x->sig_t);
	int rc;

	for (; at < p->n && x->role != ROLE_GONE; at++) {
		tcand *y = &p->c[at];

		if (y->data_type != x->data_type || y->rows != x->cols || y->cols != x->rows || y->sig != x->sig_t)
			break;
		if (y == x || y->role != ROLE_NONE || y->order < x->order)
			continue;
		/* identical copies are dedup's (a square one equal to itself transposed) */
		if (x->rows == x->cols) {
			if ((rc = x->payload == y->payload ? 1 : scs_payloads_equal(set, x->payload, y->payload)) < 0)
				return rc;
			if (rc)
				continue;
		}
		if ((rc = confirm(p, x, y)) < 0)
			return rc;
		if (rc == 0)
			continue;
		if ((rc = settle_pair(p, x, y)) < 0)
			return rc;
	}
	return SCS_OK;
}

/*
 * The model's list edits: removed initializers dropped (and freed), new
 * ones added to the main graph, the front nodes put first in each scope
 * (the kept Constant nodes moved there, then the new nodes, in the order
 * they came).
 */
static int
settle_lists(tmodel *tm)
{
	size_t *at = calloc(tm->scopes.n ? tm->scopes.n : 1, sizeof(*at)), n_moved = 0;
	void **moved = malloc((tm->n_fronts ? tm->n_fronts : 1) * sizeof(*moved));
	Onnx__GraphProto *main_graph = tm->m->proto->graph;
	int rc = SCS_OK;

	if (at == NULL || moved == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "cannot allocate the list edits");
		goto done;
	}
	for (size_t i = 0; i < tm->n_fronts; i++) {
		if (!tm->fronts[i].fresh)
			moved[n_moved++] = tm->fronts[i].node;
		at[tm->fronts[i].scope]++;
	}
	qsort(moved, n_moved, sizeof(*moved), scs_pass_cmp_ptr);
	if (tm->n_gone)
		qsort(tm->gone, tm->n_gone, sizeof(*tm->gone), scs_pass_cmp_ptr);
	/* room first, so that a failure changes no list */
	for (size_t s = 0; s < tm->scopes.n; s++) {
		Onnx__NodeProto ***nodes, **grown;
		size_t *n;

		if (at[s] == 0)
			continue;
		nodes = scs_scope_nodes(&tm->scopes.items[s], &n);
		if ((grown = scs_arena_grow(*nodes, *n * sizeof(*grown), (*n + at[s]) * sizeof(*grown))) == NULL) {
			rc = scs_err_set(SCS_ENOMEM, "cannot grow a node list");
			goto done;
		}
		*nodes = grown;
	}
	if (tm->n_added && !scs_sealed_of(main_graph)) {
		Onnx__TensorProto **grown = scs_arena_grow(main_graph->initializer,
		    main_graph->n_initializer * sizeof(*grown), (main_graph->n_initializer + tm->n_added) * sizeof(*grown));

		if (grown == NULL) {
			rc = scs_err_set(SCS_ENOMEM, "cannot grow an initializer list");
			goto done;
		}
		main_graph->initializer = grown;
	}
	for (size_t i = 0; i < tm->n_added; i++) {
		scs_sealed *sealed = scs_sealed_of(main_graph);

		if (sealed) {
			if ((rc = scs_sealed_append(sealed, tm->added[i])) < 0)
				goto done;
		} else {
			main_graph->initializer[main_graph->n_initializer++] = tm->added[i];
		}
		tm->added[i] = NULL;
	}
	for (size_t s = 0; s < tm->scopes.n; s++) {
		scs_scope *sc = &tm->scopes.items[s];
		Onnx__NodeProto **nodes;
		size_t *n, k;

		if (sc->graph && tm->n_gone) {
			k = 0;
			for (size_t i = 0; i < sc->graph->n_initializer; i++) {
				Onnx__TensorProto *t = sc->graph->initializer[i];

				if (bsearch(&t, tm->gone, tm->n_gone, sizeof(*tm->gone), scs_pass_cmp_ptr))
					scs_model_free_message(tm->m, &t->base);
				else
					sc->graph->initializer[k++] = t;
			}
			sc->graph->n_initializer = k;
			scs_sealed_drop(scs_sealed_of(sc->graph), tm->gone, tm->n_gone);
		}
		if (at[s] == 0)
			continue;
		nodes = *scs_scope_nodes(sc, &n);
		k = 0;
		for (size_t i = 0; i < *n; i++)
			if (!bsearch(&nodes[i], moved, n_moved, sizeof(*moved), scs_pass_cmp_ptr))
				nodes[k++] = nodes[i];
		memmove(nodes + at[s], nodes, k * sizeof(*nodes));
		*n = k + at[s];
		at[s] = 0;
		/* the moved nodes first, then the new ones */
		for (int fresh = 0; fresh < 2; fresh++)
			for (size_t i = 0; i < tm->n_fronts; i++)
				if (tm->fronts[i].scope == (int)s && tm->fronts[i].fresh == fresh) {
					nodes[at[s]++] = tm->fronts[i].node;
					tm->fronts[i].fresh = 2;    /* in the model now */
				}
	}
done:
	free(at);
	free(moved);
	return rc;
}

static void
tmodel_dispose(tmodel *tm)
{
	for (size_t i = 0; i < tm->n_fronts; i++)
		if (tm->fronts[i].fresh == 1)
			scs_model_free_message(tm->m, &tm->fronts[i].node->base);
	for (size_t i = 0; i < tm->n_added; i++)
		if (tm->added[i])
			scs_model_free_message(tm->m, &tm->added[i]->base);
	free(tm->fronts);
	free(tm->gone);
	free(tm->added);
	scs_strmap_dispose(&tm->node_names);
	scs_strmap_dispose(&tm->taken);
	for (size_t i = 0; i < tm->n_owned; i++)
		free(tm->owned[i]);
	free(tm->owned);
	scs_scopes_dispose(&tm->scopes);
	if (tm->have_inf == 1)
		scs_infer_dispose(&tm->inf);
}

static int
cmp_order(const void *pa, const void *pb)
{
	const tcand *const *a = pa, *const *b = pb;

	return cmp_u64((*a)->order, (*b)->order);
}

int
scs_pass_transposed(scs_model *const *models, size_t n_models, scs_transposed_result *res)
{
	tpass p;
	tcand **by_order = NULL;
	int rc = SCS_OK;

	memset(&p, 0, sizeof(p));
	p.res = res;
	p.n_models = n_models;
	if (n_models == 0)
		return SCS_OK;
	if ((p.models = calloc(n_models, sizeof(*p.models))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate the model list");
	for (size_t k = 0; rc == SCS_OK && k < n_models; k++) {
		tmodel *tm = &p.models[k];

		tm->m = models[k];
		tm->opset = scs_model_opset(models[k]->proto, "");
		tm->ir_version = models[k]->proto->has_ir_version ? models[k]->proto->ir_version : 0;
		if ((rc = scs_scopes_build(&tm->scopes, models[k]->proto)) < 0)
			break;
		tm->main_root = scs_scopes_of(&tm->scopes, models[k]->proto->graph);
		p.model = k;
		rc = scs_scopes_each_constant(&tm->scopes, add_digest, &p);
	}
	if (rc < 0 || p.n_digests == 0)
		goto done;
	qsort(p.digests, p.n_digests, sizeof(*p.digests), cmp_digest);
	for (size_t k = 0; rc == SCS_OK && k < n_models; k++) {
		p.model = k;
		rc = scs_scopes_each_constant(&p.models[k].scopes, add_cand, &p);
	}
	free(p.digests);
	p.digests = NULL;
	if (rc < 0 || p.n < 2)
		goto done;
	if ((p.whole = malloc(SIG_WHOLE_LEN)) == NULL || (p.block = malloc(BLOCK_LEN)) == NULL ||
	    (p.seg = malloc(BLOCK_LEN)) == NULL || (p.win = malloc(SCS_CHUNK_LEN)) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "cannot allocate the compare buffers");
		goto done;
	}
	if ((rc = check_readers(&p)) < 0)
		goto done;
	for (size_t i = 0, ahead = 0; rc == SCS_OK && i < p.n; i++) {
		for (; ahead < p.n && ahead < i + SIG_AHEAD; ahead++)
			prefetch_signatures(&p, &p.c[ahead]);
		rc = signatures(&p, &p.c[i]);
	}
	if (rc < 0)
		goto done;
	qsort(p.c, p.n, sizeof(*p.c), cmp_key);
	if ((by_order = malloc(p.n * sizeof(*by_order))) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "cannot allocate the constant list");
		goto done;
	}
	for (size_t i = 0; i < p.n; i++)
		by_order[i] = &p.c[i];
	qsort(by_order, p.n, sizeof(*by_order), cmp_order);
	for (size_t i = 0; rc == SCS_OK && i < p.n; i++)
		if (by_order[i]->role != ROLE_GONE)
			rc = match(&p, by_order[i]);
	for (size_t k = 0; rc == SCS_OK && k < n_models; k++)
		rc = settle_lists(&p.models[k]);
done:
	for (size_t k = 0; k < n_models; k++)
		tmodel_dispose(&p.models[k]);
	free(p.models);
	free(by_order);
	free(p.c);
	free(p.digests);
	free(p.whole);
	free(p.block);
	free(p.seg);
	free(p.win);
	return rc;
}

void
scs_transposed_result_dispose(scs_transposed_result *r)
{
	scs_pass_notes_dispose(&r->rewritten);
	scs_pass_notes_dispose(&r->skipped);
	memset(r, 0, sizeof(*r));
}
