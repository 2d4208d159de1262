/*
 * scs4onnx-check: is this model valid? The rules of the ONNX checker
 * (scs_check) on a model of any size in bounded memory: one line per
 * problem on stdout, a summary on stderr, exit 0 when valid, 1 when not
 * (or unreadable), 2 on bad usage.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static void
usage(FILE *f)
{
	static const cli_help opts[] = {
		{ "    --full", "also check types and shapes: report each\n"
		  "contradiction our type and shape inference finds\n"
		  "(a value whose type or shape disagrees with what\n"
		  "its graph declares or its operator allows), and\n"
		  "what ONNX's inference refuses where shapes are\n"
		  "known (an axis out of range, dims that do not\n"
		  "broadcast, a rank or inner dim an operator does\n"
		  "not take)" },
		{ "    --json FILE", "write the problems as JSON (- for stdout)" },
		CLI_HELP_QUIET,
		CLI_HELP_END,
	};

	fprintf(f,
	    "usage: scs4onnx-check MODEL.onnx [--full] [--json FILE] [--non-verbose]\n"
	    "\n"
	    "Check an ONNX model of any size against the rules of the ONNX checker\n"
	    "(onnx.checker), in bounded memory: IR version and opset imports; every\n"
	    "node's operator known for its domain and opset, its attributes and its\n"
	    "input and output counts against the operator's schema; topological order\n"
	    "and single assignment in every graph and nested body (If, Loop, Scan\n"
	    "bodies read the names of the graphs around them); graph inputs and\n"
	    "outputs typed; tensors holding the bytes their dims need; external data\n"
	    "inside the model's folder and within its files; sparse tensors' indices;\n"
	    "model-local functions. Each problem is one line on stdout:\n"
	    "MODEL: graph 'main', node 'n3' (Gemm): order: input 'b' is not made by ...\n"
	    "then a summary on stderr.\n"
	    "\n"
	    "Stricter than onnx.checker: a payload (raw_data, typed data or external\n"
	    "data) or a string count that disagrees with the tensor's dims; an\n"
	    "external data location that is absolute, holds '..', resolves outside\n"
	    "the model's folder or runs past the end of its file; a dim or element\n"
	    "count out of range.\n"
	    "\n");
	cli_help_entries(f, 26, opts, NULL);
	fputs("Exit status: 0 valid, 1 problems found or the model unreadable, 2 bad usage.\n", f);
}

/* 1 when @a and @b name the same file. */
static int
same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int
write_json(const scs_check_result *res, const char *path)
{
	char *text = scs_check_result_json(res);
	FILE *f;
	int ok;

	if (text == NULL) {
		fprintf(stderr, "scs4onnx-check: error: out of memory\n");
		return CLI_FAILED;
	}
	f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
	ok = f && fputs(text, f) >= 0;
	if (f && f != stdout && fclose(f) != 0)
		ok = 0;
	if (f == stdout && fflush(stdout) != 0)
		ok = 0;
	scs_free(text);
	if (!ok) {
		fprintf(stderr, "scs4onnx-check: error: %s: cannot write the JSON report\n", path);
		return CLI_FAILED;
	}
	return CLI_OK;
}

int
main(int argc, char **argv)
{
	scs_check_options o = SCS_CHECK_OPTIONS_INIT;
	scs_check_result res = SCS_CHECK_RESULT_INIT;
	const char *model = NULL, *json = NULL;
	int quiet = 0, only_pos = 0, rc;

	cli_set_prog("scs4onnx-check");
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (only_pos || arg[0] != '-' || arg[1] == '\0') {
			if (model)
				return cli_usage_error("unexpected argument '%s'", arg);
			model = arg;
		} else if (strcmp(arg, "--") == 0) {
			only_pos = 1;
		} else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			usage(stdout);
			return CLI_OK;
		} else if (strcmp(arg, "--version") == 0) {
			printf("scs4onnx-check %s\n", scs_version());
			return CLI_OK;
		} else if (strcmp(arg, "--full") == 0) {
			o.full = 1;
		} else if (strcmp(arg, "-n") == 0 || strcmp(arg, "--non-verbose") == 0 || strcmp(arg, "-q") == 0) {
			quiet = 1;
		} else if (strcmp(arg, "--json") == 0) {
			if (i + 1 >= argc || argv[i + 1][0] == '\0')
				return cli_usage_error("--json needs a file (or -)");
			json = argv[++i];
		} else if (strncmp(arg, "--json=", 7) == 0 && arg[7]) {
			json = arg + 7;
		} else {
			return cli_usage_error("unknown option '%s'", arg);
		}
	}
	if (model == NULL)
		return cli_usage_error("needs a model");
	if (json && strcmp(json, "-") != 0 && same_file(json, model)) {
		fprintf(stderr, "scs4onnx-check: error: --json %s is the model itself\n", json);
		return CLI_FAILED;
	}
	if (!quiet && cli_stderr_is_tty()) {
		o.progress = cli_progress;
		o.progress_payload = NULL;
	}
	rc = scs_check(&res, model, &o);
	cli_progress_end();
	if (rc < 0)
		return cli_fail();
	/* with --json - the JSON alone goes to stdout */
	for (size_t i = 0; i < res.n_items && !(json && strcmp(json, "-") == 0); i++) {
		char *line = scs_check_item_line(&res.items[i]);

		printf("%s: %s\n", model, line ? line : res.items[i].what);
		scs_free(line);
	}
	fflush(stdout);
	if (!quiet) {
		if (res.n_items == 0)
			fprintf(stderr, "%s: valid (%llu graph%s, %llu node%s, %llu tensor%s checked)\n", model,
			    (unsigned long long)res.n_graphs, res.n_graphs == 1 ? "" : "s", (unsigned long long)res.n_nodes,
			    res.n_nodes == 1 ? "" : "s", (unsigned long long)res.n_tensors, res.n_tensors == 1 ? "" : "s");
		else
			fprintf(stderr, "%s: %zu problem%s\n", model, res.n_items, res.n_items == 1 ? "" : "s");
	}
	rc = json ? write_json(&res, json) : CLI_OK;
	if (rc == CLI_OK && res.n_items)
		rc = CLI_FAILED;
	scs_check_result_dispose(&res);
	return rc;
}
