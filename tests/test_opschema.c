/*
 * tests/test_opschema.c - Criterion tests for src/onnx/opschema.c and the generated
 * src/onnx/opschema_table.c: lookup by opset, domain aliasing, formal binding,
 * real ONNX schema facts that the lossless downcast pass relies on, and the
 * attributes and input/output count ranges the checker relies on, held against
 * the onnx package's own schemas (tests/e2e/compare_opschema.py).
 *
 * SPDX-License-Identifier: MIT
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "onnx/opschema.h"
#include "support.h"

/* ONNX TensorProto.DataType numbers used below. */
enum {
	ET_FLOAT = 1,
	ET_INT32 = 6,
	ET_INT64 = 7,
	ET_STRING = 8,
	ET_BOOL = 9,
	ET_DOUBLE = 11
};

/* Schema lookup that must succeed. */
static const scs_opschema *
must_find(const char *domain, const char *op_type, int64_t opset)
{
	const scs_opschema *s;

	s = scs_opschema_find(domain, op_type, opset);
	cr_assert_not_null(s, "no schema for %s/%s at opset %lld",
		domain ? domain : "(null)", op_type, (long long)opset);
	return s;
}

/* Index of the type variable called @name in @s, or -1. */
static int
tv_index(const scs_opschema *s, const char *name)
{
	int k;

	for (k = 0; k < s->n_type_vars; k++) {
		if (strcmp(s->type_vars[k].name, name) == 0)
			return k;
	}
	return -1;
}

Test(opschema, table_is_sorted_and_consistent)
{
	size_t i, k;

	cr_assert(scs_opschema_table_len > 400, "table has only %zu schemas",
		scs_opschema_table_len);
	for (i = 0; i < scs_opschema_table_len; i++) {
		const scs_opschema *s = &scs_opschema_table[i];

		if (i > 0) {
			const scs_opschema *p = &scs_opschema_table[i - 1];
			int c = strcmp(p->domain, s->domain);

			if (c == 0)
				c = strcmp(p->op_type, s->op_type);
			if (c == 0)
				c = p->since_version < s->since_version ? -1 : 1;
			cr_assert(c < 0, "entry %zu (%s/%s-%d) out of order", i,
				s->domain, s->op_type, s->since_version);
		}
		/* Every entry must be reachable through the lookup. */
		cr_assert_eq(scs_opschema_find(s->domain, s->op_type, s->since_version), s,
			"%s/%s-%d not found by lookup", s->domain, s->op_type,
			s->since_version);
		for (k = 0; k < s->n_inputs; k++) {
			cr_assert(s->inputs[k].type_var < s->n_type_vars,
				"%s-%d input %zu type_var %d", s->op_type,
				s->since_version, k, s->inputs[k].type_var);
			if (s->inputs[k].variadic)
				cr_assert_eq(k, (size_t)s->n_inputs - 1,
					"%s-%d variadic input at %zu", s->op_type,
					s->since_version, k);
		}
		for (k = 0; k < s->n_outputs; k++) {
			cr_assert(s->outputs[k].type_var < s->n_type_vars,
				"%s-%d output %zu type_var %d", s->op_type,
				s->since_version, k, s->outputs[k].type_var);
			if (s->outputs[k].variadic)
				cr_assert_eq(k, (size_t)s->n_outputs - 1,
					"%s-%d variadic output at %zu", s->op_type,
					s->since_version, k);
		}
	}
}

Test(opschema, reshape_shape_is_concrete_int64)
{
	int64_t opset;

	for (opset = 13; opset <= 17; opset++) {
		const scs_opschema *s = must_find("", "Reshape", opset);

		cr_assert_eq(s->n_inputs, 2, "Reshape@%lld has %d inputs",
			(long long)opset, s->n_inputs);
		cr_assert_eq(s->inputs[1].type_var, -1,
			"Reshape@%lld shape type_var %d", (long long)opset,
			s->inputs[1].type_var);
		cr_assert_eq(s->inputs[1].concrete, SCS_OPSCHEMA_BIT(ET_INT64),
			"Reshape@%lld shape mask 0x%llx", (long long)opset,
			(unsigned long long)s->inputs[1].concrete);
		cr_assert_eq(scs_opschema_input_allowed(s, 1),
			SCS_OPSCHEMA_BIT(ET_INT64), "allowed 0x%llx",
			(unsigned long long)scs_opschema_input_allowed(s, 1));
	}
	cr_assert_eq(must_find("", "Reshape", 13)->since_version, 13,
		"Reshape@13 since %d", must_find("", "Reshape", 13)->since_version);
	cr_assert_eq(must_find("", "Reshape", 17)->since_version, 14,
		"Reshape@17 since %d", must_find("", "Reshape", 17)->since_version);
}

