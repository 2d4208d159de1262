/*
 * test_sink.c: atomic outputs and the error message, on their own: what a
 * commit writes appears whole or not at all, with nameless temporaries (or
 * named ones the signal handler removes), the model switched last and the
 * data files it does not use removed; a folder appears whole; errors are
 * sticky; and every message is one bounded line a terminal can show.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "util/err.h"
#include "io/commit.h"
#include "io/sink.h"
#include "support.h"

/* @path holds exactly @want (@len bytes). */
static void
expect_file(const char *path, const void *want, size_t len)
{
	size_t got_len;
	uint8_t *got = read_all(path, &got_len);

	cr_assert_not_null(got, "%s is missing", path);
	cr_assert_eq(got_len, len, "%s: %zu bytes, %zu expected", path, got_len, len);
	cr_assert_arr_eq(got, want, len);
	free(got);
}

/* Named temporaries (as where the filesystem has no O_TMPFILE) for the tests that ask. */
static void
make_dir_named(void)
{
	scratch_dir = tmpdir_new();
	scs_commit_named_temporaries_for_tests(1);
}

static void
drop_dir_named(void)
{
	scs_commit_named_temporaries_for_tests(0);
	tmpdir_remove(scratch_dir);
}

/* Entries of @dir besides . and .. */
static int
entries(const char *d)
{
	return count_files(d, "") - 2;
}

/* Write, copy and pad into one file, committed. */
static void
writes_copies_and_padding(void)
{
	size_t big = (1u << 20) + 77;     /* over the write buffer: written straight through */
	uint8_t *want = calloc(1, 8192 + big + 10), *src = malloc(big);
	char *target = path_in(scratch_dir, "out.bin"), *input = path_in(scratch_dir, "in.bin");
	scs_commit *c;
	scs_sink *s;
	int fd;

	for (size_t i = 0; i < big; i++)
		src[i] = (uint8_t)(i * 31 + 7);
	write_all(input, src, big);
	memcpy(want, "head", 4);
	memcpy(want + 8192, src, big);
	memcpy(want + 8192 + big, src, 10);
	cr_assert_eq(scs_commit_files(&c, scratch_dir), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_commit_open(&s, c, "out.bin", SCS_SINK_FILE), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_sink_write(s, "head", 4), SCS_OK);
	cr_assert_eq(scs_sink_pad_to(s, 4096), SCS_OK);
	cr_assert_eq(scs_sink_pos(s), 4096);
	cr_assert_eq(scs_sink_pad_to(s, 8192), SCS_OK);
	cr_assert_eq(scs_sink_write(s, src, big), SCS_OK);
	fd = open(input, O_RDONLY);
	cr_assert_eq(scs_sink_copy_fd(s, fd, 0, 10), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_sink_pos(s), 8192 + big + 10);
	cr_assert_str_eq(scs_sink_target(s), target);
	cr_assert(!file_exists(target), "nothing at the target before the commit");
	cr_assert_eq(scs_commit_run(c), SCS_OK, "%s", scs_err_msg());
	expect_file(target, want, 8192 + big + 10);
	cr_assert_eq(count_files(scratch_dir, "."), 2, "only . and .. besides the files: no temporaries");
	close(fd);
	free(want);
	free(src);
	free(target);
	free(input);
}

Test(sink, writes_copies_and_padding_appear_whole_at_commit, .init = scratch_setup, .fini = scratch_teardown)
{
	writes_copies_and_padding();
}

Test(sink, named_temporaries_appear_whole_at_commit_too, .init = make_dir_named, .fini = drop_dir_named)
{
	writes_copies_and_padding();
}

Test(sink, a_temporary_has_no_name_until_the_commit, .init = scratch_setup, .fini = scratch_teardown)
{
	scs_commit *c;
	scs_sink *s;

	cr_assert_eq(scs_commit_files(&c, scratch_dir), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_commit_open(&s, c, "out.onnx", SCS_SINK_MODEL), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_sink_write(s, "abc", 3), SCS_OK);
	cr_assert_eq(scs_sink_park(s), SCS_OK);
	cr_assert_eq(entries(scratch_dir), 0, "a temporary being written has a name: nothing would remove it after a kill");
	scs_commit_abort(c);
}

