/*
 * test_install.c: what `meson install` puts in place, installed into a
 * scratch folder (--destdir): a program built only with pkg-config against
 * the installed tree shrinks a model, on the shared library and on the
 * static one; every installed man page renders;
 * each installed header compiles alone; the shared library exports the
 * functions of the installed headers and nothing else. Runs meson, so it is
 * in the e2e tier.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pkg.h"
#include "support.h"

#define BUILD_ROOT SCS_TOOLS_DIR "/.."

static char *dest;             /* the scratch folder meson installs into */

/* The one file under dest named @name (find -name), malloc'd, without its newline. */
static char *
installed(const char *name)
{
	char *text;
	size_t len;

	cr_assert_eq(run(&text, "find '%s' -name '%s'", dest, name), 0, "%s", text);
	len = strcspn(text, "\n");
	cr_assert_gt(len, 0, "nothing called %s is installed", name);
	cr_assert(text[len] == '\0' || text[len + 1] == '\0', "several %s are installed:\n%s", name, text);
	text[len] = '\0';
	return text;
}

/* dirname of @path, malloc'd. */
static char *
parent(const char *path)
{
	char *p = strdup(path), *slash = strrchr(p, '/');

	cr_assert_not_null(slash);
	*slash = '\0';
	return p;
}

static void
install_tree(void)
{
	char *text;

	dest = tmpdir_new();
	cr_assert_eq(run(&text, "meson install -C '%s' --no-rebuild --quiet --destdir '%s'", BUILD_ROOT, dest), 0,
	    "meson install: %s", text);
	free(text);
}

static void
remove_tree(void)
{
	tmpdir_remove(dest);
}

/* @out is byte for byte what scs4onnx-shrink writes for @in. */
static void
expect_what_the_tool_writes(const char *out, const char *in)
{
	char *cli_out = path_in(dest, "cli.onnx"), *text;
	uint8_t *bytes, *cli_bytes;
	size_t len, cli_len;

	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "-n '%s' '%s'", in, cli_out), 0, "%s", text);
	free(text);
	bytes = read_all(out, &len);
	cli_bytes = read_all(cli_out, &cli_len);
	cr_assert_not_null(bytes, "%s: cannot read", out);
	cr_assert_eq(len, cli_len, "%s: %zu bytes, the tool's %zu", out, len, cli_len);
	cr_assert_arr_eq(bytes, cli_bytes, len);
	free(bytes);
	free(cli_bytes);
	free(cli_out);
}

#ifdef __SANITIZE_ADDRESS__
/* this build's library needs the sanitizer runtimes in the program too */
#define SANITIZE_FLAGS "-fsanitize=address,undefined"
#define SANITIZED 1
#else
#define SANITIZE_FLAGS ""
#define SANITIZED 0
#endif

