/*
 * test_layers.c: scripts/check-layers.sh passes on the tree and fails, with
 * one line naming the file, the include and both levels, on a scratch copy
 * of src/ given a wrong include.
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

Test(layers, every_file_in_src_keeps_to_its_level)
{
	char *out = NULL;

	cr_assert_eq(run(&out, "'%s/scripts/check-layers.sh'", SCS_TEST_SRC_DIR), 0, "%s", out);
	cr_assert_not_null(strstr(out, "keep to their levels"), "output was: %s", out);
	free(out);
}

Test(layers, an_include_from_a_higher_level_fails, .init = copy_src, .fini = remove_copy)
{
	expect_violation("wire.c", "#include \"store.h\"",
	    "src/wire.c: #include \"store.h\": wire (level 0) includes store (level 2)");
}

Test(layers, scan_including_model_fails, .init = copy_src, .fini = remove_copy)
{
	expect_violation("scan.h", "#include \"model.h\"",
	    "src/scan.h: #include \"model.h\": scan (level 3) includes model (level 4)");
}

Test(layers, lmdb_outside_store_fails, .init = copy_src, .fini = remove_copy)
{
	expect_violation("emit.c", "#include <lmdb.h>",
	    "src/emit.c: #include <lmdb.h>: lmdb.h stays in store, store_impl, store_blob; emit (level 5) may not include it");
}

Test(layers, a_room_with_no_level_fails, .init = copy_src, .fini = remove_copy)
{
	expect_violation("newroom.c", "#include \"err.h\"", "src/newroom.c: room newroom has no level");
}