Test(opschema, gather_tind_int32_int64_not_output)
{
	const scs_opschema *s = must_find("", "Gather", 13);
	int tind = tv_index(s, "Tind");
	uint64_t want = SCS_OPSCHEMA_BIT(ET_INT32) | SCS_OPSCHEMA_BIT(ET_INT64);

	cr_assert(tind >= 0, "Gather-13 has no Tind (n_type_vars %d)", s->n_type_vars);
	cr_assert_eq(s->inputs[1].type_var, tind, "indices type_var %d, Tind %d",
		s->inputs[1].type_var, tind);
	cr_assert_eq(s->type_vars[tind].allowed, want, "Tind allows 0x%llx",
		(unsigned long long)s->type_vars[tind].allowed);
	cr_assert_eq(scs_opschema_typevar_types_output(s, tind), 0,
		"Tind reported as typing an output");
	cr_assert_eq(scs_opschema_typevar_types_output(s, s->inputs[0].type_var), 1,
		"Gather T should type the output");
}

Test(opschema, add_t_types_output)
{
	const scs_opschema *s = must_find("", "Add", 14);
	int t = tv_index(s, "T");

	cr_assert_eq(s->since_version, 14, "Add@14 since %d", s->since_version);
	cr_assert(t >= 0, "Add-14 has no T");
	cr_assert_eq(s->inputs[0].type_var, t, "A type_var %d", s->inputs[0].type_var);
	cr_assert_eq(s->inputs[1].type_var, t, "B type_var %d", s->inputs[1].type_var);
	cr_assert_eq(s->outputs[0].type_var, t, "C type_var %d", s->outputs[0].type_var);
	cr_assert_eq(scs_opschema_typevar_types_output(s, t), 1,
		"Add T not reported as typing an output");
	cr_assert(s->type_vars[t].allowed & SCS_OPSCHEMA_BIT(ET_DOUBLE),
		"Add T lacks double: 0x%llx", (unsigned long long)s->type_vars[t].allowed);
	cr_assert_eq(scs_opschema_typevar_types_output(s, 99), 0,
		"out-of-range type var reported as typing an output");
}

Test(opschema, pow_exponent_type_var_is_input_only)
{
	const scs_opschema *s = must_find("", "Pow", 15);
	int t1 = tv_index(s, "T1");

	cr_assert(t1 >= 0, "Pow-15 has no T1");
	cr_assert_eq(s->inputs[1].type_var, t1, "Y type_var %d", s->inputs[1].type_var);
	cr_assert_eq(scs_opschema_typevar_types_output(s, t1), 0,
		"Pow T1 reported as typing an output");
	cr_assert(s->type_vars[t1].allowed & SCS_OPSCHEMA_BIT(ET_FLOAT),
		"Pow T1 lacks float: 0x%llx", (unsigned long long)s->type_vars[t1].allowed);
}

Test(opschema, unsqueeze_axes_concrete_int64)
{
	const scs_opschema *s = must_find("", "Unsqueeze", 13);

	cr_assert_eq(s->since_version, 13, "Unsqueeze@13 since %d", s->since_version);
	cr_assert_eq(s->n_inputs, 2, "Unsqueeze-13 has %d inputs", s->n_inputs);
	cr_assert_eq(s->inputs[1].type_var, -1, "axes type_var %d", s->inputs[1].type_var);
	cr_assert_eq(s->inputs[1].concrete, SCS_OPSCHEMA_BIT(ET_INT64),
		"axes mask 0x%llx", (unsigned long long)s->inputs[1].concrete);
	cr_assert_eq(s->inputs[1].optional, 0, "axes marked optional");

	s = must_find("", "Unsqueeze", 12);
	cr_assert_eq(s->since_version, 11, "Unsqueeze@12 since %d", s->since_version);
	cr_assert_eq(s->n_inputs, 1, "Unsqueeze-11 has %d inputs", s->n_inputs);
}

