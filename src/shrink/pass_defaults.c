/*
 * pass_defaults.c: initializers that are also graph inputs (see pass.h).
 * The one place that decides whether such an initializer is a constant or
 * a default a caller may override: a model below IR version 4 lists every
 * initializer among its inputs (that IR required it) and runtimes treat
 * them as constants; from IR 4 on, the listing makes an overridable
 * default, a constant only when the user says so. A constant's entry is
 * taken out of the input list before the passes run, so that every pass
 * sees an initializer like any other; below IR 4 the entries are written
 * back before the model is, one for each initializer still there, with the
 * type it has then.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "shrink/pass.h"
#include "util/strmap.h"

/* Call @fn on each initializer of the main graph @g (its list, then its live sealed records). */
static int
each_initializer(Onnx__GraphProto *g, int (*fn)(void *ctx, Onnx__TensorProto *t), void *ctx)
{
	scs_sealed *sealed = scs_sealed_of(g);
	Onnx__TensorProto *t;
	int rc;

	for (size_t i = 0; i < g->n_initializer; i++)
		if ((rc = fn(ctx, g->initializer[i])) != 0)
			return rc;
	for (size_t i = 0; sealed && i < sealed->n; i++)
		if ((t = scs_sealed_get(sealed, i)) != NULL && (rc = fn(ctx, t)) != 0)
			return rc;
	return SCS_OK;
}

static int
put_name(void *ctx, Onnx__TensorProto *t)
{
	return t->name && t->name[0] ? scs_strmap_put(ctx, t->name, 1) : SCS_OK;
}

int
scs_pass_defaults_lift(scs_defaults *d, scs_model *m, int as_constants)
{
	Onnx__GraphProto *g = m->proto->graph;
	scs_strmap inits = SCS_STRMAP_INIT;
	size_t kept = 0, n = 0;
	int rc;

	memset(d, 0, sizeof(*d));
	d->below_ir4 = m->proto->ir_version < 4;
	if (g == NULL || g->n_input == 0)
		return SCS_OK;
	if ((rc = each_initializer(g, put_name, &inits)) < 0)
		goto done;
	for (size_t i = 0; i < g->n_input; i++)
		n += g->input[i]->name && scs_strmap_get(&inits, g->input[i]->name, NULL);
	d->n_listed = n;
	if (n == 0 || !(d->below_ir4 || as_constants))
		goto done;
	d->constants = 1;
	d->vi = malloc(n * sizeof(*d->vi));
	d->before = malloc(n * sizeof(*d->before));
	if (d->vi == NULL || d->before == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "cannot list the initializers among the graph inputs");
		goto done;
	}
	for (size_t i = 0; i < g->n_input; i++) {
		Onnx__ValueInfoProto *vi = g->input[i];

		if (vi->name && scs_strmap_get(&inits, vi->name, NULL)) {
			d->vi[d->n] = vi;
			d->before[d->n++] = kept;
		} else {
			g->input[kept++] = vi;
		}
	}
	g->n_input = kept;
done:
	scs_strmap_dispose(&inits);
	return rc;
}

