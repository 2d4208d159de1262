/*
 * check_node.c: one node by the checker's rules: its operator (op_type
 * set, domain imported, known for its domain and opset in the built-in
 * domains, not deprecated), its attributes (well formed, each value field
 * matching the type; tensors and subgraphs checked in turn), and, against
 * the operator's schema, its arity (input and output counts, "" only for
 * optional formals) and attributes (known, of the schema's type, required
 * ones present). A node in a domain of no schema is checked for its
 * attributes' form only.
 *
 * SPDX-License-Identifier: MIT
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_impl.h"
#include "onnx/opschema.h"

/* Operators the ONNX checker of 1.12 passes without looking (experimental
 * ones of old opsets), whatever their domain. */
static const char *const experimental[] = {
	"ATen", "Affine", "ConstantFill", "Crop", "DynamicSlice", "GRUUnit", "GivenTensorFill", "ImageScaler",
	"ParametricSoftplus", "Scale", "ScaledTanh",
};

static int
is_experimental(const char *op)
{
	for (size_t i = 0; i < sizeof(experimental) / sizeof(*experimental); i++)
		if (strcmp(op, experimental[i]) == 0)
			return 1;
	return 0;
}

/* Domains whose every operator has a schema. */
static int
is_builtin_domain(const char *d)
{
	return d[0] == '\0' || strcmp(d, "ai.onnx") == 0 || strcmp(d, "ai.onnx.ml") == 0 ||
	    strcmp(d, "ai.onnx.training") == 0;
}

static const char *
attr_type_name(int t)
{
	static const char *const names[] = { "undefined", "float", "int", "string", "tensor", "graph", "floats",
		"ints", "strings", "tensors", "graphs", "sparse_tensor", "sparse_tensors", "type_proto", "type_protos" };

	return t >= 0 && t < (int)(sizeof(names) / sizeof(*names)) ? names[t] : "unknown";
}

/* The value fields @a sets: their count, and in *type the type the last one stands for. */
static int
attr_fields(const Onnx__AttributeProto *a, int *type, int *mismatch)
{
	struct {
		int set;
		int type;
	} f[] = {
		{ a->has_f, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT },
		{ a->has_i, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT },
		{ a->has_s, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING },
		{ a->t != NULL, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR },
		{ a->g != NULL, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH },
		{ a->tp != NULL, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO },
		{ a->sparse_tensor != NULL, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSOR },
		{ a->n_floats > 0, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS },
		{ a->n_ints > 0, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS },
		{ a->n_strings > 0, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS },
		{ a->n_tensors > 0, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS },
		{ a->n_graphs > 0, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS },
		{ a->n_sparse_tensors > 0, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSORS },
		{ a->n_type_protos > 0, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTOS },
	};
	int n = 0;

	*mismatch = 0;
	for (size_t i = 0; i < sizeof(f) / sizeof(*f); i++) {
		if (!f[i].set)
			continue;
		n++;
		*type = f[i].type;
		if (a->has_type && (int)a->type != f[i].type)
			*mismatch = 1;
	}
	return n;
}

/* Subgraph @g of attribute @a of the node at @w, the @k-th of a list (-1: alone). */
static void
check_subgraph(chk *c, const Onnx__GraphProto *g, const Onnx__AttributeProto *a, const chk_where *w, long k,
    const chk_lex *lex)
{
	const Onnx__NodeProto *n = w->node;
	int saved = c->main_graph;
	char label[300], *path;
	size_t len;

	if (n->name && n->name[0])
		snprintf(label, sizeof(label), "%.256s", n->name);
	else
		snprintf(label, sizeof(label), "#%zu %.256s", w->index, n->op_type ? n->op_type : "");
	len = strlen(w->graph) + strlen(label) + strlen(a->name ? a->name : "") + 32;
	if ((path = malloc(len)) == NULL) {
		c->rc = SCS_ENOMEM;
		return;
	}
	if (k < 0)
		snprintf(path, len, "%s/%s.%s", w->graph, label, a->name ? a->name : "");
	else
		snprintf(path, len, "%s/%s.%s[%ld]", w->graph, label, a->name ? a->name : "", k);
	c->main_graph = 0;
	chk_graph(c, g, path, lex);
	c->main_graph = saved;
	free(path);
}

/* Attribute @a of the node at @w by its form: name, type, one value field
 * matching the type; its tensors and graphs in turn. */