Test(opschema, gather_version_selection)
{
	static const struct {
		int64_t opset;
		int since;
	} cases[] = {
		{ 1, 1 }, { 10, 1 }, { 11, 11 }, { 12, 11 }, { 13, 13 }, { 17, 13 },
		{ 1000, 13 }
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const scs_opschema *s = must_find("", "Gather", cases[i].opset);

		cr_assert_str_eq(s->op_type, "Gather", "got op %s", s->op_type);
		cr_assert_eq(s->since_version, cases[i].since,
			"Gather@%lld: since %d, want %d", (long long)cases[i].opset,
			s->since_version, cases[i].since);
	}
}

Test(opschema, unknown_op_is_null)
{
	cr_assert_null(scs_opschema_find("", "NoSuchOperator", 17),
		"unknown op found");
	cr_assert_null(scs_opschema_find("", "gather", 13),
		"lookup is case-sensitive, lowercase gather found");
	cr_assert_null(scs_opschema_find("com.example", "Gather", 13),
		"Gather found in unknown domain");
	cr_assert_null(scs_opschema_find("ai.onnx.ml", "Gather", 13),
		"Gather found in ai.onnx.ml");
	cr_assert_null(scs_opschema_find("", NULL, 13), "NULL op_type found");
	cr_assert_null(scs_opschema_find("", "", 13), "empty op_type found");
	cr_assert_null(scs_opschema_find("", "Zzzz", 13), "op after the last found");
	cr_assert_null(scs_opschema_find("", "AAAA", 13), "op before the first found");
}

Test(opschema, ai_onnx_alias)
{
	const scs_opschema *a = must_find("", "Reshape", 14);
	const scs_opschema *b = must_find("ai.onnx", "Reshape", 14);
	const scs_opschema *c = must_find(NULL, "Reshape", 14);

	cr_assert_eq(a, b, "ai.onnx gave %s-%d", b->op_type, b->since_version);
	cr_assert_eq(a, c, "NULL domain gave %s-%d", c->op_type, c->since_version);
	cr_assert_str_eq(b->domain, "", "domain is \"%s\"", b->domain);
}

Test(opschema, ml_domain)
{
	const scs_opschema *s = must_find("ai.onnx.ml", "LabelEncoder", 3);

	cr_assert_str_eq(s->domain, "ai.onnx.ml", "domain %s", s->domain);
	cr_assert_eq(s->since_version, 2, "LabelEncoder@3 since %d", s->since_version);
	cr_assert_null(scs_opschema_find("", "LabelEncoder", 3),
		"LabelEncoder found in the default domain");
}

Test(opschema, variadic_concat_sum)
{
	const scs_opschema *s = must_find("", "Concat", 13);
	size_t i;

	cr_assert_eq(s->n_inputs, 1, "Concat has %d formal inputs", s->n_inputs);
	cr_assert_eq(s->inputs[0].variadic, 1, "Concat inputs not variadic");
	for (i = 0; i < 8; i++)
		cr_assert_eq(scs_opschema_input_formal(s, i), 0,
			"Concat actual %zu -> formal %d", i,
			scs_opschema_input_formal(s, i));
	cr_assert_eq(scs_opschema_output_formal(s, 0), 0, "Concat output 0 -> %d",
		scs_opschema_output_formal(s, 0));
	cr_assert_eq(scs_opschema_output_formal(s, 1), -1, "Concat output 1 -> %d",
		scs_opschema_output_formal(s, 1));

	s = must_find("", "Sum", 13);
	cr_assert_eq(s->inputs[0].variadic, 1, "Sum inputs not variadic");
	cr_assert_eq(scs_opschema_input_formal(s, 5), 0, "Sum actual 5 -> %d",
		scs_opschema_input_formal(s, 5));
	cr_assert_eq(s->inputs[0].type_var, s->outputs[0].type_var,
		"Sum input T %d vs output T %d", s->inputs[0].type_var,
		s->outputs[0].type_var);

	/* Split: fixed inputs, variadic outputs. */
	s = must_find("", "Split", 13);
	cr_assert_eq(scs_opschema_input_formal(s, 1), 1, "Split actual 1 -> %d",
		scs_opschema_input_formal(s, 1));
	cr_assert_eq(scs_opschema_input_formal(s, 2), -1, "Split actual 2 -> %d",
		scs_opschema_input_formal(s, 2));
	cr_assert_eq(scs_opschema_output_formal(s, 3), 0, "Split output 3 -> %d",
		scs_opschema_output_formal(s, 3));
	cr_assert_eq(s->inputs[1].optional, 1, "Split split not optional");
}

