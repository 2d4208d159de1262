/*
 * test_abi.c: programs built against the headers of earlier releases and
 * the current library (README, "Compatibility"). tests/abi/<release>/ holds
 * each release's public headers and its version script (whose node,
 * SCS4ONNX_<major>, names its soname). tests/abi/consumer.c is built
 * against each, under ASan and UBSan: against a release of the current
 * soname it runs every call on the current shared library, clean; against
 * an older soname (linked with a stand-in library of that soname and
 * version node) it cannot load the current library, neither under its own
 * name nor renamed to the old one. Also: the library's table of struct
 * versions (src/abi.c) has an entry for each version, ending at the
 * struct's size, and versions 0 and newer than the library's are refused
 * before anything is written.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "support.h"

#define ABI_DIR SCS_TEST_SRC_DIR "/tests/abi"
#define LIB_DIR SCS_TOOLS_DIR "/../src"
#define SAN_FLAGS "-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
#define SAN_ENV "ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1"

/* The major version release @rel's version script names (SCS4ONNX_<major>). */
static int
release_major(const char *rel)
{
	char map[4096], *text;
	const char *at;
	size_t len;
	int major;

	snprintf(map, sizeof(map), "%s/%s/libscs4onnx.map", ABI_DIR, rel);
	text = (char *)read_all(map, &len);
	cr_assert_not_null(text, "%s: missing", map);
	text[len] = '\0';
	at = strstr(text, "SCS4ONNX_");
	cr_assert_not_null(at, "%s: no version node", map);
	major = atoi(at + strlen("SCS4ONNX_"));
	free(text);
	return major;
}

/* The stored releases (names of the folders under tests/abi), *n of them. */
static char **
releases(size_t *n)
{
	DIR *d = opendir(ABI_DIR);
	struct dirent *e;
	char **out = NULL;

	cr_assert_not_null(d, "%s", ABI_DIR);
	*n = 0;
	while ((e = readdir(d)) != NULL) {
		char p[4096];
		struct stat st;

		snprintf(p, sizeof(p), "%s/%s", ABI_DIR, e->d_name);
		if (e->d_name[0] == '.' || stat(p, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		out = realloc(out, (*n + 1) * sizeof(*out));
		out[(*n)++] = strdup(e->d_name);
	}
	closedir(d);
	cr_assert_gt(*n, 0, "no stored release in %s", ABI_DIR);
	return out;
}

/* The stand-in of an older soname @major: every function of @rel's version
 * script, doing nothing, under that soname and version node; in @dir. */
static void
stand_in(const char *dir, const char *rel, int major)
{
	char map[4096], *text, *line, *save, *src = path_in(dir, "stand_in.c"), *out;
	size_t len;
	FILE *f = fopen(src, "w");

	cr_assert_not_null(f);
	snprintf(map, sizeof(map), "%s/%s/libscs4onnx.map", ABI_DIR, rel);
	text = (char *)read_all(map, &len);
	text[len] = '\0';
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[128];

		if (sscanf(line, " scs_%127[a-z_0-9];", name) == 1)
			fprintf(f, "void scs_%s(void);\nvoid scs_%s(void) {}\n", name, name);
	}
	fclose(f);
	cr_assert_eq(run(&out, "cd '%s' && %s -shared -fPIC -o libscs4onnx.so.%d stand_in.c -Wl,-soname,libscs4onnx.so.%d "
	    "-Wl,--version-script='%s' && ln -s libscs4onnx.so.%d libscs4onnx.so", dir, SCS_TEST_CC, major, major, map, major),
	    0, "%s", out);
	free(out);
	free(text);
	free(src);
}

/* consumer.c built against @rel's headers, linked with the library in @libdir: @dir/consumer. */
static char *
build_consumer(const char *dir, const char *rel, const char *libdir)
{
	char *exe = path_in(dir, "consumer"), *out;

	cr_assert_eq(run(&out, "%s -std=c11 -Wall -Wextra -Werror " SAN_FLAGS
	    " -I'%s/%s' -o '%s' '%s/consumer.c' -L'%s' -lscs4onnx", SCS_TEST_CC, ABI_DIR, rel, exe, ABI_DIR, libdir),
	    0, "building against %s's headers: %s", rel, out);
	free(out);
	return exe;
}

Test(abi, programs_built_against_each_release_of_this_soname_run_clean)
{
	size_t n;
	char **rels = releases(&n);
	int ran = 0;

	for (size_t i = 0; i < n; i++) {
		char *dir, *exe, *out, *shrunk, *cli, *text, *in = fixture("dup_basic.onnx");
		uint8_t *a, *b;
		size_t la, lb;

		if (release_major(rels[i]) != SCS_VERSION_MAJOR) {
			free(in);
			continue;
		}
		dir = tmpdir_new();
		exe = build_consumer(dir, rels[i], LIB_DIR);
		cr_assert_eq(run(&out, SAN_ENV " LD_LIBRARY_PATH='%s' '%s' '%s' '%s'", LIB_DIR, exe, in, dir), 0,
		    "%s's program on the current library: %s", rels[i], out);
		cr_assert_null(strstr(out, "Sanitizer"), "%s", out);
		cr_assert_not_null(strstr(out, "split: shards "), "%s", out);
		cr_assert_not_null(strstr(out, "\"passes\""), "%s", out);
		/* what it wrote is what the tool writes */
		shrunk = path_in(dir, "out.onnx");
		cli = path_in(dir, "cli.onnx");
		cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "-n '%s' '%s'", in, cli), 0, "%s", text);
		a = read_all(shrunk, &la);
		b = read_all(cli, &lb);
		cr_assert(a && b && la == lb && memcmp(a, b, la) == 0, "%s: not the tool's output", rels[i]);
		free(a);
		free(b);
		free(text);
		free(shrunk);
		free(cli);
		free(out);
		free(exe);
		free(in);
		tmpdir_remove(dir);
		ran++;
	}
	cr_assert_gt(ran, 0, "no stored release of major version %d in %s", SCS_VERSION_MAJOR, ABI_DIR);
	for (size_t i = 0; i < n; i++)
		free(rels[i]);
	free(rels);
}

