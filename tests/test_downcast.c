/* test_downcast.c: the downcast rules, checked on real models read back with protobuf-c. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "scs4onnx.h"
#include "support.h"

#define rep shrunk_rep

static Onnx__GraphProto *
shrink(const char *name, int disable)
{
	scs_shrink_options o;

	memset(&o, 0, sizeof(o));
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

	cr_assert_eq(dtype_of(g, "f64_exact"), 1, "an exact float64 feeding Cast narrows");
	cr_assert_eq(dtype_of(g, "f64_inexact"), 11);
	cr_assert_not_null(strstr(reason(&rep.refused, "f64_inexact"), "does not survive"));
	cr_assert_eq(dtype_of(g, "i64_big"), 7);
	cr_assert_not_null(strstr(reason(&rep.refused, "i64_big"), "does not fit int32"));
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