Test(sink, a_copy_past_the_end_of_its_input_is_a_sticky_error, .init = make_dir_named, .fini = drop_dir_named)
{
	char *target = path_in(scratch_dir, "out.bin"), *input = path_in(scratch_dir, "in.bin");
	scs_commit *c;
	scs_sink *s;
	int fd;

	write_all(target, "old", 3);
	write_all(input, "0123456789", 10);
	fd = open(input, O_RDONLY);
	cr_assert_eq(scs_commit_files(&c, scratch_dir), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_commit_open(&s, c, "out.bin", SCS_SINK_FILE), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_sink_copy_fd(s, fd, 4, 100), SCS_ECORRUPT);
	cr_assert_not_null(strstr(scs_err_msg(), "input ended"), "%s", scs_err_msg());
	cr_assert_eq(scs_sink_status(s), SCS_ECORRUPT);
	cr_assert_eq(scs_sink_write(s, "more", 4), SCS_ECORRUPT, "errors are sticky");
	cr_assert_eq(scs_commit_run(c), SCS_ECORRUPT);
	expect_file(target, "old", 3);
	cr_assert_eq(count_files(scratch_dir, "."), 2, "no temporaries left");
	close(fd);
	free(target);
	free(input);
}

Test(sink, a_parked_sink_takes_no_more_bytes, .init = scratch_setup, .fini = scratch_teardown)
{
	char *target = path_in(scratch_dir, "out.bin");
	scs_commit *c;
	scs_sink *s;

	cr_assert_eq(scs_commit_files(&c, scratch_dir), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_commit_open(&s, c, "out.bin", SCS_SINK_FILE), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_sink_write(s, "abc", 3), SCS_OK);
	cr_assert_eq(scs_sink_park(s), SCS_OK);
	cr_assert_eq(scs_sink_write(s, "d", 1), SCS_EUSAGE);
	cr_assert_not_null(strstr(scs_err_msg(), "parked"), "%s", scs_err_msg());
	scs_commit_abort(c);
	cr_assert(!file_exists(target));
	cr_assert_eq(count_files(scratch_dir, "."), 2, "abort leaves no temporary");
	free(target);
}

/* A resting sink (its buffer released, scs_sink_rest()) takes writes, kernel copies, padding and take-backs
 * again, as the spill's numbered files do when the next payload goes back to one of them. */
Test(sink, a_resting_sink_writes_on_as_before, .init = scratch_setup, .fini = scratch_teardown)
{
	char *target = path_in(scratch_dir, "out.bin"), *src = path_in(scratch_dir, "src.bin");
	uint8_t want[12288], input[8192];
	scs_commit *c;
	scs_sink *s;
	int fd;

	for (size_t i = 0; i < sizeof(input); i++)
		input[i] = (uint8_t)(i * 7 + 3);
	fd = open(src, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, input, sizeof(input)), (ssize_t)sizeof(input));
	close(fd);
	cr_assert_eq(scs_commit_files(&c, scratch_dir), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_commit_open(&s, c, "out.bin", SCS_SINK_FILE), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_sink_write(s, "abcdef", 6), SCS_OK);
	cr_assert_eq(scs_sink_rest(s), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_sink_rest(s), SCS_OK, "%s", scs_err_msg());    /* twice: the same */
	cr_assert_eq(scs_sink_pos(s), 6);
	cr_assert_eq(scs_sink_write(s, "ghij", 4), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_sink_rest(s), SCS_OK);
	cr_assert_eq(scs_sink_truncate(s, 8), SCS_OK, "%s", scs_err_msg());    /* "ij" taken back while resting */
	cr_assert_eq(scs_sink_pad_to(s, 4096), SCS_OK, "%s", scs_err_msg());
	fd = open(src, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(scs_sink_rest(s), SCS_OK);
	cr_assert_eq(scs_sink_copy_fd(s, fd, 0, sizeof(input)), SCS_OK, "%s", scs_err_msg());
	close(fd);
	cr_assert_eq(scs_sink_rest(s), SCS_OK);
	cr_assert_eq(scs_sink_park(s), SCS_OK);
	memset(want, 0, sizeof(want));
	memcpy(want, "abcdefgh", 8);
	memcpy(want + 4096, input, sizeof(input));
	cr_assert_eq(scs_commit_run(c), SCS_OK, "%s", scs_err_msg());
	expect_file(target, want, sizeof(want));
	free(target);
	free(src);
}

