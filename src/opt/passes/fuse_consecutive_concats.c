/*
 * fuse_consecutive_concats.c: a Concat input made by another Concat on the
 * same axis, which nothing else reads, is replaced by that Concat's own
 * inputs, in place: Concat(a, Concat(b, c), d) = Concat(a, b, c, d). The
 * inner Concat goes. Every such input of a node is spliced in at once; an
 * inner Concat already spliced into its own inputs brings them along, so a
 * chain folds in one round. Axes are compared after making negative ones
 * non-negative with the rank (every input of a Concat has the same rank);
 * before opset 4 the axis defaults to 1.
 *
 * Left alone, with the reason: a Concat on another axis, a negative axis
 * when the rank is not known, an inner Concat whose output something else
 * reads or that is a graph output.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>

#include "onnx/attr.h"
#include "opt/fuse.h"

static const char *const CONCAT[] = { "Concat", NULL };

/* The axis of Concat @c made non-negative with @rank (< 0: unknown; the axis then stays as it is). */
static int64_t
axis_of(const Onnx__NodeProto *c, int64_t opset, int rank)
{
	int64_t a = scs_attr_int(c, "axis", opset < 4 ? 1 : 0);

	return a < 0 && rank >= 0 ? a + rank : a;
}

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *outer, void *payload)
{
	int64_t opset = scs_opt_opset(ctx, scope, "");
	const char **names = NULL;
	Onnx__NodeProto **gone = NULL;
	size_t n = 0, cap = 0, spliced = 0;
	Onnx__NodeProto *inner;
	char why[768];
	scs_vfacts f;
	int r = 0;

	(void)payload;
	for (size_t i = 0; i < outer->n_input; i++) {
		const char *const *take = (const char *const *)&outer->input[i];
		size_t n_take = 1;

		if ((inner = scs_fuse_prev(ctx, scope, outer, i, CONCAT, &r)) != NULL) {
			int64_t ai, ao;

			if ((r = scs_opt_facts(ctx, scope, outer->input[i], &f)) < 0)
				goto out;
			ao = axis_of(outer, opset, f.rank);
			ai = axis_of(inner, opset, f.rank);
			if ((ai < 0 || ao < 0) && ai != ao) {
				r = scs_opt_refuse(ctx, scope, outer, "input '%s': axes %lld and %lld, one negative, and the rank "
				    "is not known", outer->input[i], (long long)ao, (long long)ai);
			} else if (ai != ao) {
				r = scs_opt_refuse(ctx, scope, outer, "input '%s' is a Concat on axis %lld, this one is on axis "
				    "%lld", outer->input[i], (long long)ai, (long long)ao);
			} else if (!scs_fuse_only_reader(ctx, scope, inner, outer, why, sizeof(why))) {
				r = scs_opt_refuse(ctx, scope, outer, "%s", why);
			} else {
				Onnx__NodeProto **more = realloc(gone, (spliced + 1) * sizeof(*gone));

				if (more == NULL) {
					r = scs_err_set(SCS_ENOMEM, "optimizer: no memory for a Concat's inputs");
					goto out;
				}
				gone = more;
				gone[spliced++] = inner;
				take = (const char *const *)inner->input;
				n_take = inner->n_input;
			}
			if (r < 0)
				goto out;
		} else if (r < 0) {
			goto out;
		}
		if (n + n_take > cap) {
			const char **grown;

			cap = (n + n_take) * 2;
			if ((grown = realloc(names, cap * sizeof(*names))) == NULL) {
				r = scs_err_set(SCS_ENOMEM, "optimizer: no memory for a Concat's inputs");
				goto out;
			}
			names = grown;
		}
		for (size_t k = 0; k < n_take; k++)
			names[n++] = take[k];
	}
	r = 0;
	if (!spliced)
		goto out;
	for (size_t i = 0; i < spliced; i++)
		if (!scs_opt_is_dropped(ctx, scope, gone[i]) && (r = scs_opt_drop_node(ctx, scope, gone[i])) < 0)
			goto out;
	for (size_t i = 0; i < n; i++)
		if ((r = scs_opt_set_input(ctx, outer, i, names[i])) < 0)
			goto out;
	r = scs_opt_did(ctx, scope, outer, "the inputs of %zu Concat%s before it spliced in: %zu inputs now", spliced,
	    spliced == 1 ? "" : "s", n);
	r = r < 0 ? r : 1;
out:
	free(gone);
	free(names);
	return r;
}

int
scs_opt_fuse_consecutive_concats(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Concat", one, changed);
}