Test(install, a_program_built_with_pkg_config_shrinks_a_model, .init = install_tree, .fini = remove_tree)
{
	char *pc = installed("scs4onnx.pc"), *pcdir = parent(pc), *so = installed("libscs4onnx.so.1");
	char *libdir = parent(so), *in = fixture("dup_basic.onnx"), *text, *flags;
	char *exe = path_in(dest, "consumer"), *out = path_in(dest, "out.onnx");
	Onnx__ModelProto *m;

	cr_assert_eq(run(&flags, "PKG_CONFIG_PATH='%s' PKG_CONFIG_SYSROOT_DIR='%s' pkg-config --cflags --libs scs4onnx",
	    pcdir, dest), 0, "pkg-config: %s", flags);
	flags[strcspn(flags, "\n")] = '\0';
	cr_assert_not_null(strstr(flags, dest), "the flags point outside the installed tree: %s", flags);
	cr_assert_eq(run(&text, "cc -std=c11 -Wall -Wextra -Werror %s -o '%s' '%s/tests/install/consumer.c' %s",
	    SANITIZE_FLAGS, exe, SCS_TEST_SRC_DIR, flags), 0, "cc: %s", text);
	free(text);

	/* the program runs on the installed shared library */
	cr_assert_eq(run(&text, "LD_LIBRARY_PATH='%s' ldd '%s'", libdir, exe), 0, "%s", text);
	cr_assert_not_null(strstr(text, so), "the program does not load %s:\n%s", so, text);
	free(text);
	cr_assert_eq(run(&text, "LD_LIBRARY_PATH='%s' '%s' '%s' '%s'", libdir, exe, in, out), 0, "consumer: %s", text);
	cr_assert_not_null(strstr(text, "groups 3 bytes_before "), "%s", text);
	cr_assert_not_null(strstr(text, "json has constant_bytes_after"), "%s", text);
	{
		unsigned long long before, after;

		cr_assert_eq(sscanf(strstr(text, "bytes_before"), "bytes_before %llu bytes_after %llu", &before, &after), 2,
		    "%s", text);
		cr_assert_eq(before - after, 4 * 48 + 4, "three copies of W1, one of G and O1b removed: %s", text);
	}
	free(text);

	/* what a user reads back: one W1, its copies gone */
	m = load_proto(out);
	cr_assert_not_null(find_init(m->graph, "W1"));
	cr_assert_null(find_init(m->graph, "W2"));
	cr_assert_null(find_init(m->graph, "W3"));
	free_proto(m);

	/* and the same bytes as the tool writes */
	expect_what_the_tool_writes(out, in);
	free(flags);
	free(pc);
	free(pcdir);
	free(so);
	free(libdir);
	free(in);
	free(exe);
	free(out);
}

Test(install, every_installed_man_page_renders, .init = install_tree, .fini = remove_tree)
{
	static const char *const pages[] = { "scs4onnx-shrink.1", "scs4onnx-split.1", "scs4onnx-merge.1",
		"scs4onnx-big.1", "scs4onnx-optimize.1", "scs4onnx-share.1", "scs4onnx.1", "scs4onnx.3",
		"scs4onnx-check.1" };
	char *text;

	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		char *path = installed(pages[i]);
		char section[8];

		snprintf(section, sizeof(section), "/man%c/", pages[i][strlen(pages[i]) - 1]);
		cr_expect_not_null(strstr(path, section), "%s is not in a %s folder", path, section);
		expect_page_renders(path);
		free(path);
	}
	cr_assert_eq(run(&text, "find '%s' -path '*/man/man*' -type f | wc -l", dest), 0);
	cr_expect_eq(atoi(text), (int)(sizeof(pages) / sizeof(pages[0])), "installed pages: %s", text);
	free(text);
}

Test(install, each_installed_header_compiles_alone, .init = install_tree, .fini = remove_tree)
{
	char *main_h = installed("scs4onnx.h"), *dir = parent(main_h), *inc = parent(dir), *text;
	static const char *const headers[] = { "scs4onnx.h", "error.h", "report.h", "version.h" };

	cr_assert(strstr(dir, "/include/scs4onnx") != NULL, "%s", dir);
	cr_assert_eq(run(&text, "ls '%s' | wc -l", dir), 0);
	cr_expect_eq(atoi(text), 4, "include/scs4onnx holds %s files", text);
	free(text);
	for (size_t i = 0; i < sizeof(headers) / sizeof(headers[0]); i++) {
		/* only the installed include folder: an internal header would not be found */
		/* included first by a file of its own, as a user would */
		cr_expect_eq(run(&text, "printf '#include <scs4onnx/%s>\\nint user_code;\\n' | "
		    "cc -std=c11 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I '%s' -x c -", headers[i], inc), 0,
		    "%s: %s", headers[i], text);
		free(text);
	}
	/* and from the folder itself, as "scs4onnx.h" */
	cr_expect_eq(run(&text, "printf '#include \"scs4onnx.h\"\\nint user_code;\\n' | "
	    "cc -std=c11 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I '%s' -x c -", dir), 0, "%s", text);
	free(text);
	free(main_h);
	free(dir);
	free(inc);
}

