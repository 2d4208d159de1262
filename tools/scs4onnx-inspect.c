/*
 * scs4onnx-inspect: what an ONNX model of any size holds and what the
 * other tools would make of it (scs_inspect), printed as text, with
 * --json and --html files. Writes nothing else.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

#define TOOL "scs4onnx-inspect"

static void
usage(FILE *f)
{
	static const cli_help opts[] = {
		{ "    --json FILE", "write every figure as JSON (- for stdout, instead\n"
		  "of the text); a FILE there already is replaced\n"
		  "only when empty or JSON" },
		{ "    --html FILE", "write one self-contained page: a treemap of the\n"
		  "constants' bytes by tensor and the same tables; a\n"
		  "FILE there already is replaced only when empty or\n"
		  "such a page" },
		{ "    --top N", "list the N largest constants (default 20)" },
		{ "-n, --non-verbose", "print nothing but errors" },
		CLI_HELP_END,
	};

	fprintf(f,
	    "usage: " TOOL " MODEL.onnx [--json FILE] [--html FILE] [--top N] [-n]\n"
	    "\n"
	    "Describe an ONNX model of any size without changing it: inputs and outputs\n"
	    "(types, shapes), IR version, producer, opsets; nodes by operator (the main\n"
	    "graph's, and every graph, body and function's); constant bytes by operator\n"
	    "and by tensor (type, dims, bytes, inline or in which data file); external\n"
	    "data files (bytes, tensors, alignment); duplicate constants (identical, and\n"
	    "2-D ones stored again transposed) and the bytes scs4onnx-shrink with its\n"
	    "defaults would save (the input's files against the output's, named like\n"
	    "the input); and what scs4onnx-optimize's default passes would remove.\n"
	    "Temporary files go under $TMPDIR (default /tmp).\n"
	    "\n");
	cli_help_options(f, 24, opts, NULL);
}

/* 1 when @a and @b name the same file. */
static int
same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* @text (NULL: out of memory) to @path, as @what. */
static int
write_out(char *text, const char *path, const char *what)
{
	int rc;

	if (text == NULL) {
		fprintf(stderr, TOOL ": error: out of memory rendering %s\n", what);
		return CLI_FAILED;
	}
	rc = cli_write_text(text, path, what);
	scs_free(text);
	return rc;
}

int
main(int argc, char **argv)
{
	scs_inspect_options o = SCS_INSPECT_OPTIONS_INIT;
	scs_inspect_result *r = NULL;
	const char *in = NULL, *json = NULL, *html = NULL;
	int quiet = 0, rc = CLI_OK;

	cli_set_prog(TOOL);
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			usage(stdout);
			return CLI_OK;
		} else if (strcmp(arg, "--version") == 0) {
			printf(TOOL " %s\n", scs_version());
			return CLI_OK;
		} else if (strcmp(arg, "-n") == 0 || strcmp(arg, "--non-verbose") == 0) {
			quiet = 1;
		} else if (strcmp(arg, "--json") == 0 || strcmp(arg, "--html") == 0) {
			if (i + 1 == argc || argv[i + 1][0] == '\0')
				return cli_usage_error("%s needs a file%s", arg, arg[2] == 'j' ? " (or -)" : "");
			*(arg[2] == 'j' ? &json : &html) = argv[++i];
		} else if (strcmp(arg, "--top") == 0) {
			char *end;
			long n;

			if (i + 1 == argc || (n = strtol(argv[i + 1], &end, 10)) <= 0 || *end)
				return cli_usage_error("--top needs a count of at least 1");
			o.top = (size_t)n;
			i++;
		} else if (arg[0] == '-' && arg[1]) {
			return cli_usage_error("unknown option '%s'", arg);
		} else if (in) {
			return cli_usage_error("unexpected argument '%s'", arg);
		} else {
			in = arg;
		}
	}
	if (in == NULL)
		return cli_usage_error("no MODEL given");
	if (html && strcmp(html, "-") == 0)
		return cli_usage_error("--html needs a file (not -)");
	if (json && html && strcmp(json, html) == 0)
		return cli_usage_error("--json and --html name the same file");
	if ((json && same_file(json, in)) || (html && same_file(html, in)))
		return cli_usage_error("%s is the model: give --json and --html other files", in);
	/* a file there already is replaced only when it is empty or what the option writes: never a data file */
	if ((json && strcmp(json, "-") != 0 && (rc = cli_check_target(json, "--json", "{")) != CLI_OK) ||
	    (html && (rc = cli_check_target(html, "--html", "<!DOCTYPE html>")) != CLI_OK))
		return rc;
	if (!quiet && cli_stderr_is_tty())
		o.progress = cli_progress;
	rc = scs_inspect(&r, in, &o);
	cli_progress_end();
	if (rc < 0)
		return cli_fail();
	rc = CLI_OK;
	if (!quiet && !(json && strcmp(json, "-") == 0))
		rc = write_out(scs_inspect_text(r), "-", "the summary");
	if (rc == CLI_OK && json)
		rc = write_out(scs_inspect_json(r), json, "the JSON report");
	if (rc == CLI_OK && html)
		rc = write_out(scs_inspect_html(r), html, "the HTML page");
	scs_inspect_free(r);
	return rc;
}