Test(opschema, non_variadic_binding)
{
	const scs_opschema *s = must_find("", "Reshape", 14);

	cr_assert_eq(scs_opschema_input_formal(s, 0), 0, "actual 0 -> %d",
		scs_opschema_input_formal(s, 0));
	cr_assert_eq(scs_opschema_input_formal(s, 1), 1, "actual 1 -> %d",
		scs_opschema_input_formal(s, 1));
	cr_assert_eq(scs_opschema_input_formal(s, 2), -1, "actual 2 -> %d",
		scs_opschema_input_formal(s, 2));
	cr_assert_eq(scs_opschema_input_allowed(s, 2), 0, "allowed 0x%llx",
		(unsigned long long)scs_opschema_input_allowed(s, 2));
	cr_assert_eq(scs_opschema_input_formal(NULL, 0), -1, "NULL schema bound");

	s = must_find("", "Clip", 13);
	cr_assert_eq(s->inputs[1].optional, 1, "Clip min not optional");
	cr_assert_eq(s->inputs[1].type_var, s->inputs[0].type_var,
		"Clip min type_var %d vs input %d", s->inputs[1].type_var,
		s->inputs[0].type_var);
	cr_assert_eq(scs_opschema_input_allowed(s, 2) & SCS_OPSCHEMA_BIT(ET_STRING), 0,
		"Clip accepts string");
	cr_assert_eq(scs_opschema_input_allowed(s, 2) & SCS_OPSCHEMA_BIT(ET_BOOL), 0,
		"Clip accepts bool");
}

Test(opschema, older_than_first_version_is_null)
{
	cr_assert_null(scs_opschema_find("", "Unique", 10), "Unique@10 found");
	cr_assert_not_null(scs_opschema_find("", "Unique", 11), "Unique@11 missing");
	cr_assert_null(scs_opschema_find("", "Celu", 11), "Celu@11 found");
	cr_assert_null(scs_opschema_find("", "LayerNormalization", 16),
		"LayerNormalization@16 found");
	cr_assert_null(scs_opschema_find("", "Add", 0), "Add@0 found");
	cr_assert_null(scs_opschema_find("", "Add", -5), "Add@-5 found");
	cr_assert_null(scs_opschema_find("ai.onnx.ml", "LabelEncoder", 0),
		"LabelEncoder@0 found");
	cr_assert_eq(must_find("ai.onnx.ml", "LabelEncoder", 1)->since_version, 1,
		"LabelEncoder@1 since %d",
		must_find("ai.onnx.ml", "LabelEncoder", 1)->since_version);
}

Test(opschema, newest_opsets_come_from_the_changelogs)
{
	cr_assert_eq(scs_opschema_newest_opset(""), 28, "%d", scs_opschema_newest_opset(""));
	cr_assert_eq(scs_opschema_newest_opset("ai.onnx"), 28);
	cr_assert_eq(scs_opschema_newest_opset(NULL), 28);
	cr_assert_eq(scs_opschema_newest_opset("ai.onnx.ml"), 5, "%d", scs_opschema_newest_opset("ai.onnx.ml"));
	cr_assert_eq(scs_opschema_newest_opset("com.example"), 0);
}

Test(opschema, opset_18_reduce_mean_takes_axes_as_an_input)
{
	const scs_opschema *s = must_find("", "ReduceMean", 18);

	cr_assert_eq(s->since_version, 18, "ReduceMean@18 since %d", s->since_version);
	cr_assert_eq(s->n_inputs, 2, "%d inputs", s->n_inputs);
	cr_assert_str_eq(s->inputs[1].name, "axes");
	cr_assert_eq(s->inputs[1].optional, 1);
	cr_assert_eq(s->inputs[1].type_var, -1);
	cr_assert_eq(s->inputs[1].concrete, SCS_OPSCHEMA_BIT(ET_INT64));
	cr_assert_eq(must_find("", "ReduceMean", 17)->since_version, 13);
}