static void
check_attribute(chk *c, const Onnx__AttributeProto *a, const chk_where *w, const chk_lex *lex)
{
	const char *name = a->name ? a->name : "";
	char what[300];
	int type = 0, mismatch, used;

	if (name[0] == '\0') {
		chk_problem(c, SCS_RULE_ATTRIBUTE, w, "an attribute has no name");
		return;
	}
	if (c->ir >= 2 && !a->has_type)
		chk_problem(c, SCS_RULE_ATTRIBUTE, w, "attribute '%s' has no type", name);
	used = attr_fields(a, &type, &mismatch);
	if (used > 1)
		chk_problem(c, SCS_RULE_ATTRIBUTE, w, "attribute '%s' holds more than one value field", name);
	else if (mismatch)
		chk_problem(c, SCS_RULE_ATTRIBUTE, w, "attribute '%s' is of type %s but holds a %s value", name,
		    attr_type_name((int)a->type), attr_type_name(type));
	if (!c->main_graph && a->ref_attr_name && a->ref_attr_name[0] && used != 0)
		chk_problem(c, SCS_RULE_ATTRIBUTE, w, "attribute '%s' refers to '%s' of the function's node but holds a "
		    "value of its own", name, a->ref_attr_name);
	snprintf(what, sizeof(what), "attribute '%.256s'", name);
	if (a->t) {
		c->out->n_tensors++;
		chk_tensor(c, a->t, w, what);
	}
	if (a->sparse_tensor) {
		c->out->n_tensors++;
		chk_sparse(c, a->sparse_tensor, w, what);
	}
	if (a->g)
		check_subgraph(c, a->g, a, w, -1, lex);
	for (size_t i = 0; i < a->n_tensors; i++) {
		c->out->n_tensors++;
		chk_tensor(c, a->tensors[i], w, what);
	}
	for (size_t i = 0; i < a->n_sparse_tensors; i++) {
		c->out->n_tensors++;
		chk_sparse(c, a->sparse_tensors[i], w, what);
	}
	for (size_t i = 0; i < a->n_graphs && c->rc == 0; i++)
		check_subgraph(c, a->graphs[i], a, w, (long)i, lex);
}

/* The actual arguments @names (@n of them) of the node at @w against the
 * formals @formals (@n_formals) of schema @s; @kind: "input" or "output". */
static void
check_args(chk *c, const scs_opschema *s, char *const *names, size_t n, const scs_opschema_arg *formals,
    size_t n_formals, const chk_where *w, const char *kind)
{
	for (size_t i = 0; i < n; i++) {
		const scs_opschema_arg *f;

		if (i >= n_formals) {
			if (n_formals > 0 && formals[n_formals - 1].variadic)
				break;
			chk_problem(c, SCS_RULE_ARITY, w, "%zu %ss, but %s-%d has %zu", n, kind, s->op_type,
			    s->since_version, n_formals);
			return;
		}
		f = &formals[i];
		if (names[i][0] == '\0' && !f->optional && !f->variadic)
			chk_problem(c, SCS_RULE_ARITY, w, "%s %zu ('%s' of %s-%d) is required but given as \"\"", kind, i,
			    f->name, s->op_type, s->since_version);
	}
}

/* A count @n of @kind against the schema's range: 1 when inside it. */
static int
check_count(chk *c, const scs_opschema *s, size_t n, int min, int max, const chk_where *w, const char *kind)
{
	if ((long long)n >= min && (long long)n <= max)
		return 1;
	if (min == max)
		chk_problem(c, SCS_RULE_ARITY, w, "%zu %ss, but %s-%d takes %d", n, kind, s->op_type, s->since_version, min);
	else if (max == INT_MAX)
		chk_problem(c, SCS_RULE_ARITY, w, "%zu %ss, but %s-%d takes %d or more", n, kind, s->op_type,
		    s->since_version, min);
	else
		chk_problem(c, SCS_RULE_ARITY, w, "%zu %ss, but %s-%d takes %d to %d", n, kind, s->op_type,
		    s->since_version, min, max);
	return 0;
}

/* 1 when attribute @a of type @type holds the field that type needs (the
 * scalars count as set: proto3 writers leave out a zero). */
static int
attr_has_value(const Onnx__AttributeProto *a, int type)
{
	switch (type) {
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSORS:
		return 1;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR:
		return a->t != NULL;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSOR:
		return a->sparse_tensor != NULL;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH:
		return a->g != NULL;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO:
		return a->tp != NULL;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
		return a->n_floats > 0;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
		return a->n_ints > 0;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS:
		return a->n_strings > 0;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS:
		return a->n_tensors > 0;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS:
		return a->n_graphs > 0;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTOS:
		return a->n_type_protos > 0;
	default:
		return 0;
	}
}

/* The attributes of node @n at @w against schema @s: each once, known (or
 * "__" internal, or the schema takes any), of the schema's type with its
 * value, the required ones present. */