/*
 * The drop behind the writes (see sink.c): the sink's buffer of
 * SCS_TEST_SINK_BUF bytes and steps of SCS_TEST_WRITEBACK_STEP, so that a
 * few MiB take many steps. Pieces of every kind and odd length: small
 * writes, writes over the buffer, kernel copies at odd offsets, padding.
 */
#define BEHIND_SRC_LEN ((size_t)5 << 20)
#define TEST_STEP 262144
#define TEST_BUF 65536

static void
behind_setup(void)
{
	scratch_setup();
	setenv("SCS_TEST_WRITEBACK_STEP", "262144", 1);
	setenv("SCS_TEST_SINK_BUF", "65536", 1);
}

static void
behind_teardown(void)
{
	unsetenv("SCS_TEST_WRITEBACK_STEP");
	unsetenv("SCS_TEST_SINK_BUF");
	scratch_teardown();
}

/*
 * Write the pieces into out.bin of one commit; *want gets the bytes the
 * file must hold (*len of them). The commit's result.
 */
static int
behind_pieces(uint8_t **want, size_t *len)
{
	size_t cap = 3 * BEHIND_SRC_LEN, n = 0;
	uint8_t *w = calloc(1, cap), *src = malloc(BEHIND_SRC_LEN);
	char *input = path_in(scratch_dir, "in.bin");
	scs_commit *c;
	scs_sink *s;
	int fd, rc;

	for (size_t i = 0; i < BEHIND_SRC_LEN; i++)
		src[i] = (uint8_t)(i * 131 + (i >> 13));
	write_all(input, src, BEHIND_SRC_LEN);
	fd = open(input, O_RDONLY);
	cr_assert_eq(scs_commit_files(&c, scratch_dir), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_commit_open(&s, c, "out.bin", SCS_SINK_DATA), SCS_OK, "%s", scs_err_msg());
	for (size_t k = 0; k < 300; k++) {    /* small writes */
		scs_sink_write(s, src + k * 97, 97 + k % 5);
		memcpy(w + n, src + k * 97, 97 + k % 5);
		n += 97 + k % 5;
	}
	/* a kernel copy and padding: the file is at an odd offset ... */
	scs_sink_copy_fd(s, fd, 1001, (1u << 20) + 4099);
	memcpy(w + n, src + 1001, (1u << 20) + 4099);
	n += (1u << 20) + 4099;
	scs_sink_pad_to(s, n + 70000);
	n += 70000;
	scs_sink_write(s, src + 3, (3u << 20) + 77);    /* ... when this write goes over every buffer and step */
	memcpy(w + n, src + 3, (3u << 20) + 77);
	n += (3u << 20) + 77;
	scs_sink_copy_fd(s, fd, 5, 3);
	memcpy(w + n, src + 5, 3);
	n += 3;
	scs_sink_write(s, src + 11, 200000);
	memcpy(w + n, src + 11, 200000);
	n += 200000;
	if (scs_sink_status(s) == SCS_OK)
		cr_assert_eq(scs_sink_pos(s), n);
	rc = scs_commit_run(c);
	close(fd);
	free(src);
	free(input);
	*want = w;
	*len = n;
	return rc;
}

/* Pages of @path in the page cache. */
static size_t
resident_pages(const char *path)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)file_size(path), n = (len + (size_t)page - 1) / (size_t)page, count = 0;
	unsigned char *vec = malloc(n ? n : 1);
	int fd = open(path, O_RDONLY);
	void *map;

	cr_assert_geq(fd, 0);
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	cr_assert_neq(map, MAP_FAILED);
	cr_assert_eq(mincore(map, len, vec), 0);
	for (size_t i = 0; i < n; i++)
		count += vec[i] & 1;
	munmap(map, len);
	close(fd);
	free(vec);
	return count;
}

