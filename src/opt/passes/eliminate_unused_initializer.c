/*
 * eliminate_unused_initializer.c: initializers that nothing reads (no
 * node of their graph or of a graph nested in it, no graph output, no
 * quantization annotation) removed. An initializer that is also a graph
 * input stays: it is the input's default, which a caller may rely on.
 * Sparse initializers are left as they are.
 *
 * SPDX-License-Identifier: MIT
 */
#include "opt/opt.h"

int
scs_opt_eliminate_unused_initializer(scs_opt_ctx *ctx, int *changed)
{
	int rc;

	for (size_t s = 0; s < ctx->scopes.n; s++) {
		Onnx__GraphProto *g = ctx->scopes.items[s].graph;
		Onnx__NodeProto *owner = scs_opt_scope_owner(ctx, (int)s);

		if (g == NULL || (owner && scs_opt_is_dropped(ctx, ctx->scopes.items[s].parent, owner)))
			continue;
		for (size_t i = 0; i < g->n_initializer; i++) {
			const char *name = g->initializer[i]->name;

			if (!name || !name[0] || scs_opt_n_uses(ctx, (int)s, name) || scs_opt_is_pinned(ctx, (int)s, name)) {
				if (name && scs_opt_is_input(ctx, (int)s, name) && !scs_opt_n_uses(ctx, (int)s, name) &&
				    (rc = scs_opt_refuse_value(ctx, (int)s, name, "nothing reads it, but it is also a graph "
				    "input: its default value stays")) < 0)
					return rc;
				continue;
			}
			if ((rc = scs_opt_drop_initializer(ctx, (int)s, g->initializer[i])) < 0 ||
			    (rc = scs_opt_did_value(ctx, (int)s, name, "removed: nothing reads it")) < 0)
				return rc;
			*changed = 1;
		}
	}
	return SCS_OK;
}
