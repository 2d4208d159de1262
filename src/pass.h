/*
 * pass.h: the passes over a loaded model. Each works on the skeleton and
 * its payloads, records what it did in the report, and leaves a model that
 * computes exactly what it computed before.
 */
#ifndef SCS_PASS_H
#define SCS_PASS_H

#include "model.h"
#include "report.h"

/*
 * Merge identical non-scalar constants (initializers and Constant-node
 * values, every scope): same element type, dims and bytes (compared byte
 * for byte). Graph inputs are never candidates; graph outputs keep their
 * definition. Copies in sibling scopes are lifted into their nearest common
 * enclosing graph. Adds n_constants, n_scalars, groups and skipped.
 */
int scs_pass_dedup(scs_model *m, scs_report *rep);

/*
 * Lossless downcast: float64 -> float32 and int64 -> int32 constants, only
 * where every value survives the round trip exactly and every consumer's
 * operator schema accepts the narrower type at that input, with all
 * constants that share a type variable narrowed together, and never where
 * that type variable also types an output or a non-constant input. Unknown
 * operators are never narrowed. Adds narrowed and refused to the report.
 */
int scs_pass_downcast(scs_model *m, scs_report *rep);

/* Payload bytes referenced by every tensor of the model. */
uint64_t scs_pass_payload_bytes(scs_model *m);

#endif
