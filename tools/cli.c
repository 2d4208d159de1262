/* cli.c: the terminal side of the tools (see cli.h). */
#include "cli.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *prog = "scs4onnx";
static int progress_shown;

static void
on_signal(int sig)
{
	scs_remove_temporaries();
	signal(sig, SIG_DFL);
	raise(sig);
}

void
cli_set_prog(const char *p)
{
	struct sigaction sa;

	prog = p;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int
cli_fail(void)
{
	cli_progress_end();
	fprintf(stderr, "%s: error: %s\n", prog, scs_err_msg()[0] ? scs_err_msg() : "failed");
	return CLI_FAILED;
}

int
cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", prog);
	return CLI_USAGE;
}

int
cli_list_add(cli_list *l, const char *arg)
{
	const char *p = arg, *comma;
	char **grown;
	size_t len;

	while (*p) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (len) {
			if ((grown = realloc(l->items, (l->n + 1) * sizeof(*grown))) == NULL)
				return -1;
			l->items = grown;
			if ((l->items[l->n] = strndup(p, len)) == NULL)
				return -1;
			l->n++;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

void
cli_list_dispose(cli_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i]);
	free(l->items);
	l->items = NULL;
	l->n = 0;
}

int
cli_stderr_is_tty(void)
{
	return isatty(STDERR_FILENO);
}

void
cli_progress(void *payload, const char *stage, uint64_t done, uint64_t total)
{
	static struct timespec last;
	static const char *last_stage;
	struct timespec now;

	(void)payload;
	/* a few redraws a second at most, but every new stage and every end */
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (stage == last_stage && done < total &&
	    (now.tv_sec - last.tv_sec) * 1000000000L + (now.tv_nsec - last.tv_nsec) < 250000000L)
		return;
	last = now;
	last_stage = stage;
	if (total > 1)
		fprintf(stderr, "\r%s: %s %5.1f%% (%llu / %llu MiB)   ", prog, stage, 100.0 * (double)done / (double)total,
		    (unsigned long long)(done >> 20), (unsigned long long)(total >> 20));
	else
		fprintf(stderr, "\r%s: %s ...%30s", prog, stage, "");
	fflush(stderr);
	progress_shown = 1;
}

void
cli_progress_end(void)
{
	if (progress_shown)
		fputc('\n', stderr);
	progress_shown = 0;
}

int
cli_write_json(const scs_report *rep, const char *path)
{
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
	int rc;

	if (f == NULL) {
		fprintf(stderr, "%s: error: %s: cannot write the JSON report\n", prog, path);
		return CLI_FAILED;
	}
	rc = scs_report_write_json(rep, f);
	if (f != stdout && fclose(f) != 0)
		rc = -1;
	if (rc < 0) {
		fprintf(stderr, "%s: error: %s: cannot write the JSON report\n", prog, path);
		return CLI_FAILED;
	}
	return CLI_OK;
}