Test(sink, a_large_output_leaves_only_its_last_steps_in_the_cache_and_holds_every_byte, .init = behind_setup,
    .fini = behind_teardown)
{
	char *target = path_in(scratch_dir, "out.bin");
	uint64_t copied = scs_sink_kernel_copied() + scs_sink_copied_through();
	long page = sysconf(_SC_PAGESIZE);
	struct statfs fs;
	uint8_t *want;
	size_t len, resident;

	cr_assert_eq(behind_pieces(&want, &len), SCS_OK, "%s", scs_err_msg());
	/* before anything reads it back: the pages behind the last steps were dropped */
	resident = resident_pages(target);
	cr_assert_eq(statfs(scratch_dir, &fs), 0);
	if (fs.f_type != 0x01021994)    /* tmpfs: its pages are the file */
		cr_assert_leq(resident * (size_t)page, 3 * TEST_STEP + TEST_BUF,
		    "%zu of the file's %zu bytes in the page cache", resident * (size_t)page, len);
	else
		cr_log_warn("sink: %s is tmpfs: its pages cannot be dropped", scratch_dir);
	cr_assert_gt(len, 12 * TEST_STEP, "a file of %zu bytes takes many steps", len);
	expect_file(target, want, len);
	cr_assert_eq(count_files(scratch_dir, "."), 2, "only . and .. besides the files: no temporaries");
	/* both copies counted as copies, by the kernel or through the buffer */
	cr_assert_eq(scs_sink_kernel_copied() + scs_sink_copied_through() - copied, (1u << 20) + 4099 + 3);
	free(want);
	free(target);
}

/* One commit of model @model (bytes @m) with data file @data (bytes @d; NULL: inline) in @dir. */
static int
commit_pair(const char *model, const char *m, const char *data, const char *d)
{
	scs_commit *c;
	scs_sink *s;

	cr_assert_eq(scs_commit_files(&c, scratch_dir), SCS_OK, "%s", scs_err_msg());
	if (data) {
		cr_assert_eq(scs_commit_open(&s, c, data, SCS_SINK_DATA), SCS_OK, "%s", scs_err_msg());
		scs_sink_write(s, d, strlen(d));
	}
	cr_assert_eq(scs_commit_open(&s, c, model, SCS_SINK_MODEL), SCS_OK, "%s", scs_err_msg());
	scs_sink_write(s, m, strlen(m));
	return scs_commit_run(c);
}

#define DATA_A "a.onnx.0123456789abcdef.data"
#define DATA_B "a.onnx.fedcba9876543210.data"

Test(sink, the_model_is_switched_last_and_unused_data_files_of_its_name_go, .init = scratch_setup, .fini = scratch_teardown)
{
	char *a = path_in(scratch_dir, "a.onnx"), *da = path_in(scratch_dir, DATA_A), *db = path_in(scratch_dir, DATA_B),
	     *legacy = path_in(scratch_dir, "a.onnx.data"), *other = path_in(scratch_dir, "b.onnx.0123456789abcdef.data");

	/* what an earlier version wrote, and a data file of another model */
	write_all(a, "old a", 5);
	write_all(legacy, "old data", 8);
	write_all(other, "b's", 3);
	cr_assert_eq(commit_pair("a.onnx", "new a", DATA_A, "data A"), SCS_OK, "%s", scs_err_msg());
	expect_file(a, "new a", 5);
	expect_file(da, "data A", 6);
	cr_assert(!file_exists(legacy), "the old model's data file stays");
	expect_file(other, "b's", 3);
	/* other contents, other name; the same contents, the same name */
	cr_assert_eq(commit_pair("a.onnx", "newer a", DATA_B, "data B"), SCS_OK, "%s", scs_err_msg());
	expect_file(a, "newer a", 7);
	expect_file(db, "data B", 6);
	cr_assert(!file_exists(da), "the replaced model's data file stays");
	cr_assert_eq(commit_pair("a.onnx", "newest a", DATA_B, "data B"), SCS_OK, "%s", scs_err_msg());
	expect_file(db, "data B", 6);
	/* an inline model leaves no data file of its name */
	cr_assert_eq(commit_pair("a.onnx", "inline a", NULL, NULL), SCS_OK, "%s", scs_err_msg());
	expect_file(a, "inline a", 8);
	cr_assert_eq(entries(scratch_dir), 2, "a.onnx and b's data file, nothing else");
	free(a);
	free(da);
	free(db);
	free(legacy);
	free(other);
}

