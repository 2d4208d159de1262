/*
 * fuse.c: what the numeric fusion passes share (see fuse.h): windows over
 * constants, per-channel factors, new weights and biases written in
 * pieces, the BatchNormalization check, putting new constants in, and the
 * chains of two nodes with their axes lists.
 *
 * It holds no whole tensor: every loop here runs over windows of
 * SCS_FUSE_WIN elements or channels.
 *
 * SPDX-License-Identifier: MIT
 */
#include "opt/fuse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx/attr.h"
#include "onnx/dtype.h"
#include "eval/eval.h"
#include "util/half.h"
#include "util/num.h"
#include "onnx/opschema.h"
#include "onnx/ortkernels.h"

int
scs_fuse_op_is(const Onnx__NodeProto *node, const char *op_type)
{
	return node->op_type && strcmp(node->op_type, op_type) == 0 && scs_is_onnx_domain(node->domain);
}

int
scs_fuse_is_float(int dtype)
{
	return dtype == SCS_DT_FLOAT || dtype == SCS_DT_DOUBLE || dtype == SCS_DT_FLOAT16 || dtype == SCS_DT_BFLOAT16;
}

int
scs_fuse_ort_kernel(scs_opt_ctx *ctx, int scope, const char *op_type, const char *tv, int dtype, char *why,
    size_t why_len)
{
	const scs_ortkernel *k;
	int64_t opset = scs_opt_opset(ctx, scope, "");
	int r = scs_ortkernel_lookup(&k, "", op_type, opset);

	if (r == SCS_ORTK_FOUND && dtype > 0 && dtype < 64 && (scs_ortkernel_types(k, tv) & SCS_OPSCHEMA_BIT(dtype)))
		return 1;
	if (r == SCS_ORTK_UNKNOWN)
		snprintf(why, why_len, "the table of ONNX Runtime CPU kernels held here does not list %s", op_type);
	else if (r == SCS_ORTK_NONE)
		snprintf(why, why_len, "no ONNX Runtime CPU kernel for %s at opset %lld", op_type, (long long)opset);
	else
		snprintf(why, why_len, "no ONNX Runtime CPU kernel for %s-%d on %s", op_type, k->since,
		    dtype > 0 ? scs_dtype_name(dtype) : "an unknown element type");
	return 0;
}

