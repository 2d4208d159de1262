/*
 * test_layers.c: scripts/check-layers.sh passes on the tree and fails, with
 * one line naming the file, the include and both layers (folders), on a
 * scratch copy of src/ given a wrong include.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static char *dir;

static void
copy_src(void)
{
	char *out = NULL;

	dir = tmpdir_new();
	cr_assert_eq(run(&out, "cp -r '%s/src' '%s/src'", SCS_TEST_SRC_DIR, dir), 0, "%s", out);
	free(out);
}

static void
remove_copy(void)
{
	tmpdir_remove(dir);
}

/* Append @line to @name in the scratch copy's src/. */
static void
append(const char *name, const char *line)
{
	char *src = path_in(dir, "src"), *path = path_in(src, name);
	FILE *f = fopen(path, "a");

	cr_assert_not_null(f, "cannot open %s", path);
	fprintf(f, "%s\n", line);
	fclose(f);
	free(path);
	free(src);
}

/*
 * Append @line to @name in the scratch copy, run the check on the copy and
 * expect it to fail with one line: the violation, holding @message.
 */
static void
expect_violation(const char *name, const char *line, const char *message)
{
	char *out = NULL;
	int lines = 0;

	append(name, line);
	cr_assert_eq(run(&out, "'%s/scripts/check-layers.sh' '%s'", SCS_TEST_SRC_DIR, dir), 1, "%s", out);
	cr_assert_not_null(strstr(out, message), "output was: %s", out);
	for (const char *p = out; *p; p++)
		lines += *p == '\n';
	cr_assert_eq(lines, 1, "one violation, one line; output was: %s", out);
	free(out);
}

Test(layers, every_file_in_src_keeps_to_its_layer)
{
	char *out = NULL;

	cr_assert_eq(run(&out, "'%s/scripts/check-layers.sh'", SCS_TEST_SRC_DIR), 0, "%s", out);
	cr_assert_not_null(strstr(out, "keep to the layers of their folders"), "output was: %s", out);
	free(out);
}

Test(layers, an_include_from_a_higher_layer_fails, .init = copy_src, .fini = remove_copy)
{
	expect_violation("util/wire.c", "#include \"io/store.h\"",
	    "src/util/wire.c: #include \"io/store.h\": src/util (layer 0) includes src/io (layer 1), a higher layer");
}

Test(layers, scan_including_model_fails, .init = copy_src, .fini = remove_copy)
{
	expect_violation("onnx/scan.h", "#include \"model/model.h\"",
	    "src/onnx/scan.h: #include \"model/model.h\": src/onnx (layer 2) includes src/model (layer 4), a higher layer");
}

Test(layers, a_folder_including_the_top_fails, .init = copy_src, .fini = remove_copy)
{
	expect_violation("io/sink.c", "#include \"report.h\"",
	    "src/io/sink.c: #include \"report.h\": src/io (layer 1) includes the top of src/ (layer 7), a higher layer");
}

Test(layers, another_folder_of_the_same_layer_fails, .init = copy_src, .fini = remove_copy)
{
	expect_violation("shrink/npy.c", "#include \"opt/opt.h\"",
	    "src/shrink/npy.c: #include \"opt/opt.h\": src/shrink includes src/opt, another folder of its layer (6)");
}

Test(layers, an_include_without_its_folder_fails, .init = copy_src, .fini = remove_copy)
{
	expect_violation("model/graph.c", "#include \"err.h\"",
	    "src/model/graph.c: #include \"err.h\": no such file in src/ (a project header is named with its folder)");
}

Test(layers, lmdb_outside_store_fails, .init = copy_src, .fini = remove_copy)
{
	expect_violation("model/emit.c", "#include <lmdb.h>",
	    "src/model/emit.c: #include <lmdb.h>: lmdb.h stays in store, store_impl, store_blob; emit may not include it");
}

Test(layers, a_folder_with_no_layer_fails, .init = copy_src, .fini = remove_copy)
{
	char *out = NULL;

	cr_assert_eq(run(&out, "mkdir '%s/src/newfolder'", dir), 0, "%s", out);
	free(out);
	expect_violation("newfolder/new.c", "#include \"util/err.h\"",
	    "src/newfolder/new.c: folder src/newfolder has no layer");
}
