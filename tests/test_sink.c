/*
 * test_sink.c: atomic outputs and the error message, on their own: what a
 * sink writes appears whole at commit or not at all, its errors are sticky,
 * and every message is one bounded line a terminal can show.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "sink.h"
#include "support.h"

static char *dir;

static void
make_dir(void)
{
	dir = tmpdir_new();
}

static void
drop_dir(void)
{
	tmpdir_remove(dir);
}

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

Test(sink, writes_copies_and_padding_appear_whole_at_commit, .init = make_dir, .fini = drop_dir)
{
	size_t big = (1u << 20) + 77;     /* over the write buffer: written straight through */
	uint8_t *want = calloc(1, 8192 + big + 10), *src = malloc(big);
	char *target = path_in(dir, "out.bin"), *input = path_in(dir, "in.bin");
	scs_sink *s;
	int fd;

	for (size_t i = 0; i < big; i++)
		src[i] = (uint8_t)(i * 31 + 7);
	write_all(input, src, big);
	memcpy(want, "head", 4);
	memcpy(want + 8192, src, big);
	memcpy(want + 8192 + big, src, 10);
	cr_assert_eq(scs_sink_open(&s, target), SCS_OK, "%s", scs_err_msg());
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
	cr_assert_eq(scs_sink_commit(&s, 1), SCS_OK, "%s", scs_err_msg());
	expect_file(target, want, 8192 + big + 10);
	cr_assert_eq(count_files(dir, "."), 2, "only . and .. besides the files: no temporaries");
	close(fd);
	free(want);
	free(src);
	free(target);
	free(input);
}

Test(sink, a_copy_past_the_end_of_its_input_is_a_sticky_error, .init = make_dir, .fini = drop_dir)
{
	char *target = path_in(dir, "out.bin"), *input = path_in(dir, "in.bin");
	scs_sink *s;
	int fd;

	write_all(target, "old", 3);
	write_all(input, "0123456789", 10);
	fd = open(input, O_RDONLY);
	cr_assert_eq(scs_sink_open(&s, target), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_sink_copy_fd(s, fd, 4, 100), SCS_ECORRUPT);
	cr_assert_not_null(strstr(scs_err_msg(), "input ended"), "%s", scs_err_msg());
	cr_assert_eq(scs_sink_status(s), SCS_ECORRUPT);
	cr_assert_eq(scs_sink_write(s, "more", 4), SCS_ECORRUPT, "errors are sticky");
	cr_assert_eq(scs_sink_commit(&s, 1), SCS_ECORRUPT);
	expect_file(target, "old", 3);
	cr_assert_eq(count_files(dir, "."), 2, "no temporaries left");
	close(fd);
	free(target);
	free(input);
}

Test(sink, a_parked_sink_takes_no_more_bytes, .init = make_dir, .fini = drop_dir)
{
	char *target = path_in(dir, "out.bin");
	scs_sink *s;

	cr_assert_eq(scs_sink_open(&s, target), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_sink_write(s, "abc", 3), SCS_OK);
	cr_assert_eq(scs_sink_park(s), SCS_OK);
	cr_assert_eq(scs_sink_write(s, "d", 1), SCS_EUSAGE);
	cr_assert_not_null(strstr(scs_err_msg(), "parked"), "%s", scs_err_msg());
	scs_sink_abort(s);
	cr_assert(!file_exists(target));
	cr_assert_eq(count_files(dir, "."), 2, "abort leaves no temporary");
	free(target);
}

Test(sink, several_targets_commit_together_or_not_at_all, .init = make_dir, .fini = drop_dir)
{
	char *a = path_in(dir, "a.onnx"), *b = path_in(dir, "a.onnx.data"), *gone = path_in(dir, "gone"),
	     *c = path_in(gone, "c.onnx");
	scs_sink *pair[2], *three[3];

	write_all(a, "old a", 5);
	cr_assert_eq(scs_sink_open(&pair[0], a), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_sink_open(&pair[1], b), SCS_OK, "%s", scs_err_msg());
	scs_sink_write(pair[0], "new a", 5);
	scs_sink_write(pair[1], "new b", 5);
	cr_assert_eq(scs_sink_commit(pair, 2), SCS_OK, "%s", scs_err_msg());
	expect_file(a, "new a", 5);
	expect_file(b, "new b", 5);

	/* the third target's folder vanishes before the commit: nothing moves */
	cr_assert_eq(mkdir(gone, 0777), 0);
	cr_assert_eq(scs_sink_open(&three[0], a), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_sink_open(&three[1], b), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_sink_open(&three[2], c), SCS_OK, "%s", scs_err_msg());
	for (int i = 0; i < 3; i++)
		scs_sink_write(three[i], "newer", 5);
	cr_assert_eq(run(NULL, "rm -rf '%s'", gone), 0);
	cr_assert_lt(scs_sink_commit(three, 3), 0);
	cr_assert_not_null(strstr(scs_err_msg(), "c.onnx"), "%s", scs_err_msg());
	expect_file(a, "new a", 5);
	expect_file(b, "new b", 5);
	cr_assert_eq(count_files(dir, "."), 2, "no temporaries or set-aside files left");
	free(a);
	free(b);
	free(c);
	free(gone);
}

Test(sink, a_target_in_a_missing_folder_is_refused_at_open, .init = make_dir, .fini = drop_dir)
{
	char *target = path_in(dir, "missing/out.onnx");
	scs_sink *s;

	cr_assert_lt(scs_sink_open(&s, target), 0);
	cr_assert_null(s);
	cr_assert_not_null(strstr(scs_err_msg(), "out.onnx"), "%s", scs_err_msg());
	cr_assert_not_null(strstr(scs_err_msg(), "No such file"), "%s", scs_err_msg());
	free(target);
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