Test(sink, a_failed_switch_leaves_the_old_pair_and_no_new_file, .init = scratch_setup, .fini = scratch_teardown)
{
	char *a = path_in(scratch_dir, "a.onnx"), *da = path_in(scratch_dir, DATA_A), *npy = path_in(scratch_dir, "x.npy");
	scs_commit *c;
	scs_sink *s;

	cr_assert_eq(commit_pair("a.onnx", "old a", DATA_A, "data A"), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_commit_files(&c, scratch_dir), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_commit_open(&s, c, "x.npy", SCS_SINK_FILE), SCS_OK, "%s", scs_err_msg());
	scs_sink_write(s, "npy", 3);
	cr_assert_eq(scs_commit_open(&s, c, DATA_B, SCS_SINK_DATA), SCS_OK, "%s", scs_err_msg());
	scs_sink_write(s, "data B", 6);
	cr_assert_eq(scs_commit_open(&s, c, "a.onnx", SCS_SINK_MODEL), SCS_OK, "%s", scs_err_msg());
	scs_sink_write(s, "new a", 5);
	/* the model's name turns into a folder with something in it: the last rename must fail */
	cr_assert_eq(unlink(a), 0);
	cr_assert_eq(mkdir(a, 0777), 0);
	write_all(da, "data A", 6);
	{
		char *inside = path_in(a, "f");

		write_all(inside, "f", 1);
		cr_assert_lt(scs_commit_run(c), 0);
		cr_assert_not_null(strstr(scs_err_msg(), "a.onnx"), "%s", scs_err_msg());
		cr_assert_eq(unlink(inside), 0);
		free(inside);
	}
	cr_assert_eq(rmdir(a), 0);
	expect_file(da, "data A", 6);
	cr_assert(!file_exists(npy), "a new file of a failed commit stays");
	cr_assert_eq(entries(scratch_dir), 1, "only the old data file: no temporaries, no new data file");
	free(a);
	free(da);
	free(npy);
}

Test(sink, leftovers_of_killed_runs_go_and_live_ones_stay, .init = make_dir_named, .fini = drop_dir_named)
{
	char *dead = path_in(scratch_dir, ".a.onnx.k1ll3d.scs-tmp"), *live = path_in(scratch_dir, ".a.onnx.al1ve0.scs-tmp"),
	     *orphan = path_in(scratch_dir, DATA_B), *unrelated = path_in(scratch_dir, ".b.onnx.k1ll3d.scs-tmp");
	int fd;

	write_all(dead, "x", 1);
	write_all(live, "x", 1);
	write_all(orphan, "x", 1);
	write_all(unrelated, "x", 1);
	/* a writer that lives holds the lock of its temporary */
	fd = open(live, O_RDONLY);
	cr_assert_eq(flock(fd, LOCK_EX), 0);
	cr_assert_eq(commit_pair("a.onnx", "new a", DATA_A, "data A"), SCS_OK, "%s", scs_err_msg());
	cr_assert(!file_exists(dead), "a killed run's temporary stays");
	cr_assert(!file_exists(orphan), "a killed run's data file stays");
	cr_assert(file_exists(live), "a live run's temporary was removed");
	cr_assert(file_exists(unrelated), "another output's temporary was removed");
	close(fd);
	free(dead);
	free(live);
	free(orphan);
	free(unrelated);
}

Test(sink, the_signal_handler_removes_every_named_temporary, .init = make_dir_named, .fini = drop_dir_named)
{
	scs_commit *c;
	scs_sink *s;
	char name[32];

	/* far more than a fixed table would hold */
	cr_assert_eq(scs_commit_files(&c, scratch_dir), SCS_OK, "%s", scs_err_msg());
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "f%03d.npy", i);
		cr_assert_eq(scs_commit_open(&s, c, name, SCS_SINK_FILE), SCS_OK, "%s", scs_err_msg());
	}
	cr_assert_eq(count_files(scratch_dir, ".f"), 300);
	scs_temps_remove_all();
	cr_assert_eq(entries(scratch_dir), 0, "%d temporaries left", entries(scratch_dir));
	scs_commit_abort(c);
}

/* A folder commit of files "one" and "two" for @target. */
static int
commit_folder(const char *target)
{
	scs_commit *c;
	scs_sink *s;
	int rc;

	if ((rc = scs_commit_folder(&c, target)) < 0)
		return rc;
	cr_assert_eq(scs_commit_open(&s, c, "one", SCS_SINK_FILE), SCS_OK, "%s", scs_err_msg());
	scs_sink_write(s, "1", 1);
	cr_assert_eq(scs_commit_open(&s, c, "two", SCS_SINK_FILE), SCS_OK, "%s", scs_err_msg());
	scs_sink_write(s, "2", 1);
	cr_assert(!file_exists(target) || entries(target) == 0, "the folder filled before the commit");
	return scs_commit_run(c);
}