Test(opschema, containers_and_heterogeneous_variadics_are_kept)
{
	const scs_opschema *s = must_find("", "SequenceConstruct", 11);
	int t = tv_index(s, "T"), sv = tv_index(s, "S");

	cr_assert(t >= 0 && sv >= 0);
	cr_assert_eq(s->type_vars[t].container, 0);
	cr_assert_eq(s->type_vars[sv].container, 1, "seq(tensor(...)) not recorded");
	cr_assert_eq(s->type_vars[sv].allowed, 0, "seq members counted as tensors: 0x%llx",
		(unsigned long long)s->type_vars[sv].allowed);
	s = must_find("", "Loop", 21);
	cr_assert_str_eq(s->inputs[2].name, "v_initial");
	cr_assert_eq(s->inputs[2].variadic, 1);
	cr_assert_eq(s->inputs[2].heterogeneous, 1);
	cr_assert_eq(must_find("", "Concat", 13)->inputs[0].heterogeneous, 0);
	cr_assert_eq(must_find("", "Scatter", 11)->deprecated, 1);
	cr_assert_eq(must_find("", "Scatter", 9)->deprecated, 0);
}

/* AttributeProto.AttributeType numbers used below. */
enum {
	AT_FLOAT = 1,
	AT_INT = 2,
	AT_STRING = 3,
	AT_TENSOR = 4,
	AT_GRAPH = 5,
	AT_FLOATS = 6,
	AT_INTS = 7,
	AT_STRINGS = 8,
	AT_SPARSE_TENSOR = 11,
	AT_TYPE_PROTO = 13
};

/* Attribute @name of @domain/@op_type at @opset must be declared with @type and @required. */
static void
expect_attr(const char *domain, const char *op_type, int64_t opset, const char *name, int type, int required)
{
	const scs_opschema *s = must_find(domain, op_type, opset);
	const scs_opschema_attr *a = scs_opschema_attr_find(s, name);

	cr_assert_not_null(a, "%s-%d declares no attribute %s", op_type, s->since_version, name);
	cr_assert_str_eq(a->name, name);
	cr_assert_eq(a->type, type, "%s-%d %s: type %d, want %d", op_type, s->since_version, name, a->type, type);
	cr_assert_eq(a->required, required, "%s-%d %s: required %d, want %d", op_type, s->since_version, name,
	    a->required, required);
}

/* @domain/@op_type at @opset must take @min_in..@max_in inputs and @min_out..@max_out outputs. */
static void
expect_counts(const char *domain, const char *op_type, int64_t opset, int min_in, int max_in, int min_out,
    int max_out)
{
	const scs_opschema *s = must_find(domain, op_type, opset);

	cr_assert(s->min_inputs == min_in && s->max_inputs == max_in, "%s-%d inputs %d - %d, want %d - %d", op_type,
	    s->since_version, s->min_inputs, s->max_inputs, min_in, max_in);
	cr_assert(s->min_outputs == min_out && s->max_outputs == max_out, "%s-%d outputs %d - %d, want %d - %d",
	    op_type, s->since_version, s->min_outputs, s->max_outputs, min_out, max_out);
}