void
scs_fuse_shape(char *out, size_t len, const scs_opt_const *c)
{
	size_t used = 0;

	used += (size_t)snprintf(out, len, "[");
	for (size_t i = 0; i < c->rank && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%lld", i ? "," : "", (long long)scs_opt_const_dim(c, i));
	if (used < len)
		snprintf(out + used, len - used, "]");
}

int
scs_fuse_per_channel(const scs_opt_const *a, const char *name, size_t rank, uint64_t M, char *why, size_t why_len)
{
	char shape[160];
	uint64_t per = 1;

	scs_fuse_shape(shape, sizeof(shape), a);
	if (a->rank > rank) {
		snprintf(why, why_len, "'%s' of shape %s has more axes than the output", name, shape);
		return 0;
	}
	for (size_t k = 0; k < a->rank; k++) {
		int64_t d = scs_opt_const_dim(a, k);

		if (d == 1)
			continue;
		if (rank - a->rank + k != 1 || (uint64_t)d != M) {
			snprintf(why, why_len, "'%s' of shape %s is not one value per output channel (%llu)", name, shape,
			    (unsigned long long)M);
			return 0;
		}
		per = M;
	}
	if ((uint64_t)a->n_elems != per) {
		snprintf(why, why_len, "'%s' of shape %s holds %lld values", name, shape, (long long)a->n_elems);
		return 0;
	}
	return 1;
}

/* ---- windows ---- */

int
scs_fuse_win_open(scs_fuse_win *w, scs_opt_ctx *ctx, const scs_opt_const *c, double dflt)
{
	memset(w, 0, sizeof(*w));
	w->ctx = ctx;
	w->dflt = dflt;
	if (c == NULL)
		return SCS_OK;
	w->c = *c;
	w->have = 1;
	if ((w->v = malloc(SCS_FUSE_WIN * sizeof(*w->v))) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate a window of a constant");
	return SCS_OK;
}

int
scs_fuse_win_load(scs_fuse_win *w, uint64_t i)
{
	uint64_t n = (uint64_t)w->c.n_elems;
	size_t take;
	int rc;

	if (i >= n)
		return scs_err_set(SCS_ERANGE, "optimizer: element %llu of a constant of %llu", (unsigned long long)i,
		    (unsigned long long)n);
	take = n - i < SCS_FUSE_WIN ? (size_t)(n - i) : SCS_FUSE_WIN;
	w->n = 0;
	if ((rc = scs_opt_read_doubles(w->ctx, &w->c, i, take, w->v)) < 0)
		return rc;
	w->lo = i;
	w->n = take;
	return SCS_OK;
}

void
scs_fuse_win_close(scs_fuse_win *w)
{
	free(w->v);
	w->v = NULL;
	w->n = 0;
}

/* ---- per-channel factors ---- */

static int
chan_alloc(scs_fuse_chan *c)
{
	c->s = malloc(SCS_FUSE_WIN * sizeof(double));
	c->m = malloc(SCS_FUSE_WIN * sizeof(double));
	c->b = malloc(SCS_FUSE_WIN * sizeof(double));
	if (!c->s || !c->m || !c->b)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate channel factors");
	return SCS_OK;
}

int
scs_fuse_chan_open_bn(scs_fuse_chan *c, scs_opt_ctx *ctx, const scs_fuse_bn *bn)
{
	int rc;

	memset(c, 0, sizeof(*c));
	c->bn = 1;
	c->eps = bn->eps;
	c->n_ch = (uint64_t)bn->n_ch;
	if ((rc = scs_fuse_win_open(&c->gamma, ctx, &bn->p[0], 0)) < 0 ||
	    (rc = scs_fuse_win_open(&c->beta, ctx, &bn->p[1], 0)) < 0 ||
	    (rc = scs_fuse_win_open(&c->mean, ctx, &bn->p[2], 0)) < 0 ||
	    (rc = scs_fuse_win_open(&c->var, ctx, &bn->p[3], 0)) < 0 || (rc = scs_fuse_win_open(&c->add, ctx, NULL, 0)) < 0)
		return rc;
	return chan_alloc(c);
}

int
scs_fuse_chan_open_add(scs_fuse_chan *c, scs_opt_ctx *ctx, const scs_opt_const *a, int64_t n_ch)
{
	int rc;

	memset(c, 0, sizeof(*c));
	c->n_ch = (uint64_t)n_ch;
	c->add_one = a->n_elems == 1;
	if ((rc = scs_fuse_win_open(&c->gamma, ctx, NULL, 1)) < 0 || (rc = scs_fuse_win_open(&c->beta, ctx, NULL, 0)) < 0 ||
	    (rc = scs_fuse_win_open(&c->mean, ctx, NULL, 0)) < 0 || (rc = scs_fuse_win_open(&c->var, ctx, NULL, 0)) < 0 ||
	    (rc = scs_fuse_win_open(&c->add, ctx, a, 0)) < 0)
		return rc;
	return chan_alloc(c);
}

int
scs_fuse_chan_open_mul(scs_fuse_chan *c, scs_opt_ctx *ctx, const scs_opt_const *a, int64_t n_ch)
{
	int rc = scs_fuse_chan_open_add(c, ctx, a, n_ch);

	c->mul = 1;
	return rc;
}

int
scs_fuse_chan_load(scs_fuse_chan *c, uint64_t ch)
{
	double g, v, a;
	size_t take;
	int rc;

	if (ch >= c->n_ch)
		return scs_err_set(SCS_ERANGE, "optimizer: channel %llu of %llu", (unsigned long long)ch,
		    (unsigned long long)c->n_ch);
	take = c->n_ch - ch < SCS_FUSE_WIN ? (size_t)(c->n_ch - ch) : SCS_FUSE_WIN;
	c->n = 0;
	for (size_t k = 0; k < take; k++) {
		uint64_t at = ch + k;

		if (c->bn) {
			if ((rc = scs_fuse_win_get(&c->gamma, at, &g)) < 0 || (rc = scs_fuse_win_get(&c->var, at, &v)) < 0 ||
			    (rc = scs_fuse_win_get(&c->mean, at, &c->m[k])) < 0 ||
			    (rc = scs_fuse_win_get(&c->beta, at, &c->b[k])) < 0)
				return rc;
			c->s[k] = g / sqrt(v + c->eps);
		} else {
			if ((rc = scs_fuse_win_get(&c->add, c->add_one ? 0 : at, &a)) < 0)
				return rc;
			c->s[k] = c->mul ? a : 1;
			c->m[k] = 0;
			c->b[k] = c->mul ? 0 : a;
		}
	}
	c->lo = ch;
	c->n = take;
	return SCS_OK;
}

void
scs_fuse_chan_close(scs_fuse_chan *c)
{
	scs_fuse_win_close(&c->gamma);
	scs_fuse_win_close(&c->beta);
	scs_fuse_win_close(&c->mean);
	scs_fuse_win_close(&c->var);
	scs_fuse_win_close(&c->add);
	free(c->s);
	free(c->m);
	free(c->b);
	c->s = c->m = c->b = NULL;
	c->n = 0;
}

/* ---- new payloads ---- */

/* Reading one constant in windows while writing a new payload through a buffer of SCS_FUSE_WIN doubles. */
typedef struct stream {
	scs_opt_writer wr;
	scs_fuse_win in;
	double *out;
	size_t k;
} stream;

static int
stream_open(stream *st, scs_opt_ctx *ctx, const scs_opt_const *in, int dtype)
{
	int rc;

	memset(st, 0, sizeof(*st));
	if ((rc = scs_fuse_win_open(&st->in, ctx, in, 0)) < 0)
		return rc;
	if ((st->out = malloc(SCS_FUSE_WIN * sizeof(*st->out))) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate a window of a new constant");
	return scs_opt_writer_open(&st->wr, ctx, dtype);
}

/* Append @v; the buffer goes to the writer when full. */
static int
stream_put(stream *st, double v)
{
	int rc;

	st->out[st->k++] = v;
	if (st->k < SCS_FUSE_WIN)
		return SCS_OK;
	rc = scs_opt_writer_put_doubles(&st->wr, st->out, st->k);
	st->k = 0;
	return rc;
}

/* Finish the payload into *payload when @rc is SCS_OK; free everything on every path. */
static int
stream_close(stream *st, int rc, uint32_t *payload)
{
	if (rc == SCS_OK && (rc = scs_opt_writer_put_doubles(&st->wr, st->out, st->k)) == SCS_OK)
		rc = scs_opt_writer_finish(payload, &st->wr);
	scs_opt_writer_abort(&st->wr);
	scs_fuse_win_close(&st->in);
	free(st->out);
	return rc;
}

/* ---- a weight scaled per channel: a derived payload ---- */

/* Channels whose factors a scaled weight holds at once (the rest wait in the store). */
#define SCALED_WIN ((uint64_t)8192)

typedef struct scaled {
	int dtype;
	uint64_t inner, mid, rep, n_ch;
	uint32_t factors;                   /* a payload of n_ch doubles */
	double *s;                          /* the factors of channels [lo, lo + n) */
	uint64_t lo;
	size_t n;
} scaled;

static void
scaled_dispose(void *state)
{
	scaled *sc = state;

	if (sc)
		free(sc->s);
	free(sc);
}

static int
scaled_factor(scs_payloads *set, scaled *sc, uint64_t ch, double *out)
{
	size_t want;
	int rc;

	if (ch < sc->lo || ch - sc->lo >= sc->n) {
		want = sc->n_ch - ch < SCALED_WIN ? (size_t)(sc->n_ch - ch) : (size_t)SCALED_WIN;
		if (sc->s == NULL &&
		    (sc->s = malloc((sc->n_ch < SCALED_WIN ? sc->n_ch : SCALED_WIN) * sizeof(*sc->s))) == NULL)
			return scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate the factors of a weight");
		sc->n = 0;
		if ((rc = scs_payloads_read(set, sc->factors, ch * sizeof(double), sc->s, want * sizeof(double))) < 0)
			return rc;
		for (size_t k = 0; k < want; k++) {
			uint64_t u = scs_load_le64((const uint8_t *)sc->s + k * sizeof(double));

			memcpy(&sc->s[k], &u, sizeof(double));
		}
		sc->lo = ch;
		sc->n = want;
	}
	*out = sc->s[ch - sc->lo];
	return SCS_OK;
}

/*
 * @n floats at @p times @s, each in double, rounded once, in place. Eight
 * at a time in vector registers (the same conversions and products), in
 * AVX2 where the CPU has it.
 */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
__attribute__((target_clones("avx2", "default")))
#endif
static void
scale_f32(uint8_t *p, size_t n, double s)
{
	uint32_t v;
	float f;

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (; n >= 8; n -= 8, p += 32) {
		typedef float f32x8 __attribute__((vector_size(32)));
		typedef double f64x8 __attribute__((vector_size(64)));
		f32x8 x;

		memcpy(&x, p, sizeof(x));
		x = __builtin_convertvector(__builtin_convertvector(x, f64x8) * s, f32x8);
		memcpy(p, &x, sizeof(x));
	}
#endif
	for (size_t k = 0; k < n; k++, p += 4) {
		v = scs_load_le32(p);
		memcpy(&f, &v, 4);
		f = (float)((double)f * s);
		memcpy(&v, &f, 4);
		scs_store_le32(p, v);
	}
}

/* @n elements of @dtype at @p times @s, each in double, rounded once, in place. */
static void
scale_run(uint8_t *p, size_t n, int dtype, double s)
{
	uint64_t u;
	double d;

	switch (dtype) {
	case SCS_DT_FLOAT:
		scale_f32(p, n, s);
		break;
	case SCS_DT_DOUBLE:
		for (size_t k = 0; k < n; k++, p += 8) {
			u = scs_load_le64(p);
			memcpy(&d, &u, 8);
			d *= s;
			memcpy(&u, &d, 8);
			scs_store_le64(p, u);
		}
		break;
	case SCS_DT_FLOAT16:
		for (size_t k = 0; k < n; k++, p += 2)
			scs_store_le16(p, scs_half_from_double(scs_eval_load_float(p, dtype) * s));
		break;
	default:
		for (size_t k = 0; k < n; k++, p += 2)
			scs_store_le16(p, scs_bf16_from_double(scs_eval_load_float(p, dtype) * s));
		break;
	}
}

/* The derivation: elements [first, first + n) of the old weight become the new one's. */
static int
scaled_apply(scs_payloads *set, void *state, uint64_t first, uint8_t *p, size_t n)
{
	scaled *sc = state;
	size_t esize = scs_dtype_bits(sc->dtype) / 8, run;
	uint64_t q = first / sc->inner, pos = first % sc->inner;
	uint64_t j = q % sc->mid, r = q / sc->mid % sc->rep, g = q / sc->mid / sc->rep;
	double s = 1;
	int rc;

	for (size_t done = 0; done < n; done += run) {
		run = sc->inner - pos < n - done ? (size_t)(sc->inner - pos) : n - done;
		if ((rc = scaled_factor(set, sc, j + g * sc->mid, &s)) < 0)
			return rc;
		scale_run(p + done * esize, run, sc->dtype, s);
		pos = 0;
		if (++j == sc->mid) {
			j = 0;
			if (++r == sc->rep) {
				r = 0;
				g++;
			}
		}
	}
	return SCS_OK;
}

int
scs_fuse_write_weight(uint32_t *payload, scs_opt_ctx *ctx, const scs_opt_const *w, scs_fuse_chan *ch,
    uint64_t inner, uint64_t mid, uint64_t rep)
{
	scs_derivation d = { scs_dtype_bits(w->dtype) / 8, scaled_apply, scaled_dispose, NULL };
	scs_opt_writer wr;
	scaled *sc;
	uint32_t source;
	double *win;
	int rc;

	if (w->n_elems == 0) {
		/* an empty weight stays empty */
		if ((rc = scs_opt_writer_open(&wr, ctx, w->dtype)) < 0)
			return rc;
		return scs_opt_writer_finish(payload, &wr);
	}
	if (w->attr || !scs_model_payload_of(ctx->m, w->t, &source) || inner == 0 || mid == 0 || rep == 0)
		return scs_err_set(SCS_EUSAGE, "optimizer: weight '%s' has no data to scale",
		    w->t && w->t->name ? w->t->name : "");
	if ((sc = calloc(1, sizeof(*sc))) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate a scaled weight");
	*sc = (scaled){ .dtype = w->dtype, .inner = inner, .mid = mid, .rep = rep, .n_ch = ch->n_ch };
	/* the factors go to the store, so that a weight holds few of them in memory */
	if ((win = malloc(SCS_FUSE_WIN * sizeof(*win))) == NULL) {
		free(sc);
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate channel factors");
	}
	rc = scs_opt_writer_open(&wr, ctx, SCS_DT_DOUBLE);
	for (uint64_t c0 = 0; rc == SCS_OK && c0 < ch->n_ch; c0 += SCS_FUSE_WIN) {
		size_t take = ch->n_ch - c0 < SCS_FUSE_WIN ? (size_t)(ch->n_ch - c0) : SCS_FUSE_WIN;
		double m, b;

		for (size_t k = 0; rc == SCS_OK && k < take; k++)
			rc = scs_fuse_chan_get(ch, c0 + k, &win[k], &m, &b);
		if (rc == SCS_OK)
			rc = scs_opt_writer_put_doubles(&wr, win, take);
	}
	free(win);
	if (rc == SCS_OK)
		rc = scs_opt_writer_finish(&sc->factors, &wr);
	scs_opt_writer_abort(&wr);
	if (rc < 0) {
		free(sc);
		return rc;
	}
	d.state = sc;
	return scs_payloads_add_derived(ctx->m->payloads, source, &d, payload);
}

int
scs_fuse_write_bias(uint32_t *payload, scs_opt_ctx *ctx, int dtype, const scs_opt_const *old, uint64_t old_rows,
    uint64_t old_cols, double factor, scs_fuse_chan *ch, uint64_t rows)
{
	stream st;
	double x, s, m, b;
	int rc;

	if ((rc = stream_open(&st, ctx, old, dtype)) < 0)
		return stream_close(&st, rc, payload);
	for (uint64_t r = 0; rc == SCS_OK && r < rows; r++)
		for (uint64_t c = 0; c < ch->n_ch; c++) {
			uint64_t at = (old_rows > 1 ? r : 0) * old_cols + (old_cols > 1 ? c : 0);

			if ((rc = scs_fuse_win_get(&st.in, at, &x)) < 0 || (rc = scs_fuse_chan_get(ch, c, &s, &m, &b)) < 0 ||
			    (rc = stream_put(&st, (factor * x - m) * s + b)) < 0)
				break;
		}
	return stream_close(&st, rc, payload);
}

/* ---- BatchNormalization ---- */

int
scs_fuse_bn_check(scs_fuse_bn *out, scs_opt_ctx *ctx, int scope, Onnx__NodeProto *bn, int64_t n_ch)
{
	static const char *const what[4] = { "scale", "B", "input_mean", "input_var" };
	const scs_opschema *sch = scs_opschema_find("", "BatchNormalization", scs_opt_opset(ctx, scope, bn->domain));
	scs_fuse_chan chan;
	char why[768], shape[160];
	double s, m, b;
	int rc;

	memset(out, 0, sizeof(*out));
	out->node = bn;
	out->n_ch = n_ch;
	for (size_t k = 1; k < bn->n_output; k++)
		if (bn->output[k][0])
			SCS_FUSE_REFUSE(ctx, scope, bn, "it has output %zu '%s' (statistics of training)", k, bn->output[k]);
	if (scs_attr_int(bn, "training_mode", 0) != 0)
		SCS_FUSE_REFUSE(ctx, scope, bn, "training_mode is %lld: it normalizes with the batch's own statistics",
		    (long long)scs_attr_int(bn, "training_mode", 0));
	if (sch && sch->since_version < 7 && scs_attr_int(bn, "is_test", 0) == 0)
		SCS_FUSE_REFUSE(ctx, scope, bn, "is_test is 0 (training) in BatchNormalization-%d", sch->since_version);
	if (scs_attr_find(bn, "spatial") && scs_attr_int(bn, "spatial", 1) == 0)
		SCS_FUSE_REFUSE(ctx, scope, bn, "spatial is 0: its statistics are per activation, not per channel");
	if (bn->n_input < 5)
		SCS_FUSE_REFUSE(ctx, scope, bn, "it has %zu inputs, not 5", bn->n_input);
	for (int k = 0; k < 4; k++) {
		const char *name = bn->input[k + 1];
		scs_opt_const *p = &out->p[k];

		if (!name[0])
			SCS_FUSE_REFUSE(ctx, scope, bn, "its %s is left out", what[k]);
		if (!scs_opt_constant(p, ctx, scope, name, why, sizeof(why)))
			SCS_FUSE_REFUSE(ctx, scope, bn, "%s: %s", what[k], why);
		if (!scs_fuse_is_float(p->dtype))
			SCS_FUSE_REFUSE(ctx, scope, bn, "%s '%s' is %s, not floating point", what[k], name,
			    scs_dtype_name(p->dtype));
		if (p->rank != 1 || p->n_elems != n_ch) {
			scs_fuse_shape(shape, sizeof(shape), p);
			SCS_FUSE_REFUSE(ctx, scope, bn, "%s '%s' has shape %s, not [%lld] (one value per channel)", what[k],
			    name, shape, (long long)n_ch);
		}
	}
	out->eps = (double)scs_attr_float(bn, "epsilon", 1e-5f);
	/* a channel whose factors are not finite would not compute what it did */
	if ((rc = scs_fuse_chan_open_bn(&chan, ctx, out)) < 0)
		goto done;
	for (uint64_t c = 0; c < (uint64_t)n_ch; c++) {
		if ((rc = scs_fuse_chan_get(&chan, c, &s, &m, &b)) < 0)
			goto done;
		if (!isfinite(s) || !isfinite(m) || !isfinite(b)) {
			scs_fuse_chan_close(&chan);
			SCS_FUSE_REFUSE(ctx, scope, bn, "channel %llu: scale / sqrt(var + epsilon) is %g, mean %g, B %g: not "
			    "all finite", (unsigned long long)c, s, m, b);
		}
	}
	rc = 1;
done:
	scs_fuse_chan_close(&chan);
	return rc;
}

Onnx__NodeProto *
scs_fuse_bn_source(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *bn, const char *const *ops, int *rc)
{
	Onnx__NodeProto *p;
	size_t k;

	*rc = SCS_OK;
	if (!scs_fuse_op_is(bn, "BatchNormalization") || bn->n_input < 1 || !bn->input[0][0])
		return NULL;
	p = scs_opt_producer(ctx, scope, bn->input[0]);
	if (p == NULL || scs_opt_is_dropped(ctx, scope, p))
		return NULL;
	for (k = 0; ops[k] && !scs_fuse_op_is(p, ops[k]); k++)
		;
	if (ops[k] == NULL)
		return NULL;
	if ((*rc = scs_opt_is_op(ctx, scope, bn, "BatchNormalization")) <= 0 ||
	    (*rc = scs_opt_is_op(ctx, scope, p, p->op_type)) <= 0)
		return NULL;
	*rc = SCS_OK;
	return p;
}

int
scs_fuse_bn_done(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, const scs_fuse_bn *p, const char *what)
{
	const Onnx__NodeProto *bn = p->node;
	int named = bn->name && bn->name[0], rc;

	for (int k = 0; k < 4; k++)
		if ((rc = scs_fuse_drop_unread(ctx, &p->p[k], bn->input[k + 1], bn)) < 0)
			return rc;
	return scs_opt_did(ctx, scope, node, "BatchNormalization%s%s%s folded in%s", named ? " '" : "",
	    named ? bn->name : "", named ? "'" : "", what);
}

/* ---- the graph ---- */

size_t
scs_fuse_live_readers(const scs_opt_ctx *ctx, int def, const char *name, const Onnx__NodeProto *except)
{
	size_t n = 0;

	for (const scs_opt_use *u = scs_opt_first_use(ctx, def, name); u; u = scs_opt_next_use(ctx, u)) {
		if (u->kind != SCS_OPT_USE_INPUT) {
			n++;
			continue;
		}
		if (u->node == except || scs_opt_is_dropped(ctx, u->scope, u->node))
			continue;
		if (u->index < u->node->n_input && strcmp(u->node->input[u->index], name) == 0)
			n++;
	}
	return n;
}

int
scs_fuse_only_reader(scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *producer, const Onnx__NodeProto *reader,
    char *why, size_t why_len)
{
	const char *y = producer->n_output ? producer->output[0] : "";
	size_t by_reader = 0;

	if (!y[0]) {
		snprintf(why, why_len, "the %s has no output", producer->op_type);
		return 0;
	}
	for (size_t k = 1; k < producer->n_output; k++)
		if (producer->output[k][0]) {
			snprintf(why, why_len, "the %s has a second output '%s'", producer->op_type, producer->output[k]);
			return 0;
		}
	if (scs_opt_is_pinned(ctx, scope, y)) {
		snprintf(why, why_len, "'%s', the %s's output, is also a graph output", y, producer->op_type);
		return 0;
	}
	for (const scs_opt_use *u = scs_opt_first_use(ctx, scope, y); u; u = scs_opt_next_use(ctx, u)) {
		const Onnx__NodeProto *n = u->node;

		if (u->kind == SCS_OPT_USE_INPUT && n == reader) {
			by_reader++;
			continue;
		}
		if (u->kind != SCS_OPT_USE_INPUT)
			snprintf(why, why_len, "'%s', the %s's output, is also named by a graph output or an annotation", y,
			    producer->op_type);
		else if (n->name && n->name[0])
			snprintf(why, why_len, "'%s', the %s's output, is also read by node '%s' (%s)", y, producer->op_type,
			    n->name, n->op_type ? n->op_type : "?");
		else
			snprintf(why, why_len, "'%s', the %s's output, is also read by a %s node", y, producer->op_type,
			    n->op_type ? n->op_type : "?");
		return 0;
	}
	if (by_reader != 1) {
		snprintf(why, why_len, "'%s' is read %zu times by the same node", y, by_reader);
		return 0;
	}
	return 1;
}

int
scs_fuse_drop_unread(scs_opt_ctx *ctx, const scs_opt_const *c, const char *name, const Onnx__NodeProto *gone)
{
	if (scs_opt_is_pinned(ctx, c->scope, name) || scs_fuse_live_readers(ctx, c->scope, name, gone) > 0)
		return SCS_OK;
	if (c->node)
		return scs_opt_drop_node(ctx, c->scope, c->node);
	if (c->t)
		return scs_opt_drop_initializer(ctx, c->scope, c->t);
	return SCS_OK;
}

int
scs_fuse_put_input(const char **name, scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, size_t slot,
    const scs_opt_const *old, int dtype, const int64_t *dims, size_t n_dims, uint32_t payload, const char *base)
{
	const char *cur = slot < node->n_input ? node->input[slot] : "", *fresh;
	Onnx__TensorProto *t;
	int rc;

	if (old && old->t && !old->attr && cur[0] && old->dtype == dtype && old->t->n_dims == n_dims &&
	    (n_dims == 0 || memcmp(old->t->dims, dims, n_dims * sizeof(*dims)) == 0) &&
	    !scs_opt_is_pinned(ctx, old->scope, cur) && scs_fuse_live_readers(ctx, old->scope, cur, NULL) == 1) {
		/* @node alone reads it: the constant takes the new values and keeps its name */
		scs_model_set_payload(ctx->m, old->t, payload);
		*name = cur;
		return SCS_OK;
	}
	if ((rc = scs_opt_fresh_name(&fresh, ctx, base)) < 0)
		return rc;
	if ((t = scs_opt_tensor_new(ctx, fresh, dtype, dims, n_dims, payload)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot make constant '%s'", fresh);
	if ((rc = scs_opt_add_constant(ctx, scope, t, node)) < 0 || (rc = scs_opt_set_input(ctx, node, slot, fresh)) < 0)
		return rc;
	if (old && cur[0] && (rc = scs_fuse_drop_unread(ctx, old, cur, NULL)) < 0)
		return rc;
	*name = fresh;
	return SCS_OK;
}

/* ---- chains of two nodes; axes lists ---- */

Onnx__NodeProto *
scs_fuse_prev(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, size_t slot, const char *const *ops, int *rc)
{
	const char *x = slot < node->n_input ? node->input[slot] : "";
	Onnx__NodeProto *p;
	int d;

	*rc = 0;
	if (!x[0] || (d = scs_opt_def_scope(ctx, scope, x)) < 0 || (p = scs_opt_producer(ctx, d, x)) == NULL ||
	    scs_opt_is_dropped(ctx, d, p))
		return NULL;
	for (; *ops; ops++) {
		if (!scs_fuse_op_is(p, *ops))
			continue;
		if ((*rc = scs_opt_is_op(ctx, d, p, *ops)) <= 0)
			return NULL;
		if (d != scope) {
			*rc = scs_opt_refuse(ctx, scope, node, "the %s before it is in an enclosing graph", *ops);
			*rc = *rc < 0 ? *rc : 0;
			return NULL;
		}
		return p;
	}
	return NULL;
}

int
scs_fuse_axes_as_input(const char *op_type, int64_t opset)
{
	if (strcmp(op_type, "Squeeze") == 0 || strcmp(op_type, "Unsqueeze") == 0 || strcmp(op_type, "ReduceSum") == 0)
		return opset >= 13;
	return opset >= 18;
}

int
scs_fuse_axes_read(scs_fuse_axes *a, scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *node, size_t slot,
    int as_input, char *why, size_t why_len)
{
	const Onnx__AttributeProto *at;
	char reason[512];
	int r;

	memset(a, 0, sizeof(*a));
	a->as_input = as_input;
	if (!as_input) {
		if ((at = scs_attr_find(node, "axes")) == NULL)
			return 1;
		if (at->n_ints > SCS_INFER_MAX_RANK) {
			snprintf(why, why_len, "it has %zu axes, more than %d", at->n_ints, SCS_INFER_MAX_RANK);
			return 0;
		}
		a->given = at->n_ints > 0;
		a->n = at->n_ints;
		if (a->n)
			memcpy(a->v, at->ints, a->n * sizeof(*a->v));
		return 1;
	}
	if (slot >= node->n_input || !node->input[slot][0])
		return 1;
	if (scs_opt_def_scope(ctx, scope, node->input[slot]) < 0) {
		/* a constant a pass put in since the last commit: the next round reads it */
		why[0] = '\0';
		scs_opt_defer(ctx);
		return 0;
	}
	if ((r = scs_opt_constant(&a->c, ctx, scope, node->input[slot], reason, sizeof(reason))) <= 0) {
		if (r == 0)
			snprintf(why, why_len, "its axes '%s' are not a constant: %s", node->input[slot], reason);
		return r;
	}
	if (a->c.dtype != SCS_DT_INT64 || a->c.rank != 1 || a->c.n_elems > SCS_INFER_MAX_RANK) {
		snprintf(why, why_len, "its axes '%s' are not a list of at most %d int64", node->input[slot],
		    SCS_INFER_MAX_RANK);
		return 0;
	}
	a->have_c = 1;
	a->n = (size_t)a->c.n_elems;
	a->given = a->n > 0;
	if (a->n && (r = scs_opt_read_int64s(ctx, &a->c, 0, a->n, a->v)) < 0)
		return r;
	return 1;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

int
scs_fuse_axes_norm(int64_t *v, size_t n, int64_t rank, char *why, size_t why_len)
{
	for (size_t i = 0; i < n; i++) {
		if (v[i] < 0 && rank < 0) {
			snprintf(why, why_len, "axis %lld is negative and the rank it counts from is not known",
			    (long long)v[i]);
			return 0;
		}
		if (rank >= 0 && (v[i] < -rank || v[i] >= rank)) {
			snprintf(why, why_len, "axis %lld is out of range for rank %lld", (long long)v[i], (long long)rank);
			return 0;
		}
		if (v[i] < 0)
			v[i] += rank;
	}
	qsort(v, n, sizeof(*v), cmp_i64);
	for (size_t i = 1; i < n; i++)
		if (v[i] == v[i - 1]) {
			snprintf(why, why_len, "axis %lld is named twice", (long long)v[i]);
			return 0;
		}
	return 1;
}

int
scs_fuse_put_int64s(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, size_t slot, const scs_opt_const *old,
    const int64_t *v, size_t n, const char *base)
{
	scs_opt_writer w;
	uint32_t payload;
	int64_t dim = (int64_t)n;
	const char *name;
	int rc;

	if ((rc = scs_opt_writer_open(&w, ctx, SCS_DT_INT64)) < 0)
		return rc;
	if ((rc = scs_opt_writer_put_int64s(&w, v, n)) < 0) {
		scs_opt_writer_abort(&w);
		return rc;
	}
	if ((rc = scs_opt_writer_finish(&payload, &w)) < 0)
		return rc;
	return scs_fuse_put_input(&name, ctx, scope, node, slot, old, SCS_DT_INT64, &dim, 1, payload, base);
}

int
scs_fuse_axes_write(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, const scs_fuse_axes *a, size_t slot,
    const int64_t *v, size_t n)
{
	char base[256];

	if (!a->as_input)
		return scs_opt_set_attr_ints(node, "axes", v, n);
	snprintf(base, sizeof(base), "%s_axes", node->output[0]);
	return scs_fuse_put_int64s(ctx, scope, node, slot, a->have_c ? &a->c : NULL, v, n, base);
}

int64_t
scs_fuse_nth_other(const int64_t *skip, size_t n, int64_t j)
{
	int64_t ax, seen = 0;
	size_t k = 0;

	for (ax = 0;; ax++) {
		if (k < n && skip[k] == ax)
			k++;
		else if (seen++ == j)
			return ax;
	}
}

int
scs_fuse_axes_join(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *first, const scs_fuse_axes *a1,
    Onnx__NodeProto *second, const scs_fuse_axes *a2, const int64_t *v, size_t n, const char *verb)
{
	const char *x = first->input[0], *mid = second->input[0];
	char txt[200];
	int r;

	scs_fuse_ints(txt, sizeof(txt), v, n);
	if ((r = scs_opt_set_input(ctx, second, 0, x)) < 0 || (r = scs_fuse_axes_write(ctx, scope, second, a2, 1, v, n)) < 0)
		return r;
	if (scs_fuse_live_readers(ctx, scope, mid, NULL) == 0) {
		if ((r = scs_opt_drop_node(ctx, scope, first)) < 0 ||
		    (a1->have_c && (r = scs_fuse_drop_unread(ctx, &a1->c, first->input[1], first)) < 0))
			return r;
		r = scs_opt_did(ctx, scope, second, "%s '%s' at axes %s; the %s before it is removed", verb, x, txt,
		    first->op_type);
	} else {
		r = scs_opt_did(ctx, scope, second, "%s '%s' at axes %s; the %s before it stays for its other readers", verb,
		    x, txt, first->op_type);
	}
	return r < 0 ? r : 1;
}

void
scs_fuse_ints(char *out, size_t len, const int64_t *v, size_t n)
{
	size_t used = (size_t)snprintf(out, len, "[");

	for (size_t i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%lld", i ? "," : "", (long long)v[i]);
	if (used < len)
		snprintf(out + used, len - used, "]");
}

/* ---- a Pad folded into the node it feeds ---- */

/* "Pad 'name'" or "Pad of 'output'" for reasons. */
static void
pad_label(char *out, size_t len, const Onnx__NodeProto *pad)
{
	if (pad->name && pad->name[0])
		snprintf(out, len, "the Pad '%s'", pad->name);
	else
		snprintf(out, len, "the Pad of '%s'", pad->n_output ? pad->output[0] : "");
}

/* The Pad's pads from its input 1 (and axes, input 3, from opset 18) into @p; 1, or 0 with the reason in @why. */
static int
pad_inputs(scs_fuse_pad *p, scs_opt_ctx *ctx, int scope, char *why, size_t why_len)
{
	const Onnx__NodeProto *pad = p->pad;
	int64_t axes[SCS_FUSE_PAD_MAX_RANK], v[2 * SCS_FUSE_PAD_MAX_RANK];
	size_t n_axes = p->rank;
	char what[512];
	int rc;

	if (pad->n_input < 2 || !pad->input[1][0]) {
		snprintf(why, why_len, "it has no pads");
		return 0;
	}
	if (!scs_opt_constant(&p->c[0], ctx, scope, pad->input[1], what, sizeof(what))) {
		snprintf(why, why_len, "its pads: %s", what);
		return 0;
	}
	p->have[0] = 1;
	if (p->c[0].dtype != SCS_DT_INT64 || p->c[0].rank != 1) {
		snprintf(why, why_len, "its pads '%s' is not a 1-D int64 tensor", pad->input[1]);
		return 0;
	}
	for (size_t k = 0; k < n_axes; k++)
		axes[k] = (int64_t)k;
	if (pad->n_input > 3 && pad->input[3][0]) {
		if (!scs_opt_constant(&p->c[2], ctx, scope, pad->input[3], what, sizeof(what))) {
			snprintf(why, why_len, "its axes: %s", what);
			return 0;
		}
		p->have[2] = 1;
		if ((p->c[2].dtype != SCS_DT_INT64 && p->c[2].dtype != SCS_DT_INT32) || p->c[2].rank != 1 ||
		    p->c[2].n_elems > (int64_t)p->rank) {
			snprintf(why, why_len, "its axes '%s' is not a 1-D int32 or int64 tensor of at most %zu axes",
			    pad->input[3], p->rank);
			return 0;
		}
		n_axes = (size_t)p->c[2].n_elems;
		if ((rc = scs_opt_read_int64s(ctx, &p->c[2], 0, n_axes, axes)) < 0)
			return rc;
		for (size_t k = 0; k < n_axes; k++) {
			if (axes[k] < -(int64_t)p->rank || axes[k] >= (int64_t)p->rank) {
				snprintf(why, why_len, "its axis %lld is outside the data's %zu axes", (long long)axes[k], p->rank);
				return 0;
			}
			axes[k] = axes[k] < 0 ? axes[k] + (int64_t)p->rank : axes[k];
			for (size_t j = 0; j < k; j++)
				if (axes[j] == axes[k]) {
					snprintf(why, why_len, "its axes name axis %lld twice", (long long)axes[k]);
					return 0;
				}
		}
	}
	if ((uint64_t)p->c[0].n_elems != 2 * n_axes) {
		snprintf(why, why_len, "its pads '%s' holds %lld values, not %zu", pad->input[1], (long long)p->c[0].n_elems,
		    2 * n_axes);
		return 0;
	}
	if ((rc = scs_opt_read_int64s(ctx, &p->c[0], 0, 2 * n_axes, v)) < 0)
		return rc;
	for (size_t k = 0; k < n_axes; k++) {
		p->pads[axes[k]] = v[k];
		p->pads[p->rank + (size_t)axes[k]] = v[n_axes + k];
	}
	return 1;
}

/* The constant the Pad pads with into @p; 1, or 0 with the reason in @why. */
static int
pad_value(scs_fuse_pad *p, scs_opt_ctx *ctx, int scope, int64_t opset, char *why, size_t why_len)
{
	const Onnx__NodeProto *pad = p->pad;
	char what[512];
	int rc;

	p->value = 0;
	if (opset < 11) {
		p->value = (double)scs_attr_float(pad, "value", 0.0f);
		return 1;
	}
	if (pad->n_input < 3 || !pad->input[2][0])
		return 1;
	if (!scs_opt_constant(&p->c[1], ctx, scope, pad->input[2], what, sizeof(what))) {
		snprintf(why, why_len, "its constant_value: %s", what);
		return 0;
	}
	p->have[1] = 1;
	p->value_dtype = p->c[1].dtype;
	if (p->c[1].n_elems != 1 || !scs_opt_readable(p->c[1].dtype)) {
		snprintf(why, why_len, "its constant_value '%s' is not one number", pad->input[2]);
		return 0;
	}
	if ((rc = scs_opt_read_doubles(ctx, &p->c[1], 0, 1, &p->value)) < 0)
		return rc;
	return 1;
}

int
scs_fuse_pad_source(scs_fuse_pad *out, scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, size_t rank)
{
	Onnx__NodeProto *pad;
	const Onnx__AttributeProto *a;
	int64_t opset = scs_opt_opset(ctx, scope, "");
	char why[768], who[512];
	int r;

	memset(out, 0, sizeof(*out));
	if (node->n_input < 1 || !node->input[0][0])
		return 0;
	pad = scs_opt_producer(ctx, scope, node->input[0]);
	if (pad == NULL || scs_opt_is_dropped(ctx, scope, pad) || !scs_fuse_op_is(pad, "Pad"))
		return 0;
	if ((r = scs_opt_is_op(ctx, scope, pad, "Pad")) <= 0)
		return r;
	out->pad = pad;
	out->rank = rank;
	pad_label(who, sizeof(who), pad);
	if (rank < 3 || rank > SCS_FUSE_PAD_MAX_RANK)
		SCS_FUSE_REFUSE(ctx, scope, node, "%s before it: the rank of the data is not known", who);
	if (!scs_attr_is(pad, "mode", "constant", 1))
		SCS_FUSE_REFUSE(ctx, scope, node, "%s before it does not pad with a constant (mode is not 'constant')", who);
	if (opset < 11) {
		a = scs_attr_find(pad, opset < 2 ? "paddings" : "pads");
		if (a == NULL || a->n_ints != 2 * rank)
			SCS_FUSE_REFUSE(ctx, scope, node, "%s before it has no %zu pads", who, 2 * rank);
		memcpy(out->pads, a->ints, 2 * rank * sizeof(*a->ints));
	} else if ((r = pad_inputs(out, ctx, scope, why, sizeof(why))) <= 0) {
		if (r < 0)
			return r;
		SCS_FUSE_REFUSE(ctx, scope, node, "%s before it: %s", who, why);
	}
	if ((r = pad_value(out, ctx, scope, opset, why, sizeof(why))) <= 0) {
		if (r < 0)
			return r;
		SCS_FUSE_REFUSE(ctx, scope, node, "%s before it: %s", who, why);
	}
	for (size_t k = 0; k < 2 * rank; k++) {
		if (out->pads[k] < 0)
			SCS_FUSE_REFUSE(ctx, scope, node, "%s before it crops (pad %lld on axis %zu)", who,
			    (long long)out->pads[k], k % rank);
		if (out->pads[k] != 0 && k % rank < 2)
			SCS_FUSE_REFUSE(ctx, scope, node, "%s before it pads axis %zu (%s), which %s does not pad", who, k % rank,
			    k % rank ? "the channels" : "the batch", node->op_type);
	}
	a = scs_attr_find(node, "pads");
	if (a && a->n_ints != 2 * (rank - 2))
		SCS_FUSE_REFUSE(ctx, scope, node, "its pads hold %zu values, not %zu", a->n_ints, 2 * (rank - 2));
	if (!scs_attr_is(node, "auto_pad", "NOTSET", 1))
		SCS_FUSE_REFUSE(ctx, scope, node, "%s before it: its auto_pad is not NOTSET (it pads by its own rule)", who);
	if (!scs_fuse_only_reader(ctx, scope, pad, node, why, sizeof(why)))
		SCS_FUSE_REFUSE(ctx, scope, node, "%s before it: %s", who, why);
	return 1;
}

/* The spatial pads of @node with @p's added: begins, then ends, into @v. */
static void
pad_sum(int64_t *v, const Onnx__NodeProto *node, const scs_fuse_pad *p)
{
	const Onnx__AttributeProto *a = scs_attr_find(node, "pads");
	size_t sp = p->rank - 2;

	for (size_t i = 0; i < sp; i++) {
		v[i] = (a && a->n_ints == 2 * sp ? a->ints[i] : 0) + p->pads[2 + i];
		v[sp + i] = (a && a->n_ints == 2 * sp ? a->ints[sp + i] : 0) + p->pads[p->rank + 2 + i];
	}
}

int
scs_fuse_pad_below_kernel(const Onnx__NodeProto *node, const scs_fuse_pad *p, char *why, size_t why_len)
{
	const Onnx__AttributeProto *k = scs_attr_find(node, "kernel_shape");
	int64_t v[2 * SCS_FUSE_PAD_MAX_RANK];
	size_t sp = p->rank - 2;

	if (k == NULL || k->n_ints != sp) {
		snprintf(why, why_len, "its kernel_shape does not hold %zu values", sp);
		return 0;
	}
	pad_sum(v, node, p);
	for (size_t i = 0; i < 2 * sp; i++)
		if (v[i] >= k->ints[i % sp]) {
			snprintf(why, why_len, "a pad of %lld on spatial axis %zu would not be below the kernel's %lld",
			    (long long)v[i], i % sp, (long long)k->ints[i % sp]);
			return 0;
		}
	return 1;
}

int
scs_fuse_pad_apply(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, const scs_fuse_pad *p)
{
	const Onnx__NodeProto *pad = p->pad;
	int64_t v[2 * SCS_FUSE_PAD_MAX_RANK];
	char who[512];
	int rc;

	pad_sum(v, node, p);
	pad_label(who, sizeof(who), pad);
	if ((rc = scs_opt_set_attr_ints(node, "pads", v, 2 * (p->rank - 2))) < 0 ||
	    (rc = scs_opt_set_input(ctx, node, 0, pad->input[0])) < 0 ||
	    (rc = scs_opt_drop_node(ctx, scope, p->pad)) < 0)
		return rc;
	for (int k = 0; k < 3; k++)
		if (p->have[k] && (rc = scs_fuse_drop_unread(ctx, &p->c[k], pad->input[k + 1], pad)) < 0)
			return rc;
	return scs_opt_did(ctx, scope, node, "%s folded into its pads", who);
}
