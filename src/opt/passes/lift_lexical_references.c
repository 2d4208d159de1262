/*
 * lift_lexical_references.c: onnxoptimizer's pass marks each If and Loop
 * with an attribute '__control_inputs' listing the values of enclosing
 * graphs its bodies read, for backends that schedule by explicit
 * dependencies. No ONNX operator has that attribute: onnx.checker and ONNX
 * Runtime reject a model that carries it, and the standard has no other
 * place for the list (an If has no inputs to carry them; making them a
 * Loop's loop-carried values would copy them every iteration and change its
 * outputs). The references are already in the model: a runtime finds them
 * by scope. So this pass changes nothing; for each node whose bodies read
 * values of enclosing graphs, it reports which (what onnxoptimizer would
 * have listed: the values read in its bodies, at any depth, that are
 * defined outside it) as the reason it was left alone.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt/opt.h"
#include "util/strmap.h"

#define SHOWN 6

typedef struct owner_refs {
	const Onnx__NodeProto *node;
	int scope;                          /* where the node is */
	size_t n;                           /* values it reads from outside */
	char text[400];                     /* the first SHOWN of them, quoted */
} owner_refs;

typedef struct lifting {
	scs_strmap seen;                    /* "<owner index>/<name>" (keys owned by @keys) */
	char **keys;
	size_t n_keys;
	scs_strmap index;                   /* the owner's address as text -> position in owners */
	char **index_keys;
	size_t n_index_keys;
	owner_refs *owners;
	size_t n_owners;
} lifting;

/* Keep @key (malloc'd) for the life of @keys. */
static int
keep_key(char ***keys, size_t *n, char *key)
{
	char **grown = key ? realloc(*keys, (*n + 1) * sizeof(*grown)) : NULL;

	if (grown == NULL) {
		free(key);
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot list outer references");
	}
	*keys = grown;
	(*keys)[(*n)++] = key;
	return SCS_OK;
}

/* The record of the node holding scope @s's graph. */
static int
owner_of(scs_opt_ctx *ctx, lifting *l, int s, owner_refs **out)
{
	const Onnx__NodeProto *node = scs_opt_scope_owner(ctx, s);
	char key[32], *copy;
	owner_refs *grown;
	int64_t at;
	int rc;

	snprintf(key, sizeof(key), "%p", (const void *)node);
	if (scs_strmap_get(&l->index, key, &at)) {
		*out = &l->owners[at];
		return SCS_OK;
	}
	if ((grown = realloc(l->owners, (l->n_owners + 1) * sizeof(*grown))) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot list outer references");
	l->owners = grown;
	memset(&grown[l->n_owners], 0, sizeof(*grown));
	grown[l->n_owners].node = node;
	grown[l->n_owners].scope = ctx->scopes.items[s].parent;
	if ((rc = keep_key(&l->index_keys, &l->n_index_keys, copy = strdup(key))) < 0 ||
	    (rc = scs_strmap_put(&l->index, copy, (int64_t)l->n_owners)) < 0)
		return rc;
	*out = &l->owners[l->n_owners++];
	return SCS_OK;
}

/* @name, read in scope @t and defined in scope @d (an enclosing one), is an outer reference of every node between. */
static int
note(scs_opt_ctx *ctx, lifting *l, int t, int d, const char *name)
{
	for (int u = t; u != d && u >= 0; u = ctx->scopes.items[u].parent) {
		owner_refs *o = NULL;
		char *key;
		size_t len;
		int rc;

		if ((rc = owner_of(ctx, l, u, &o)) < 0)
			return rc;
		len = strlen(name) + 32;
		if ((key = malloc(len)) == NULL)
			return scs_err_set(SCS_ENOMEM, "optimizer: cannot list outer references");
		snprintf(key, len, "%zu/%s", (size_t)(o - l->owners), name);
		if (scs_strmap_get(&l->seen, key, NULL)) {
			free(key);
			continue;
		}
		if ((rc = keep_key(&l->keys, &l->n_keys, key)) < 0 || (rc = scs_strmap_put(&l->seen, key, 1)) < 0)
			return rc;
		if (o->n++ < SHOWN) {
			size_t used = strlen(o->text);

			snprintf(o->text + used, sizeof(o->text) - used, "%s'%s'", used ? ", " : "", name);
		}
	}
	return SCS_OK;
}

static int
visit(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	int d, rc;

	if (ctx->scopes.items[scope].parent < 0)
		return SCS_OK;
	for (size_t i = 0; i < node->n_input; i++)
		if (node->input[i][0] && (d = scs_opt_def_scope(ctx, scope, node->input[i])) >= 0 && d != scope &&
		    (rc = note(ctx, payload, scope, d, node->input[i])) < 0)
			return rc;
	return SCS_OK;
}

int
scs_opt_lift_lexical_references(scs_opt_ctx *ctx, int *changed)
{
	lifting l;
	int rc;

	(void)changed;
	memset(&l, 0, sizeof(l));
	rc = scs_opt_each_node(ctx, visit, &l);
	/* a body's output may name an outer value too */
	for (size_t s = 0; rc >= 0 && s < ctx->scopes.n; s++) {
		const Onnx__GraphProto *g = ctx->scopes.items[s].graph;
		int d;

		for (size_t j = 0; g && ctx->scopes.items[s].parent >= 0 && rc >= 0 && j < g->n_output; j++)
			if (g->output[j]->name && (d = scs_opt_def_scope(ctx, (int)s, g->output[j]->name)) >= 0 &&
			    d != (int)s)
				rc = note(ctx, &l, (int)s, d, g->output[j]->name);
	}
	for (size_t i = 0; rc >= 0 && i < l.n_owners; i++)
		rc = scs_opt_refuse(ctx, l.owners[i].scope, l.owners[i].node, "not marked: its bodies read %zu value%s "
		    "of enclosing graphs (%s%s); onnxoptimizer lists them in a '__control_inputs' attribute, which no ONNX "
		    "operator has (onnx.checker and ONNX Runtime reject it), and they are in the model already",
		    l.owners[i].n, l.owners[i].n > 1 ? "s" : "", l.owners[i].text, l.owners[i].n > SHOWN ? ", ..." : "");
	for (size_t i = 0; i < l.n_keys; i++)
		free(l.keys[i]);
	for (size_t i = 0; i < l.n_index_keys; i++)
		free(l.index_keys[i]);
	free(l.keys);
	free(l.index_keys);
	free(l.owners);
	scs_strmap_dispose(&l.seen);
	scs_strmap_dispose(&l.index);
	return rc < 0 ? rc : SCS_OK;
}
