/*
 * scs4onnx.h: the public API (include/scs4onnx/scs4onnx.h) as the project's
 * own code sees it: with the internal halves of err.h and report.h, which
 * include the public headers and never the other way round.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_SCS4ONNX_H
#define SCS_SCS4ONNX_H

#include <scs4onnx/scs4onnx.h>

#include "util/err.h"
#include "report.h"

/*
 * The calls of the public API as api.c and api_shards.c make them: options
 * and report of this header's version, options never NULL. The public scs_shrink() and
 * the others (abi.c) check the caller's versions, bring older structs to
 * this header's and call these.
 */
int scs_api_shrink(scs_report *rep, const char *in, const char *out, const scs_shrink_options *opts);
int scs_api_split(scs_report *rep, const char *in, const char *dir, const scs_split_options *opts);
int scs_api_merge(scs_report *rep, const char *dir, const char *out, const scs_merge_options *opts);
int scs_api_big(scs_report *rep, const char *in, const char *out, const scs_big_options *opts);
int scs_api_optimize(scs_report *rep, const char *in, const char *out, const scs_optimize_options *opts);
int scs_api_share(scs_report *rep, const char *out_dir, const char *const *models, size_t n_models,
    const scs_share_options *opts);
int scs_api_inspect(scs_inspect_result **out, const char *in, const scs_inspect_options *opts);

/* The table of public struct @type ("scs_shrink_options", ...; abi.c): [v]
 * the bytes of its version v, for v from 1 to *version (this header's);
 * NULL for another type. */
const size_t *scs_abi_ends(const char *type, unsigned *version);

#endif
