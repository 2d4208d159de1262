/*
 * test_docs.c: the documentation holds together. Every link of README.md,
 * every .md of docs/ and python/README.md to a file or a heading reaches it (a
 * heading by GitHub's anchor of its text, or an <a id="...">); every page of
 * docs/ is linked from README.md; README.md stays a page for users (at most
 * 320 lines, a shrink and its output on the first screen); .ci/run runs
 * exactly the test command of README.md's quick start.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pkg.h"
#include "support.h"

#define README SCS_TEST_SRC_DIR "/README.md"
#define README_MAX_LINES 320
#define FIRST_SCREEN_LINES 50

/* The pages whose links are checked, relative to the source tree: README.md,
 * python/README.md and every .md of docs/. */
static void
pages(words *out)
{
	DIR *d = opendir(SCS_TEST_SRC_DIR "/docs");
	struct dirent *e;
	char path[512];

	words_add(out, "README.md", strlen("README.md"));
	words_add(out, "python/README.md", strlen("python/README.md"));
	cr_assert_not_null(d, "no docs/ folder");
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (len > 3 && strcmp(e->d_name + len - 3, ".md") == 0) {
			snprintf(path, sizeof(path), "docs/%s", e->d_name);
			words_add(out, path, strlen(path));
		}
	}
	closedir(d);
}

/* A walk over the lines of a text, in place. */
typedef struct prose {
	char *next;       /* the rest of the text; NULL at the end */
	int fenced;       /* inside a ``` code block */
	int lineno;       /* of the line last returned, from 1 */
} prose;

/* The next line of @p outside fenced code blocks, NUL-terminated in place;
 * NULL at the end. */
static char *
prose_line(prose *p)
{
	while (p->next != NULL) {
		char *line = p->next;

		if ((p->next = strchr(line, '\n')) != NULL)
			*p->next++ = '\0';
		p->lineno++;
		if (strncmp(line, "```", 3) == 0)
			p->fenced = !p->fenced;
		else if (!p->fenced)
			return line;
	}
	return NULL;
}

/* GitHub's anchor of a heading's @len bytes of text at @s: lower case;
 * letters, digits, '-' and '_' kept, a space made '-', the rest dropped. */
static void
slug(char *out, size_t cap, const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len && n + 1 < cap; i++) {
		unsigned char c = (unsigned char)s[i];

		if (isalnum(c) || c == '-' || c == '_' || c >= 0x80)
			out[n++] = (char)tolower(c);
		else if (c == ' ')
			out[n++] = '-';
	}
	out[n] = '\0';
}

/* The anchors of the Markdown file at @path: its headings (outside code
 * blocks; a repeated one gets -1, -2, ...) and its <a id="..."> names. */
static void
anchors(words *out, const char *path)
{
	char *text = text_of(path), *line, name[256], numbered[300];
	prose walk = { .next = text };

	while ((line = prose_line(&walk)) != NULL) {
		const char *at = line;

		while (*at == '#')
			at++;
		if (at > line && at - line <= 6 && *at == ' ') {
			slug(name, sizeof(name), at + 1, strlen(at + 1));
			snprintf(numbered, sizeof(numbered), "%s", name);
			for (int k = 1; words_has(out, numbered); k++)
				snprintf(numbered, sizeof(numbered), "%s-%d", name, k);
			words_add(out, numbered, strlen(numbered));
		}
		for (at = line; (at = strstr(at, "<a id=\"")) != NULL; ) {
			at += strlen("<a id=\"");
			words_add(out, at, strcspn(at, "\""));
		}
	}
	free(text);
}

/* Criterion checks of one link target @target (up to ')') of @page, line @lineno:
 * its file exists, relative to the page's folder, and has the heading it names. */
