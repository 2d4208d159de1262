/*
 * rename.c: renaming everywhere, scope by scope (see rename.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "model/rename.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/err.h"

int
scs_renames_add(scs_renames *r, int scope, const char *from, const char *to)
{
	int64_t prev = -1;
	int rc;

	if ((rc = scs_grow(&r->items, &r->cap, r->n, sizeof(*r->items), 16, "the rename list")) < 0)
		return rc;
	scs_strmap_get(&r->last, from, &prev);
	if ((r->items[r->n].to = strdup(to)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot copy a name");
	r->items[r->n].scope = scope;
	r->items[r->n].from = from;
	r->items[r->n].next = prev;
	if ((rc = scs_strmap_put(&r->last, from, (int64_t)r->n)) < 0) {
		free(r->items[r->n].to);
		return rc;
	}
	r->n++;
	return SCS_OK;
}

void
scs_renames_dispose(scs_renames *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->items[i].to);
	free(r->items);
	scs_strmap_dispose(&r->last);
	memset(r, 0, sizeof(*r));
}

const char *
scs_renames_lookup(const scs_renames *r, const scs_scopes *s, int at, const char *name)
{
	int64_t i;
	int sc;

	if (!scs_strmap_get(&r->last, name, &i))
		return NULL;
	for (; i >= 0; i = r->items[i].next) {
		const scs_rename *e = &r->items[i];

		if (!scs_scope_encloses(s, e->scope, at))
			continue;
		/* shadowed when a scope below the rename's own defines the name again */
		for (sc = at; sc != e->scope; sc = s->items[sc].parent)
			if (scs_strmap_get(&s->items[sc].defs, name, NULL))
				break;
		if (sc == e->scope)
			return e->to;
	}
	return NULL;
}

int
scs_name_swap(char **slot, const char *to)
{
	char *copy = strdup(to);

	if (copy == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot copy a name");
	scs_arena_release(*slot);
	*slot = copy;
	return SCS_OK;
}

static int
apply_in(scs_renames *r, scs_scopes *s, int at)
{
	scs_scope *sc = &s->items[at];
	Onnx__NodeProto **nodes;
	size_t *n, i, j, keep;
	const char *to;
	int rc;

	nodes = *scs_scope_nodes(sc, &n);
	for (i = 0; i < *n; i++)
		for (j = 0; j < nodes[i]->n_input; j++)
			if (nodes[i]->input[j][0] && (to = scs_renames_lookup(r, s, at, nodes[i]->input[j])) &&
			    (rc = scs_name_swap(&nodes[i]->input[j], to)) < 0)
				return rc;
	if (sc->graph == NULL)
		return SCS_OK;
	/* a nested graph may output an outer value by name */
	if (sc->parent >= 0)
		for (i = 0; i < sc->graph->n_output; i++)
			if (sc->graph->output[i]->name && (to = scs_renames_lookup(r, s, at, sc->graph->output[i]->name)) &&
			    (rc = scs_name_swap(&sc->graph->output[i]->name, to)) < 0)
				return rc;
	/* quantization annotations name tensors too: the annotated one and its parameters */
	for (i = 0; i < sc->graph->n_quantization_annotation; i++) {
		Onnx__TensorAnnotation *a = sc->graph->quantization_annotation[i];

		if (a->tensor_name && (to = scs_renames_lookup(r, s, at, a->tensor_name)) && (rc = scs_name_swap(&a->tensor_name, to)) < 0)
			return rc;
		for (j = 0; j < a->n_quant_parameter_tensor_names; j++) {
			char **v = &a->quant_parameter_tensor_names[j]->value;

			if (*v && (to = scs_renames_lookup(r, s, at, *v)) && (rc = scs_name_swap(v, to)) < 0)
				return rc;
		}
	}
	for (i = keep = 0; i < sc->graph->n_value_info; i++) {
		Onnx__ValueInfoProto *vi = sc->graph->value_info[i];

		if (vi->name && scs_renames_lookup(r, s, at, vi->name))
			scs_model_free_part(&vi->base);
		else
			sc->graph->value_info[keep++] = vi;
	}
	sc->graph->n_value_info = keep;
	return SCS_OK;
}

int
scs_renames_apply(scs_renames *r, scs_scopes *s)
{
	int rc;

	if (r->n == 0)
		return SCS_OK;
	for (size_t i = 0; i < s->n; i++)
		if ((rc = apply_in(r, s, (int)i)) < 0)
			return rc;
	return SCS_OK;
}
