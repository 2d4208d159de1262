/*
 * cli.h: what the tools share: the terminal (stderr only; progress only on
 * a tty), the error line and exit codes, size and list arguments.
 * Exit codes: 0 done, 1 failed (one line on stderr), 2 bad usage.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_CLI_H
#define SCS_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <scs4onnx/scs4onnx.h>

enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2 };

typedef struct cli_list {
	char **items;
	size_t n;
} cli_list;

/* Which flags a tool takes (cli_parse). */
enum {
	CLI_SHRINK = 1,           /* -m, -fo, -fc, -d and their spellings, --optimize (with --fold-*,
	                             --input-shape, --write-shapes), --initializers-as-constants */
	CLI_EXTERNAL = 2,         /* --external-data, --max-data-file-size SIZE */
	CLI_STORE = 4,            /* --store DIR */
	CLI_SHARDS = 8,           /* --max-shard-size SIZE */
	CLI_MERGE = 16,           /* --no-dedup */
	CLI_WORK = 32,            /* --work DIR, --keep-work */
	CLI_PASSES = 64,          /* -p/--passes NAME..., --skip NAME... */
	CLI_FORCE = 128,          /* -f/--force: replace a read-only OUTPUT (and, with CLI_NEW_OUTPUT, any) */
	CLI_IN_DIR = 256,         /* INPUT is a folder of shards (merge) */
	CLI_OUT_DIR = 512,        /* OUTPUT is a folder of shards (split) */
	CLI_NEW_OUTPUT = 1024,    /* an OUTPUT file that exists is replaced only with --force */
};

typedef struct cli_args {
	const char *pos[2];       /* the two positional arguments */
	int quiet;                /* -n / --non-verbose / -q */
	const char *json;         /* --json FILE */
	scs_shrink_options shrink;
	cli_list op_names, constant_names;
	uint64_t max_shard_len;
	const char *work_dir;
	int keep_work, no_dedup;
	int force;                /* -f / --force */
	int verbose;              /* -v / --verbose: the optimizer's changes one a line */
	cli_list passes, skip;    /* -p, --skip */
	cli_list input_shapes;    /* --input-shape NAME=DIMS (repeatable; shrink.input_shapes lists them) */
} cli_args;

/*
 * Parse the command line of a tool taking two positionals and the @flags
 * families. Returns -1 when the tool should run, otherwise the exit status
 * to leave with (--help and --version print and give 0; bad usage prints a
 * hint and gives 2; an OUTPUT or a --json FILE the run may not write gives
 * 1 with its line). @usage prints the tool's help. With CLI_NEW_OUTPUT an
 * OUTPUT file that exists already (other than INPUT itself, which the run
 * refuses on its own) is refused without --force, as gzip refuses one: the
 * model of a swapped command line is not overwritten without a word.
 *
 * --json FILE is checked here, before any work: not the input or the
 * output, nor a data or .npy file written beside the output, nor in the
 * shard, store or work folder; its folder exists and takes a new file; a
 * file already there is replaced only when it is empty or a JSON report.
 */
int cli_parse(cli_args *a, int argc, char **argv, unsigned flags, void (*usage)(FILE *));
void cli_args_dispose(cli_args *a);

/*
 * The prologue of a tool that reads and writes models: cli_set_prog(@prog),
 * cli_raise_fd_limit(), then cli_parse(). Returns -1 when the tool should
 * run (dispose @a with cli_finish), otherwise the exit status to leave with
 * (@a already disposed).
 */
int cli_start(cli_args *a, const char *prog, int argc, char **argv, unsigned flags, void (*usage)(FILE *));

/* One entry of a tool's options block: the flags as shown, and what the
 * option does ("" for nothing; a '\n' starts a line under the column). */
typedef struct cli_help {
	const char *flags;
	const char *what;
} cli_help;

/* The entries several tools show the same way. */
#define CLI_HELP_STORE { "    --store DIR", "keep payloads in this store folder (reused)" }
#define CLI_HELP_QUIET { "-n, --non-verbose", "print nothing but errors" }
#define CLI_HELP_JSON { "    --json FILE", "write the report as JSON (- for stdout)" }
#define CLI_HELP_FORCE { "-f, --force", "replace OUTPUT even when it is read-only" }
#define CLI_HELP_FORCE_NEW { "-f, --force", "replace OUTPUT when it exists (without it an\n" \
	"existing OUTPUT is refused and left as it is)" }