Test(install, the_shared_library_exports_only_the_public_functions, .init = install_tree, .fini = remove_tree)
{
	char *so = installed("libscs4onnx.so.1.*"), *main_h = installed("scs4onnx.h"), *dir = parent(main_h);
	char *text, *line, *save;
	words exported = { 0 }, declared = { 0 };

	public_functions(&declared, dir);
	cr_assert_gt(declared.n, 10, "the installed headers declare %zu functions", declared.n);
	/* "0000000000012340 T scs_shrink@@SCS4ONNX_1"; the version node itself is an A symbol */
	cr_assert_eq(run(&text, "nm -D --defined-only '%s'", so), 0, "%s", text);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char type, name[256];

		if (sscanf(line, "%*s %c %255s", &type, name) != 2 || type == 'A')
			continue;
		name[strcspn(name, "@")] = '\0';
		words_add(&exported, name, strlen(name));
	}
	free(text);
	for (size_t i = 0; i < exported.n; i++)
		cr_expect(words_has(&declared, exported.items[i]), "%s is exported, not in the installed headers",
		    exported.items[i]);
	for (size_t i = 0; i < declared.n; i++)
		cr_expect(words_has(&exported, declared.items[i]), "%s is declared, not exported", declared.items[i]);
	cr_assert_eq(run(&text, "readelf -d '%s' | grep SONAME", so), 0, "%s", text);
	cr_expect_not_null(strstr(text, "[libscs4onnx.so.1]"), "%s", text);
	free(text);
	words_dispose(&exported);
	words_dispose(&declared);
	free(so);
	free(main_h);
	free(dir);
}

Test(install, the_static_library_links_with_pkg_config_static, .init = install_tree, .fini = remove_tree)
{
	char *pc = installed("scs4onnx.pc"), *pcdir = parent(pc), *archive = installed("libscs4onnx.a");
	char *in = fixture("dup_basic.onnx"), *exe = path_in(dest, "consumer-static"), *out = path_in(dest, "out.onnx");
	char *flags, *text, *lib;

	cr_assert_eq(run(&flags, "PKG_CONFIG_PATH='%s' PKG_CONFIG_SYSROOT_DIR='%s' pkg-config --static --cflags --libs "
	    "scs4onnx", pcdir, dest), 0, "pkg-config: %s", flags);
	flags[strcspn(flags, "\n")] = '\0';
	/* the archive in place of -lscs4onnx, so the shared library cannot be picked */
	cr_assert_not_null(lib = strstr(flags, "-lscs4onnx "), "%s", flags);
	memset(lib, ' ', strlen("-lscs4onnx"));
	cr_assert_eq(run(&text, "cc -std=c11 -Wall -Wextra -Werror %s -o '%s' '%s/tests/install/consumer.c' '%s' %s",
	    SANITIZE_FLAGS, exe, SCS_TEST_SRC_DIR, archive, flags), 0, "cc: %s", text);
	free(text);
	cr_assert_eq(run(&text, "ldd '%s' | grep -c scs4onnx", exe), 1, "the program loads libscs4onnx.so: %s", text);
	free(text);
	cr_assert_eq(run(&text, "'%s' '%s' '%s'", exe, in, out), 0, "consumer: %s", text);
	cr_assert_not_null(strstr(text, "groups 3 bytes_before "), "%s", text);
	free(text);
	free(flags);
	free(pc);
	free(pcdir);
	free(archive);
	free(in);
	free(exe);
	free(out);
}

/* Skip a test of the installed Python package where it cannot run. */
static void
skip_without_python_package(void)
{
	if (!file_exists(SCS_TEST_SRC_DIR "/python/scs4onnx_c"))
		cr_skip_test("no python/scs4onnx_c in this tree");
	if (SANITIZED)
		cr_skip_test("this build's library needs the sanitizer runtime loaded first, which python3 is not "
		    "built with: the normal build runs this test");
}