Test(opschema, attributes_of_every_type_the_changelogs_use)
{
	expect_attr("", "LeakyRelu", 16, "alpha", AT_FLOAT, 0);
	expect_attr("", "Concat", 13, "axis", AT_INT, 1);
	expect_attr("", "Cast", 13, "to", AT_INT, 1);
	expect_attr("", "Conv", 11, "auto_pad", AT_STRING, 0);
	expect_attr("", "Conv", 11, "kernel_shape", AT_INTS, 0);
	expect_attr("", "Constant", 9, "value", AT_TENSOR, 1);
	expect_attr("", "Constant", 13, "value", AT_TENSOR, 0);
	expect_attr("", "Constant", 13, "sparse_value", AT_SPARSE_TENSOR, 0);
	expect_attr("", "Constant", 13, "value_floats", AT_FLOATS, 0);
	expect_attr("", "Constant", 13, "value_strings", AT_STRINGS, 0);
	expect_attr("", "If", 13, "then_branch", AT_GRAPH, 1);
	expect_attr("", "Loop", 16, "body", AT_GRAPH, 1);
	expect_attr("", "Optional", 15, "type", AT_TYPE_PROTO, 0);
	expect_attr("ai.onnx.preview", "FlexAttention", 1, "score_mod", AT_GRAPH, 0);
	expect_attr("ai.onnx.ml", "LabelEncoder", 2, "keys_strings", AT_STRINGS, 0);
	/* Newer than the onnx package knows: Split-18 gained num_outputs, Cast-24 round_mode. */
	expect_attr("", "Split", 18, "num_outputs", AT_INT, 0);
	expect_attr("", "Cast", 24, "round_mode", AT_STRING, 0);
	cr_assert_null(scs_opschema_attr_find(must_find("", "Split", 13), "num_outputs"));
	cr_assert_null(scs_opschema_attr_find(must_find("", "Cast", 13), "saturate"));
	cr_assert_null(scs_opschema_attr_find(must_find("", "Relu", 14), "alpha"));
	cr_assert_null(scs_opschema_attr_find(must_find("", "Relu", 14), ""));
	cr_assert_null(scs_opschema_attr_find(must_find("", "Conv", 11), NULL));
	cr_assert_null(scs_opschema_attr_find(NULL, "axis"));
}

Test(opschema, input_and_output_count_ranges)
{
	expect_counts("", "Constant", 13, 0, 0, 1, 1);
	expect_counts("", "Clip", 6, 1, 1, 1, 1);
	expect_counts("", "Clip", 13, 1, 3, 1, 1);
	expect_counts("", "Dropout", 13, 1, 3, 1, 2);
	expect_counts("", "Concat", 13, 1, INT_MAX, 1, 1);
	expect_counts("", "Split", 13, 1, 2, 1, INT_MAX);
	/* Loop's M and cond are optional and its v_initial may be empty: 2 - inf. */
	expect_counts("", "Loop", 16, 2, INT_MAX, 1, INT_MAX);
	expect_counts("", "Loop", 1, 3, INT_MAX, 1, INT_MAX);
	expect_counts("", "LayerNormalization", 17, 2, 3, 1, 3);
	expect_counts("", "Conv", 22, 2, 3, 1, 1);
}

Test(opschema, only_layer_normalization_17_accepts_undeclared_attributes)
{
	for (size_t i = 0; i < scs_opschema_table_len; i++) {
		const scs_opschema *s = &scs_opschema_table[i];
		int want = strcmp(s->domain, "") == 0 && strcmp(s->op_type, "LayerNormalization") == 0 &&
		    s->since_version == 17;

		cr_assert_eq(s->any_attrs, want, "%s-%d any_attrs %d", s->op_type, s->since_version, s->any_attrs);
	}
}

Test(opschema, attributes_sorted_findable_and_counts_consistent)
{
	size_t n_attrs = 0;

	for (size_t i = 0; i < scs_opschema_table_len; i++) {
		const scs_opschema *s = &scs_opschema_table[i];
		int variadic_in = s->n_inputs && s->inputs[s->n_inputs - 1].variadic;
		int variadic_out = s->n_outputs && s->outputs[s->n_outputs - 1].variadic;

		for (size_t k = 0; k < s->n_attrs; k++) {
			const scs_opschema_attr *a = &s->attrs[k];

			cr_assert(k == 0 || strcmp(s->attrs[k - 1].name, a->name) < 0, "%s-%d attrs out of order at %s",
			    s->op_type, s->since_version, a->name);
			cr_assert_eq(scs_opschema_attr_find(s, a->name), a, "%s-%d %s not found", s->op_type,
			    s->since_version, a->name);
			cr_assert(a->type >= AT_FLOAT && a->type <= 14, "%s-%d %s type %d", s->op_type,
			    s->since_version, a->name, a->type);
			cr_assert(a->required <= 1);
		}
		n_attrs += s->n_attrs;
		if (s->deprecated)
			continue;
		cr_assert_eq(s->max_inputs, variadic_in ? INT_MAX : s->n_inputs, "%s-%d max_inputs %d", s->op_type,
		    s->since_version, s->max_inputs);
		cr_assert_eq(s->max_outputs, variadic_out ? INT_MAX : s->n_outputs, "%s-%d max_outputs %d",
		    s->op_type, s->since_version, s->max_outputs);
		cr_assert(s->min_inputs >= 0 && s->min_inputs <= s->max_inputs, "%s-%d", s->op_type, s->since_version);
		cr_assert(s->min_outputs >= 0 && s->min_outputs <= s->max_outputs, "%s-%d", s->op_type,
		    s->since_version);
	}
	cr_assert(n_attrs > 1000, "only %zu attributes in the table", n_attrs);
}

