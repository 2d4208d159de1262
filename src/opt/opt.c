/*
 * opt.c: the optimizer's pass table, its driver (rounds of the passes
 * until none changes anything, on a model the passes can reason about) and
 * the record of what the passes did (see opt.h). The tools the passes
 * share are opt_snapshot.c (the snapshot and what it answers), opt_const.c
 * (constants, payloads) and opt_edit.c (building, editing, the commit),
 * over the state of opt_impl.h.
 *
 * SPDX-License-Identifier: MIT
 */
#include "opt/opt.h"
#include "opt/opt_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/scope.h"

#define MAX_ROUNDS 100

/* ---- the table ---- */

const scs_opt_pass scs_opt_passes[] = {
#define SCS_OPT_PASS(name, dflt, what) { #name, what, dflt, scs_opt_##name },
#include "opt/opt_passes.def"
#undef SCS_OPT_PASS
	{ NULL, NULL, 0, NULL }
};

const size_t scs_opt_n_passes = sizeof(scs_opt_passes) / sizeof(scs_opt_passes[0]) - 1;

const scs_opt_pass *
scs_opt_find(const char *name)
{
	for (size_t i = 0; i < scs_opt_n_passes; i++)
		if (strcmp(scs_opt_passes[i].name, name) == 0)
			return &scs_opt_passes[i];
	return NULL;
}

int
scs_opt_check_names(const char *const *names, size_t n)
{
	char known[2048];
	size_t used = 0;

	for (size_t i = 0; i < n; i++) {
		if (scs_opt_find(names[i]))
			continue;
		known[0] = '\0';
		for (size_t k = 0; k < scs_opt_n_passes && used < sizeof(known); k++)
			used += (size_t)snprintf(known + used, sizeof(known) - used, "%s%s", k ? ", " : "",
			    scs_opt_passes[k].name);
		return scs_err_set(SCS_EUSAGE, "unknown pass '%s'; the passes are: %s", names[i],
		    scs_opt_n_passes ? known : "(none)");
	}
	return SCS_OK;
}

/* ---- reporting ---- */

void
scs_opt_result_dispose(scs_opt_result *r)
{
	for (size_t i = 0; i < r->changes.n; i++)
		free(r->changes.items[i].text);
	for (size_t i = 0; i < r->left.n; i++)
		free(r->left.items[i].text);
	free(r->changes.items);
	free(r->left.items);
	memset(r, 0, sizeof(*r));
}