static void
check_schema_attrs(chk *c, const scs_opschema *s, const Onnx__NodeProto *n, const chk_where *w)
{
	for (size_t i = 0; i < n->n_attribute; i++) {
		const Onnx__AttributeProto *a = n->attribute[i];
		const char *name = a->name ? a->name : "";
		const scs_opschema_attr *sa;
		int type = a->has_type ? (int)a->type : 0, dup = 0;

		for (size_t k = 0; k < i && !dup; k++)
			dup = strcmp(n->attribute[k]->name ? n->attribute[k]->name : "", name) == 0;
		if (dup) {
			chk_problem(c, SCS_RULE_ATTRIBUTE, w, "attribute '%s' is given twice", name);
			continue;
		}
		if ((sa = scs_opschema_attr_find(s, name)) == NULL) {
			if (!s->any_attrs && strncmp(name, "__", 2) != 0)
				chk_problem(c, SCS_RULE_ATTRIBUTE, w, "%s-%d has no attribute '%s'", s->op_type, s->since_version,
				    name);
			continue;
		}
		if (type != sa->type) {
			chk_problem(c, SCS_RULE_ATTRIBUTE, w, "attribute '%s' is of type %s, %s-%d wants %s", name,
			    attr_type_name(type), s->op_type, s->since_version, attr_type_name(sa->type));
			continue;
		}
		if (a->ref_attr_name && a->ref_attr_name[0])
			continue;
		if (!attr_has_value(a, type))
			chk_problem(c, SCS_RULE_ATTRIBUTE, w, "attribute '%s' (%s) holds no value", name, attr_type_name(type));
	}
	for (size_t k = 0; k < s->n_attrs; k++) {
		size_t i;

		if (!s->attrs[k].required)
			continue;
		for (i = 0; i < n->n_attribute; i++)
			if (strcmp(n->attribute[i]->name ? n->attribute[i]->name : "", s->attrs[k].name) == 0)
				break;
		if (i == n->n_attribute)
			chk_problem(c, SCS_RULE_ATTRIBUTE, w, "required attribute '%s' of %s-%d is missing", s->attrs[k].name,
			    s->op_type, s->since_version);
	}
}

/* Node @n at @w against its schema @s: arity and attributes. */
static void
check_schema(chk *c, const scs_opschema *s, const Onnx__NodeProto *n, const chk_where *w)
{
	if (check_count(c, s, n->n_input, s->min_inputs, s->max_inputs, w, "input"))
		check_args(c, s, n->input, n->n_input, s->inputs, s->n_inputs, w, "input");
	if (check_count(c, s, n->n_output, s->min_outputs, s->max_outputs, w, "output"))
		check_args(c, s, n->output, n->n_output, s->outputs, s->n_outputs, w, "output");
	check_schema_attrs(c, s, n, w);
}

void
chk_node(chk *c, const Onnx__NodeProto *n, const chk_where *w, const chk_lex *lex)
{
	const char *op = n->op_type ? n->op_type : "", *domain = n->domain ? n->domain : "";
	const scs_opschema *s;
	int64_t version;
	uint64_t raised;
	int newest;

	if (op[0] == '\0') {
		chk_problem(c, SCS_RULE_OPERATOR, w, "the node has no op_type");
		return;
	}
	/* a node's checks stop at its first problem: one defect, one line */
	if (n->n_input == 0 && n->n_output == 0) {
		chk_problem(c, SCS_RULE_ARITY, w, "the node has no inputs and no outputs");
		return;
	}
	if (is_experimental(op))
		return;
	if ((version = chk_opset(c->opsets, domain)) < 0) {
		chk_problem(c, SCS_RULE_OPERATOR, w, "domain '%s' is not imported (no opset_import names it)", domain);
		return;
	}
	raised = c->raised;
	for (size_t i = 0; i < n->n_attribute && c->rc == 0; i++)
		check_attribute(c, n->attribute[i], w, lex);
	if (c->raised != raised)
		return;
	if (strcmp(domain, "ai.onnx") == 0) {
		/* the ONNX checker finds its schemas under "" only */
		chk_problem(c, SCS_RULE_OPERATOR, w, "domain 'ai.onnx' has no schemas in the ONNX checker: write the "
		    "default domain as \"\"");
		return;
	}
	s = scs_opschema_find(domain, op, version);
	if (s == NULL) {
		newest = scs_opschema_newest_opset(domain);
		/* an opset newer than our table may have operators it has never seen */
		if (is_builtin_domain(domain) && !(newest > 0 && version > newest))
			chk_problem(c, SCS_RULE_OPERATOR, w, "no operator %s in opset %lld of domain '%s'", op,
			    (long long)version, domain[0] ? domain : "ai.onnx");
		return;
	}
	if (s->deprecated) {
		chk_problem(c, SCS_RULE_OPERATOR, w, "%s-%d is deprecated (opset %lld of domain '%s')", op,
		    s->since_version, (long long)version, domain[0] ? domain : "ai.onnx");
		return;
	}
	check_schema(c, s, n, w);
}
