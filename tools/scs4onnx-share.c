/*
 * scs4onnx-share: write several ONNX models that ship together into one
 * folder, each weight stored once in one data file they all reference (or
 * numbered ones, with --max-data-file-size).
 * Takes OUTDIR and any number of models, so it parses its own command line
 * with the tools' shared pieces (cli.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "fdlimit.h"

static void
usage(FILE *f)
{
	static const cli_help opts[] = {
		{ "-d, --disable-auto-downcast", "keep float64 and int64 constants as they are" },
		{ "    --dry-run", "do everything but the writing: the summary says\n"
		  "what would be written; nothing is" },
		{ "    --optimize", "first run scs4onnx-optimize's default passes on\n"
		  "each model" },
		{ "    --keep-transposed", "keep a constant equal to another one transposed\n"
		  "as a copy of its own" },
		{ "    --max-data-file-size SIZE", "the shared data in numbered files of at most\n"
		  "SIZE each (K, M, G suffixes; at least 4K),\n"
		  "shared.<16 hex>-00001-of-00004.data, ..." },
		{ "-n, --non-verbose", "print nothing but errors" },
		CLI_HELP_STORE, CLI_HELP_JSON, CLI_HELP_END,
	};

	fprintf(f,
	    "usage: scs4onnx-share OUTDIR MODEL.onnx [MODEL.onnx...] [-d] [-n] [--dry-run] [--optimize]\n"
	    "           [--store DIR] [--json REPORT]\n"
	    "\n"
	    "Write models that ship together (an encoder and its decoders, a text and a\n"
	    "vision tower) into the folder OUTDIR, each as OUTDIR/<its file name>, shrunk\n"
	    "as scs4onnx-shrink shrinks it, with every weight stored once: each payload\n"
	    "of 1 KiB or more goes into one data file OUTDIR/shared.<16 hex>.data (named\n"
	    "from its contents), which every model references, and equal payloads\n"
	    "(compared byte for byte) are written once whichever models hold them;\n"
	    "smaller ones stay inside each model. Each model then loads on its own in\n"
	    "ONNX Runtime and onnx, and computes what it computed before. The summary\n"
	    "says what each file weighs, what each model holds of its own and which\n"
	    "weights which models share. OUTDIR must be missing or empty (a run into a\n"
	    "folder that holds files is refused: remove it or give another); it\n"
	    "appears with every file in it at once, or not at all. Two models of the\n"
	    "same file name are refused.\n"
	    "\n");
	cli_help_options(f, 31, opts, NULL);
}

/* --json @json, refused before any work when it names an input or lies in @out_dir. */
static int
json_ok(const char *json, const char *out_dir, char **models, int n)
{
	struct stat st, sj;
	size_t len = strlen(out_dir);

	if (strcmp(json, "-") == 0)
		return 1;
	if (json[strlen(json) - 1] == '/' || (stat(json, &sj) == 0 && S_ISDIR(sj.st_mode))) {
		fprintf(stderr, "scs4onnx-share: error: --json %s is a folder; give a file name\n", json);
		return 0;
	}
	for (int i = 0; i < n; i++)
		if (stat(json, &sj) == 0 && stat(models[i], &st) == 0 && sj.st_dev == st.st_dev && sj.st_ino == st.st_ino) {
			fprintf(stderr, "scs4onnx-share: error: --json %s names the input %s; give the report a file of "
			    "its own\n", json, models[i]);
			return 0;
		}
	while (len > 1 && out_dir[len - 1] == '/')
		len--;
	if (strncmp(json, out_dir, len) == 0 && json[len] == '/') {
		fprintf(stderr, "scs4onnx-share: error: --json %s is inside the output folder %s; write it elsewhere\n",
		    json, out_dir);
		return 0;
	}
	return 1;
}

int
main(int argc, char **argv)
{
	scs_share_options o = SCS_SHARE_OPTIONS_INIT;
	scs_report rep = SCS_REPORT_INIT;
	cli_args a;
	char **pos;
	int n_pos = 0, only_pos = 0, rc;

	cli_set_prog("scs4onnx-share");
	memset(&a, 0, sizeof(a));
	if ((pos = calloc((size_t)argc + 1, sizeof(*pos))) == NULL)
		return cli_usage_error("out of memory");
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (only_pos || arg[0] != '-' || arg[1] == '\0') {
			pos[n_pos++] = argv[i];
		} else if (strcmp(arg, "--") == 0) {
			only_pos = 1;
		} else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			usage(stdout);
			free(pos);
			return CLI_OK;
		} else if (strcmp(arg, "--version") == 0) {
			printf("scs4onnx-share %s\n", SCS_VERSION);
			free(pos);
			return CLI_OK;
		} else if (strcmp(arg, "-d") == 0 || strcmp(arg, "--disable-auto-downcast") == 0 ||
		    strcmp(arg, "--disable_auto_downcast") == 0) {
			o.disable_auto_downcast = 1;
		} else if (strcmp(arg, "--dry-run") == 0 || strcmp(arg, "--dry_run") == 0) {
			o.dry_run = 1;
		} else if (strcmp(arg, "--optimize") == 0) {
			o.optimize = 1;
		} else if (strcmp(arg, "-n") == 0 || strcmp(arg, "-q") == 0 || strcmp(arg, "--non-verbose") == 0 ||
		    strcmp(arg, "--non_verbose") == 0 || strcmp(arg, "--quiet") == 0) {
			a.quiet = 1;
		} else if (strcmp(arg, "--keep-transposed") == 0 || strcmp(arg, "--keep_transposed") == 0) {
			o.keep_transposed = 1;
		} else if (strcmp(arg, "--max-data-file-size") == 0 || strcmp(arg, "--max_data_file_size") == 0) {
			if (i + 1 >= argc || cli_parse_size(argv[++i], &o.max_data_file_size) < 0 || o.max_data_file_size == 0) {
				free(pos);
				return cli_usage_error("--max-data-file-size takes a size such as 64M, 2G or 4096");
			}
		} else if (strcmp(arg, "--store") == 0) {
			if (i + 1 >= argc) {
				free(pos);
				return cli_usage_error("--store needs a folder");
			}
			o.store_dir = argv[++i];
		} else if (strcmp(arg, "--json") == 0) {
			if (i + 1 >= argc || argv[i + 1][0] == '\0') {
				free(pos);
				return cli_usage_error("--json needs a file (or -)");
			}
			a.json = argv[++i];
		} else {
			free(pos);
			return cli_usage_error("unknown option '%s'", arg);
		}
	}
	if (n_pos < 2) {
		free(pos);
		return cli_usage_error(n_pos ? "needs OUTDIR and at least one model; only OUTDIR was given" :
		    "needs OUTDIR and at least one model");
	}
	if (a.json && !json_ok(a.json, pos[0], pos + 1, n_pos - 1)) {
		free(pos);
		return CLI_FAILED;
	}
	cli_raise_fd_limit();
	if (!a.quiet && cli_stderr_is_tty())
		o.progress = cli_progress;
	rc = scs_share(&rep, pos[0], (const char *const *)(pos + 1), (size_t)n_pos - 1, &o);
	free(pos);
	if (rc >= 0 && o.dry_run && !a.quiet) {
		cli_progress_end();
		fputs("INFO: dry run: nothing was written; a run would write what follows\n", stderr);
	}
	return cli_finish(&a, &rep, rc);
}
