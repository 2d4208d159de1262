/*
 * eliminate_if_with_const_cond.c: an If whose condition is a constant
 * (not a graph input, which a caller may set) is replaced by the branch it
 * takes: the branch's nodes and initializers move into the enclosing graph
 * where the If was, and each If output is made by an Identity of the
 * branch's output, so the If's output names, and with them graph outputs,
 * stay as they were; where the branch's value is made by a node of the
 * branch read by nothing else, that node then makes the If's output
 * itself (scs_opt_forward, as eliminate_identity would).
 *
 * Names the branch defines that any graph outside it defines too are
 * given fresh names first (they would collide in the enclosing graph, or
 * shadow a name another graph reads). A branch with inputs, sparse
 * initializers or quantization annotations is left alone.
 *
 * One If at a time, each followed by a commit: the next one is looked for
 * in the rewritten model (an If inside the taken branch included).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "onnx/attr.h"
#include "onnx/dtype.h"
#include "opt/opt.h"
#include "opt/opt_impl.h"
#include "model/scope.h"

typedef struct found {
	Onnx__NodeProto **refused;       /* Ifs left alone in this run, not looked at again */
	size_t n_refused, cap_refused;
} found;

static int
was_refused(const found *f, const Onnx__NodeProto *n)
{
	for (size_t i = 0; i < f->n_refused; i++)
		if (f->refused[i] == n)
			return 1;
	return 0;
}

static int
remember(found *f, Onnx__NodeProto *n)
{
	int rc;

	if ((rc = scs_opt_grow(&f->refused, &f->cap_refused, f->n_refused, sizeof(*f->refused))) < 0)
		return rc;
	f->refused[f->n_refused++] = n;
	return SCS_OK;
}

static Onnx__GraphProto *
branch(const Onnx__NodeProto *n, const char *name)
{
	const Onnx__AttributeProto *a = scs_attr_find(n, name);

	return a ? a->g : NULL;
}

/*
 * Whether If @n of scope @s can go: 1 and the taken branch in *@b; 0 when
 * not (reported when it is a refusal, not an ordinary If).
 */
static int
decide(scs_opt_ctx *ctx, int s, Onnx__NodeProto *n, Onnx__GraphProto **b)
{
	const char *which;
	scs_opt_const c;
	char why[512];
	int64_t v;
	int r, d;

	if (n->n_input < 1 || !n->input[0][0])
		return 0;
	if ((r = scs_opt_constant(&c, ctx, s, n->input[0], why, sizeof(why))) <= 0) {
		/* an ordinary If; but a default a caller may override is worth saying */
		d = scs_opt_def_scope(ctx, s, n->input[0]);
		if (r < 0 || d < 0 || !scs_opt_is_input(ctx, d, n->input[0]) || !strstr(why, "default"))
			return r;
		return scs_opt_refuse(ctx, s, n, "the condition %s", why);
	}
	if (c.dtype != SCS_DT_BOOL || c.n_elems != 1)
		return scs_opt_refuse(ctx, s, n, "the condition '%s' is a constant but not one bool", n->input[0]);
	if ((r = scs_opt_read_int64s(ctx, &c, 0, 1, &v)) < 0)
		return r;
	which = v ? "then_branch" : "else_branch";
	if ((*b = branch(n, which)) == NULL)
		return scs_opt_refuse(ctx, s, n, "it has no %s", which);
	if ((*b)->n_input || (*b)->n_sparse_initializer || (*b)->n_quantization_annotation)
		return scs_opt_refuse(ctx, s, n, "its %s has inputs, sparse initializers or quantization annotations",
		    which);
	if ((*b)->n_output < n->n_output)
		return scs_opt_refuse(ctx, s, n, "its %s has %zu outputs for %zu If outputs", which, (*b)->n_output,
		    n->n_output);
	for (size_t i = 0; i < n->n_output; i++)
		if (n->output[i][0] && (!(*b)->output[i]->name || !(*b)->output[i]->name[0]))
			return scs_opt_refuse(ctx, s, n, "output %zu of its %s has no name", i, which);
	return scs_opt_did(ctx, s, n, "the condition is %s: replaced by its %s", v ? "true" : "false", which) < 0 ? -1 : 1;
}

