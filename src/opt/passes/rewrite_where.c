/*
 * rewrite_where.c: Where(Not(c), x, y) becomes Where(c, y, x): the Not
 * goes, the Where takes its branches the other way round. Several Where
 * nodes of the same graph reading the one Not as their condition are all
 * rewritten; the broadcast shape of the three inputs does not depend on
 * their order.
 *
 * Left alone, with the reason: a Not whose output is a graph output, or
 * is read by anything other than a Where's condition in the same graph
 * (a nested body reading it included); a Where in a nested body whose
 * Not is in an enclosing graph.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <string.h>

#include "opt/fuse.h"

/* 1 when every reader of @not's output is a Where of scope @scope reading it as its condition only; else 0 and @why. */
static int
only_where_conditions(scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *not, char *why, size_t why_len)
{
	const char *y = not->output[0];

	if (scs_opt_is_pinned(ctx, scope, y)) {
		snprintf(why, why_len, "'%s', the Not's output, is also a graph output", y);
		return 0;
	}
	for (const scs_opt_use *u = scs_opt_first_use(ctx, scope, y); u; u = scs_opt_next_use(ctx, u)) {
		const Onnx__NodeProto *n = u->node;

		if (u->kind == SCS_OPT_USE_INPUT && scs_opt_is_dropped(ctx, u->scope, n))
			continue;
		if (u->kind != SCS_OPT_USE_INPUT || u->scope != scope || !scs_fuse_op_is(n, "Where") || u->index != 0 ||
		    n->n_input != 3 || strcmp(n->input[1], y) == 0 || strcmp(n->input[2], y) == 0) {
			snprintf(why, why_len, "'%s', the Not's output, is also read by a %s node%s%s%s", y,
			    n && n->op_type ? n->op_type : "graph output or annotation", n && n->name && n->name[0] ? " '" : "",
			    n && n->name && n->name[0] ? n->name : "", n && n->name && n->name[0] ? "'" : "");
			return 0;
		}
	}
	return 1;
}

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *where, void *payload)
{
	Onnx__NodeProto *not;
	const char *x, *y;
	char why[768];
	int r, def;

	(void)payload;
	if (where->n_input != 3 || !where->input[0][0])
		return 0;
	def = scs_opt_def_scope(ctx, scope, where->input[0]);
	not = def >= 0 ? scs_opt_producer(ctx, def, where->input[0]) : NULL;
	if (not == NULL || scs_opt_is_dropped(ctx, def, not) || !scs_fuse_op_is(not, "Not"))
		return 0;
	if (def != scope)
		SCS_FUSE_REFUSE(ctx, scope, where, "its condition's Not is in an enclosing graph");
	if ((r = scs_opt_is_op(ctx, scope, not, "Not")) <= 0)
		return r;
	if (not->n_input != 1 || !not->input[0][0] || not->n_output != 1)
		return 0;
	/* a Where whose condition this pass changed waits for the commit's snapshot */
	for (const scs_opt_use *u = scs_opt_first_use(ctx, scope, not->output[0]); u; u = scs_opt_next_use(ctx, u))
		if (u->node == where)
			break;
		else if (!scs_opt_next_use(ctx, u)) {
			scs_opt_defer(ctx);
			return 0;
		}
	if (!only_where_conditions(ctx, scope, not, why, sizeof(why)))
		SCS_FUSE_REFUSE(ctx, scope, where, "%s", why);
	for (const scs_opt_use *u = scs_opt_first_use(ctx, scope, not->output[0]); u; u = scs_opt_next_use(ctx, u)) {
		Onnx__NodeProto *w = u->node;

		/* every reader passes scs_opt_is_op before any is changed */
		if ((r = scs_opt_is_op(ctx, scope, w, "Where")) <= 0)
			return r;
	}
	for (const scs_opt_use *u = scs_opt_first_use(ctx, scope, not->output[0]); u; u = scs_opt_next_use(ctx, u)) {
		Onnx__NodeProto *w = u->node;

		x = w->input[1];
		y = w->input[2];
		/* the names are swapped, not copied: each slot keeps a name it owns */
		w->input[1] = (char *)y;
		w->input[2] = (char *)x;
		if ((r = scs_opt_set_input(ctx, w, 0, not->input[0])) < 0)
			return r;
		if ((r = scs_opt_did(ctx, scope, w, "Not of '%s' taken out: its branches swapped", not->input[0])) < 0)
			return r;
	}
	if ((r = scs_opt_drop_node(ctx, scope, not)) < 0)
		return r;
	scs_opt_touch(ctx);
	return 1;
}

int
scs_opt_rewrite_where(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Where", one, changed);
}