/*
 * Where our table (ONNX's newest changelogs) and the onnx package (Debian's
 * 1.12) disagree, and why. Every difference compare_opschema.py reports must be
 * here, and every entry here must still be reported.
 */
static const struct known_difference {
	const char *what;    /* the DIFF line's "domain:Op-N FIELD" */
	const char *why;
} known_differences[] = {
	/* Deprecated versions: the changelog lists no formals or attributes for them,
	 * and onnx.checker refuses such a node before looking at either. */
	{ ":Scatter-11 inputs", "deprecated" },
	{ ":Scatter-11 outputs", "deprecated" },
	{ ":Scatter-11 attr axis", "deprecated" },
	{ ":Upsample-10 inputs", "deprecated" },
	{ ":Upsample-10 outputs", "deprecated" },
	{ ":Upsample-10 attr mode", "deprecated" },
};

#define N_KNOWN (sizeof(known_differences) / sizeof(known_differences[0]))

Test(opschema, attributes_and_counts_agree_with_onnx)
{
	char *text, *line, *save = NULL;
	int seen[N_KNOWN] = { 0 }, compared = 0, attrs = 0;

	cr_assert_eq(run(&text, "/usr/bin/python3 '%s/tests/e2e/compare_opschema.py' '%s/opschema-dump'",
	    SCS_TEST_SRC_DIR, SCS_TEST_BUILD_DIR), 0, "%s", text);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t k;

		if (sscanf(line, "compared %d schemas, %d attributes", &compared, &attrs) == 2)
			continue;
		cr_assert(strncmp(line, "DIFF ", 5) == 0, "unexpected line: %s", line);
		for (k = 0; k < N_KNOWN; k++) {
			size_t n = strlen(known_differences[k].what);

			if (strncmp(line + 5, known_differences[k].what, n) == 0 && line[5 + n] == ':')
				break;
		}
		cr_assert(k < N_KNOWN, "our schema table and onnx's differ: %s", line + 5);
		seen[k] = 1;
	}
	for (size_t k = 0; k < N_KNOWN; k++)
		cr_assert(seen[k], "no longer differs: %s (%s)", known_differences[k].what, known_differences[k].why);
	cr_assert(compared > 400 && attrs > 800, "compared only %d schemas, %d attributes", compared, attrs);
	cr_log_info("opschema: %d schemas and %d attributes held against onnx's", compared, attrs);
	free(text);
}

/* A changelog of LayerNormalization-17 (the generator insists on it) and Foo-1 whose attribute entries are @attrs. */
static void
write_changelogs(const char *dir, const char *attrs)
{
	char text[4096], *path;
	int n;

	n = snprintf(text, sizeof(text),
	    "## Version 17 of the default ONNX operator set\n"
	    "### <a name=\"LayerNormalization-17\"></a>**LayerNormalization-17**</a>\n"
	    "### <a name=\"Foo-1\"></a>**Foo-1**</a>\n"
	    "#### Attributes\n<dl>\n%s</dl>\n"
	    "#### Inputs (1 - &#8734;)\n<dl>\n<dt><tt>X</tt> (variadic) : T</dt>\n</dl>\n"
	    "#### Outputs (0 - 1)\n<dl>\n<dt><tt>Y</tt> (optional) : T</dt>\n</dl>\n"
	    "#### Type Constraints\n<dl>\n<dt><tt>T</tt> : tensor(float)</dt>\n</dl>\n", attrs);
	cr_assert(n > 0 && (size_t)n < sizeof(text));
	path = path_in(dir, "Changelog.md");
	write_all(path, text, (size_t)n);
	free(path);
	path = path_in(dir, "Changelog-ml.md");
	write_all(path, "## Version 1 of the 'ai.onnx.ml' operator set\n", 46);
	free(path);
}

