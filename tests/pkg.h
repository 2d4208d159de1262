/*
 * pkg.h: what the man and install suites share: sets of words (option and
 * function names), the long options of a text, roff to plain text, the
 * functions public headers declare, and rendering a man page.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_TEST_PKG_H
#define SCS_TEST_PKG_H

#include <stddef.h>

/* The whole (small) file at @path as a NUL-terminated string (malloc'd);
 * fails the test when it cannot be read. */
char *text_of(const char *path);

/* A set of strings (malloc'd), in the order first added. */
typedef struct words {
	char **items;
	size_t n;
} words;

/* Add the @len bytes at @s unless already there. */
void words_add(words *w, const char *s, size_t len);
int words_has(const words *w, const char *s);
void words_dispose(words *w);

/* Every "--name" of @text ("--mode", "--non_verbose"; not "--" alone). */
void words_long_options(words *out, const char *text);

/* Every short option of @text: a "-" and one or two letters standing alone
 * ("-m", "-fo"; not "--mode", "non-scalar" or "-1"). */
void words_short_options(words *out, const char *text);

/* In place: roff's "\-" becomes "-", font escapes (\fB, \fI, \fR, \fP) go. */
void words_roff_to_text(char *text);

/* 1 when @word stands in @text as a whole identifier. */
int words_in_text(const char *text, const char *word);

/* The functions the headers (*.h) in @dir declare, comments left out. */
void public_functions(words *out, const char *dir);

/* Criterion checks: man -l and groff render the page at @path with no
 * warning and with text in it. */
void expect_page_renders(const char *path);

#endif
