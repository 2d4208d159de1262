/*
 * rename_input_output.c: the main graph's inputs and outputs take names from
 * a pattern by their position: "input_%d" and "output_%d", or the patterns
 * in the environment variables OPTIMIZER_RENAME_INPUT_PATTERN and
 * OPTIMIZER_RENAME_OUTPUT_PATTERN (onnxoptimizer's names and defaults; a
 * pattern without "%d" is ignored). This changes the model's interface,
 * which is what asking for the pass means; what it computes stays, and
 * every reference follows the rename (nested bodies, annotations).
 *
 * Left alone, with the reason: an input with an initializer (a default a
 * caller may override: onnxoptimizer leaves it too), a value that is both an
 * input and an output or an output twice (one value has one name), an
 * output that is an initializer or comes from nowhere, and a new name some
 * other value already has (or that a nested body defines again). A new
 * name that another input or output has now but gives up in this pass (a
 * model whose inputs are named input_1, input_0) is reached through a
 * fresh name first, over rounds. Below IR
 * version 4, initializers are not among the inputs the pass sees, so the
 * positions count the other inputs only.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt/opt.h"
#include "util/strmap.h"

/* The name for position @i: @pattern (or @dflt when it has no "%d") with its first "%d" replaced by @i. */
static void
pattern_name(char *buf, size_t len, const char *pattern, const char *dflt, size_t i)
{
	const char *p = pattern ? strstr(pattern, "%d") : NULL;

	if (p == NULL) {
		pattern = dflt;
		p = strstr(pattern, "%d");
	}
	snprintf(buf, len, "%.*s%zu%s", (int)(p - pattern), pattern, i, p + 2);
}

/* The name input (@input 1) or output @i should have. */
static void
target_of(char *buf, size_t len, int input, size_t i)
{
	if (input)
		pattern_name(buf, len, getenv("OPTIMIZER_RENAME_INPUT_PATTERN"), "input_%d", i);
	else
		pattern_name(buf, len, getenv("OPTIMIZER_RENAME_OUTPUT_PATTERN"), "output_%d", i);
}

/* 1 when @name is an input or output of @g that this pass renames to something else (it gives @name up). */
static int
given_up(const Onnx__GraphProto *g, const char *name)
{
	char to[512];

	for (int input = 1; input >= 0; input--) {
		Onnx__ValueInfoProto *const *v = input ? g->input : g->output;
		size_t n = input ? g->n_input : g->n_output;

		for (size_t i = 0; i < n; i++) {
			if (!v[i]->name || strcmp(v[i]->name, name) != 0)
				continue;
			target_of(to, sizeof(to), input, i);
			if (strcmp(to, name) != 0)
				return 1;
		}
	}
	return 0;
}

/* 1 when @name is an output of @g other than position @skip. */
static int
is_output(const Onnx__GraphProto *g, const char *name, size_t skip)
{
	for (size_t j = 0; j < g->n_output; j++)
		if (j != skip && g->output[j]->name && strcmp(g->output[j]->name, name) == 0)
			return 1;
	return 0;
}

/* @to free for @name: 1; else the refusal (0), 0 and another round when its holder gives it up in this one
 * (@leaving), or an error. */
static int
free_name(scs_opt_ctx *ctx, const scs_strmap *leaving, const char *name, const char *to)
{
	const char *fresh;
	int r;

	if ((r = scs_opt_fresh_name(&fresh, ctx, to)) < 0)
		return r;
	if (strcmp(fresh, to) == 0)
		return 1;
	if (scs_strmap_get(leaving, to, NULL)) {
		scs_opt_defer(ctx);
		return 0;
	}
	return scs_opt_refuse_value(ctx, 0, name, "not renamed: another value is called '%s'", to);
}

/* Queue the rename of the value defined at *@slot to @to (or, while another input or output that gives @to up
 * still has it, to a fresh name on the way, *@used); 1 when queued. */
