/*
 * ortkernels.h: which element types ONNX Runtime's CPU execution provider
 * has kernels for, per operator, opset range and type constraint: the
 * facts an output must keep to load wherever its input loaded. Operator
 * schemas allow more than runtimes implement (Gemm's schema takes int32,
 * ONNX Runtime's CPU Gemm does not), so a pass that makes a new node, or
 * gives an input another element type, asks here as well as the schema.
 *
 * The table (ortkernels.c) is written by hand from ONNX Runtime's
 * docs/OperatorKernels.md (the file names the copy), for the operators the
 * passes ask about: those the downcast rule may narrow an input of, and
 * those the fusions make or rewrite. An operator the table does not list
 * is unknown (SCS_ORTK_UNKNOWN), and callers refuse rather than guess.
 * Where ONNX Runtime registers a kernel per combination of types rather
 * than for every combination of its constraints' types (OneHot), the
 * combinations are listed too.
 *
 * Includes dtype.h only.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_ORTKERNELS_H
#define SCS_ORTKERNELS_H

#include <stddef.h>
#include <stdint.h>

/* Type constraints of a kernel at most; combinations are listed by these positions. */
#define SCS_ORTK_MAX_TV 4

/* One type constraint of a kernel: its name (as in the schema) and bit (1 << elem_type) per registered type. */
typedef struct scs_ortk_tv {
	const char *name;
	uint64_t types;
} scs_ortk_tv;

/* The kernels of one operator over one opset range. */
typedef struct scs_ortkernel {
	const char *op_type;                /* ai.onnx */
	int since, until;                   /* opsets [since, until]; until 0: and every later one */
	scs_ortk_tv tv[SCS_ORTK_MAX_TV];    /* name NULL past the last */
	size_t n_combos;                    /* 0: every combination of the constraints' types has a kernel */
	const uint8_t (*combos)[SCS_ORTK_MAX_TV];   /* else these only: an element type per constraint, in tv order */
} scs_ortkernel;

enum {
	SCS_ORTK_UNKNOWN = -1,              /* the table does not list the operator */
	SCS_ORTK_NONE = 0,                  /* listed, but ONNX Runtime has no CPU kernel for it at that opset */
	SCS_ORTK_FOUND = 1,
};

/* Where the table's facts come from, for messages and the report. */
extern const char scs_ortkernels_source[];

/* The table, sorted by op_type (strcmp), then opset: for tests; use scs_ortkernel_lookup(). */
extern const scs_ortkernel scs_ortkernels_table[];
extern const size_t scs_ortkernels_len;

/*
 * The CPU kernels of @op_type (domain @domain: "", "ai.onnx" or NULL; any
 * other domain is unknown) at opset @opset into *out: SCS_ORTK_FOUND, or
 * SCS_ORTK_NONE (*out NULL: ONNX Runtime lists no CPU kernel of that
 * version; it may run an ONNX function body instead), or SCS_ORTK_UNKNOWN.
 * *out is a static table entry; do not free it.
 */
int scs_ortkernel_lookup(const scs_ortkernel **out, const char *domain, const char *op_type, int64_t opset);

/* The position of constraint @tv in @k, or -1. */
int scs_ortkernel_tv(const scs_ortkernel *k, const char *tv);

/* The types registered for constraint @tv of @k (bit per element type); 0 when @k has no such constraint. */
uint64_t scs_ortkernel_types(const scs_ortkernel *k, const char *tv);

/*
 * 1 when @k has a kernel for element types @dtypes (one per constraint, in
 * @k's tv order; 0 for a constraint not bound): each type registered for
 * its constraint and, where @k lists combinations, one of them (an unbound
 * constraint matches any). 0 when not.
 */
int scs_ortkernel_has(const scs_ortkernel *k, const int *dtypes);

#endif