static void
folder_cases(void)
{
	char *target = path_in(scratch_dir, "set"), *one = path_in(target, "one"), *two = path_in(target, "two"),
	     *stale = path_in(scratch_dir, ".set.k1ll3d.scs-dir"), *stale_file = path_in(stale, "one");

	/* a missing folder appears whole, with what a killed commit left removed */
	cr_assert_eq(mkdir(stale, 0777), 0);
	write_all(stale_file, "x", 1);
	cr_assert_eq(commit_folder(target), SCS_OK, "%s", scs_err_msg());
	expect_file(one, "1", 1);
	expect_file(two, "2", 1);
	cr_assert_eq(entries(scratch_dir), 1, "only the new folder is left beside it");
	/* a folder with files in it is refused at once */
	cr_assert_eq(commit_folder(target), SCS_EUSAGE);
	cr_assert_not_null(strstr(scs_err_msg(), "not empty"), "%s", scs_err_msg());
	/* an empty folder is replaced */
	cr_assert_eq(run(NULL, "rm -rf '%s' && mkdir '%s'", target, target), 0);
	cr_assert_eq(commit_folder(target), SCS_OK, "%s", scs_err_msg());
	expect_file(one, "1", 1);
	cr_assert_eq(entries(scratch_dir), 1, "no temporaries beside it");
	free(target);
	free(one);
	free(two);
	free(stale);
	free(stale_file);
}

Test(sink, a_folder_appears_whole, .init = scratch_setup, .fini = scratch_teardown)
{
	folder_cases();
}

Test(sink, a_folder_of_named_temporaries_appears_whole, .init = make_dir_named, .fini = drop_dir_named)
{
	folder_cases();
}

