/*
 * test_e2e_big.c: a single inline .onnx over 2 GiB, which protobuf-based
 * tools cannot open, is read and shrunk; the output (external data, as it
 * stays over 2 GiB) passes onnx.checker and computes in ONNX Runtime what
 * the same model written with external data computes. Generated here and
 * removed after (about 7 GB of disk for a minute).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

Test(e2e_big, an_inline_model_over_2_gib_is_read_and_shrunk, .timeout = 900)
{
	char *dir = tmpdir_new(), *in = path_in(dir, "inline.onnx"), *ref = path_in(dir, "ref.onnx"),
	     *out = path_in(dir, "out.onnx"), *data = path_in(dir, "out.onnx.data"), *text;

	cr_assert_eq(run(&text, "/usr/bin/python3 '%s/scripts/gen-model.py' inline '%s' --size 2.3G", SCS_TEST_SRC_DIR, in),
	    0, "%s", text);
	free(text);
	cr_assert_gt(file_size(in), (uint64_t)2 << 30, "the input must pass 2 GiB");
	/* the same model (same generator, size and seed) with external data, which ONNX Runtime loads */
	cr_assert_eq(run(&text, "/usr/bin/python3 '%s/scripts/gen-model.py' llm '%s' --size 2.3G --external",
	    SCS_TEST_SRC_DIR, ref), 0, "%s", text);
	free(text);
	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s'", in, out), 0, "%s", text);
	cr_assert_not_null(strstr(text, "INFO: merged: "), "nothing merged: %s", text);
	free(text);
	cr_assert(file_exists(data), "an output over 2 GiB goes to external data");
	cr_assert_lt(file_size(out) + file_size(data), file_size(in), "the output is not smaller");
	run(NULL, "rm -f '%s'", in);
	cr_assert_eq(onnx_check(&text, out), 0, "%s", text);
	free(text);
	cr_assert_eq(ort_same(&text, ref, out, NULL), 0, "%s", text);
	free(text);
	free(in);
	free(ref);
	free(out);
	free(data);
	tmpdir_remove(dir);
}
