/*
 * consumer.c: a program of a library user, built by the install suite with
 * nothing but `pkg-config --cflags --libs scs4onnx` against the installed
 * tree: shrinks IN into OUT and prints what the report says.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scs4onnx/scs4onnx.h>

int
main(int argc, char **argv)
{
	scs_shrink_options opts = SCS_SHRINK_OPTIONS_INIT;
	scs_report rep = SCS_REPORT_INIT;
	char *json;
	int rc;

	if (argc != 3) {
		fprintf(stderr, "usage: consumer IN.onnx OUT.onnx\n");
		return 2;
	}
	if (strcmp(scs_version(), SCS_VERSION) != 0) {
		fprintf(stderr, "library %s, headers %s\n", scs_version(), SCS_VERSION);
		return 1;
	}
	if ((rc = scs_shrink(&rep, argv[1], argv[2], &opts)) != SCS_OK) {
		fprintf(stderr, "consumer: %s: %s\n", scs_err_name(rc), scs_err_msg());
		scs_report_dispose(&rep);
		return 1;
	}
	printf("groups %zu bytes_before %llu bytes_after %llu\n", rep.n_groups,
	    (unsigned long long)rep.bytes_before, (unsigned long long)rep.bytes_after);
	if ((json = scs_report_json(&rep)) == NULL) {
		scs_report_dispose(&rep);
		return 1;
	}
	printf("json %s\n", strstr(json, "\"constant_bytes_after\"") ? "has constant_bytes_after" : "lacks constant_bytes_after");
	scs_free(json);
	scs_report_dispose(&rep);
	return 0;
}