Test(sink, a_folder_that_fills_before_the_commit_is_left_alone, .init = scratch_setup, .fini = scratch_teardown)
{
	char *target = path_in(scratch_dir, "set"), *theirs = path_in(target, "theirs");
	scs_commit *c;
	scs_sink *s;

	cr_assert_eq(scs_commit_folder(&c, target), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_commit_open(&s, c, "one", SCS_SINK_FILE), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(mkdir(target, 0777), 0);
	write_all(theirs, "t", 1);
	cr_assert_eq(scs_commit_run(c), SCS_EUSAGE);
	cr_assert_not_null(strstr(scs_err_msg(), "not empty"), "%s", scs_err_msg());
	expect_file(theirs, "t", 1);
	cr_assert_eq(entries(target), 1);
	cr_assert_eq(entries(scratch_dir), 1, "no hidden folder left beside it");
	free(target);
	free(theirs);
}

Test(sink, a_target_in_a_missing_folder_is_refused, .init = scratch_setup, .fini = scratch_teardown)
{
	char *missing = path_in(scratch_dir, "missing"), *deeper = path_in(scratch_dir, "missing/set");
	scs_commit *c;

	cr_assert_lt(scs_commit_files(&c, missing), 0);
	cr_assert_null(c);
	cr_assert_not_null(strstr(scs_err_msg(), "missing"), "%s", scs_err_msg());
	cr_assert_not_null(strstr(scs_err_msg(), "No such file"), "%s", scs_err_msg());
	cr_assert_lt(scs_commit_folder(&c, deeper), 0);
	cr_assert_not_null(strstr(scs_err_msg(), "No such file"), "%s", scs_err_msg());
	free(missing);
	free(deeper);
}

Test(sink, data_file_names_follow_the_rule)
{
	char *name = scs_sink_data_name("m.onnx", "0123456789abcdef");

	cr_assert_str_eq(name, "m.onnx.0123456789abcdef.data");
	cr_assert(scs_sink_is_data_of("m.onnx", name));
	cr_assert(scs_sink_is_data_of("m.onnx", "m.onnx.data"), "what earlier versions wrote");
	cr_assert_not(scs_sink_is_data_of("m.onnx", "m.onnx.0123456789ABCDEF.data"));
	cr_assert_not(scs_sink_is_data_of("m.onnx", "m.onnx.0123.data"));
	cr_assert_not(scs_sink_is_data_of("m.onnx", "m2.onnx.0123456789abcdef.data"));
	cr_assert_not(scs_sink_is_data_of("m.onnx", "m.onnx"));
	cr_assert_not(scs_sink_is_data_of("m.onnx", "m.onnx.data.bak"));
	free(name);
}

Test(sink, numbered_data_file_names_sort_in_order_and_say_how_many)
{
	char *first = scs_sink_data_part_name("m.onnx", "0123456789abcdef", 0, 4),
	     *last = scs_sink_data_part_name("m.onnx", "0123456789abcdef", 3, 4),
	     *wide = scs_sink_data_part_name("m.onnx", "0123456789abcdef", 9, 123456);

	cr_assert_str_eq(first, "m.onnx.0123456789abcdef-00001-of-00004.data");
	cr_assert_str_eq(last, "m.onnx.0123456789abcdef-00004-of-00004.data");
	cr_assert_str_eq(wide, "m.onnx.0123456789abcdef-000010-of-123456.data", "one width in every name of a set");
	cr_assert(scs_sink_is_data_of("m.onnx", first));
	cr_assert(scs_sink_is_data_of("m.onnx", last));
	cr_assert(scs_sink_is_data_of("m.onnx", wide));
	/* another model's, another shape of number, or not ours at all: left alone */
	cr_assert_not(scs_sink_is_data_of("m2.onnx", first));
	cr_assert_not(scs_sink_is_data_of("m.onnx", "m.onnx.0123456789abcdef-0001-of-0004.data"));
	cr_assert_not(scs_sink_is_data_of("m.onnx", "m.onnx.0123456789abcdef-00001-of-000004.data"));
	cr_assert_not(scs_sink_is_data_of("m.onnx", "m.onnx.0123456789abcdef-00005-of-00004.data"));
	cr_assert_not(scs_sink_is_data_of("m.onnx", "m.onnx.0123456789abcdef-00000-of-00004.data"));
	cr_assert_not(scs_sink_is_data_of("m.onnx", "m.onnx.0123456789abcdef-00001-of-00004.data.bak"));
	cr_assert_not(scs_sink_is_data_of("m.onnx", "m.onnx.0123456789abcdef-0000a-of-00004.data"));
	cr_assert_not(scs_sink_is_data_of("m.onnx", "m.onnx.0123456789abcdef-00001-of-00004"));
	cr_assert_not(scs_sink_is_data_of("m.onnx", "m.onnx.0123456789abcdef-00001.data"));
	cr_assert_not(scs_sink_is_data_of("m.onnx", "m.onnx.0123456789abcdeg-00001-of-00004.data"));
	free(first);
	free(last);
	free(wide);
}

Test(err, messages_are_one_bounded_line_of_printable_bytes)
{
	char name[2048];

	cr_assert_eq(scs_err_set(SCS_ECORRUPT, "tensor '%s': bad", "a\nb\tc\x1b[31m\x7f"), SCS_ECORRUPT);
	cr_assert_str_eq(scs_err_msg(), "tensor 'a?b?c?[31m?': bad");
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	scs_err_set(SCS_EIO, "%s", name);
	cr_assert_lt(strlen(scs_err_msg()), sizeof(name), "a long name is cut");
	cr_assert_gt(strlen(scs_err_msg()), 500);
}

Test(err, errno_and_wrap_compose_outermost_first)
{
	cr_assert_eq(scs_err_errno(ENOENT, "%s: cannot open", "m.onnx"), SCS_EIO);
	cr_assert_str_eq(scs_err_msg(), "m.onnx: cannot open: No such file or directory");
	cr_assert_eq(scs_err_errno(ENOMEM, "buffers"), SCS_ENOMEM);
	cr_assert_eq(scs_err_wrap(SCS_ECORRUPT, "offset %d", 12), SCS_ECORRUPT);
	cr_assert_str_eq(scs_err_msg(), "offset 12: buffers: Cannot allocate memory");
	scs_err_clear();
	cr_assert_str_eq(scs_err_msg(), "");
	cr_assert_eq(scs_err_wrap(SCS_EIO, "only %s", "this"), SCS_EIO);
	cr_assert_str_eq(scs_err_msg(), "only this", "wrapping nothing leaves no dangling colon");
}

Test(err, every_code_has_a_name)
{
	static const int codes[] = { SCS_OK, SCS_DONE, SCS_ENOMEM, SCS_EIO, SCS_ECORRUPT, SCS_ENOTFOUND,
		SCS_EUNSUPPORTED, SCS_ERANGE, SCS_EUSAGE };

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		cr_assert_neq(strcmp(scs_err_name(codes[i]), "unknown error"), 0, "code %d", codes[i]);
		for (size_t j = 0; j < i; j++)
			cr_assert_neq(strcmp(scs_err_name(codes[i]), scs_err_name(codes[j])), 0);
	}
	cr_assert_str_eq(scs_err_name(-99), "unknown error");
}
