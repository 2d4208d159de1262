/*
 * precommit.h: every public call that writes a model checks what it is about
 * to write (the skeleton and its payload set) with the checker (check/check.h)
 * before the commit, and refuses an output that fails a rule its input passed:
 * SCS_ECHECK, nothing written, a line naming the pass that broke the rule.
 *
 * How a call uses it. The public call runs its work in a loop:
 *
 *   scs_precommit_begin(&pre, out);
 *   do
 *           rc = work(...);
 *   while (scs_precommit_again(&pre, rep, rc));
 *   return scs_precommit_end(&pre, rep, rc);
 *
 * and its work, on the current thread's run (begin makes it current):
 * scs_precommit_input() on the models as loaded (the rules they fail are
 * the baseline), scs_precommit_ready() once the passes are about to start,
 * scs_precommit_after() after each pass (the optimizer's through
 * scs_precommit_opt_after, opt.h's after_pass), scs_precommit_output() on
 * what it is about to write, before anything is written.
 *
 * The first run checks the input once and the output once. When the output
 * fails a new rule, the work is run again from the start, this time checking
 * after each pass that changed the skeleton, and stops at the first pass
 * after which one of those rules fails: the refusal names it. A valid output
 * costs two checks and nothing else; only a refused one costs a second run.
 *
 * Test builds (SCS_TEST_HOOKS) read SCS_TEST_BREAK_AFTER=<pass>: after the
 * first pass of that name, the run breaks its models' main graphs (a graph
 * input listed twice, so a name made twice; a graph without inputs gets a
 * second copy of its first node; with SCS_TEST_BREAK_HOW=order, a node moved
 * after one that reads it), so that tests see a commit refused.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_PRECOMMIT_H
#define SCS_PRECOMMIT_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "scs4onnx.h"

typedef struct scs_precommit {
	const char *target;       /* the output the refusal names (a file, or the folder of several) */
	uint32_t *base;           /* the rules each input failed (check.h's bits) */
	size_t n_base;
	uint32_t mid;             /* second run: the rules the models failed as the passes started */
	uint32_t wanted;          /* the new rules the first run's output failed: what the second run looks for */
	int each;                 /* 1: the second run, checking after each pass */
	int again;                /* 1: the first run's output failed a new rule */
	int broken;               /* test builds: the break was made in this run */
	const char *const *labels;   /* names of the models when there are several (NULL: "shard k") */
	double seconds;           /* time spent checking, over both runs */
	struct scs_precommit *outer;   /* the run that was current before this one (none in practice) */
} scs_precommit;

/* Make @pre the current thread's run, for output @target. */
void scs_precommit_begin(scs_precommit *pre, const char *target);

/* 1 when the work should run again (its output failed a new rule: @rc is SCS_ECHECK), checking after each pass;
 * the first run's report @rep is emptied for it. */
int scs_precommit_again(scs_precommit *pre, scs_report *rep, int rc);

/* The end of the run: its checks' time as the report's "check" stage (@rep), @rc returned. */
int scs_precommit_end(scs_precommit *pre, scs_report *rep, int rc);

/* The baseline: the rules @ms (the inputs, as loaded) fail; @pairwise: input k becomes output k (else the rules
 * any input fails count for every output). SCS_OK, or < 0 (ENOMEM). */
int scs_precommit_input(scs_model *const *ms, size_t n, int pairwise);

/* The passes start on @ms (second run: the rules they fail now are no pass's doing); @labels: the names the
 * refusal gives the outputs when there are several (NULL: "shard k"). */
int scs_precommit_ready(scs_model *const *ms, size_t n, const char *const *labels);

/* After pass @pass ran on @ms (@changed 0: it changed nothing): in the second run, SCS_ECHECK naming @pass when
 * @ms fail a rule the output failed. 1 when a test build broke @ms here, else SCS_OK; < 0 on error. */
int scs_precommit_after(scs_model *const *ms, size_t n, const char *pass, int changed);

/* scs_precommit_after() for the optimizer's after_pass (opt.h): @payload unused. */
int scs_precommit_opt_after(void *payload, scs_model *m, const char *pass, int changed);

/* Before the commit: SCS_ECHECK when one of @ms fails a rule its input passed; nothing may be written then. */
int scs_precommit_output(scs_model *const *ms, size_t n);

#endif