Onnx__ValueInfoProto *
scs_value_info_new(const char *name, int dtype, const int64_t *dims, size_t n_dims)
{
	Onnx__ValueInfoProto *vi = calloc(1, sizeof(*vi));
	Onnx__TypeProto *type = calloc(1, sizeof(*type));
	Onnx__TypeProto__Tensor *tt = calloc(1, sizeof(*tt));
	Onnx__TensorShapeProto *shape = calloc(1, sizeof(*shape));
	Onnx__TensorShapeProto__Dimension **dim = calloc(n_dims ? n_dims : 1, sizeof(*dim));

	if (!vi || !type || !tt || !shape || !dim) {
		free(vi);
		free(type);
		free(tt);
		free(shape);
		free(dim);
		return NULL;
	}
	onnx__value_info_proto__init(vi);
	onnx__type_proto__init(type);
	onnx__type_proto__tensor__init(tt);
	onnx__tensor_shape_proto__init(shape);
	vi->type = type;
	type->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	type->tensor_type = tt;
	tt->has_elem_type = 1;
	tt->elem_type = dtype;
	tt->shape = shape;
	shape->dim = dim;
	for (size_t i = 0; i < n_dims; i++) {
		if ((dim[i] = malloc(sizeof(**dim))) == NULL)
			goto fail;
		onnx__tensor_shape_proto__dimension__init(dim[i]);
		dim[i]->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
		dim[i]->dim_value = dims[i];
		shape->n_dim++;
	}
	if ((vi->name = strdup(name)) == NULL)
		goto fail;
	return vi;
fail:
	protobuf_c_message_free_unpacked(&vi->base, NULL);
	return NULL;
}

/* 1 when @vi declares exactly @t's element type and dims. */
static int
declares(const Onnx__ValueInfoProto *vi, const Onnx__TensorProto *t)
{
	const Onnx__TypeProto__Tensor *tt = vi->type && vi->type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ?
	    vi->type->tensor_type : NULL;

	if (tt == NULL || !tt->has_elem_type || tt->elem_type != t->data_type || tt->shape == NULL ||
	    tt->shape->n_dim != t->n_dims)
		return 0;
	for (size_t i = 0; i < t->n_dims; i++)
		if (tt->shape->dim[i]->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE ||
		    tt->shape->dim[i]->dim_value != t->dims[i])
			return 0;
	return 1;
}

typedef struct restore {
	const scs_defaults *d;
	scs_model *m;
	scs_strmap listed;        /* names among the inputs now, or written back */
	scs_strmap lifted;        /* lifted entry name -> index */
	Onnx__ValueInfoProto **made;   /* an entry for each initializer not listed, by lifted index or appended */
	size_t n_made;
	Onnx__ValueInfoProto **fresh;  /* ... for initializers the passes made */
	size_t n_fresh;
} restore;

/* The entry of initializer @t: the lifted one when it still declares @t, else a new one. */
static int
entry_for(void *ctx, Onnx__TensorProto *t)
{
	restore *r = ctx;
	Onnx__ValueInfoProto *vi;
	int64_t k = -1;
	int rc;

	if (t->name == NULL || !t->name[0] || scs_strmap_get(&r->listed, t->name, NULL))
		return SCS_OK;
	if ((rc = scs_strmap_put(&r->listed, t->name, 1)) < 0)
		return rc;
	scs_strmap_get(&r->lifted, t->name, &k);
	if (k >= 0 && declares(r->d->vi[k], t))
		vi = (Onnx__ValueInfoProto *)scs_model_copy(r->m, &r->d->vi[k]->base);
	else
		vi = scs_value_info_new(t->name, t->data_type, t->dims, t->n_dims);
	if (vi == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot list initializer '%s' among the graph inputs", t->name);
	if (k >= 0)
		r->made[k] = vi;
	else
		r->fresh[r->n_fresh++] = vi;
	r->n_made++;
	return SCS_OK;
}

static int
count_one(void *ctx, Onnx__TensorProto *t)
{
	(void)t;
	++*(size_t *)ctx;
	return SCS_OK;
}

int
scs_pass_defaults_restore(const scs_defaults *d, scs_model *m)
{
	Onnx__GraphProto *g = m->proto->graph;
	Onnx__ValueInfoProto **grown, **order = NULL;
	restore r;
	size_t n_inits = 0, n = 0, k = 0;
	int rc;

	if (d == NULL || !d->below_ir4 || g == NULL)
		return SCS_OK;
	memset(&r, 0, sizeof(r));
	r.d = d;
	r.m = m;
	each_initializer(g, count_one, &n_inits);
	if ((rc = scs_strmap_reserve(&r.listed, g->n_input + n_inits)) < 0 ||
	    (rc = scs_strmap_reserve(&r.lifted, d->n)) < 0)
		goto done;
	r.made = calloc(d->n + 1, sizeof(*r.made));
	r.fresh = calloc(n_inits + 1, sizeof(*r.fresh));
	order = malloc((g->n_input + n_inits + 1) * sizeof(*order));
	if (r.made == NULL || r.fresh == NULL || order == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "cannot list the initializers among the graph inputs");
		goto done;
	}
	for (size_t i = 0; rc == SCS_OK && i < g->n_input; i++)
		rc = g->input[i]->name ? scs_strmap_put(&r.listed, g->input[i]->name, 1) : SCS_OK;
	for (size_t i = 0; rc == SCS_OK && i < d->n; i++)
		rc = scs_strmap_put(&r.lifted, d->vi[i]->name, (int64_t)i);
	if (rc < 0 || (rc = each_initializer(g, entry_for, &r)) < 0 || r.n_made == 0)
		goto done;
	/* each lifted entry back before the input it preceded; the passes' new ones last */
	for (size_t i = 0; i <= g->n_input; i++) {
		for (; k < d->n && (d->before[k] <= i || i == g->n_input); k++)
			if (r.made[k])
				order[n++] = r.made[k];
		if (i < g->n_input)
			order[n++] = g->input[i];
	}
	for (size_t i = 0; i < r.n_fresh; i++)
		order[n++] = r.fresh[i];
	if ((grown = scs_arena_grow(g->input, g->n_input * sizeof(*grown), n * sizeof(*grown))) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "cannot list the initializers among the graph inputs");
		goto done;
	}
	memcpy(grown, order, n * sizeof(*grown));
	g->input = grown;
	g->n_input = n;
	r.n_made = 0;     /* the graph's now */
