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

/* Payload bytes referenced by every tensor of the model. */
uint64_t scs_pass_payload_bytes(scs_model *m);

#endif
