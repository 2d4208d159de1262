/*
 * check.c: the checker's walk over a model: the model's fields (IR version,
 * opset imports, metadata keys), every graph and nested body (its name,
 * main-graph value infos, initializer names, topological order, single
 * assignment with the enclosing graphs' names in scope), every node
 * (operator known for its domain and opset, arity and attributes against
 * its schema: check_node.c), model-local functions, and the problem list.
 *
 * The rules are those the ONNX checker applies (onnx.checker of ONNX 1.12,
 * IR 8): what it refuses we refuse, each problem one item naming its rule,
 * graph and node; where we apply a rule more strictly the man page of
 * scs4onnx-check says so. Unlike it we go on after a problem, so one run
 * lists them all (up to cfg->max_problems).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_impl.h"
#include "model/sealed.h"
#include "onnx/opschema.h"

/* The newest IR version we know (ONNX 1.18's is 11); the ONNX checker of
 * 1.12 knows 8. */
#define CHK_IR_NEWEST 11

static const char *const rule_names[SCS_RULE_COUNT] = {
	"model", "operator", "arity", "attribute", "order", "ssa", "value-info", "tensor", "external-data", "sparse",
	"function", "infer",
};

const char *
scs_check_rule_name(int rule)
{
	return rule >= 0 && rule < SCS_RULE_COUNT ? rule_names[rule] : "?";
}

/* ---- problems ---- */

/* A problem's node: its name, or "#INDEX OP" when it has none. */
static char *
node_label(const Onnx__NodeProto *n, size_t index)
{
	char *s;

	if (n->name && n->name[0])
		return strdup(n->name);
	if (asprintf(&s, "#%zu %s", index, n->op_type ? n->op_type : "") < 0)
		return NULL;
	return s;
}

static char *
dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

void
chk_problem(chk *c, int rule, const chk_where *w, const char *fmt, ...)
{
	scs_check_findings *f = c->out;
	scs_check_problem *p;
	va_list ap;
	char what[1024];

	f->failed |= 1u << rule;
	c->raised++;
	if (f->n >= c->max || c->rc < 0)
		return;
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 16;
		scs_check_problem *items = realloc(f->items, cap * sizeof(*items));

		if (items == NULL) {
			c->rc = scs_err_set(SCS_ENOMEM, "cannot allocate the check's findings");
			return;
		}
		f->items = items;
		f->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	p = &f->items[f->n];
	memset(p, 0, sizeof(*p));
	p->rule = rule;
	p->what = strdup(what);
	p->graph = w ? dup_or_null(w->graph) : NULL;
	p->node = w && w->node ? node_label(w->node, w->index) : NULL;
	p->op_type = w && w->node ? strdup(w->node->op_type ? w->node->op_type : "") : NULL;
	if (p->what == NULL || (w && w->graph && p->graph == NULL) || (w && w->node && (p->node == NULL ||
	    p->op_type == NULL))) {
		free(p->what);
		free(p->graph);
		free(p->node);
		free(p->op_type);
		c->rc = scs_err_set(SCS_ENOMEM, "cannot allocate the check's findings");
		return;
	}
	f->n++;
}

void
scs_check_findings_dispose(scs_check_findings *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->items[i].graph);
		free(f->items[i].node);
		free(f->items[i].what);
		free(f->items[i].op_type);
	}
	free(f->items);
	memset(f, 0, sizeof(*f));
}

int
scs_check_problem_line(const scs_check_problem *p, char *buf, size_t len)
{
	const char *rule = scs_check_rule_name(p->rule);

	if (p->graph && p->node) {
		const char *op = p->op_type ? p->op_type : "";
		size_t ln = strlen(p->node), lo = strlen(op);

		/* a node of no name reads "#INDEX OP": its op_type is said already */
		if (op[0] && !(p->node[0] == '#' && ln > lo && strcmp(p->node + ln - lo, op) == 0 &&
		    p->node[ln - lo - 1] == ' '))
			return snprintf(buf, len, "graph '%s', node '%s' (%s): %s: %s", p->graph, p->node, op, rule, p->what);
		return snprintf(buf, len, "graph '%s', node '%s': %s: %s", p->graph, p->node, rule, p->what);
	}
	if (p->graph)
		return snprintf(buf, len, "graph '%s': %s: %s", p->graph, rule, p->what);
	return snprintf(buf, len, "%s: %s", rule, p->what);
}

/* ---- names and opsets ---- */

int
chk_lex_here(const chk_lex *l, const char *name)
{
	return scs_strmap_get(&l->names, name, NULL);
}

