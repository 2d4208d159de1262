/*
 * tests/test_opschema.c - Criterion tests for src/onnx/opschema.c and the generated
 * src/onnx/opschema_table.c: lookup by opset, domain aliasing, formal binding, and
 * real ONNX schema facts that the lossless downcast pass relies on.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include <criterion/criterion.h>

#include "onnx/opschema.h"

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