/* The first If that can go: 1 with *@s, *@n, *@b; 0 when none is left. */
static int
next_if(scs_opt_ctx *ctx, found *f, int *s, Onnx__NodeProto **n, Onnx__GraphProto **b)
{
	Onnx__NodeProto **nodes;
	size_t *cnt;
	int r;

	for (size_t sc = 0; sc < ctx->scopes.n; sc++) {
		nodes = *scs_scope_nodes(&ctx->scopes.items[sc], &cnt);
		for (size_t i = 0; i < *cnt; i++) {
			if (was_refused(f, nodes[i]) || (r = scs_opt_is_op(ctx, (int)sc, nodes[i], "If")) == 0)
				continue;
			if (r < 0 || (r = decide(ctx, (int)sc, nodes[i], b)) < 0)
				return r;
			if (r == 0) {
				if ((r = remember(f, nodes[i])) < 0)
					return r;
				continue;
			}
			*s = (int)sc;
			*n = nodes[i];
			return 1;
		}
	}
	return 0;
}

/* Fresh names for what branch @b (scope @bs) defines that a graph outside it defines too. */
static int
rename_clashes(scs_opt_ctx *ctx, int bs, Onnx__GraphProto *b)
{
	char why[512];
	const char *fresh;
	int rc;

	for (size_t i = 0; i < b->n_initializer + b->n_node; i++) {
		Onnx__NodeProto *node = i < b->n_initializer ? NULL : b->node[i - b->n_initializer];
		size_t n_slots = node ? node->n_output : 1;

		for (size_t j = 0; j < n_slots; j++) {
			char **slot = node ? &node->output[j] : &b->initializer[i]->name;
			int clash = 0;

			if (*slot == NULL || (*slot)[0] == '\0')
				continue;
			for (size_t t = 0; !clash && t < ctx->scopes.n; t++)
				clash = !scs_scope_encloses(&ctx->scopes, bs, (int)t) &&
				    scs_strmap_get(&ctx->scopes.items[t].defs, *slot, NULL);
			if (!clash)
				continue;
			if ((rc = scs_opt_fresh_name(&fresh, ctx, *slot)) < 0 ||
			    (rc = scs_opt_rename_def(ctx, bs, slot, fresh, why, sizeof(why))) < 0)
				return rc;
			if (rc == 0)
				return scs_err_set(SCS_EUNSUPPORTED, "optimizer: cannot rename '%s' in a branch: %s", *slot, why);
		}
	}
	return scs_opt_commit(ctx);
}

/* Put the nodes of @b, then Identities making @n's outputs, where @n is in scope @s; free @n. */
static int
splice(scs_opt_ctx *ctx, int s, Onnx__NodeProto *n, Onnx__GraphProto *b)
{
	Onnx__GraphProto *g = ctx->scopes.items[s].graph;
	Onnx__NodeProto ***arr, **ids, **grown;
	size_t *cnt, at, n_ids = 0, extra;
	int rc = SCS_OK;

	if ((ids = calloc(n->n_output ? n->n_output : 1, sizeof(*ids))) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot replace an If");
	for (size_t i = 0; i < n->n_output; i++) {
		const char *in = b->output[i]->name, *out = n->output[i];

		if (!out[0])
			continue;
		if ((ids[n_ids] = scs_opt_node_new("Identity", "", &in, 1, &out, 1)) == NULL) {
			rc = scs_err_set(SCS_ENOMEM, "optimizer: cannot replace an If");
			goto fail;
		}
		n_ids++;
	}
	/* value info travels with the values */
	if (g && b->n_value_info) {
		Onnx__ValueInfoProto **vi = scs_arena_grow(g->value_info, g->n_value_info * sizeof(*vi),
		    (g->n_value_info + b->n_value_info) * sizeof(*vi));

		if (vi == NULL) {
			rc = scs_err_set(SCS_ENOMEM, "optimizer: cannot replace an If");
			goto fail;
		}
		memcpy(vi + g->n_value_info, b->value_info, b->n_value_info * sizeof(*vi));
		g->value_info = vi;
		g->n_value_info += b->n_value_info;
		b->n_value_info = 0;
	}
	/* initializers: of the enclosing graph, or Constants before the If in a function */
	while (b->n_initializer) {
		Onnx__TensorProto *t = b->initializer[--b->n_initializer];

		if ((rc = scs_opt_add_constant(ctx, s, t, n)) < 0)
			goto fail;
	}
	arr = scs_scope_nodes(&ctx->scopes.items[s], &cnt);
	for (at = 0; at < *cnt && (*arr)[at] != n; at++)
		;
	if (at == *cnt) {
		rc = scs_err_set(SCS_EUSAGE, "optimizer: the If is not in its graph");
		goto fail;
	}
	extra = b->n_node + n_ids;
	if ((grown = scs_arena_grow(*arr, *cnt * sizeof(*grown), (*cnt + extra) * sizeof(*grown))) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "optimizer: cannot replace an If");
		goto fail;
	}
	*arr = grown;
	memmove(grown + at + extra, grown + at + 1, (*cnt - at - 1) * sizeof(*grown));
	memcpy(grown + at, b->node, b->n_node * sizeof(*grown));
	memcpy(grown + at + b->n_node, ids, n_ids * sizeof(*grown));
	*cnt += extra - 1;
	b->n_node = 0;
	scs_opt_node_free(ctx, n);     /* with both branches, now empty of what moved */
	scs_opt_touch(ctx);
	free(ids);
	return SCS_OK;
fail:
	for (size_t i = 0; i < n_ids; i++)
		scs_opt_node_free(ctx, ids[i]);
	free(ids);
	return rc;
}

