/*
 * check_infer.c: --full: the main graph through our type and shape
 * inference (infer/), each contradiction one problem of the "infer" rule:
 * a node's output inferred of another element type, rank or fixed dim than
 * the model declares (graph outputs, value_info), an input of an element
 * type its operator's schema does not take there, inputs of one type
 * variable of different element types. What inference cannot tell is never
 * a problem. Runs only on a graph in order with its names made once.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_impl.h"
#include "infer/infer.h"
#include "onnx/dtype.h"
#include "onnx/opschema.h"

typedef struct infer_ctx {
	chk *c;
	const Onnx__GraphProto *g;
	size_t cursor;                /* where the last node was found */
} infer_ctx;

/* "float32 [2, 3]" of @f into @buf. */
static void
facts_text(char *buf, size_t len, const scs_vfacts *f)
{
	size_t at = (size_t)snprintf(buf, len, "%s", f->elem > 0 ? scs_dtype_name(f->elem) : "of unknown type");

	if (f->rank < 0 || at >= len)
		return;
	at += (size_t)snprintf(buf + at, len - at, " [");
	for (int d = 0; d < f->rank && at < len; d++)
		at += f->dims[d] >= 0 ? (size_t)snprintf(buf + at, len - at, "%s%lld", d ? ", " : "", (long long)f->dims[d]) :
		    (size_t)snprintf(buf + at, len - at, "%s?", d ? ", " : "");
	if (at < len)
		snprintf(buf + at, len - at, "]");
}

/* The index of node @n in the graph (nodes come in order: from the last one found). */
static size_t
node_index(infer_ctx *x, const Onnx__NodeProto *n)
{
	for (size_t k = 0; k < x->g->n_node; k++) {
		size_t i = (x->cursor + k) % x->g->n_node;

		if (x->g->node[i] == n) {
			x->cursor = i;
			return i;
		}
	}
	return 0;
}

static void
on_conflict(void *ctx, const Onnx__NodeProto *n, size_t output, const scs_vfacts *declared, const scs_vfacts *inferred)
{
	infer_ctx *x = ctx;
	chk_where w = { "main", n, node_index(x, n) };
	char d[200], i[200];

	facts_text(d, sizeof(d), declared);
	facts_text(i, sizeof(i), inferred);
	chk_problem(x->c, SCS_RULE_INFER, &w, "output '%s' is declared %s but comes out %s", n->output[output], d, i);
}

/* The outputs of node @n (index @idx) against the element types its schema makes. */
static void
check_output_types(chk *c, const scs_infer *inf, const Onnx__NodeProto *n, size_t idx, const scs_opschema *s)
{
	chk_where w = { "main", n, idx };

	for (size_t k = 0; k < n->n_output; k++) {
		int fo = scs_opschema_output_formal(s, k), tv;
		uint64_t allowed;
		scs_vfacts f;

		if (fo < 0 || !n->output[k][0] || !scs_infer_get(inf, n->output[k], &f) || f.elem <= 0 || f.elem >= 64)
			continue;
		tv = s->outputs[fo].type_var;
		allowed = tv >= 0 && tv < s->n_type_vars ? s->type_vars[tv].allowed : s->outputs[fo].concrete;
		if (allowed && !(allowed & SCS_OPSCHEMA_BIT(f.elem)))
			chk_problem(c, SCS_RULE_INFER, &w, "output %zu ('%s') comes out %s, which %s-%d does not make", k,
			    n->output[k], scs_dtype_name(f.elem), s->op_type, s->since_version);
	}
}

/* The inputs and outputs of node @n (index @idx) against the element types its schema takes and makes. */
static void
check_input_types(chk *c, const scs_infer *inf, const Onnx__NodeProto *n, size_t idx)
{
	const char *domain = n->domain ? n->domain : "";
	chk_where w = { "main", n, idx };
	const scs_opschema *s;
	int64_t version;
	int first_elem[256];
	size_t first_at[256];

	if (domain[0] != '\0' || (version = chk_opset(c->opsets, "")) < 0 ||
	    (s = scs_opschema_find("", n->op_type, version)) == NULL || s->deprecated)
		return;
	check_output_types(c, inf, n, idx, s);
	for (int t = 0; t < 256; t++)
		first_elem[t] = 0;
	for (size_t k = 0; k < n->n_input; k++) {
		scs_vfacts f;
		uint64_t allowed;
		int fo;

		if (!n->input[k][0] || !scs_infer_get(inf, n->input[k], &f) || f.elem <= 0 || f.elem >= 64)
			continue;
		allowed = scs_opschema_input_allowed(s, k);
		if (allowed && !(allowed & SCS_OPSCHEMA_BIT(f.elem))) {
			chk_problem(c, SCS_RULE_INFER, &w, "input %zu ('%s') is %s, which %s-%d does not take there", k,
			    n->input[k], scs_dtype_name(f.elem), s->op_type, s->since_version);
			continue;
		}
		if ((fo = scs_opschema_input_formal(s, k)) < 0 || s->inputs[fo].type_var < 0 ||
		    s->inputs[fo].heterogeneous)
			continue;
		if (first_elem[s->inputs[fo].type_var] == 0) {
			first_elem[s->inputs[fo].type_var] = f.elem;
			first_at[s->inputs[fo].type_var] = k;
		} else if (first_elem[s->inputs[fo].type_var] != f.elem) {
			chk_problem(c, SCS_RULE_INFER, &w, "input %zu ('%s') is %s but input %zu is %s, and %s-%d wants one "
			    "type for both (%s)", k, n->input[k], scs_dtype_name(f.elem), first_at[s->inputs[fo].type_var],
			    scs_dtype_name(first_elem[s->inputs[fo].type_var]), s->op_type, s->since_version,
			    s->type_vars[s->inputs[fo].type_var].name);
		}
	}
}

void
chk_infer(chk *c)
{
	const Onnx__GraphProto *g = c->m->proto->graph;
	infer_ctx x = { c, g, 0 };
	scs_infer inf;
	size_t *order;
	int rc;

	/* inference follows the nodes in order: a graph out of order, or naming a value twice, is told already */
	if (g == NULL || (c->out->failed & ((1u << SCS_RULE_ORDER) | (1u << SCS_RULE_SSA))))
		return;
	if ((order = malloc((g->n_node ? g->n_node : 1) * sizeof(*order))) == NULL) {
		c->rc = SCS_ENOMEM;
		return;
	}
	for (size_t i = 0; i < g->n_node; i++)
		order[i] = i;
	rc = scs_infer_graph_checked(&inf, (scs_model *)c->m, order, g->n_node, on_conflict, &x);
	if (rc == SCS_OK)
		for (size_t i = 0; i < g->n_node; i++)
			check_input_types(c, &inf, g->node[i], i);
	else if (rc == SCS_ENOMEM)
		c->rc = rc;
	/* another failure is inference giving up on something it cannot tell: not a problem of the model */
	scs_infer_dispose(&inf);
	free(order);
}
