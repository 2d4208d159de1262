/*
 * pass_extract.c: npy mode and forced extraction (see pass.h). Works on the
 * main graph only: a graph input can stand in for a constant there, and
 * nested graphs read it from the outer scope.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "onnx/dtype.h"
#include "util/err.h"
#include "shrink/npy.h"
#include "shrink/pass.h"
#include "model/rename.h"
#include "model/scope.h"

typedef struct extract {
	scs_model *m;
	scs_extract_result *res;
	const scs_extract_options *o;
	scs_scopes scopes;
	scs_extract_list *out;
	scs_renames renames;
	scs_strmap chosen;        /* constant name -> 1 */
	scs_strmap files;         /* .npy file names given out -> 1 (keys borrowed from out) */
	const char *wanted;       /* find_constant(): the name looked for */
	Onnx__TensorProto *found_t;
	Onnx__NodeProto *found_node;
} extract;

void
scs_extract_list_dispose(scs_extract_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->items[i].file);
		free(l->items[i].constant);
		free(l->items[i].dims);
	}
	free(l->items);
	memset(l, 0, sizeof(*l));
}

static int
match(void *ctx, int scope, Onnx__TensorProto *t, Onnx__NodeProto *node, const char *name)
{
	extract *x = ctx;

	if (scope != 0 || name == NULL || strcmp(name, x->wanted) != 0)
		return 0;
	x->found_t = t;
	x->found_node = node;
	return 1;
}

/* The main-graph constant named @name: 1 when found. */
static int
find_constant(extract *x, const char *name)
{
	x->wanted = name;
	x->found_t = NULL;
	x->found_node = NULL;
	return scs_scopes_each_constant(&x->scopes, match, x) == 1;
}

/*
 * The .npy file name (also the new input's name) for constant @name: the
 * one scs4onnx gives it, or, when another constant's name maps to the same
 * file or the model already uses that name, the first of "_1", "_2", ...
 * that is free, which the summary tells. Deterministic: constants are taken
 * in a fixed order.
 */
static int
unique_file(extract *x, const char *name, char **out)
{
	char *file, *plain = NULL, why[512];
	int rc = SCS_OK;

	*out = NULL;
	for (unsigned nth = 0;; nth++) {
		if ((file = scs_npy_file_name_nth(x->o->out_path, name, nth)) == NULL) {
			rc = scs_err_set(SCS_ENOMEM, "cannot allocate a name");
			break;
		}
		if (!scs_scopes_defined_anywhere(&x->scopes, file) && !scs_strmap_get(&x->files, file, NULL))
			break;
		if (nth == 0) {
			plain = file;
			continue;
		}
		free(file);
	}
	if (rc == SCS_OK && plain) {
		snprintf(why, sizeof(why), "%.200s (%.200s is taken)", file, plain);
		rc = scs_pass_notes_add(&x->res->renamed, name, why);
	}
	free(plain);
	if (rc < 0) {
		free(file);
		return rc;
	}
	*out = file;
	return SCS_OK;
}

/* Move constant @name out, or report why not. */
static int
take(extract *x, const char *name)
{
	scs_extracted *e;
	Onnx__TensorProto *t;
	uint32_t id;
	char *file;
	int rc;

	if (scs_strmap_get(&x->chosen, name, NULL))
		return SCS_OK;
	if (!find_constant(x, name))
		return scs_pass_notes_add(&x->res->unexported, name, "not a constant of the main graph");
	t = x->found_t;
	if (t->n_dims == 0)
		return scs_pass_notes_add(&x->res->unexported, name, "a scalar");
	if (scs_strmap_get(&x->scopes.items[0].pinned, name, NULL))
		return scs_pass_notes_add(&x->res->unexported, name, "a graph input or output");
	if (!scs_model_payload_of(x->m, t, &id) || scs_dtype_npy_descr(t->data_type) == NULL)
		return scs_pass_notes_add(&x->res->unexported, name, "NumPy has no type for it");
	if ((rc = unique_file(x, name, &file)) < 0)
		return rc;
	if ((rc = scs_grow(&x->out->items, &x->out->cap, x->out->n, sizeof(*x->out->items), 8, "the export list")) < 0) {
		free(file);
		return rc;
	}
	e = &x->out->items[x->out->n];
	memset(e, 0, sizeof(*e));
	e->file = file;
	e->dtype = t->data_type;
	e->payload = id;
	e->n_dims = t->n_dims;
	if ((e->constant = strdup(name)) == NULL || (e->dims = malloc(t->n_dims * sizeof(*e->dims))) == NULL) {
		free(e->constant);
		free(file);
		return scs_err_set(SCS_ENOMEM, "cannot grow the export list");
	}
	memcpy(e->dims, t->dims, t->n_dims * sizeof(*e->dims));
	x->out->n++;
	if ((rc = scs_strmap_put(&x->chosen, e->constant, 1)) < 0 || (rc = scs_strmap_put(&x->files, e->file, 1)) < 0)
		return rc;
	return scs_renames_add(&x->renames, 0, e->constant, e->file);
}