Test(abi, programs_built_against_an_older_soname_cannot_load_the_library)
{
	size_t n;
	char **rels = releases(&n);
	int ran = 0;

	for (size_t i = 0; i < n; i++) {
		int major = release_major(rels[i]);
		char *dir, *old, *cur, *renamed, *exe, *out, *in = fixture("dup_basic.onnx"), *shrunk, missing[64],
		    node[64];

		cr_assert_leq(major, SCS_VERSION_MAJOR, "%s: a release of a newer major version", rels[i]);
		if (major == SCS_VERSION_MAJOR) {
			free(in);
			continue;
		}
		dir = tmpdir_new();
		old = path_in(dir, "old");
		cur = path_in(dir, "current");
		renamed = path_in(dir, "renamed");
		cr_assert_eq(mkdir(old, 0777), 0);
		cr_assert_eq(mkdir(cur, 0777), 0);
		cr_assert_eq(mkdir(renamed, 0777), 0);
		stand_in(old, rels[i], major);
		exe = build_consumer(dir, rels[i], old);
		shrunk = path_in(dir, "out.onnx");
		/* the current library under its own soname: the old one is not found */
		cr_assert_eq(run(&out, "ln -s '%s/libscs4onnx.so.%d' '%s/'", LIB_DIR, SCS_VERSION_MAJOR, cur), 0, "%s", out);
		free(out);
		run(&out, SAN_ENV " LD_LIBRARY_PATH='%s' '%s' '%s' '%s'", cur, exe, in, dir);
		snprintf(missing, sizeof(missing), "libscs4onnx.so.%d: cannot open shared object file", major);
		cr_assert_not_null(strstr(out, missing), "%s's program loaded: %s", rels[i], out);
		cr_assert_null(strstr(out, "headers "), "%s's program ran: %s", rels[i], out);
		free(out);
		/* ... and renamed to the old soname: its version node is not there */
		cr_assert_eq(run(&out, "ln -s '%s/libscs4onnx.so.%d' '%s/libscs4onnx.so.%d'", LIB_DIR, SCS_VERSION_MAJOR,
		    renamed, major), 0, "%s", out);
		free(out);
		run(&out, SAN_ENV " LD_LIBRARY_PATH='%s' '%s' '%s' '%s'", renamed, exe, in, dir);
		snprintf(node, sizeof(node), "version `SCS4ONNX_%d' not found", major);
		cr_assert_not_null(strstr(out, node), "%s's program loaded the renamed library: %s", rels[i], out);
		cr_assert_null(strstr(out, "headers "), "%s's program ran: %s", rels[i], out);
		cr_assert_not(file_exists(shrunk), "%s's program wrote %s", rels[i], shrunk);
		free(out);
		free(shrunk);
		free(exe);
		free(old);
		free(cur);
		free(renamed);
		free(in);
		tmpdir_remove(dir);
		ran++;
	}
	cr_assert_gt(ran, 0, "no stored release of an older soname (0.1.0 was libscs4onnx.so.0) in %s", ABI_DIR);
	for (size_t i = 0; i < n; i++)
		free(rels[i]);
	free(rels);
}