static void
expect_link_resolves(const char *page, int lineno, const char *target, words *linked)
{
	char file[512], dir[512], path[1100], frag[256] = "";
	const char *hash = strchr(target, '#'), *slash = strrchr(page, '/');
	size_t flen = hash ? (size_t)(hash - target) : strlen(target);
	struct stat st;

	if (hash)
		snprintf(frag, sizeof(frag), "%s", hash + 1);
	snprintf(file, sizeof(file), "%.*s", (int)flen, target);
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - page) : 0, page);
	if (flen == 0)
		snprintf(path, sizeof(path), "%s/%s", SCS_TEST_SRC_DIR, page);
	else
		snprintf(path, sizeof(path), "%s/%s%s%s", SCS_TEST_SRC_DIR, dir, *dir ? "/" : "", file);
	if (stat(path, &st) != 0) {
		cr_expect_fail("%s:%d: link to %s: no such file", page, lineno, target);
	} else if (frag[0] != '\0' && !S_ISREG(st.st_mode)) {
		cr_expect_fail("%s:%d: link to %s: a heading of a folder", page, lineno, target);
	} else if (frag[0] != '\0') {
		words names = { 0 };

		anchors(&names, path);
		cr_expect(words_has(&names, frag), "%s:%d: link to %s: no such heading", page, lineno, target);
		words_dispose(&names);
	}
	if (linked != NULL && strncmp(file, "docs/", 5) == 0)
		words_add(linked, file, strlen(file));
}

/* Every link [text](target) of @page outside code blocks, checked; the
 * docs/ pages README.md links to are added to @linked (when not NULL). */
static int
check_links(const char *page, words *linked)
{
	char path[512], *text, *line;
	prose walk;
	int n = 0;

	snprintf(path, sizeof(path), "%s/%s", SCS_TEST_SRC_DIR, page);
	text = text_of(path);
	walk = (prose){ .next = text };
	while ((line = prose_line(&walk)) != NULL) {
		for (char *p = line; (p = strstr(p, "](")) != NULL; ) {
			char target[512];
			size_t len;

			p += 2;
			len = strcspn(p, ") ");
			if (p[len] != ')' || len == 0 || len >= sizeof(target))
				continue;
			snprintf(target, sizeof(target), "%.*s", (int)len, p);
			n++;
			if (strstr(target, "://") == NULL && strncmp(target, "mailto:", 7) != 0)
				expect_link_resolves(page, walk.lineno, target, linked);
		}
	}
	free(text);
	return n;
}

Test(docs, every_link_to_a_file_or_heading_resolves)
{
	words all = { 0 }, linked = { 0 };
	int n = 0;

	pages(&all);
	cr_assert_gt(all.n, 4, "only %zu pages", all.n);
	for (size_t i = 0; i < all.n; i++)
		n += check_links(all.items[i], strcmp(all.items[i], "README.md") == 0 ? &linked : NULL);
	cr_expect_gt(n, 20, "only %d links found", n);
	for (size_t i = 0; i < all.n; i++)
		if (strncmp(all.items[i], "docs/", 5) == 0)
			cr_expect(words_has(&linked, all.items[i]), "README.md does not link to %s", all.items[i]);
	words_dispose(&all);
	words_dispose(&linked);
}

Test(docs, the_readme_is_short_and_shows_a_shrink_on_its_first_screen)
{
	char *text = text_of(README), *example, *info;
	int lines = 0, line_of_example = 0;

	for (const char *p = text; *p; p++)
		lines += *p == '\n';
	cr_expect_leq(lines, README_MAX_LINES, "README.md has %d lines", lines);
	example = strstr(text, "\n$ scs4onnx-shrink ");
	cr_assert_not_null(example, "README.md shows no scs4onnx-shrink run");
	for (const char *p = text; p <= example; p++)
		line_of_example += *p == '\n';
	cr_expect_leq(line_of_example, FIRST_SCREEN_LINES, "the shrink is on line %d", line_of_example + 1);
	/* with its output: the summary's lines */
	info = strchr(example + 1, '\n');
	cr_assert_not_null(info);
	cr_expect(strncmp(info, "\nINFO: ", 7) == 0, "no output after the command: %.80s", info);
	cr_expect_not_null(strstr(info, "\nINFO: file bytes: "), "the example's output has no file bytes line");
	free(text);
}

