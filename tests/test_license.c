/*
 * test_license.c: LICENSE is the MIT license, and every source file (C,
 * Python, JavaScript, shell, meson, proto, roff, test data) names it in its
 * header comment with an SPDX identifier.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg.h"
#include "support.h"

Test(license, the_license_file_is_mit)
{
	char *text = text_of(SCS_TEST_SRC_DIR "/LICENSE");

	cr_expect_not_null(strstr(text, "MIT License"), "LICENSE does not say MIT");
	cr_expect_not_null(strstr(text, "Copyright (c) 2026 the scs4onnx-c authors"), "LICENSE's copyright line");
	cr_expect_not_null(strstr(text, "THE SOFTWARE IS PROVIDED \"AS IS\""), "LICENSE lacks the disclaimer");
	free(text);
}

Test(license, every_source_file_carries_the_spdx_identifier)
{
	static const char *const places[] = { "src", "include", "tools", "tests", "fuzz", "scripts", "proto", "man",
		"python", "meson.build", "meson_options.txt", ".ci/run" };
	char list[1024] = "", *text, *n;

	for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
		char path[512];

		snprintf(path, sizeof(path), "%s/%s", SCS_TEST_SRC_DIR, places[i]);
		if (file_exists(path))
			snprintf(list + strlen(list), sizeof(list) - strlen(list), " '%s'", places[i]);
	}
	cr_assert_eq(run(&n, "cd '%s' && find %s -type f | wc -l", SCS_TEST_SRC_DIR, list), 0, "%s", n);
	cr_assert_gt(atoi(n), 100, "only %s files found", n);
	free(n);
	/* every file of these kinds; JSON (no comments) and node_modules aside */
	run(&text, "cd '%s' && grep -rL --exclude-dir=node_modules --exclude-dir=__pycache__ "
	    "--include='*.[ch]' --include='*.def' --include='*.py' --include='*.mjs' --include='*.sh' "
	    "--include='*.build' --include='*.txt' --include='*.proto' --include='*.in' --include='*.map' "
	    "--include='*.textproto' --include='*.dict' --include=run 'SPDX-License-Identifier: MIT' %s",
	    SCS_TEST_SRC_DIR, list);
	cr_expect_str_empty(text, "files without 'SPDX-License-Identifier: MIT' in their header comment:\n%s", text);
	free(text);
}