int
chk_lex_seen(const chk_lex *l, const char *name)
{
	for (; l; l = l->parent)
		if (scs_strmap_get(&l->names, name, NULL))
			return 1;
	return 0;
}

void
chk_lex_add(chk *c, chk_lex *l, const char *name)
{
	if (scs_strmap_put(&l->names, name, 1) < 0 && c->rc == 0)
		c->rc = SCS_ENOMEM;
}

int64_t
chk_opset(const chk_opsets *o, const char *domain)
{
	for (size_t i = o->n; i-- > 0;)
		if (strcmp(o->domains[i], domain) == 0)
			return o->versions[i];
	return -1;
}

static int
opsets_add(chk_opsets *o, const char *domain, int64_t version)
{
	const char **d = realloc(o->domains, (o->n + 1) * sizeof(*d));
	int64_t *v;

	if (d == NULL)
		return SCS_ENOMEM;
	o->domains = d;
	if ((v = realloc(o->versions, (o->n + 1) * sizeof(*v))) == NULL)
		return SCS_ENOMEM;
	o->versions = v;
	o->domains[o->n] = domain;
	o->versions[o->n++] = version;
	return SCS_OK;
}

static void
opsets_dispose(chk_opsets *o)
{
	free(o->domains);
	free(o->versions);
	memset(o, 0, sizeof(*o));
}

/* ---- graphs ---- */

/* A main graph's input or output @v (a subgraph's need only a name). */
static void
check_value_info(chk *c, const Onnx__ValueInfoProto *v, const chk_where *w, const char *kind)
{
	const Onnx__TypeProto *t = v->type;
	const char *name = v->name ? v->name : "";

	if (name[0] == '\0') {
		chk_problem(c, SCS_RULE_VALUE_INFO, w, "a graph %s has no name", kind);
		return;
	}
	if (!c->main_graph)
		return;
	if (t == NULL) {
		chk_problem(c, SCS_RULE_VALUE_INFO, w, "graph %s '%s' has no type", kind, name);
		return;
	}
	switch (t->value_case) {
	case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
		if (!t->tensor_type->has_elem_type)
			chk_problem(c, SCS_RULE_VALUE_INFO, w, "graph %s '%s' has no element type", kind, name);
		else if (t->tensor_type->shape == NULL)
			chk_problem(c, SCS_RULE_VALUE_INFO, w, "graph %s '%s' has no shape", kind, name);
		break;
	case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE:
		if (!t->sparse_tensor_type->has_elem_type)
			chk_problem(c, SCS_RULE_VALUE_INFO, w, "graph %s '%s' has no element type", kind, name);
		else if (t->sparse_tensor_type->shape == NULL)
			chk_problem(c, SCS_RULE_VALUE_INFO, w, "graph %s '%s' has no shape", kind, name);
		break;
	case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
		if (t->sequence_type->elem_type == NULL)
			chk_problem(c, SCS_RULE_VALUE_INFO, w, "graph %s '%s' is a sequence of no element type", kind, name);
		break;
	case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
		if (t->optional_type->elem_type == NULL)
			chk_problem(c, SCS_RULE_VALUE_INFO, w, "graph %s '%s' is an optional of no element type", kind, name);
		break;
	case ONNX__TYPE_PROTO__VALUE_MAP_TYPE:
		if (!t->map_type->has_key_type || t->map_type->value_type == NULL)
			chk_problem(c, SCS_RULE_VALUE_INFO, w, "graph %s '%s' is a map without its key or value type", kind,
			    name);
		break;
	case ONNX__TYPE_PROTO__VALUE_OPAQUE_TYPE:
		break;
	default:
		chk_problem(c, SCS_RULE_VALUE_INFO, w, "graph %s '%s' has a type of no kind", kind, name);
	}
}

/* Initializer @t of the graph at @w, named @name, defined into @lex (or,
 * below IR 4, required to be a graph input). @seen: the initializer names. */
static void
check_initializer(chk *c, const Onnx__TensorProto *t, const char *name, const chk_where *w, chk_lex *lex,
    scs_strmap *seen)
{
	char what[300];

	c->out->n_tensors++;
	if (name[0] == '\0') {
		chk_problem(c, SCS_RULE_TENSOR, w, "an initializer has no name");
		return;
	}
	if (scs_strmap_get(seen, name, NULL))
		chk_problem(c, SCS_RULE_SSA, w, "initializer '%s' is defined twice", name);
	else if (scs_strmap_put(seen, name, 1) < 0)
		c->rc = SCS_ENOMEM;
	snprintf(what, sizeof(what), "initializer '%.256s'", name);
	chk_tensor(c, t, w, what);
	if (c->ir <= 3) {
		if (!chk_lex_here(lex, name))
			chk_problem(c, SCS_RULE_TENSOR, w, "initializer '%s' is not a graph input, which IR version %lld "
			    "requires (below 4)", name, (long long)c->ir);
		else
			return;
	}
	/* (one not among the inputs below IR 4 is said once, not again by each reader) */
	chk_lex_add(c, lex, name);
}

