/*
 * src/onnx/opschema.c - lookups over the generated ONNX operator-schema table
 * (src/onnx/opschema_table.c): find the schema in force at an opset, bind actual
 * argument positions to formals, answer type-variable questions, and say
 * which opset of each domain is the newest the table knows.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "onnx/opschema.h"

/* Order (domain, op_type, version) against table entry @e, like strcmp. */
static int
key_cmp(const char *domain, const char *op_type, int64_t version,
	const scs_opschema *e)
{
	int c;

	c = strcmp(domain, e->domain);
	if (c != 0)
		return c;
	c = strcmp(op_type, e->op_type);
	if (c != 0)
		return c;
	if (version < e->since_version)
		return -1;
	if (version > e->since_version)
		return 1;
	return 0;
}

const scs_opschema *
scs_opschema_find(const char *domain, const char *op_type, int64_t opset)
{
	size_t lo, hi, mid;
	const scs_opschema *e;

	if (op_type == NULL)
		return NULL;
	if (domain == NULL || strcmp(domain, "ai.onnx") == 0)
		domain = "";

	/* lo becomes the first entry ordered after (domain, op_type, opset). */
	lo = 0;
	hi = scs_opschema_table_len;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (key_cmp(domain, op_type, opset, &scs_opschema_table[mid]) < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	/* The entry just before it is the newest version <= opset, if it is this op. */
	if (lo == 0)
		return NULL;
	e = &scs_opschema_table[lo - 1];
	if (strcmp(e->domain, domain) != 0 || strcmp(e->op_type, op_type) != 0)
		return NULL;
	return e;
}

/* Shared by the input and output binding: formal index for actual @i. */
static int
bind_formal(const scs_opschema_arg *formals, size_t n, size_t i)
{
	if (n == 0)
		return -1;
	if (i < n)
		return (int)i;
	if (formals[n - 1].variadic)
		return (int)(n - 1);
	return -1;
}

int
scs_opschema_input_formal(const scs_opschema *s, size_t i)
{
	if (s == NULL)
		return -1;
	return bind_formal(s->inputs, s->n_inputs, i);
}

int
scs_opschema_output_formal(const scs_opschema *s, size_t i)
{
	if (s == NULL)
		return -1;
	return bind_formal(s->outputs, s->n_outputs, i);
}

int
scs_opschema_typevar_types_output(const scs_opschema *s, int tv)
{
	size_t k;

	if (s == NULL || tv < 0 || tv >= s->n_type_vars)
		return 0;
	for (k = 0; k < s->n_outputs; k++) {
		if (s->outputs[k].type_var == tv)
			return 1;
	}
	return 0;
}

uint64_t
scs_opschema_input_allowed(const scs_opschema *s, size_t i)
{
	int f;
	const scs_opschema_arg *a;

	f = scs_opschema_input_formal(s, i);
	if (f < 0)
		return 0;
	a = &s->inputs[f];
	if (a->type_var < 0)
		return a->concrete;
	if (a->type_var >= s->n_type_vars)
		return 0;
	return s->type_vars[a->type_var].allowed;
}

int
scs_opschema_newest_opset(const char *domain)
{
	if (domain == NULL || strcmp(domain, "ai.onnx") == 0)
		domain = "";
	for (size_t i = 0; i < scs_opschema_domains_len; i++)
		if (strcmp(scs_opschema_domains[i].domain, domain) == 0)
			return scs_opschema_domains[i].newest;
	return 0;
}

const scs_opschema_attr *
scs_opschema_attr_find(const scs_opschema *s, const char *name)
{
	size_t lo, hi, mid;
	int c;

	if (s == NULL || name == NULL || s->attrs == NULL)
		return NULL;
	lo = 0;
	hi = s->n_attrs;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = strcmp(name, s->attrs[mid].name);
		if (c == 0)
			return &s->attrs[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}