/* Run the generator on @dir's changelogs into @dir/@out; its exit status, *text its messages. */
static int
generate(char **text, const char *dir, const char *out)
{
	return run(text, "/usr/bin/python3 '%s/scripts/gen-opschema.py' '%s/Changelog.md' '%s/Changelog-ml.md' "
	    "--origin test -o '%s/%s'", SCS_TEST_SRC_DIR, dir, dir, dir, out);
}

Test(opschema, generator_maps_every_attribute_spelling_and_stops_at_an_unknown_one)
{
	char *dir = tmpdir_new(), *text, *path, *a, *b;
	size_t la, lb;

	write_changelogs(dir,
	    "<dt><tt>f</tt> : float (default is (3.402823e+38))</dt>\n"
	    "<dt><tt>i</tt> : int (required)</dt>\n"
	    "<dt><tt>s</tt> : string (default is ['a', 'b'])</dt>\n"
	    "<dt><tt>t</tt> : tensor</dt>\n"
	    "<dt><tt>g</tt> : graph (required)</dt>\n"
	    "<dt><tt>sp</tt> : sparse_tensor</dt>\n"
	    "<dt><tt>tp</tt> : type_proto</dt>\n"
	    "<dt><tt>fs</tt> : list of floats</dt>\n"
	    "<dt><tt>is</tt> : list of ints (default is ['0', '2'])</dt>\n"
	    "<dt><tt>ss</tt> : list of strings (required)</dt>\n"
	    "<dt><tt>ts</tt> : list of tensors</dt>\n"
	    "<dt><tt>gs</tt> : list of graphs</dt>\n"
	    "<dt><tt>sps</tt> : list of sparse_tensors</dt>\n"
	    "<dt><tt>tps</tt> : list of type_protos</dt>\n");
	cr_assert_eq(generate(&text, dir, "a.c"), 0, "%s", text);
	free(text);
	cr_assert_eq(generate(&text, dir, "b.c"), 0, "%s", text);
	free(text);
	path = path_in(dir, "a.c");
	a = (char *)read_all(path, &la);
	free(path);
	path = path_in(dir, "b.c");
	b = (char *)read_all(path, &lb);
	free(path);
	cr_assert(la == lb && memcmp(a, b, la) == 0, "the same changelogs gave other bytes");
	a[la] = '\0';
	/* Sorted by name, each with its AttributeProto.AttributeType and required flag. */
	cr_assert_not_null(strstr(a, "\t{ \"f\", 1, 0 },\n\t{ \"fs\", 6, 0 },\n\t{ \"g\", 5, 1 },\n\t{ \"gs\", 10, 0 },\n"
	    "\t{ \"i\", 2, 1 },\n\t{ \"is\", 7, 0 },\n\t{ \"s\", 3, 0 },\n\t{ \"sp\", 11, 0 },\n\t{ \"sps\", 12, 0 },\n"
	    "\t{ \"ss\", 8, 1 },\n\t{ \"t\", 4, 0 },\n\t{ \"tp\", 13, 0 },\n\t{ \"tps\", 14, 0 },\n\t{ \"ts\", 9, 0 },\n"), "%s", a);
	/* Foo-1: 14 attributes, inputs 1 - inf, outputs 0 - 1; LayerNormalization-17 any attribute. */
	cr_assert_not_null(strstr(a, ", 14, T + 0, 1, INT_MAX, 0, 1, 0 },"), "%s", a);
	cr_assert_not_null(strstr(a, "\"LayerNormalization\", 17, 0, 0, 0, 0, NULL, NULL, NULL, 0, NULL, "
	    "0, 0, 0, 0, 1 },"), "%s", a);
	free(a);
	free(b);

	write_changelogs(dir, "<dt><tt>w</tt> : list of widgets</dt>\n");
	cr_assert_eq(generate(&text, dir, "c.c"), 1, "%s", text);
	cr_assert_not_null(strstr(text, "Changelog.md:6: unknown attribute type 'list of widgets'"), "%s", text);
	path = path_in(dir, "c.c");
	cr_assert_not(file_exists(path), "a table was written");
	free(path);
	free(text);
	tmpdir_remove(dir);
}