#define CLI_HELP_VERBOSE { "-v, --verbose", "also list each change of the optimizer and each\n" \
	"node it left alone, with the reason (--json has\n" "them always)" }
#define CLI_HELP_FOLD_LIMIT { "    --fold-size-limit SIZE", "with --optimize: no folded output over SIZE\n" \
	"(K, M, G suffixes; default 1M)" }
#define CLI_HELP_FOLD_GROW { "    --fold-grow", "with --optimize: also folds that make the model bigger" }
#define CLI_HELP_FOLD_INEXACT { "    --fold-inexact", "with --optimize: also fold Exp, Pow, Tanh, ... and\n" \
	"float sums, which a runtime may round otherwise,\n" "and make Div by a constant whose reciprocal rounds\n" \
	"a Mul" }
#define CLI_HELP_INPUT_SHAPE { "    --input-shape NAME=DIMS", "with --optimize: graph input NAME takes these\n" \
	"dims (such as x=1,3,224,224; repeatable), for\n" "shape inference and folding, and in OUTPUT; it\n" \
	"must agree with the declared rank and fixed dims" }
#define CLI_HELP_WRITE_SHAPES { "    --write-shapes", "with --optimize: write the inferred shapes of\n" \
	"the main graph's values to value_info" }
#define CLI_HELP_FOLD_QDQ { "    --fold-qdq", "with --optimize: also fold QuantizeLinear and\n" \
	"DequantizeLinear of constants (left by default\n" "for the runtime's quantized kernels)" }
#define CLI_HELP_INIT_CONST { "    --initializers-as-constants", "take initializers that are also graph inputs\n" \
	"as constants (IR 4+: no longer inputs in OUTPUT;\n" "below IR 4 they always are constants)" }
#define CLI_HELP_MAX_DATA { "    --max-data-file-size SIZE", "write external data (as --external-data) in\n" \
	"numbered files of at most SIZE each (K, M, G\n" "suffixes; at least 4K), such as\n" \
	"OUTPUT.onnx.<16 hex>-00001-of-00004.data; a\n" "tensor longer than SIZE gets a file of its own" }
#define CLI_HELP_KEEP_TRANSPOSED { "    --keep-transposed", "keep a 2-D constant that equals another one\n" \
	"transposed as a copy of its own (by default one\n" "is kept, the other read through Gemm or Transpose)" }
#define CLI_HELP_END { "-h, --help", "show this help" }, { "    --version", "show the version" }, { NULL, NULL }

/*
 * The end of a tool's --help: "options:", each entry of @opts (up to the
 * one whose flags are NULL) with what it does from column @col (on the next
 * line when the flags reach it), a blank line, @note (whole lines) and a blank line when
 * @note is not NULL, and the exit status line.
 */
void cli_help_options(FILE *f, int col, const cli_help *opts, const char *note);
/* The same without the exit status line (a tool whose statuses differ prints its own). */
void cli_help_entries(FILE *f, int col, const cli_help *opts, const char *note);

/* "1.8G", "512M", "4096": bytes (K, M, G, T are powers of 1024); -1 when bad. */
int cli_parse_size(const char *s, uint64_t *out);

/* Print the report unless quiet, write --json, dispose; the exit status for @rc. */
int cli_finish(cli_args *a, scs_report *rep, int rc);

/* The tool's name for messages; also installs the signal handlers that
 * remove temporary files when the run is interrupted. */
void cli_set_prog(const char *prog);

/* "prog: error: <scs_err_msg()>" and CLI_FAILED. */
int cli_fail(void);

/* "prog: <message>" + a hint to --help, and CLI_USAGE. */
int cli_usage_error(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;

/* Split @arg on commas and append each non-empty part. */
int cli_list_add(cli_list *l, const char *arg);
/* Append @arg whole. */
int cli_list_push(cli_list *l, const char *arg, size_t len);
void cli_list_dispose(cli_list *l);

/* The progress callback for scs_*_options: a line on a tty, redrawn in place. */
void cli_progress(void *payload, const char *stage, uint64_t done, uint64_t total);
/* Finish a progress line, if one is showing. */
void cli_progress_end(void);
/* 1 when stderr is a terminal. */
int cli_stderr_is_tty(void);

/* Write @rep as JSON to @path ("-" for stdout): a new file renamed over
 * @path, so that @path holds the old report or the new one, whole;
 * CLI_OK or CLI_FAILED. */
int cli_write_json(const scs_report *rep, const char *path);

#endif