/* Add @pass (static) and a copy of @text to @l. */
static int
line_add(scs_opt_lines *l, const char *pass, const char *text)
{
	char *copy = strdup(text);
	int rc;

	if (copy == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot grow the report");
	if ((rc = scs_opt_grow(&l->items, &l->cap, l->n, sizeof(*l->items))) < 0) {
		free(copy);
		return rc;
	}
	l->items[l->n].pass = pass;
	l->items[l->n++].text = copy;
	return SCS_OK;
}

static scs_opt_count *
pass_stat(scs_opt_ctx *ctx)
{
	scs_opt_result *r = ctx->res;
	const char *name;

	if (ctx->pass == NULL)
		return NULL;     /* about the model as a whole */
	name = ctx->pass->name;

	for (size_t i = 0; i < r->n_passes; i++)
		if (strcmp(r->passes[i].name, name) == 0)
			return &r->passes[i];
	if (r->n_passes == SCS_OPT_MAX_PASSES)
		return NULL;
	memset(&r->passes[r->n_passes], 0, sizeof(r->passes[0]));
	r->passes[r->n_passes].name = name;
	return &r->passes[r->n_passes++];
}

static int
record(scs_opt_ctx *ctx, int refusal, const char *subject, const char *fmt, va_list ap)
{
	scs_opt_state *st = ctx->st;
	scs_opt_count *stat = pass_stat(ctx);
	char msg[1024], line[1536], *key;
	const char *pass = ctx->pass ? ctx->pass->name : "optimize";
	int rc;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	snprintf(line, sizeof(line), "%s: %s", subject, msg);
	if (refusal) {
		size_t len = strlen(pass) + strlen(line) + 2;

		if ((key = malloc(len)) == NULL)
			return scs_err_set(SCS_ENOMEM, "optimizer: cannot grow the report");
		snprintf(key, len, "%s\x1f%s", pass, line);
		if (scs_strmap_get(&st->refused, key, NULL)) {
			free(key);
			return SCS_OK;
		}
		if ((rc = scs_opt_own(ctx, key)) < 0 || (rc = scs_strmap_put(&st->refused, key, 1)) < 0)
			return rc;
		if (stat)
			stat->refusals++;
		return line_add(&ctx->res->left, pass, line);
	}
	if (stat)
		stat->changes++;
	return line_add(&ctx->res->changes, pass, line);
}

int
scs_opt_report(scs_opt_ctx *ctx, int refusal, int scope, const Onnx__NodeProto *node, const char *value,
    const char *fmt, ...)
{
	const char *where = scope >= 0 ? ctx->st->label[scope] : "";
	char subj[512];
	va_list ap;
	int rc;

	if (node)
		scs_opt_subject_of(subj, sizeof(subj), ctx, scope, node);
	else if (value)
		snprintf(subj, sizeof(subj), "'%s'%s", value, where);
	else
		snprintf(subj, sizeof(subj), "graph%s", where);
	va_start(ap, fmt);
	rc = record(ctx, refusal, subj, fmt, ap);
	va_end(ap);
	return rc;
}

/* ---- the driver ---- */

static uint64_t
count_nodes(const scs_opt_ctx *ctx)
{
	uint64_t n = 0;
	size_t *cnt;

	for (size_t s = 0; s < ctx->scopes.n; s++) {
		scs_scope_nodes(&ctx->scopes.items[s], &cnt);
		n += *cnt;
	}
	return n;
}

/*
 * A node the passes cannot read (ONNX requires both): one without an
 * operator (op_type absent or empty) or with an attribute without a name.
 * 1 and @why when @n is one, else 0.
 */
static int
unreadable_node(const scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *n, char *why, size_t why_len)
{
	const char *name = n->name && n->name[0] ? n->name : NULL, *where = ctx->st->label[scope];

	if (!n->op_type || !n->op_type[0]) {
		if (name)
			snprintf(why, why_len, "node '%s'%s has no op_type", name, where);
		else if (n->n_output && n->output[0][0])
			snprintf(why, why_len, "the node writing '%s'%s has no op_type", n->output[0], where);
		else
			snprintf(why, why_len, "a node without outputs%s has no op_type", where);
		return 1;
	}
	for (size_t i = 0; i < n->n_attribute; i++)
		if (!n->attribute[i]->name || !n->attribute[i]->name[0]) {
			char subj[256];

			scs_opt_subject_of(subj, sizeof(subj), ctx, scope, n);
			snprintf(why, why_len, "%s has an attribute without a name", subj);
			return 1;
		}
	return 0;
}

/*
 * Whether the passes can reason about the model at all: every node has
 * an operator and named attributes, every graph defines each name once
 * and has no cycle, and no training_info graph reads the main graph's
 * names behind the scopes' back.
 * 0 when they can; 1 and @why when not; < 0 on error.
 */
static int
unfit(scs_opt_ctx *ctx, char *why, size_t why_len)
{
	int rc = SCS_OK;

	if (ctx->m->proto->n_training_info) {
		snprintf(why, why_len, "the model carries training_info, whose graphs read the main graph's names");
		return 1;
	}
	for (size_t s = 0; rc == SCS_OK && s < ctx->scopes.n; s++) {
		scs_scope *sc = &ctx->scopes.items[s];
		scs_strmap seen = SCS_STRMAP_INIT;
		Onnx__NodeProto **nodes;
		const char *twice = NULL;
		size_t *n;

		nodes = *scs_scope_nodes(sc, &n);
		for (size_t i = 0; i < *n; i++)
			if (unreadable_node(ctx, (int)s, nodes[i], why, why_len))
				return 1;
		if (ctx->st->cycle[s]) {
			snprintf(why, why_len, "%s%s", ctx->st->cycle[s], ctx->st->label[s]);
			return 1;
		}
		/* an initializer may also be an input (a default); a node output may be neither */
		if (sc->graph) {
			for (size_t i = 0; rc == SCS_OK && i < sc->graph->n_input; i++)
				rc = sc->graph->input[i]->name ? scs_strmap_put(&seen, sc->graph->input[i]->name, 1) : SCS_OK;
			for (size_t i = 0; rc == SCS_OK && i < sc->graph->n_initializer; i++)
				rc = sc->graph->initializer[i]->name ? scs_strmap_put(&seen, sc->graph->initializer[i]->name, 1) :
				    SCS_OK;
		} else {
			for (size_t i = 0; rc == SCS_OK && i < sc->func->n_input; i++)
				rc = scs_strmap_put(&seen, sc->func->input[i], 1);
		}
		for (size_t i = 0; rc == SCS_OK && !twice && i < *n; i++)
			for (size_t j = 0; rc == SCS_OK && !twice && j < nodes[i]->n_output; j++) {
				const char *o = nodes[i]->output[j];

				if (o[0] && scs_strmap_get(&seen, o, NULL))
					twice = o;
				else if (o[0])
					rc = scs_strmap_put(&seen, o, 1);
			}
		scs_strmap_dispose(&seen);
		if (rc == SCS_OK && twice) {
			snprintf(why, why_len, "'%s' is defined more than once%s", twice, ctx->st->label[s]);
			return 1;
		}
	}
	return rc;
}

int
scs_opt_begin(scs_opt_ctx *ctx, scs_model *m, scs_opt_result *res)
{
	int rc;

	memset(ctx, 0, sizeof(*ctx));
	ctx->m = m;
	ctx->res = res;
	if ((ctx->st = calloc(1, sizeof(*ctx->st))) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate its state");
	if ((rc = scs_opt_refresh(ctx)) < 0)
		scs_opt_end(ctx);
	return rc;
}

void
scs_opt_end(scs_opt_ctx *ctx)
{
	scs_opt_state *st = ctx->st;

	if (st == NULL)
		return;
	scs_opt_queue_dispose(st);
	scs_opt_snapshot_dispose(ctx);
	for (size_t i = 0; i < st->n_owned; i++)
		free(st->owned[i]);
	free(st->owned);
	scs_strmap_dispose(&st->taken);
	scs_strmap_dispose(&st->refused);
	free(st->uses);
	free(st->producers);
	free(st->inits);
	free(st->slots);
	free(st->drops);
	free(st->garbage);
	free(st->rbuf);
	free(st);
	ctx->st = NULL;
}

int
scs_opt_run(scs_model *m, scs_opt_result *res, const char *const *only, size_t n_only, const char *const *skip,
    size_t n_skip)
{
	return scs_opt_run_with(m, res, only, n_only, skip, n_skip, NULL);
}

/* 1 when every scope's nodes are listed in the snapshot's topological order (so every input is made before it is read). */
static int
all_in_order(scs_opt_ctx *ctx)
{
	scs_opt_state *st = ctx->st;
	Onnx__NodeProto **nodes;
	size_t *n;

	for (size_t s = 0; s < ctx->scopes.n; s++) {
		nodes = *scs_scope_nodes(&ctx->scopes.items[s], &n);
		if (st->cycle[s] || st->n_order[s] != *n || (*n && memcmp(nodes, st->order[s], *n * sizeof(*nodes)) != 0))
			return 0;
	}
	return 1;
}

/*
 * The safety net of node placement: a pass must put a node it makes or
 * rewires where all its inputs are defined (fuse_matmul_add_bias_into_gemm
 * once did not). Where a scope's list no longer is in topological order,
 * it is put in the snapshot's (stable) one, and the repair is reported.
 */
static int
put_in_order(scs_opt_ctx *ctx)
{
	scs_opt_state *st = ctx->st;
	Onnx__NodeProto **nodes;
	size_t *n;
	int rc;

	for (size_t s = 0; s < ctx->scopes.n; s++) {
		nodes = *scs_scope_nodes(&ctx->scopes.items[s], &n);
		if (st->cycle[s] || st->n_order[s] != *n || *n == 0 || memcmp(nodes, st->order[s], *n * sizeof(*nodes)) == 0)
			continue;
		memcpy(nodes, st->order[s], *n * sizeof(*nodes));
		if ((rc = scs_opt_report(ctx, 0, (int)s, NULL, NULL, "nodes put back in topological order (a pass placed a "
		    "node before one of its inputs)")) < 0)
			return rc;
	}
	return SCS_OK;
}

/* The caller's after_pass (settings) on the pass just committed; when it changed the model, the snapshot again. */
static int
after_pass(scs_opt_ctx *ctx, int changed)
{
	int rc;

	if (ctx->settings == NULL || ctx->settings->after_pass == NULL)
		return SCS_OK;
	if ((rc = ctx->settings->after_pass(ctx->settings->after_pass_payload, ctx->m, ctx->pass->name, changed)) <= 0)
		return rc;
	ctx->st->dirty = 1;
	return scs_opt_commit(ctx);
}

int
scs_opt_run_with(scs_model *m, scs_opt_result *res, const char *const *only, size_t n_only, const char *const *skip,
    size_t n_skip, const scs_opt_settings *settings)
{
	scs_opt_ctx ctx;
	int enabled[SCS_OPT_MAX_PASSES] = { 0 }, rc, any = 0, sorted;
	unsigned round;
	char why[1024];

	memset(res, 0, sizeof(*res));
	if ((rc = scs_opt_check_names(only, n_only)) < 0 || (rc = scs_opt_check_names(skip, n_skip)) < 0)
		return rc;
	if (scs_opt_n_passes > sizeof(enabled) / sizeof(enabled[0]))
		return scs_err_set(SCS_EUSAGE, "optimizer: too many passes in the table");
	for (size_t i = 0; i < scs_opt_n_passes; i++) {
		enabled[i] = n_only ? 0 : scs_opt_passes[i].in_default;
		for (size_t k = 0; k < n_only; k++)
			enabled[i] |= strcmp(only[k], scs_opt_passes[i].name) == 0;
		for (size_t k = 0; k < n_skip; k++)
			if (strcmp(skip[k], scs_opt_passes[i].name) == 0)
				enabled[i] = 0;
	}
	if ((rc = scs_opt_begin(&ctx, m, res)) < 0)
		return rc;
	ctx.settings = settings;
	res->nodes_before = res->nodes_after = count_nodes(&ctx);
	for (size_t i = 0; i < scs_opt_n_passes; i++)
		if (enabled[i]) {
			ctx.pass = &scs_opt_passes[i];
			if (pass_stat(&ctx) == NULL)
				break;
		}
	ctx.pass = NULL;
	if ((rc = unfit(&ctx, why, sizeof(why))) != 0) {
		if (rc > 0)
			rc = scs_opt_refuse(&ctx, -1, NULL, "left as it is: %s", why);
		goto done;
	}
	sorted = all_in_order(&ctx);
	for (round = 0; round < MAX_ROUNDS; round++) {
		any = 0;
		for (size_t i = 0; i < scs_opt_n_passes; i++) {
			int changed = 0;

			if (!enabled[i])
				continue;
			ctx.pass = &scs_opt_passes[i];
			ctx.st->deferred = 0;
			if ((rc = ctx.pass->run(&ctx, &changed)) < 0)
				goto done;
			if (changed)
				ctx.st->dirty = 1;
			if ((rc = scs_opt_commit(&ctx)) < 0 || (rc = after_pass(&ctx, changed)) < 0)
				goto done;
			any |= changed || ctx.st->deferred;
		}
		if (!any)
			break;
	}
	res->rounds = round + (round < MAX_ROUNDS);
	ctx.pass = NULL;
	if (any)
		rc = scs_opt_refuse(&ctx, -1, NULL, "stopped after %d rounds with changes still coming", MAX_ROUNDS);
	if (rc >= 0 && sorted && (rc = put_in_order(&ctx)) < 0)
		goto done;
	res->nodes_after = count_nodes(&ctx);
done:
	scs_opt_end(&ctx);
	return rc < 0 ? rc : SCS_OK;
}
