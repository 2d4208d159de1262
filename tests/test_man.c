/*
 * test_man.c: the man pages (man/PAGE.in, made into build/man by meson). Each
 * tool's page lists exactly the long and short options its --help lists, so
 * the two cannot drift (the pages, not the README, are where every option is
 * described); every page renders without a warning from man or groff;
 * the library page names every function of the public headers; the
 * version meson's project() states is the one the tools and pages print.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "pkg.h"

#define MAN_DIR SCS_TOOLS_DIR "/../man"

static const char *const tools[] = { "scs4onnx-shrink", "scs4onnx-split", "scs4onnx-merge", "scs4onnx-big",
	"scs4onnx-optimize", "scs4onnx", "scs4onnx-share",
	"scs4onnx-check" };
#define N_TOOLS (sizeof(tools) / sizeof(tools[0]))

/* The page's text, read from the build tree (NUL-terminated, malloc'd). */
static char *
page_text(const char *page)
{
	char *path = path_in(MAN_DIR, page);
	char *text = text_of(path);

	free(path);
	return text;
}

/* The long and short options of a --help text or of a page's OPTIONS section. */
static void
help_options(words *out, const char *tool)
{
	char *text;

	cr_assert_eq(run_tool(&text, tool, "--help"), 0, "%s --help: %s", tool, text);
	words_long_options(out, text);
	words_short_options(out, text);
	free(text);
}

static void
page_options(words *out, const char *page)
{
	char *text = page_text(page), *start, *end;

	start = strstr(text, "\n.SH OPTIONS\n");
	cr_assert_not_null(start, "%s has no OPTIONS section", page);
	if ((end = strstr(start + 1, "\n.SH ")) != NULL)
		*end = '\0';
	words_roff_to_text(start);
	words_long_options(out, start);
	words_short_options(out, start);
	free(text);
}

static void
expect_page_matches_help(const char *tool)
{
	char page[64];
	words help = { 0 }, man = { 0 };

	snprintf(page, sizeof(page), "%s.1", tool);
	help_options(&help, tool);
	page_options(&man, page);
	cr_assert_gt(help.n, 3, "%s --help lists %zu options", tool, help.n);
	for (size_t i = 0; i < help.n; i++)
		cr_expect(words_has(&man, help.items[i]), "%s: %s is in --help, not in the man page's OPTIONS", tool,
		    help.items[i]);
	for (size_t i = 0; i < man.n; i++)
		cr_expect(words_has(&help, man.items[i]), "%s: %s is in the man page's OPTIONS, not in --help", tool,
		    man.items[i]);
	words_dispose(&help);
	words_dispose(&man);
}

Test(man, shrink_page_lists_the_options_of_its_help) { expect_page_matches_help("scs4onnx-shrink"); }
Test(man, split_page_lists_the_options_of_its_help) { expect_page_matches_help("scs4onnx-split"); }
Test(man, merge_page_lists_the_options_of_its_help) { expect_page_matches_help("scs4onnx-merge"); }
Test(man, big_page_lists_the_options_of_its_help) { expect_page_matches_help("scs4onnx-big"); }
Test(man, optimize_page_lists_the_options_of_its_help) { expect_page_matches_help("scs4onnx-optimize"); }
Test(man, scs4onnx_page_lists_the_options_of_its_help) { expect_page_matches_help("scs4onnx"); }
Test(man, share_page_lists_the_options_of_its_help) { expect_page_matches_help("scs4onnx-share"); }

Test(man, every_page_renders_without_warnings)
{
	static const char *const pages[] = { "scs4onnx-shrink.1", "scs4onnx.1", "scs4onnx-split.1", "scs4onnx-merge.1",
		"scs4onnx-big.1", "scs4onnx-optimize.1", "scs4onnx-share.1", "scs4onnx.3" };

	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		char *path = path_in(MAN_DIR, pages[i]);

		expect_page_renders(path);
		free(path);
	}
}

Test(man, the_library_page_names_every_public_function)
{
	words fns = { 0 };
	char *text = page_text("scs4onnx.3");

	public_functions(&fns, SCS_TEST_SRC_DIR "/include/scs4onnx");
	cr_assert_gt(fns.n, 10, "the public headers declare %zu functions", fns.n);
	for (size_t i = 0; i < fns.n; i++)
		cr_expect(words_in_text(text, fns.items[i]), "scs4onnx.3 does not name %s", fns.items[i]);
	words_dispose(&fns);
	free(text);
}

/* The version of meson.build's project(), read from the file. */
static void
project_version(char *out, size_t cap)
{
	char *text = text_of(SCS_TEST_SRC_DIR "/meson.build");
	char *v = strstr(text, "project(");
	size_t len;

	/* " version:", not meson_version: */
	cr_assert(v && (v = strstr(v, " version: '")) != NULL, "no version in meson.build's project()");
	v += strlen(" version: '");
	len = strcspn(v, "'");
	cr_assert_lt(len, cap);
	memcpy(out, v, len);
	out[len] = '\0';
	free(text);
}

Test(man, tools_pages_and_header_carry_the_project_version)
{
	char version[32], want[96], th[64], *text;

	project_version(version, sizeof(version));
	cr_assert_str_eq(SCS_VERSION, version, "version.h says %s", SCS_VERSION);
	cr_assert_str_eq(scs_version(), version);
	for (size_t i = 0; i < N_TOOLS; i++) {
		cr_assert_eq(run_tool(&text, tools[i], "--version"), 0, "%s", text);
		snprintf(want, sizeof(want), "%s %s\n", tools[i], version);
		cr_expect_str_eq(text, want);
		free(text);
	}
	snprintf(th, sizeof(th), "\"scs4onnx %s\"", version);
	text = page_text("scs4onnx.3");
	cr_expect_not_null(strstr(text, th), "scs4onnx.3's .TH does not carry %s", th);
	free(text);
}

/* The optimize page's PASSES section names every pass of the table, in its
 * order, each marked (default) exactly when it is in the default set. */
Test(man, the_optimize_page_lists_every_pass_and_its_default)
{
	char *text = page_text("scs4onnx-optimize.1"), *at, *end;
	scs_optimize_pass_info info;
	size_t n = 0;

	at = strstr(text, "\n.SH PASSES\n");
	cr_assert_not_null(at, "scs4onnx-optimize.1 has no PASSES section");
	if ((end = strstr(at + 1, "\n.SH ")) != NULL)
		*end = '\0';
	for (; scs_optimize_pass(n, &info); n++) {
		char want[128];
		char *hit;
		int dflt;

		snprintf(want, sizeof(want), "\n.TP\n.BR %s", info.name);
		hit = strstr(at, want);
		cr_assert_not_null(hit, "the PASSES section has no entry for %s (or not after the one before it)", info.name);
		hit += strlen(want);
		cr_assert(*hit == '\n' || *hit == ' ', "%s: its entry names another pass", info.name);
		dflt = strncmp(hit, " \" (default)\"\n", 14) == 0;
		cr_assert_eq(dflt, info.in_default, "%s: the page says %s, the table %s", info.name,
		    dflt ? "default" : "not default", info.in_default ? "default" : "not default");
		at = hit;
	}
	cr_assert_gt(n, 40);
	free(text);
}