/* The nodes of a graph or function body at @w (its path), in order: inputs
 * defined before, the node itself, outputs made once. @body: a function's,
 * whose inputs must be defined in the body itself. */
static void
check_nodes(chk *c, Onnx__NodeProto *const *nodes, size_t n_nodes, const char *path, chk_lex *lex, int body)
{
	for (size_t i = 0; i < n_nodes && c->rc == 0; i++) {
		const Onnx__NodeProto *n = nodes[i];
		chk_where w = { path, n, i };

		c->out->n_nodes++;
		for (size_t k = 0; k < n->n_input; k++) {
			const char *in = n->input[k];

			if (in[0] == '\0' || (body ? chk_lex_here(lex, in) : chk_lex_seen(lex, in)))
				continue;
			chk_problem(c, SCS_RULE_ORDER, &w, "input '%s' is not made by an earlier node, nor a %s%s", in,
			    body ? "function input" : "graph input or initializer",
			    !body && lex->parent ? ", nor a name of an enclosing graph" : "");
		}
		chk_node(c, n, &w, lex);
		for (size_t k = 0; k < n->n_output; k++) {
			const char *out = n->output[k];

			if (out[0] == '\0')
				continue;
			if (chk_lex_seen(lex, out)) {
				chk_problem(c, SCS_RULE_SSA, &w, "output '%s' is made a second time (names are assigned once, "
				    "in a graph and the graphs it lies in)", out);
				continue;
			}
			chk_lex_add(c, lex, out);
		}
	}
}

void
chk_graph(chk *c, const Onnx__GraphProto *g, const char *path, const chk_lex *parent)
{
	chk_lex lex = { SCS_STRMAP_INIT, parent };
	scs_strmap seen = SCS_STRMAP_INIT;
	chk_where w = { path, NULL, 0 };
	scs_sealed *sealed = scs_sealed_of(g);

	size_t n_inits = g->n_initializer + (sealed ? sealed->n : 0) + g->n_sparse_initializer, n_names = n_inits + g->n_input;

	/* room for every name the graph makes, so that the maps never grow while they fill */
	for (size_t i = 0; i < g->n_node; i++)
		n_names += g->node[i]->n_output;
	if (scs_strmap_reserve(&lex.names, n_names) < 0 || scs_strmap_reserve(&seen, n_inits) < 0) {
		c->rc = SCS_ENOMEM;
		scs_strmap_dispose(&lex.names);
		scs_strmap_dispose(&seen);
		return;
	}
	c->out->n_graphs++;
	if (g->name == NULL || g->name[0] == '\0')
		chk_problem(c, SCS_RULE_VALUE_INFO, &w, "the graph has no name");
	for (size_t i = 0; i < g->n_input; i++)
		check_value_info(c, g->input[i], &w, "input");
	for (size_t i = 0; i < g->n_output; i++)
		check_value_info(c, g->output[i], &w, "output");
	for (size_t i = 0; i < g->n_input; i++) {
		const char *name = g->input[i]->name ? g->input[i]->name : "";

		if (name[0] == '\0')
			continue;
		if (chk_lex_here(&lex, name))
			chk_problem(c, SCS_RULE_SSA, &w, "graph input '%s' is declared twice", name);
		chk_lex_add(c, &lex, name);
	}
	for (size_t i = 0; i < g->n_initializer; i++)
		check_initializer(c, g->initializer[i], g->initializer[i]->name ? g->initializer[i]->name : "", &w,
		    &lex, &seen);
	for (size_t i = 0; sealed && i < sealed->n; i++) {
		const Onnx__TensorProto *t = scs_sealed_get(sealed, i);

		if (t)
			check_initializer(c, t, scs_sealed_name(sealed->items[i]) ? scs_sealed_name(sealed->items[i]) : "", &w,
			    &lex, &seen);
	}
	for (size_t i = 0; i < g->n_sparse_initializer; i++) {
		const Onnx__SparseTensorProto *s = g->sparse_initializer[i];
		const char *name = s->values && s->values->name ? s->values->name : "";
		char what[300];

		c->out->n_tensors++;
		if (name[0] == '\0') {
			chk_problem(c, SCS_RULE_SPARSE, &w, "a sparse initializer has no name (its values' name)");
			continue;
		}
		if (scs_strmap_get(&seen, name, NULL))
			chk_problem(c, SCS_RULE_SSA, &w, "sparse initializer '%s' is named like another initializer", name);
		else if (scs_strmap_put(&seen, name, 1) < 0)
			c->rc = SCS_ENOMEM;
		snprintf(what, sizeof(what), "sparse initializer '%.256s'", name);
		chk_sparse(c, s, &w, what);
		chk_lex_add(c, &lex, name);
	}
	check_nodes(c, g->node, g->n_node, path, &lex, 0);
	scs_strmap_dispose(&seen);
	scs_strmap_dispose(&lex.names);
}

