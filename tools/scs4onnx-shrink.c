/*
 * scs4onnx-shrink: merge identical constants of an ONNX model of any size.
 * Accepts the Python scs4onnx's spellings too (-m, -fo, -fc, -d, -n and the
 * underscore forms), so existing scripts carry over.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: scs4onnx-shrink INPUT.onnx OUTPUT.onnx [options]\n"
	    "\n"
	    "Make an ONNX model smaller without changing what it computes: identical\n"
	    "non-scalar constants (initializers and Constant values, in every graph and\n"
	    "function) become one. Reads models of any size, inline or with external data.\n"
	    "\n"
	    "options:\n"
	    "  -m, --mode {shrink,npy}      shrink: share constants inside the model (default)\n"
	    "                               npy: move repeated constants to .npy files\n"
	    "  -fo, --forced-extraction-op-names NAME[,NAME...]\n"
	    "                               move the constants of these ops to .npy files\n"
	    "  -fc, --forced-extraction-constant-names NAME[,NAME...]\n"
	    "                               move these constants to .npy files\n"
	    "  -d, --disable-auto-downcast  keep float64 and int64 constants as they are\n"
	    "  -n, --non-verbose            print nothing but errors\n"
	    "      --external-data          write OUTPUT.data (ONNX external data) even when\n"
	    "                               the model fits inline (always above 2 GiB)\n"
	    "      --store DIR              keep payloads in this store folder (reused)\n"
	    "      --json FILE              write the report as JSON (- for stdout)\n"
	    "  -h, --help                   show this help\n"
	    "      --version                show the version\n"
	    "\n"
	    "The scs4onnx spellings --forced_extraction_op_names, --forced_extraction_constant_names,\n"
	    "--disable_auto_downcast and --non_verbose work too. Lists take several words or\n"
	    "comma-separated names.\n"
	    "\n"
	    "Exit status: 0 done, 1 failed (nothing written), 2 bad usage.\n");
}

/* Match @arg against the spellings of one option; *value set for "--x=v". */
static int
is_opt(const char *arg, const char *const *names, const char **value)
{
	size_t n;

	for (; *names; names++) {
		n = strlen(*names);
		if (strncmp(arg, *names, n) != 0)
			continue;
		if (arg[n] == '\0') {
			*value = NULL;
			return 1;
		}
		if (arg[n] == '=' && (*names)[1] == '-') {
			*value = arg + n + 1;
			return 1;
		}
	}
	return 0;
}

static int
is_model_path(const char *s)
{
	size_t n = strlen(s);

	return n > 5 && strcmp(s + n - 5, ".onnx") == 0;
}

int
main(int argc, char **argv)
{
	static const char *const o_mode[] = { "-m", "--mode", NULL };
	static const char *const o_fo[] = { "-fo", "--forced-extraction-op-names", "--forced_extraction_op_names", NULL };
	static const char *const o_fc[] = { "-fc", "--forced-extraction-constant-names",
		"--forced_extraction_constant_names", NULL };
	static const char *const o_down[] = { "-d", "--disable-auto-downcast", "--disable_auto_downcast", NULL };
	static const char *const o_quiet[] = { "-n", "--non-verbose", "--non_verbose", NULL };
	static const char *const o_ext[] = { "--external-data", "--external_data", NULL };
	static const char *const o_store[] = { "--store", NULL };
	static const char *const o_json[] = { "--json", NULL };
	static const char *const o_help[] = { "-h", "--help", NULL };
	static const char *const o_version[] = { "--version", NULL };
	scs_shrink_options opts;
	cli_list op_names = { NULL, 0 }, const_names = { NULL, 0 };
	const char *pos[2] = { NULL, NULL }, *json = NULL, *value;
	int n_pos = 0, quiet = 0, rc, i, only_pos = 0;
	scs_report rep;

	cli_set_prog("scs4onnx-shrink");
	memset(&opts, 0, sizeof(opts));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		cli_list *list = NULL;

		if (only_pos || a[0] != '-' || a[1] == '\0') {
			if (n_pos == 2)
				return cli_usage_error("unexpected argument '%s'", a);
			pos[n_pos++] = a;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			only_pos = 1;
		} else if (is_opt(a, o_help, &value)) {
			usage(stdout);
			return CLI_OK;
		} else if (is_opt(a, o_version, &value)) {
			printf("scs4onnx-shrink %s\n", SCS_VERSION);
			return CLI_OK;
		} else if (is_opt(a, o_mode, &value)) {
			if (value == NULL && (value = (i + 1 < argc ? argv[++i] : NULL)) == NULL)
				return cli_usage_error("%s needs shrink or npy", a);
			if (strcmp(value, "shrink") == 0)
				opts.mode = SCS_MODE_SHRINK;
			else if (strcmp(value, "npy") == 0)
				opts.mode = SCS_MODE_NPY;
			else
				return cli_usage_error("--mode takes shrink or npy, not '%s'", value);
		} else if (is_opt(a, o_fo, &value)) {
			list = &op_names;
		} else if (is_opt(a, o_fc, &value)) {
			list = &const_names;
		} else if (is_opt(a, o_down, &value) && value == NULL) {
			opts.disable_auto_downcast = 1;
		} else if (is_opt(a, o_quiet, &value) && value == NULL) {
			quiet = 1;
		} else if (is_opt(a, o_ext, &value) && value == NULL) {
			opts.external_data = 1;
		} else if (is_opt(a, o_store, &value)) {
			if (value == NULL && (value = (i + 1 < argc ? argv[++i] : NULL)) == NULL)
				return cli_usage_error("--store needs a folder");
			opts.store_dir = value;
		} else if (is_opt(a, o_json, &value)) {
			if (value == NULL && (value = (i + 1 < argc ? argv[++i] : NULL)) == NULL)
				return cli_usage_error("--json needs a file (or -)");
			json = value;
		} else {
			return cli_usage_error("unknown option '%s'", a);
		}
		if (list) {
			size_t before = list->n;

			if (value && cli_list_add(list, value) < 0)
				return cli_usage_error("out of memory");
			/* like argparse's nargs='+': the words up to the next option,
			 * but a model path (*.onnx) is left for the positionals */
			while (value == NULL && i + 1 < argc && argv[i + 1][0] != '-' && !is_model_path(argv[i + 1]))
				if (cli_list_add(list, argv[++i]) < 0)
					return cli_usage_error("out of memory");
			if (list->n == before)
				return cli_usage_error("%s needs at least one name", a);
		}
	}
	if (n_pos < 2)
		return cli_usage_error("needs INPUT.onnx and OUTPUT.onnx");
	opts.forced_op_names = (const char *const *)op_names.items;
	opts.n_forced_op_names = op_names.n;
	opts.forced_constant_names = (const char *const *)const_names.items;
	opts.n_forced_constant_names = const_names.n;
	if (!quiet && cli_stderr_is_tty())
		opts.progress = cli_progress;
	rc = scs_shrink(&rep, pos[0], pos[1], &opts);
	cli_progress_end();
	if (rc < 0) {
		rc = cli_fail();
	} else {
		if (!quiet)
			scs_report_print(&rep, stderr);
		rc = json ? cli_write_json(&rep, json) : CLI_OK;
	}
	scs_report_dispose(&rep);
	cli_list_dispose(&op_names);
	cli_list_dispose(&const_names);
	return rc;
}