done:
	for (size_t i = 0; r.n_made && i < d->n; i++)
		if (r.made && r.made[i])
			scs_model_free_message(m, &r.made[i]->base);
	for (size_t i = 0; r.n_made && i < r.n_fresh; i++)
		scs_model_free_message(m, &r.fresh[i]->base);
	free(r.made);
	free(r.fresh);
	free(order);
	scs_strmap_dispose(&r.listed);
	scs_strmap_dispose(&r.lifted);
	return rc;
}

int
scs_pass_defaults_restore_for(const scs_defaults *d, scs_model *m, scs_defaults_undo *u)
{
	Onnx__GraphProto *g = m->proto->graph;
	int rc;

	u->was = NULL;
	u->n = 0;
	if (d == NULL || !d->below_ir4 || g == NULL)
		return SCS_OK;
	if ((u->was = malloc((g->n_input + 1) * sizeof(*u->was))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot list the initializers among the graph inputs");
	memcpy(u->was, g->input, g->n_input * sizeof(*u->was));
	u->n = g->n_input;
	if ((rc = scs_pass_defaults_restore(d, m)) < 0)
		scs_pass_defaults_undo(u, m);
	return rc;
}

void
scs_pass_defaults_undo(scs_defaults_undo *u, scs_model *m)
{
	Onnx__GraphProto *g = m->proto->graph;
	size_t j = 0;

	if (u->was == NULL)
		return;
	/* the entries written back are those not in the list as it was (whose order they kept) */
	for (size_t i = 0; i < g->n_input; i++) {
		if (j < u->n && g->input[i] == u->was[j])
			j++;
		else
			scs_model_free_message(m, &g->input[i]->base);
	}
	memcpy(g->input, u->was, u->n * sizeof(*u->was));
	g->n_input = u->n;
	free(u->was);
	u->was = NULL;
	u->n = 0;
}

void
scs_defaults_dispose(scs_defaults *d, scs_model *m)
{
	for (size_t i = 0; m && i < d->n; i++)
		scs_model_free_message(m, &d->vi[i]->base);
	free(d->vi);
	free(d->before);
	memset(d, 0, sizeof(*d));
}