static int
rename_at(scs_opt_ctx *ctx, scs_strmap *leaving, const Onnx__GraphProto *g, char **slot, const char *what, size_t pos,
    const char *to, const char **used)
{
	char why[512], *from = *slot;
	const char *via;
	int r;

	*used = to;
	if (given_up(g, to)) {
		if ((r = scs_opt_fresh_name(&via, ctx, to)) < 0)
			return r;
		if ((r = scs_opt_rename_def(ctx, 0, slot, via, why, sizeof(why))) <= 0)
			return r < 0 ? r : why[0] ? scs_opt_refuse_value(ctx, 0, from, "not renamed: %s", why) : 0;
		if ((r = scs_strmap_put(leaving, from, 1)) < 0)
			return r;
		*used = via;
		return scs_opt_did_value(ctx, 0, from, "%s %zu renamed '%s' on its way to '%s' (which another one still "
		    "has)", what, pos, via, to) < 0 ? -1 : 1;
	}
	if ((r = free_name(ctx, leaving, from, to)) <= 0)
		return r;
	if ((r = scs_opt_rename_def(ctx, 0, slot, to, why, sizeof(why))) <= 0)
		return r < 0 ? r : why[0] ? scs_opt_refuse_value(ctx, 0, from, "not renamed: %s", why) : 0;
	if ((r = scs_strmap_put(leaving, from, 1)) < 0)
		return r;
	return scs_opt_did_value(ctx, 0, from, "%s %zu renamed '%s'", what, pos, to) < 0 ? -1 : 1;
}

static int
inputs(scs_opt_ctx *ctx, scs_strmap *leaving, Onnx__GraphProto *g, int *changed)
{
	const char *used;
	char to[512];
	int r;

	for (size_t i = 0; i < g->n_input; i++) {
		char *name = g->input[i]->name;

		target_of(to, sizeof(to), 1, i);
		if (name == NULL || strcmp(name, to) == 0 || scs_opt_initializer(ctx, 0, name))
			continue;
		if (is_output(g, name, (size_t)-1)) {
			if (scs_opt_refuse_value(ctx, 0, name, "not renamed: it is a graph output too, which has a name of "
			    "its own") < 0)
				return -1;
			continue;
		}
		if ((r = rename_at(ctx, leaving, g, &g->input[i]->name, "input", i, to, &used)) < 0)
			return r;
		*changed |= r;
	}
	return SCS_OK;
}

static int
outputs(scs_opt_ctx *ctx, scs_strmap *leaving, Onnx__GraphProto *g, int *changed)
{
	const char *why = NULL, *used;
	Onnx__NodeProto *p;
	char to[512], **slot = NULL;
	int r;

	for (size_t j = 0; j < g->n_output; j++) {
		const char *name = g->output[j]->name;

		target_of(to, sizeof(to), 0, j);
		if (name == NULL || strcmp(name, to) == 0)
			continue;
		slot = NULL;
		if (scs_opt_is_input(ctx, 0, name))
			why = "it is a graph input too, which has a name of its own";
		else if (is_output(g, name, j))
			why = "it is another graph output too";
		else if (scs_opt_initializer(ctx, 0, name))
			why = "it is an initializer";
		else if ((p = scs_opt_producer(ctx, 0, name)) == NULL)
			why = "nothing in the graph makes it";
		else
			for (size_t k = 0; k < p->n_output; k++)
				if (strcmp(p->output[k], name) == 0)
					slot = &p->output[k];
		if (slot == NULL) {
			if (scs_opt_refuse_value(ctx, 0, name, "not renamed: %s", why ? why : "its node does not make it") < 0)
				return -1;
			continue;
		}
		if ((r = rename_at(ctx, leaving, g, slot, "output", j, to, &used)) < 0)
			return r;
		/* the main graph's output list is not among the references a rename rewrites */
		if (r > 0 && scs_opt_set_name(ctx, &g->output[j]->name, used) < 0)
			return SCS_ENOMEM;
		*changed |= r;
	}
	return SCS_OK;
}

int
scs_opt_rename_input_output(scs_opt_ctx *ctx, int *changed)
{
	Onnx__GraphProto *g = ctx->scopes.n ? ctx->scopes.items[0].graph : NULL;
	scs_strmap leaving = SCS_STRMAP_INIT;     /* names renamed away in this round (borrowed: valid until the commit) */
	int r;

	if (g == NULL)
		return SCS_OK;
	if ((r = inputs(ctx, &leaving, g, changed)) >= 0)
		r = outputs(ctx, &leaving, g, changed);
	scs_strmap_dispose(&leaving);
	return r < 0 ? r : SCS_OK;
}
