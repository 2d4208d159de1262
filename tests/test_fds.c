/*
 * test_fds.c: input files and descriptors. A model saved with one external
 * data file per tensor names thousands of files; a run keeps a bounded set
 * of them open (the least recently used go, and are opened again, checked
 * to be the same file, when read), so it works under the usual descriptor
 * limits.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "io/source.h"
#include "support.h"

/* Descriptors this process has open. */
static int
open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;   /* the one opendir holds */
}

Test(fds, a_pool_keeps_its_bound_and_reads_every_file)
{
	char *dir = tmpdir_new(), name[32], *paths[10], got[32];
	scs_source_pool *pool;
	scs_source *src[10];
	int before = open_fds();

	cr_assert_eq(scs_source_pool_new(&pool, 3), SCS_OK);
	for (int i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		paths[i] = path_in(dir, name);
		write_all(paths[i], name, strlen(name) + 1);
		cr_assert_eq(scs_source_open_in(&src[i], paths[i], pool), SCS_OK, "%s", scs_err_msg());
		cr_assert_leq(open_fds(), before + 3, "after opening %d files", i + 1);
	}
	for (int round = 0; round < 2; round++) {
		for (int i = 9; i >= 0; i--) {
			snprintf(name, sizeof(name), "f%d", i);
			cr_assert_eq(scs_source_read(src[i], got, strlen(name) + 1, 0), SCS_OK, "%s", scs_err_msg());
			cr_assert_str_eq(got, name);
			cr_assert_geq(scs_source_fd(src[i]), 0, "%s", scs_err_msg());
			cr_assert_leq(open_fds(), before + 3);
		}
	}
	for (int i = 0; i < 10; i++) {
		scs_source_close(src[i]);
		free(paths[i]);
	}
	scs_source_pool_free(pool);
	cr_assert_eq(open_fds(), before, "closing gives every descriptor back");
	tmpdir_remove(dir);
}

Test(fds, a_file_replaced_while_its_descriptor_was_let_go_is_refused)
{
	char *dir = tmpdir_new(), *a = path_in(dir, "a.bin"), *b = path_in(dir, "b.bin"), *c = path_in(dir, "c.bin"),
	     got[4];
	scs_source_pool *pool;
	scs_source *sa, *sb;

	write_all(a, "AAAA", 4);
	write_all(b, "BBBB", 4);
	write_all(c, "CCCC", 4);
	cr_assert_eq(scs_source_pool_new(&pool, 1), SCS_OK);
	cr_assert_eq(scs_source_open_in(&sa, a, pool), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_source_open_in(&sb, b, pool), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(rename(c, a), 0);
	cr_assert_lt(scs_source_read(sa, got, 4, 0), 0, "another file is at a.bin now");
	cr_assert_not_null(strstr(scs_err_msg(), "changed"), "%s", scs_err_msg());
	cr_assert_not_null(strstr(scs_err_msg(), a), "%s", scs_err_msg());
	cr_assert_lt(scs_source_fd(sa), 0);
	cr_assert_eq(scs_source_read(sb, got, 4, 0), SCS_OK, "%s", scs_err_msg());
	cr_assert_arr_eq(got, "BBBB", 4);
	scs_source_close(sa);
	scs_source_close(sb);
	scs_source_pool_free(pool);
	free(a);
	free(b);
	free(c);
	tmpdir_remove(dir);
}

/* 1,100 external data files (tests/e2e/gen_edge_models.py many_files), each
 * tool run with the descriptor limit at @limit (soft and hard). */
static void
expect_runs_under(const char *dir, const char *model, int limit)
{
	char *shrunk, *big, *text, name[64];

	snprintf(name, sizeof(name), "shrunk%d.onnx", limit);
	shrunk = path_in(dir, name);
	snprintf(name, sizeof(name), "big%d.onnx", limit);
	big = path_in(dir, name);
	cr_assert_eq(run(&text, "ulimit -n %d && '%s/scs4onnx-shrink' '%s' '%s' -n", limit, SCS_TOOLS_DIR, model, shrunk), 0,
	    "ulimit -n %d: %s", limit, text);
	free(text);
	expect_equivalent(model, shrunk, NULL);
	cr_assert_eq(run(&text, "ulimit -n %d && '%s/scs4onnx-big' '%s' '%s' -n --max-shard-size 8K --work '%s'", limit,
	    SCS_TOOLS_DIR, model, big, dir), 0, "ulimit -n %d: %s", limit, text);
	free(text);
	expect_equivalent(model, big, NULL);
	free(shrunk);
	free(big);
}

Test(fds, a_model_with_1100_external_data_files_shrinks_under_the_usual_limits)
{
	char *dir = tmpdir_new(), *model = path_in(dir, "many_files.onnx"), *text;

	cr_assert_eq(run(&text, "/usr/bin/python3 '%s/tests/e2e/gen_edge_models.py' many_files '%s'", SCS_TEST_SRC_DIR, dir),
	    0, "%s", text);
	free(text);
	cr_assert_eq(count_files(dir, "w_"), 1100);
	expect_runs_under(dir, model, 1024);
	expect_runs_under(dir, model, 256);
	free(model);
	tmpdir_remove(dir);
}