/* The command of .ci/run: its last line, less "exec ". */
static void
ci_command(char *out, size_t cap)
{
	char *text = text_of(SCS_TEST_SRC_DIR "/.ci/run"), *last, *end;

	end = text + strlen(text);
	while (end > text && end[-1] == '\n')
		*--end = '\0';
	last = strrchr(text, '\n');
	last = last ? last + 1 : text;
	if (strncmp(last, "exec ", 5) == 0)
		last += 5;
	snprintf(out, cap, "%s", last);
	free(text);
}

Test(docs, ci_runs_the_readme_test_command)
{
	char *text = text_of(README), *block, *line, *end, ci[256], cmd[256] = "";

	ci_command(ci, sizeof(ci));
	block = strstr(text, "\n## Quick start\n");
	cr_assert_not_null(block, "README.md has no Quick start");
	block = strstr(block, "\n```\n");
	cr_assert_not_null(block, "README.md's Quick start has no commands");
	block += 5;
	end = strstr(block, "\n```\n");
	cr_assert_not_null(end);
	*end = '\0';
	/* the test command: the line running scripts/test.sh without options */
	for (line = block; line != NULL; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		size_t len = strcspn(line, "#\n");

		while (len > 0 && line[len - 1] == ' ')
			len--;
		if (strncmp(line, "scripts/test.sh", 15) == 0 && len == 15)
			snprintf(cmd, sizeof(cmd), "%.*s", (int)len, line);
	}
	cr_assert_str_neq(cmd, "", "README.md's Quick start names no test command");
	cr_expect_str_eq(ci, cmd, ".ci/run runs '%s', README.md's test command is '%s'", ci, cmd);
	free(text);
}

/* @text with every time ("0.00 s") written "T s", in place. */
static void
untimed(char *text)
{
	char *w = text;

	for (const char *r = text; *r;) {
		size_t n = strspn(r, "0123456789.");

		if (n && memchr(r, '.', n) && strncmp(r + n, " s", 2) == 0) {
			*w++ = 'T';
			r += n;
			continue;
		}
		if (n) {
			memmove(w, r, n);
			w += n;
			r += n;
			continue;
		}
		*w++ = *r++;
	}
	*w = '\0';
}

/*
 * The optimize summary README.md quotes (the block after its marker comment)
 * is what scs4onnx-optimize prints on that model today, times aside.
 */
Test(docs, the_readme_quotes_what_scs4onnx_optimize_prints, .init = scratch_setup, .fini = scratch_teardown)
{
	char *text = text_of(README), *block, *end, *out, *model = fixture("opt_identity.onnx");
	const char *cmd = "$ scs4onnx-optimize opt_identity.onnx out.onnx\n";

	block = strstr(text, "<!-- the optimize summary");
	cr_assert_not_null(block, "README.md has no optimize summary");
	block = strstr(block, cmd);
	cr_assert_not_null(block, "README.md's optimize summary does not start with '%.*s'", (int)strlen(cmd) - 1, cmd);
	block += strlen(cmd);
	end = strstr(block, "```");
	cr_assert_not_null(end);
	*end = '\0';
	cr_assert_eq(run(&out, "cd '%s' && '%s/scs4onnx-optimize' '%s' out.onnx 2>&1", scratch_dir, SCS_TOOLS_DIR, model),
	    0, "%s", out);
	untimed(block);
	untimed(out);
	cr_expect_str_eq(block, out, "README.md quotes:\n%s\nscs4onnx-optimize prints:\n%s", block, out);
	free(out);
	free(model);
	free(text);
}

/* docs/OPTIMIZER.md's pass table has a row for every pass of the table. */
Test(docs, the_optimizer_page_has_a_row_for_every_pass)
{
	char *text = text_of(SCS_TEST_SRC_DIR "/docs/OPTIMIZER.md");
	scs_optimize_pass_info info;

	for (size_t i = 0; scs_optimize_pass(i, &info); i++) {
		char row[128];

		snprintf(row, sizeof(row), "\n| `%s` |", info.name);
		cr_expect_not_null(strstr(text, row), "docs/OPTIMIZER.md has no row for %s", info.name);
	}
	free(text);
}
