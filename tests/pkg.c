/*
 * pkg.c: what the man and install suites share (see pkg.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "pkg.h"

#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

char *
text_of(const char *path)
{
	size_t len;
	uint8_t *bytes = read_all(path, &len);
	char *text;

	cr_assert_not_null(bytes, "%s: cannot read", path);
	if ((text = realloc(bytes, len + 1)) == NULL)
		abort();
	text[len] = '\0';
	return text;
}

void
words_add(words *w, const char *s, size_t len)
{
	char **grown;

	for (size_t i = 0; i < w->n; i++)
		if (strlen(w->items[i]) == len && memcmp(w->items[i], s, len) == 0)
			return;
	if ((grown = realloc(w->items, (w->n + 1) * sizeof(*grown))) == NULL)
		abort();
	w->items = grown;
	if ((w->items[w->n] = strndup(s, len)) == NULL)
		abort();
	w->n++;
}

int
words_has(const words *w, const char *s)
{
	for (size_t i = 0; i < w->n; i++)
		if (strcmp(w->items[i], s) == 0)
			return 1;
	return 0;
}

void
words_dispose(words *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->items[i]);
	free(w->items);
	w->items = NULL;
	w->n = 0;
}

static int
is_ident(int c)
{
	return isalnum(c) || c == '_';
}

void
words_long_options(words *out, const char *text)
{
	for (const char *p = text; (p = strstr(p, "--")) != NULL; p += 2) {
		size_t len = 2;

		if (p > text && (is_ident((unsigned char)p[-1]) || p[-1] == '-'))
			continue;
		if (!isalpha((unsigned char)p[2]))
			continue;
		while (is_ident((unsigned char)p[len]) || p[len] == '-')
			len++;
		words_add(out, p, len);
	}
}

void
words_short_options(words *out, const char *text)
{
	for (const char *p = text; (p = strchr(p, '-')) != NULL; p++) {
		size_t len = 1;

		if (p > text && (is_ident((unsigned char)p[-1]) || p[-1] == '-'))
			continue;
		while (len < 3 && isalpha((unsigned char)p[len]))
			len++;
		if (len == 1 || is_ident((unsigned char)p[len]) || p[len] == '-')
			continue;
		words_add(out, p, len);
	}
}

void
words_roff_to_text(char *text)
{
	char *w = text;

	for (const char *r = text; *r; ) {
		if (r[0] == '\\' && r[1] == '-') {
			*w++ = '-';
			r += 2;
		} else if (r[0] == '\\' && r[1] == 'f' && r[2]) {
			r += 3;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

int
words_in_text(const char *text, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = text; (p = strstr(p, word)) != NULL; p++)
		if ((p == text || !is_ident((unsigned char)p[-1])) && !is_ident((unsigned char)p[len]))
			return 1;
	return 0;
}

/* @text with its comments blanked, in place. */
static void
strip_comments(char *text)
{
	char *end;

	for (char *p = text; (p = strstr(p, "/*")) != NULL; p = end) {
		if ((end = strstr(p + 2, "*/")) == NULL)
			end = p + strlen(p);
		else
			end += 2;
		memset(p, ' ', (size_t)(end - p));
	}
}

void
public_functions(words *out, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	cr_assert_not_null(d, "%s: cannot open", dir);
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		char *path, *text;

		if (n < 3 || strcmp(e->d_name + n - 2, ".h") != 0)
			continue;
		path = path_in(dir, e->d_name);
		text = text_of(path);
		strip_comments(text);
		/* a declaration: "scs_name(" after a type, not a macro or a typedef'd pointer */
		for (char *p = text; (p = strstr(p, "scs_")) != NULL; p++) {
			size_t k = 0;

			if (p > text && is_ident((unsigned char)p[-1]))
				continue;
			while (is_ident((unsigned char)p[k]))
				k++;
			if (p[k] == '(')
				words_add(out, p, k);
		}
		free(text);
		free(path);
	}
	closedir(d);
}

void
expect_page_renders(const char *path)
{
	char *text;

	cr_expect_eq(run(&text, "{ MANWIDTH=80 man --warnings -l '%s' 2>&1 >/dev/null; }", path), 0, "man -l %s: %s", path,
	    text);
	cr_expect_str_empty(text, "man -l %s warns: %s", path, text);
	free(text);
	cr_expect_eq(run(&text, "groff -man -ww -z '%s'", path), 0, "groff %s: %s", path, text);
	cr_expect_str_empty(text, "groff -ww %s warns: %s", path, text);
	free(text);
	cr_expect_eq(run(&text, "MANWIDTH=80 man -l '%s' 2>/dev/null | wc -l", path), 0);
	cr_expect_gt(atoi(text), 20, "man -l %s renders %s lines", path, text);
	free(text);
}