/* A graph input of the exported constant's type and shape. */
static int
add_input(extract *x, const scs_extracted *e)
{
	Onnx__GraphProto *g = x->m->proto->graph;
	Onnx__ValueInfoProto *vi = scs_value_info_new(e->file, e->dtype, e->dims, e->n_dims), **grown;

	if (vi == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot add a graph input");
	if ((grown = scs_arena_grow(g->input, g->n_input * sizeof(*grown), (g->n_input + 1) * sizeof(*grown))) == NULL) {
		protobuf_c_message_free_unpacked(&vi->base, NULL);
		return scs_err_set(SCS_ENOMEM, "cannot add a graph input");
	}
	g->input = grown;
	g->input[g->n_input++] = vi;
	return SCS_OK;
}

void
scs_extract_result_dispose(scs_extract_result *r)
{
	scs_extract_list_dispose(&r->extracted);
	scs_pass_notes_dispose(&r->unexported);
	scs_pass_notes_dispose(&r->renamed);
}

int
scs_pass_extract(scs_model *m, const scs_extract_options *o, scs_extract_result *res)
{
	scs_extract_list *out = &res->extracted;
	extract x;
	size_t i, j;
	int rc;

	memset(&x, 0, sizeof(x));
	x.m = m;
	x.res = res;
	x.o = o;
	x.out = out;
	if ((rc = scs_scopes_build(&x.scopes, m->proto)) < 0)
		goto done;
	for (i = 0; o->groups && i < o->n_group_names; i++)
		if ((rc = take(&x, o->group_names[i])) < 0)
			goto done;
	for (i = 0; i < o->n_constant_names; i++)
		if ((rc = take(&x, o->constant_names[i])) < 0)
			goto done;
	for (i = 0; i < o->n_op_names; i++) {
		Onnx__GraphProto *g = m->proto->graph;
		int seen = 0;

		for (j = 0; j < g->n_node; j++) {
			Onnx__NodeProto *n = g->node[j];

			if (!n->name || strcmp(n->name, o->op_names[i]) != 0)
				continue;
			seen = 1;
			for (size_t k = 0; k < n->n_input; k++)
				if (n->input[k][0] && find_constant(&x, n->input[k]) && x.found_t->n_dims > 0 &&
				    (rc = take(&x, n->input[k])) < 0)
					goto done;
		}
		if (!seen && (rc = scs_pass_notes_add(&res->unexported, o->op_names[i], "no node of that name in the main graph")) < 0)
			goto done;
	}
	/* rewrite references first: the renames borrow the constants' names */
	if ((rc = scs_renames_apply(&x.renames, &x.scopes)) < 0)
		goto done;
	for (i = 0; i < out->n; i++) {
		if (!find_constant(&x, out->items[i].constant))
			continue;
		if (x.found_node)
			scs_scope_drop_node(m, &x.scopes.items[0], x.found_node);
		else
			scs_scope_drop_initializer(m, &x.scopes.items[0], x.found_t);
		if ((rc = add_input(&x, &out->items[i])) < 0)
			goto done;
	}
done:
	scs_renames_dispose(&x.renames);
	scs_strmap_dispose(&x.chosen);
	scs_strmap_dispose(&x.files);
	scs_scopes_dispose(&x.scopes);
	return rc;
}