/* ---- functions ---- */

/* Node @n of a function body: its operator the same version under the
 * function's opset as under the model's (@model, which has the functions'
 * imports of domains the model lacks). */
static void
check_function_opset(chk *c, const Onnx__NodeProto *n, const chk_where *w, const chk_opsets *model)
{
	const char *domain = n->domain ? n->domain : "";
	int64_t fv = chk_opset(c->opsets, domain), mv = chk_opset(model, domain);
	const scs_opschema *sf, *sm;

	/* a domain the function does not import is the operator rule's (chk_node) */
	if (fv < 0 || mv < 0 || mv == fv || strcmp(domain, "ai.onnx") == 0)
		return;
	sf = scs_opschema_find(domain, n->op_type, fv);
	sm = scs_opschema_find(domain, n->op_type, mv);
	if (sf == NULL && sm == NULL)
		return;
	if (sf == NULL || sm == NULL || sf->since_version != sm->since_version)
		chk_problem(c, SCS_RULE_FUNCTION, w, "%s is version %d in the function's opset %lld of domain '%s' but "
		    "version %d in the model's opset %lld", n->op_type, sf ? sf->since_version : 0, (long long)fv,
		    domain, sm ? sm->since_version : 0, (long long)mv);
}

/* Function @f: names, inputs, outputs and attributes listed once, opsets
 * compatible with the model's, then its body. */
static void
check_function(chk *c, const Onnx__FunctionProto *f, const chk_opsets *model)
{
	chk_opsets own = { 0 };
	chk_lex lex = { SCS_STRMAP_INIT, NULL };
	scs_strmap outs = SCS_STRMAP_INIT, attrs = SCS_STRMAP_INIT;
	const chk_opsets *saved = c->opsets;
	char path[600];
	chk_where w = { path, NULL, 0 };

	snprintf(path, sizeof(path), "function %.280s%s%.280s", f->domain ? f->domain : "",
	    f->domain && f->domain[0] ? "." : "", f->name ? f->name : "");
	c->out->n_graphs++;
	if (f->name == NULL || f->name[0] == '\0')
		chk_problem(c, SCS_RULE_FUNCTION, &w, "a model-local function has no name");
	for (size_t i = 0; i < f->n_opset_import; i++)
		if (opsets_add(&own, f->opset_import[i]->domain ? f->opset_import[i]->domain : "",
		    f->opset_import[i]->version) < 0)
			c->rc = SCS_ENOMEM;
	for (size_t i = 0; i < f->n_input; i++) {
		if (chk_lex_here(&lex, f->input[i]))
			chk_problem(c, SCS_RULE_SSA, &w, "function input '%s' is declared twice", f->input[i]);
		chk_lex_add(c, &lex, f->input[i]);
	}
	for (size_t i = 0; i < f->n_output; i++) {
		if (scs_strmap_get(&outs, f->output[i], NULL))
			chk_problem(c, SCS_RULE_FUNCTION, &w, "function output '%s' is listed twice", f->output[i]);
		else if (scs_strmap_put(&outs, f->output[i], 1) < 0)
			c->rc = SCS_ENOMEM;
	}
	for (size_t i = 0; i < f->n_attribute; i++) {
		if (scs_strmap_get(&attrs, f->attribute[i], NULL))
			chk_problem(c, SCS_RULE_FUNCTION, &w, "function attribute '%s' is listed twice", f->attribute[i]);
		else if (scs_strmap_put(&attrs, f->attribute[i], 1) < 0)
			c->rc = SCS_ENOMEM;
	}
	c->opsets = &own;
	for (size_t i = 0; i < f->n_node && c->rc == 0; i++) {
		const Onnx__NodeProto *n = f->node[i];
		chk_where nw = { path, n, i };

		check_function_opset(c, n, &nw, model);
	}
	check_nodes(c, f->node, f->n_node, path, &lex, 1);
	c->opsets = saved;
	scs_strmap_dispose(&outs);
	scs_strmap_dispose(&attrs);
	scs_strmap_dispose(&lex.names);
	opsets_dispose(&own);
}

