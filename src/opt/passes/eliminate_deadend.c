/*
 * eliminate_deadend.c: nodes whose outputs reach no graph output
 * removed, in every graph and nested body (a nested body's outputs count
 * as its graph outputs; a node with a body reads what its body reads).
 * Nodes of an operator without a known schema (custom domains, model-local
 * functions, a newer opset) count as read: they may do more than make
 * their outputs, and are never touched. Values a quantization annotation
 * names are kept too.
 *
 * Each graph is looked at on its own, enclosing graphs first; a value an
 * enclosing graph makes only for a dead node inside a body goes in the next
 * round, once that node has.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "model/graph.h"
#include "onnx/opschema.h"
#include "opt/opt.h"
#include "model/scope.h"

/* 1 when the passes know what @n does (so that making its outputs is all it does). */
static int
known(const scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *n)
{
	const char *dom = n->domain ? n->domain : "";
	int64_t opset = scs_opt_opset(ctx, scope, dom);
	int newest = scs_opschema_newest_opset(dom);

	return n->op_type && opset > 0 && newest > 0 && opset <= newest &&
	    scs_opschema_find(dom, n->op_type, opset) != NULL;
}

typedef struct live {
	scs_strmap names;         /* values of the graph that something reads */
	scs_names todo;
} live;

static int
mark(live *l, const char *name)
{
	int rc;

	if (!name || !name[0] || scs_strmap_get(&l->names, name, NULL))
		return SCS_OK;
	if ((rc = scs_strmap_put(&l->names, name, 1)) < 0)
		return rc;
	return scs_names_add(&l->todo, name);
}

/* Mark what node @n reads; @n itself is alive. */
static int
mark_reads(live *l, const Onnx__NodeProto *n)
{
	scs_names reads = { NULL, 0, 0 };
	int rc = scs_node_reads(n, &reads);

	for (size_t i = 0; rc == SCS_OK && i < reads.n; i++)
		rc = mark(l, reads.items[i]);
	free(reads.items);
	return rc;
}

static int
sweep(scs_opt_ctx *ctx, int s, int *changed)
{
	scs_scope *sc = &ctx->scopes.items[s];
	Onnx__NodeProto **nodes;
	live l = { SCS_STRMAP_INIT, { NULL, 0, 0 } };
	scs_strmap made = SCS_STRMAP_INIT;      /* output -> position of the node making it */
	int64_t at;
	int *keep = NULL;
	size_t *n;
	int rc = SCS_OK;

	nodes = *scs_scope_nodes(sc, &n);
	if (*n == 0)
		return SCS_OK;
	if ((keep = calloc(*n, sizeof(*keep))) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot sweep a graph");
	/* the roots: outputs, annotated values, and nodes that are never touched */
	if (sc->graph) {
		for (size_t i = 0; rc == SCS_OK && i < sc->graph->n_output; i++)
			rc = mark(&l, sc->graph->output[i]->name);
		for (size_t i = 0; rc == SCS_OK && i < sc->graph->n_quantization_annotation; i++) {
			Onnx__TensorAnnotation *a = sc->graph->quantization_annotation[i];

			rc = mark(&l, a->tensor_name);
			for (size_t j = 0; rc == SCS_OK && j < a->n_quant_parameter_tensor_names; j++)
				rc = mark(&l, a->quant_parameter_tensor_names[j]->value);
		}
	} else {
		for (size_t i = 0; rc == SCS_OK && i < sc->func->n_output; i++)
			rc = mark(&l, sc->func->output[i]);
	}
	for (size_t i = 0; rc == SCS_OK && i < *n; i++)
		if (!known(ctx, s, nodes[i]) && !scs_opt_is_dropped(ctx, s, nodes[i])) {
			keep[i] = 1;
			rc = mark_reads(&l, nodes[i]);
		}
	for (size_t i = 0; rc == SCS_OK && i < *n; i++)
		for (size_t j = 0; rc == SCS_OK && j < nodes[i]->n_output; j++)
			if (nodes[i]->output[j][0])
				rc = scs_strmap_put(&made, nodes[i]->output[j], (int64_t)i);
	/* back from what is read to the nodes that make it */
	while (rc == SCS_OK && l.todo.n) {
		const char *name = l.todo.items[--l.todo.n];

		if (scs_strmap_get(&made, name, &at) && !keep[at]) {
			keep[at] = 1;
			rc = mark_reads(&l, nodes[at]);
		}
	}
	for (size_t i = 0; rc == SCS_OK && i < *n; i++) {
		if (keep[i] || scs_opt_is_dropped(ctx, s, nodes[i]))
			continue;
		if ((rc = scs_opt_drop_node(ctx, s, nodes[i])) == SCS_OK)
			rc = scs_opt_did(ctx, s, nodes[i], "removed: no graph output depends on it");
		*changed = 1;
	}
	/* the untouchable ones that are dead all the same */
	for (size_t i = 0; rc == SCS_OK && i < *n; i++) {
		int read = 0;

		if (known(ctx, s, nodes[i]) || scs_opt_is_dropped(ctx, s, nodes[i]))
			continue;
		for (size_t j = 0; !read && j < nodes[i]->n_output; j++)
			read = nodes[i]->output[j][0] && (scs_opt_n_uses(ctx, s, nodes[i]->output[j]) ||
			    scs_opt_is_pinned(ctx, s, nodes[i]->output[j]));
		if (!read)
			rc = scs_opt_refuse(ctx, s, nodes[i], "no graph output depends on it, but its operator has no known "
			    "schema here: it may do more than make its outputs");
	}
	scs_strmap_dispose(&l.names);
	scs_strmap_dispose(&made);
	free(l.todo.items);
	free(keep);
	return rc;
}

int
scs_opt_eliminate_deadend(scs_opt_ctx *ctx, int *changed)
{
	int rc;

	for (size_t s = 0; s < ctx->scopes.n; s++) {
		Onnx__NodeProto *owner = scs_opt_scope_owner(ctx, (int)s);

		if (owner && scs_opt_is_dropped(ctx, ctx->scopes.items[s].parent, owner))
			continue;
		if ((rc = sweep(ctx, (int)s, changed)) < 0)
			return rc;
	}
	return SCS_OK;
}