/* scs4onnx's README example through the installed package, on the installed library. */
Test(install, the_installed_python_package_shrinks_as_the_tool_does, .init = install_tree, .fini = remove_tree)
{
	char *pkg, *site, *so, *in, *out, *text;

	skip_without_python_package();
	pkg = installed("scs4onnx_c");
	site = parent(pkg);
	so = installed("libscs4onnx.so.1");
	in = fixture("dup_basic.onnx");
	out = path_in(dest, "py.onnx");
	cr_assert_eq(run(&text, "cd '%s' && PYTHONPATH='%s' SCS4ONNX_LIBRARY='%s' /usr/bin/python3 -c '"
	    "import sys, scs4onnx_c\n"
	    "assert scs4onnx_c.__file__.startswith(sys.argv[1]), scs4onnx_c.__file__\n"
	    "m, npys = scs4onnx_c.shrinking(input_onnx_file_path=sys.argv[2], output_onnx_file_path=sys.argv[3], "
	    "non_verbose=True)\n"
	    "print(sorted(t.name for t in m.graph.initializer), npys)' '%s' '%s' '%s'", dest, site, so, site, in, out), 0,
	    "python: %s", text);
	cr_assert_not_null(strstr(text, "'W1'"), "%s", text);
	cr_assert_null(strstr(text, "'W2'"), "W2 was not merged: %s", text);
	free(text);
	expect_what_the_tool_writes(out, in);
	free(pkg);
	free(site);
	free(so);
	free(in);
	free(out);
}

/*
 * The Python package's own suite (tests/python/test_scs4onnx_c.py: the
 * option structs' layout against the installed header, scs4onnx's README
 * examples compared with the tools byte for byte, split/merge/big/optimize,
 * errors) on the installed package, library and header.
 */
Test(install, the_installed_python_package_passes_its_suite, .init = install_tree, .fini = remove_tree)
{
	char *pkg, *so, *hdr, *text;

	skip_without_python_package();
	pkg = installed("scs4onnx_c");
	so = installed("libscs4onnx.so.1");
	hdr = installed("scs4onnx.h");
	char *site = parent(pkg), *inc = parent(hdr);
	int rc = run(&text, "cd '%s' && PYTHONPATH='%s' SCS4ONNX_LIBRARY='%s' SCS4ONNX_INCLUDE='%s' SCS4ONNX_TOOLS='%s' "
	    "/usr/bin/python3 '%s/tests/python/test_scs4onnx_c.py' 2>&1", dest, site, so, inc, SCS_TOOLS_DIR,
	    SCS_TEST_SRC_DIR);
	cr_assert_eq(rc, 0, "python suite: %s", text);
	cr_assert_not_null(strstr(text, "\nOK"), "%s", text);
	free(text);
	free(site);
	free(inc);
	free(pkg);
	free(so);
	free(hdr);
}

/*
 * README.md's Install block, copied as written (tests/install/readme_install.sh
 * extracts it, so the README and this test cannot drift), into a scratch
 * root: the tools on the PATH, the loader and pkg-config finding the
 * library, docs/API.md's C example built and run, python3 importing
 * scs4onnx_c. ldconfig -r chroots: root only.
 */
static void
scratch_only(void)
{
	dest = tmpdir_new();
}

Test(install, the_readme_install_block_works_as_written, .init = scratch_only, .fini = remove_tree)
{
	char *in, *text;

	if (geteuid() != 0)
		cr_skip_test("the Install block's ldconfig needs root");
	in = fixture("dup_basic.onnx");
	cr_assert_eq(run(&text, "'%s/tests/install/readme_install.sh' '%s' '%s' '%s' 2>&1", SCS_TEST_SRC_DIR,
	    SCS_TEST_SRC_DIR, dest, in), 0, "%s", text);
	cr_expect_not_null(strstr(text, "C example: 3 groups merged, "), "%s", text);
	cr_expect_not_null(strstr(text, "\nOK\n"), "%s", text);
	free(text);
	free(in);
}