/* ---- the model ---- */

static void
check_metadata(chk *c, const Onnx__ModelProto *mp)
{
	scs_strmap keys = SCS_STRMAP_INIT;

	for (size_t i = 0; i < mp->n_metadata_props && c->rc == 0; i++) {
		const char *k = mp->metadata_props[i]->key ? mp->metadata_props[i]->key : "";

		if (scs_strmap_get(&keys, k, NULL))
			chk_problem(c, SCS_RULE_MODEL, NULL, "metadata key '%s' is given twice", k);
		else if (scs_strmap_put(&keys, k, 1) < 0)
			c->rc = SCS_ENOMEM;
	}
	scs_strmap_dispose(&keys);
}

int
scs_check_model(const scs_model *m, const scs_check_cfg *cfg, scs_check_findings *out)
{
	static const scs_check_cfg dflt = { 0 };
	const Onnx__ModelProto *mp = m->proto;
	chk_opsets opsets = { 0 }, merged = { 0 };
	chk c;

	memset(out, 0, sizeof(*out));
	memset(&c, 0, sizeof(c));
	c.m = m;
	c.cfg = cfg ? cfg : &dflt;
	c.out = out;
	c.max = c.cfg->max_problems ? c.cfg->max_problems : 1000;
	c.ir = mp->has_ir_version ? mp->ir_version : 0;
	c.main_graph = 1;
	if (c.ir <= 0) {
		chk_problem(&c, SCS_RULE_MODEL, NULL, "the model has no IR version");
		c.ir = CHK_IR_NEWEST;     /* the rest by the newest rules, so that this is said once */
	} else if (c.ir > CHK_IR_NEWEST)
		chk_problem(&c, SCS_RULE_MODEL, NULL, "IR version %lld is newer than the newest this checker knows (%d)",
		    (long long)c.ir, CHK_IR_NEWEST);
	check_metadata(&c, mp);
	for (size_t i = 0; i < mp->n_opset_import; i++)
		if (opsets_add(&opsets, mp->opset_import[i]->domain ? mp->opset_import[i]->domain : "",
		    mp->opset_import[i]->version) < 0)
			c.rc = SCS_ENOMEM;
	if (c.ir >= 3 && opsets.n == 0)
		chk_problem(&c, SCS_RULE_MODEL, NULL, "the model imports no opset (IR version 3 and later must)");
	else if (c.ir < 3 && opsets.n > 0)
		chk_problem(&c, SCS_RULE_MODEL, NULL, "the model imports opsets, which IR version %lld may not (below 3)",
		    (long long)c.ir);
	else if (c.ir < 3 && opsets_add(&opsets, "", 1) < 0)
		c.rc = SCS_ENOMEM;
	c.opsets = &opsets;
	if (mp->graph == NULL)
		chk_problem(&c, SCS_RULE_MODEL, NULL, "the model has no graph");
	else if (c.rc == 0)
		chk_graph(&c, mp->graph, "main", NULL);
	if (c.ir >= 8 && c.rc == 0) {
		/* the functions' imports of domains the model does not import join the model's */
		for (size_t i = 0; i < opsets.n && c.rc == 0; i++)
			if (opsets_add(&merged, opsets.domains[i], opsets.versions[i]) < 0)
				c.rc = SCS_ENOMEM;
		for (size_t i = 0; i < mp->n_functions && c.rc == 0; i++)
			for (size_t k = 0; k < mp->functions[i]->n_opset_import; k++) {
				const Onnx__OperatorSetIdProto *o = mp->functions[i]->opset_import[k];
				const char *d = o->domain ? o->domain : "";

				if (chk_opset(&merged, d) < 0 && opsets_add(&merged, d, o->version) < 0)
					c.rc = SCS_ENOMEM;
			}
		for (size_t i = 0; i < mp->n_functions && c.rc == 0; i++)
			check_function(&c, mp->functions[i], &merged);
	}
	if (c.cfg->full && c.rc == 0 && mp->graph)
		chk_infer(&c);
	opsets_dispose(&opsets);
	opsets_dispose(&merged);
	if (c.rc < 0) {
		scs_check_findings_dispose(out);
		return c.rc == SCS_ENOMEM ? scs_err_set(SCS_ENOMEM, "cannot allocate the check's state") : c.rc;
	}
	return SCS_OK;
}