/*
 * The Identities splice() made for the If's outputs @outs (in scope @s,
 * committed) go where the branch's value is made by a node that nothing
 * else reads it from and no name pins: that node makes the If's output
 * itself (scs_opt_forward), as it would after eliminate_identity, so the
 * pass alone leaves the graph onnxoptimizer's does. Committed.
 */
static int
join_outputs(scs_opt_ctx *ctx, int s, char **outs, size_t n_outs)
{
	for (size_t i = 0; i < n_outs; i++) {
		Onnx__NodeProto *id = outs[i][0] ? scs_opt_producer(ctx, s, outs[i]) : NULL;
		const char *x;
		int r;

		if (id == NULL || strcmp(id->op_type, "Identity") != 0 || id->n_input != 1)
			continue;
		x = id->input[0];
		if (scs_opt_producer(ctx, s, x) == NULL || scs_opt_is_pinned(ctx, s, x) || scs_opt_n_uses(ctx, s, x) != 1)
			continue;
		if ((r = scs_opt_forward(ctx, s, id, 0, 0)) < 0)
			return r;
	}
	return scs_opt_commit(ctx);
}

/* Copies of @n's output names (freed with free_names). */
static char **
copy_names(const Onnx__NodeProto *n)
{
	char **v = calloc(n->n_output ? n->n_output : 1, sizeof(*v));

	for (size_t i = 0; v && i < n->n_output; i++)
		if ((v[i] = strdup(n->output[i])) == NULL) {
			while (i-- > 0)
				free(v[i]);
			free(v);
			return NULL;
		}
	return v;
}

static void
free_names(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

int
scs_opt_eliminate_if_with_const_cond(scs_opt_ctx *ctx, int *changed)
{
	found f = { NULL, 0, 0 };
	Onnx__GraphProto *b, *g;
	Onnx__NodeProto *n;
	char **outs;
	size_t n_outs;
	int s, r;

	while ((r = next_if(ctx, &f, &s, &n, &b)) > 0) {
		if ((r = rename_clashes(ctx, scs_scopes_of(&ctx->scopes, b), b)) < 0)
			break;
		/* the commit rebuilt the scopes: the If is where it was, in the graph holding @b */
		s = ctx->scopes.items[scs_scopes_of(&ctx->scopes, b)].parent;
		g = ctx->scopes.items[s].graph;
		n_outs = n->n_output;
		if ((outs = copy_names(n)) == NULL) {
			r = scs_err_set(SCS_ENOMEM, "optimizer: cannot replace an If");
			break;
		}
		if ((r = splice(ctx, s, n, b)) < 0 || (r = scs_opt_commit(ctx)) < 0) {
			free_names(outs, n_outs);
			break;
		}
		*changed = 1;
		/* the commit dropped the branches' scopes: the enclosing graph's is found again */
		if (g)
			s = scs_scopes_of(&ctx->scopes, g);
		r = join_outputs(ctx, s, outs, n_outs);
		free_names(outs, n_outs);
		if (r < 0)
			break;
	}
	free(f.refused);
	return r;
}
