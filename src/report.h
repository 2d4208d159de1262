/*
 * report.h: what a run did, as the tools print it (scs4onnx's INFO lines)
 * and as JSON. Plain data; every string is owned by the report. The struct,
 * printing, JSON and disposal are public (<scs4onnx/report.h>); filling a
 * report in is the library's own business.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_REPORT_H
#define SCS_REPORT_H

#include <scs4onnx/report.h>
#include "shrink/pass.h"

/* scs_report_dispose(), scs_report_print() and scs_report_write_json() of a
 * report of this header's version (the public ones, abi.c, check the
 * caller's version first). scs_report_clear zeroes the whole report. */
void scs_report_clear(scs_report *r);
void scs_report_put_text(const scs_report *r, FILE *f);
int scs_report_put_json(const scs_report *r, FILE *f);

/* @s as a JSON string, quoted and escaped, to @f. */
void scs_json_str(FILE *f, const char *s);

/* Note the calling thread's I/O counters at the start of a run (after the report
 * was cleared); each scs_report_stage_add() then sets the run's I/O. */
void scs_report_io_begin(scs_report *r);

/* Record a finished stage (ignored past SCS_REPORT_MAX_STAGES). */
void scs_report_stage_add(scs_report *r, const char *name, double seconds, uint64_t bytes);

/* Add a merged group; @names are copied. */
int scs_report_add_group(scs_report *r, const char *canonical, const char *const *names, size_t n_names,
    int dtype, uint64_t bytes, int lifted);
/*
 * Fold the groups from index @from on that merged in several rounds (a group
 * whose canonical a later group merged away goes into that later group): one
 * group per kept constant, as one round would report it. SCS_ENOMEM.
 */
int scs_report_fold_groups(scs_report *r, size_t from);
/*
 * Order the groups from index @from on as one pass over the model meets
 * them: each group's names in the order of @order (names, first
 * appearance first; a name not in it after those, as it was), then the
 * groups by where their canonical or first name appears. So a run that
 * merges in rounds (shards, then the joined model) lists a group as a run
 * in one pass does. SCS_ENOMEM.
 */
int scs_report_order_groups(scs_report *r, size_t from, const scs_pass_notes *order);
/* Free a list's entries; it is empty afterwards. */
void scs_report_list_dispose(scs_report_list *l);
/* Add "name: detail" to a list; both copied. */
int scs_report_add(scs_report_list *l, const char *name, const char *detail);
/* Drop the entries equal (name and detail) to an earlier one; the first stays. */
void scs_report_list_unique(scs_report_list *l);

#endif
