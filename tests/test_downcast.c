/*
 * test_downcast.c: the downcast rules, checked on real models read back with protobuf-c.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "onnx/dtype.h"
#include "util/err.h"
#include "onnx/opschema.h"
#include "shrink/pass.h"
#include "scs4onnx.h"
#include "support.h"

#define rep shrunk_rep

static Onnx__GraphProto *
shrink(const char *name, int disable)
{
	scs_shrink_options o = SCS_SHRINK_OPTIONS_INIT;

	o.disable_auto_downcast = disable;
	return shrink_fixture(name, &o);
}

static int
dtype_of(Onnx__GraphProto *g, const char *name)
{
	Onnx__TensorProto *t = find_init(g, name);

	cr_assert_not_null(t, "no initializer %s", name);
	return t->data_type;
}

static const char *
reason(const scs_report_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->items[i].name, name) == 0)
			return l->items[i].detail;
	return NULL;
}

Test(downcast, reshape_shape_stays_int64, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g = shrink("downcast.onnx", 0);

	cr_assert_eq(dtype_of(g, "shape34"), 7);
	cr_assert_not_null(reason(&rep.refused, "shape34"));
}

Test(downcast, gather_indices_narrow_to_int32, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g = shrink("downcast.onnx", 0);
	Onnx__TensorProto *t = find_init(g, "gidx");

	cr_assert_eq(dtype_of(g, "gidx"), 6);
	cr_assert_eq(t->raw_data.len, 8, "two int32 values: %zu bytes", t->raw_data.len);
	cr_assert_eq(memcmp(t->raw_data.data, "\0\0\0\0\1\0\0\0", 8), 0);
	cr_assert_str_eq(reason(&rep.narrowed, "gidx"), "int64 -> int32");
}

Test(downcast, add_with_an_int64_activation_is_not_narrowed, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g = shrink("downcast.onnx", 0);

	cr_assert_eq(dtype_of(g, "iadd"), 7);
	cr_assert_not_null(strstr(reason(&rep.refused, "iadd"), "types its output"), "%s", reason(&rep.refused, "iadd"));
}

Test(downcast, values_that_do_not_survive_stay_wide, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g = shrink("downcast.onnx", 0);

	cr_assert_eq(dtype_of(g, "f64_exact"), 1, "an exact float64 feeding IsNaN narrows");
	cr_assert_eq(dtype_of(g, "f64_inexact"), 11);
	cr_assert_not_null(strstr(reason(&rep.refused, "f64_inexact"), "does not survive"));
	cr_assert_eq(dtype_of(g, "i64_big"), 7);
	cr_assert_not_null(strstr(reason(&rep.refused, "i64_big"), "does not fit int32"));
}

Test(downcast, cast_input_stays_wide_as_its_output_type_is_no_type_variable, .init = shrink_setup,
    .fini = shrink_teardown)
{
	Onnx__GraphProto *g = shrink("downcast.onnx", 0);

	cr_assert_eq(dtype_of(g, "f64_cast"), 11);
	cr_assert_str_eq(reason(&rep.refused, "f64_cast"), "Cast output 0 'output' (T2) is typed by no input: its type "
	    "comes from an attribute or from an input by inference");
}

Test(downcast, a_refusal_names_the_formal_or_its_absence, .init = shrink_setup, .fini = shrink_teardown)
{
	shrink("downcast.onnx", 0);
	cr_assert_str_eq(reason(&rep.refused, "shape34"), "Reshape input 1 'shape' takes only int64");
}

Test(downcast, inputs_sharing_a_type_variable_narrow_together_or_not_at_all, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g = shrink("slice.onnx", 0);

	cr_assert_eq(dtype_of(g, "starts_a"), 7, "starts_a fits, but ends_a does not");
	cr_assert_eq(dtype_of(g, "ends_a"), 7);
	cr_assert_eq(dtype_of(g, "axes_a"), 7);
	cr_assert_eq(dtype_of(g, "starts_b"), 6);
	cr_assert_eq(dtype_of(g, "ends_b"), 6);
	cr_assert_eq(dtype_of(g, "axes_b"), 6);
}

Test(downcast, disable_auto_downcast_keeps_every_type, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g = shrink("downcast.onnx", 1);

	cr_assert_eq(dtype_of(g, "gidx"), 7);
	cr_assert_eq(dtype_of(g, "f64_exact"), 11);
	cr_assert_eq(rep.narrowed.n, 0);
}

Test(downcast, an_input_past_the_schema_is_refused_as_such)
{
	char why[256];

	cr_assert_eq(scs_pass_downcast_narrowable(scs_opschema_find("", "Reshape", 14), 2, SCS_DT_INT32, why, sizeof(why)),
	    0);
	cr_assert_str_eq(why, "Reshape-14 has no input 2 in its schema (2 formal inputs, none variadic)");
	cr_assert_eq(scs_pass_downcast_narrowable(scs_opschema_find("", "Gather", 13), 1, SCS_DT_INT32, why, sizeof(why)),
	    1);
}

Test(downcast, outputs_that_follow_an_input_by_inference_refuse_it)
{
	static const struct {
		const char *op;
		int opset, dt;
		const char *why;
	} cases[] = {
		{ "EyeLike", 13, SCS_DT_INT32, "typed by no input" },
		{ "RandomUniformLike", 13, SCS_DT_FLOAT, "typed by no input" },
		{ "Bernoulli", 15, SCS_DT_FLOAT, "typed by no input" },
		{ "SequenceConstruct", 13, SCS_DT_INT32, "sequence, optional, map or heterogeneous argument" },
		{ "Optional", 15, SCS_DT_INT32, "sequence, optional, map or heterogeneous argument" },
		{ "Pow", 15, SCS_DT_FLOAT, "may be floating-point" },
	};
	char why[256];

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const scs_opschema *s = scs_opschema_find("", cases[k].op, cases[k].opset);
		size_t i = strcmp(cases[k].op, "Pow") == 0 ? 1 : 0;

		cr_assert_not_null(s, "%s", cases[k].op);
		cr_assert_eq(scs_pass_downcast_narrowable(s, i, cases[k].dt, why, sizeof(why)), 0, "%s", cases[k].op);
		cr_assert_not_null(strstr(why, cases[k].why), "%s: %s", cases[k].op, why);
	}
}

/* A refusal belongs to the whole set of constants joined by a type
 * variable, whichever constant was refused before the sets joined. */
Test(downcast, a_refusal_survives_the_join_of_two_sets, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g = shrink("downcast_join.onnx", 0);
	char *in = fixture("downcast_join.onnx"), *out = path_in(shrunk_dir, "out.onnx");

	cr_assert_eq(dtype_of(g, "one"), SCS_DT_INT64, "Equal reads one beside an int64 input");
	cr_assert_eq(dtype_of(g, "zero"), SCS_DT_INT64, "Slice's starts narrow with its ends, or not at all");
	cr_assert_not_null(reason(&rep.refused, "zero"), "the refusal reaches zero");
	expect_equivalent(in, out, NULL);
	free(in);
	free(out);
}