Test(abi, each_version_of_each_struct_has_its_end_in_the_table)
{
	static const struct { const char *type; size_t size; } structs[] = {
		{ "scs_shrink_options", sizeof(scs_shrink_options) },
		{ "scs_split_options", sizeof(scs_split_options) },
		{ "scs_merge_options", sizeof(scs_merge_options) },
		{ "scs_big_options", sizeof(scs_big_options) },
		{ "scs_optimize_options", sizeof(scs_optimize_options) },
		{ "scs_report", sizeof(scs_report) },
	};

	for (size_t i = 0; i < sizeof(structs) / sizeof(structs[0]); i++) {
		unsigned version = 0;
		const size_t *ends = scs_abi_ends(structs[i].type, &version);

		cr_assert_not_null(ends, "%s: no table", structs[i].type);
		cr_assert_geq(version, 1);
		cr_assert_eq(ends[0], 0);
		cr_assert_geq(ends[1], sizeof(unsigned), "%s: version 1 ends before its version field", structs[i].type);
		for (unsigned v = 2; v <= version; v++)
			cr_assert_gt(ends[v], ends[v - 1], "%s: version %u ends at %zu, not past version %u's %zu",
			    structs[i].type, v, ends[v], v - 1, ends[v - 1]);
		cr_assert_eq(ends[version], structs[i].size, "%s: the last version ends at %zu, the struct at %zu",
		    structs[i].type, ends[version], structs[i].size);
	}
}

/* @rc is SCS_EUSAGE with a message holding @what; @out was not written. */
static void
expect_refused(int rc, const char *what, const char *out)
{
	cr_assert_eq(rc, SCS_EUSAGE, "%d: %s", rc, scs_err_msg());
	cr_assert_not_null(strstr(scs_err_msg(), what), "%s", scs_err_msg());
	cr_assert_not(file_exists(out), "%s was written", out);
}

Test(abi, versions_0_and_newer_than_the_library_are_refused_before_any_work)
{
	char *dir = tmpdir_new(), *in = fixture("dup_basic.onnx"), *out = path_in(dir, "out.onnx");
	scs_shrink_options zero = { 0 }, newer = SCS_SHRINK_OPTIONS_INIT, good = SCS_SHRINK_OPTIONS_INIT;
	scs_big_options big = SCS_BIG_OPTIONS_INIT;
	scs_optimize_options oz = { 0 };
	scs_split_options sz = { 0 };
	scs_merge_options mz = { 0 };
	scs_report rep = SCS_REPORT_INIT, bad_rep;

	newer.version = SCS_SHRINK_OPTIONS_VERSION + 1;
	expect_refused(scs_shrink(&rep, in, out, &zero), "declare it with SCS_SHRINK_OPTIONS_INIT", out);
	expect_refused(scs_shrink(&rep, in, out, &newer), "newer than this library's", out);
	expect_refused(scs_optimize(&rep, in, out, &oz), "SCS_OPTIMIZE_OPTIONS_INIT", out);
	expect_refused(scs_split(&rep, in, out, &sz), "SCS_SPLIT_OPTIONS_INIT", out);
	expect_refused(scs_merge(&rep, dir, out, &mz), "SCS_MERGE_OPTIONS_INIT", out);
	big.shrink = &zero;
	expect_refused(scs_big(&rep, in, out, &big), "SCS_SHRINK_OPTIONS_INIT", out);
	cr_assert_eq(rep.version, SCS_REPORT_VERSION);
	/* a report of version 0 or newer: refused and left as it is */
	memset(&bad_rep, 0x5a, sizeof(bad_rep));
	bad_rep.version = 0;
	expect_refused(scs_shrink(&bad_rep, in, out, &good), "declare it with SCS_REPORT_INIT", out);
	bad_rep.version = SCS_REPORT_VERSION + 1;
	expect_refused(scs_shrink(&bad_rep, in, out, &good), "scs_report of version", out);
	cr_assert_eq(bad_rep.n_groups, (size_t)0x5a5a5a5a5a5a5a5aull, "the refused report was written");
	scs_report_dispose(&bad_rep);    /* left alone: its pointers are not the library's */
	cr_assert_eq(scs_report_write_json(&bad_rep, stderr), SCS_EUSAGE);
	/* NULL options: the defaults */
	cr_assert_eq(scs_shrink(&rep, in, out, NULL), SCS_OK, "%s", scs_err_msg());
	cr_assert_gt(rep.n_groups, 0);
	cr_assert_eq(rep.version, SCS_REPORT_VERSION);
	scs_report_dispose(&rep);
	cr_assert_eq(rep.version, SCS_REPORT_VERSION, "dispose keeps the version");
	cr_assert_eq(rep.n_groups, 0);
	free(in);
	free(out);
	tmpdir_remove(dir);
}
