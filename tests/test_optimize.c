/*
 * test_optimize.c: the optimizer (src/opt*.c, scs_optimize, scs4onnx-optimize).
 * The rewriting tools are checked against values worked out by hand; the
 * passes against ONNX Runtime (bit-identical outputs) and onnx.checker.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "support.h"

Test(optimize, float16_rounds_once_to_nearest_even)
{
	cr_assert_eq(scs_opt_to_float16(1.0), 0x3c00);
	cr_assert_eq(scs_opt_to_float16(-2.0), 0xc000);
	cr_assert_eq(scs_opt_to_float16(65504.0), 0x7bff, "largest finite");
	cr_assert_eq(scs_opt_to_float16(65520.0), 0x7c00, "halfway above the largest finite goes to infinity");
	cr_assert_eq(scs_opt_to_float16(65519.99), 0x7bff);
	cr_assert_eq(scs_opt_to_float16(ldexp(1.0, -24)), 0x0001, "smallest subnormal");
	cr_assert_eq(scs_opt_to_float16(ldexp(1.0, -25)), 0x0000, "half of it ties to even (zero)");
	cr_assert_eq(scs_opt_to_float16(ldexp(3.0, -26)), 0x0001, "three quarters of it rounds up");
	cr_assert_eq(scs_opt_to_float16(ldexp(1023.0, -24) + ldexp(1.0, -25)), 0x0400,
	    "the largest subnormal plus half a quantum ties up to the smallest normal");
	/* 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to the even 1 */
	cr_assert_eq(scs_opt_to_float16(1.0 + ldexp(1.0, -11)), 0x3c00);
	cr_assert_eq(scs_opt_to_float16(1.0 + 3 * ldexp(1.0, -11)), 0x3c02);
	/* a value a float32 rounding would push onto the tie: rounded once from double it stays below */
	cr_assert_eq(scs_opt_to_float16(1.0 + ldexp(1.0, -11) - ldexp(1.0, -40)), 0x3c00);
	cr_assert_eq(scs_opt_to_float16(1.0 + ldexp(1.0, -11) + ldexp(1.0, -40)), 0x3c01);
	cr_assert_eq(scs_opt_to_float16(-0.0), 0x8000);
	cr_assert_eq(scs_opt_to_float16(INFINITY), 0x7c00);
	cr_assert_eq(scs_opt_to_float16(NAN) & 0x7e00, 0x7e00, "a quiet NaN");
}

Test(optimize, bfloat16_rounds_once_to_nearest_even)
{
	cr_assert_eq(scs_opt_to_bfloat16(1.0), 0x3f80);
	cr_assert_eq(scs_opt_to_bfloat16(1.0 + ldexp(1.0, -8)), 0x3f80, "tie to even");
	cr_assert_eq(scs_opt_to_bfloat16(1.0 + 3 * ldexp(1.0, -8)), 0x3f82);
	cr_assert_eq(scs_opt_to_bfloat16(1.0 + ldexp(1.0, -8) + ldexp(1.0, -30)), 0x3f81,
	    "above the tie, though float32 would round it onto the tie");
	cr_assert_eq(scs_opt_to_bfloat16(3.5e38), 0x7f80, "past the largest finite: infinity");
	cr_assert_eq(scs_opt_to_bfloat16(ldexp(1.0, -133)), 0x0001, "smallest subnormal");
}

Test(optimize, an_unknown_pass_is_a_usage_error_naming_it)
{
	const char *names[] = { "no_such_pass" };
	scs_optimize_options o;
	scs_report rep;
	char *dir = tmpdir_new(), *in = fixture("tiny.onnx"), *out = path_in(dir, "out.onnx");

	memset(&o, 0, sizeof(o));
	o.passes = names;
	o.n_passes = 1;
	cr_assert_eq(scs_optimize(&rep, in, out, &o), SCS_EUSAGE);
	cr_assert_not_null(strstr(scs_err_msg(), "'no_such_pass'"), "message was: %s", scs_err_msg());
	cr_assert_not(file_exists(out), "an output was written");
	scs_report_dispose(&rep);
	free(in);
	free(out);
	tmpdir_remove(dir);
}

Test(optimize, every_pass_in_the_table_has_a_name_a_line_and_a_function)
{
	scs_optimize_pass_info info;
	size_t n = 0;

	while (scs_optimize_pass(n, &info)) {
		cr_assert_not_null(info.name);
		cr_assert_not_null(info.what);
		cr_assert_null(strchr(info.what, '\n'), "%s: more than one line", info.name);
		cr_assert_eq(scs_opt_find(info.name), &scs_opt_passes[n]);
		cr_assert_not_null(scs_opt_passes[n].run);
		n++;
	}
	cr_assert_eq(n, scs_opt_n_passes);
}

Test(optimize, a_model_goes_through_unchanged_in_what_it_computes)
{
	char *dir = tmpdir_new(), *in = fixture("if_outer.onnx"), *out = path_in(dir, "out.onnx");
	scs_report rep;

	cr_assert_eq(scs_optimize(&rep, in, out, NULL), SCS_OK, "%s", scs_err_msg());
	cr_assert(rep.optimized);
	expect_equivalent(in, out, NULL);
	scs_report_dispose(&rep);
	free(in);
	free(out);
	tmpdir_remove(dir);
}
