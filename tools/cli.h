/*
 * cli.h: what the tools share: the terminal (stderr only; progress only on
 * a tty), the error line and exit codes, size and list arguments.
 * Exit codes: 0 done, 1 failed (one line on stderr), 2 bad usage.
 */
#ifndef SCS_CLI_H
#define SCS_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "scs4onnx.h"

enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2 };

typedef struct cli_list {
	char **items;
	size_t n;
} cli_list;

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
void cli_list_dispose(cli_list *l);

/* The progress callback for scs_*_options: a line on a tty, redrawn in place. */
void cli_progress(void *payload, const char *stage, uint64_t done, uint64_t total);
/* Finish a progress line, if one is showing. */
void cli_progress_end(void);
/* 1 when stderr is a terminal. */
int cli_stderr_is_tty(void);

/* Write @rep as JSON to @path ("-" for stdout); CLI_OK or CLI_FAILED. */
int cli_write_json(const scs_report *rep, const char *path);

#endif
