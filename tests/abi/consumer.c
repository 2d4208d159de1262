/*
 * consumer.c: a program of a library user, built by the abi suite against
 * the stored headers of one release (tests/abi/<release>/scs4onnx/) and run
 * against the current library. Headers with versioned structs (1.0.0 on):
 * every call on a model, its report read, all on the stack as a user
 * writes it; 0.1.0's headers: a shrink as 0.1.0's users wrote it (such a
 * program must not load today's library at all).
 *
 * Usage: consumer IN.onnx DIR   (writes DIR/out.onnx, DIR/shards, ...);
 * prints one line per call, exit status 0 when every call did its work.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scs4onnx/scs4onnx.h>

static char *
path(const char *dir, const char *name)
{
	static char buf[4][4096];
	static int next;
	char *p = buf[next++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
	return p;
}

static int
failed(const char *call, int rc)
{
	fprintf(stderr, "consumer: %s: %s: %s\n", call, scs_err_name(rc), scs_err_msg());
	return 1;
}

#ifdef SCS_REPORT_INIT

static int
calls(const char *in, const char *dir)
{
	scs_shrink_options so = SCS_SHRINK_OPTIONS_INIT;
	scs_split_options sp = SCS_SPLIT_OPTIONS_INIT;
	scs_merge_options mo = SCS_MERGE_OPTIONS_INIT;
	scs_big_options bo = SCS_BIG_OPTIONS_INIT;
	scs_optimize_options oo = SCS_OPTIMIZE_OPTIONS_INIT;
	scs_report rep = SCS_REPORT_INIT;
	char *json;
	int rc;

	if ((rc = scs_shrink(&rep, in, path(dir, "out.onnx"), &so)) < 0)
		return failed("scs_shrink", rc);
	printf("shrink: groups %zu bytes_before %llu bytes_after %llu\n", rep.n_groups,
	    (unsigned long long)rep.bytes_before, (unsigned long long)rep.bytes_after);
	if ((json = scs_report_json(&rep)) == NULL || strstr(json, "\"groups\"") == NULL)
		return failed("scs_report_json", SCS_ENOMEM);
	scs_free(json);
	scs_report_print(&rep, stdout);
	scs_report_dispose(&rep);

	sp.max_shard_len = 1;
	if ((rc = scs_split(&rep, in, path(dir, "shards"), &sp)) < 0)
		return failed("scs_split", rc);
	printf("split: shards %zu\n", rep.n_shards);
	scs_report_dispose(&rep);
	if ((rc = scs_merge(&rep, path(dir, "shards"), path(dir, "merged.onnx"), &mo)) < 0)
		return failed("scs_merge", rc);
	printf("merge: shards %zu groups %zu\n", rep.n_shards, rep.n_groups);
	scs_report_dispose(&rep);

	so.optimize = 1;
	bo.shrink = &so;
	bo.max_shard_len = 1;
	if ((rc = scs_big(&rep, in, path(dir, "big.onnx"), &bo)) < 0)
		return failed("scs_big", rc);
	printf("big: shards %zu stages %zu optimized %d\n", rep.n_shards, rep.n_stages, rep.optimized);
	scs_report_dispose(&rep);

	if ((rc = scs_optimize(&rep, in, path(dir, "opt.onnx"), &oo)) < 0)
		return failed("scs_optimize", rc);
	printf("optimize: passes %zu nodes %llu -> %llu\n", rep.n_passes, (unsigned long long)rep.nodes_before,
	    (unsigned long long)rep.nodes_after);
	if (scs_report_write_json(&rep, stdout) < 0)
		return failed("scs_report_write_json", SCS_EIO);
	printf("\n");
	scs_report_dispose(&rep);
	return 0;
}

#else

/* 0.1.0: the options zeroed, the report uninitialized */
static int
calls(const char *in, const char *dir)
{
	scs_shrink_options so;
	scs_report rep;
	int rc;

	memset(&so, 0, sizeof(so));
	if ((rc = scs_shrink(&rep, in, path(dir, "out.onnx"), &so)) < 0)
		return failed("scs_shrink", rc);
	printf("shrink: groups %zu bytes_before %llu bytes_after %llu\n", rep.n_groups,
	    (unsigned long long)rep.bytes_before, (unsigned long long)rep.bytes_after);
	scs_report_dispose(&rep);
	return 0;
}

#endif

int
main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: consumer IN.onnx DIR\n");
		return 2;
	}
	printf("headers %s, library %s\n", SCS_VERSION, scs_version());
	return calls(argv[1], argv[2]);
}
