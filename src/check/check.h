/*
 * check.h: the checker: the rules of the ONNX checker (IR version, opset
 * imports, operators and their attributes and arity, topological order and
 * single assignment in every graph and body, value infos, tensors, external
 * data, sparse tensors, model-local functions) applied to a loaded model
 * (skeleton + payload set), without reading a payload it does not need.
 * Each problem found is one item (rule, graph, node, what); --full adds the
 * contradictions our type and shape inference finds.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_CHECK_H
#define SCS_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

typedef enum scs_check_rule {
	SCS_RULE_MODEL,       /* "model": ir_version set and known, opset imports (IR >= 3 needs them, IR < 3 none), metadata keys unique */
	SCS_RULE_OPERATOR,    /* "operator": node's domain imported; op known for its domain and opset (built-in domains); not deprecated */
	SCS_RULE_ARITY,       /* "arity": input/output counts in the schema's range; a single (non-optional) formal given "" */
	SCS_RULE_ATTRIBUTE,   /* "attribute": name, type set (IR >= 2), one value field, type matches the field, unknown / repeated /
	                         wrong type vs schema / required missing / t,g,tp missing for their type */
	SCS_RULE_ORDER,       /* "order": every node input defined before the node (graph inputs, initializers, earlier outputs, outer scopes) */
	SCS_RULE_SSA,         /* "ssa": a name made twice (node outputs, graph inputs, initializer names) */
	SCS_RULE_VALUE_INFO,  /* "value-info": main graph inputs/outputs have name, type, elem_type, shape; graph name non-empty */
	SCS_RULE_TENSOR,      /* "tensor": data type set, one value field, 0-element with data, dims vs payload size, IR < 4 initializer not an input */
	SCS_RULE_EXTERNAL,    /* "external-data": location present, relative, inside the model's folder, offset/length within the file */
	SCS_RULE_SPARSE,      /* "sparse": values/indices shapes, indices in range and increasing */
	SCS_RULE_FUNCTION,    /* "function": model-local functions (IR >= 8): their bodies, by the same rules */
	SCS_RULE_INFER,       /* "infer": --full only: a type or shape contradiction our inference finds */
	SCS_RULE_COUNT
} scs_check_rule;

const char *scs_check_rule_name(int rule);   /* the quoted names above */

typedef struct scs_check_problem {
	int rule;
	char *graph;   /* where: "main", "main/If_3.then_branch", "function foo.bar" ...; NULL: the model itself */
	char *node;    /* the node's name, or "#<index> <op_type>" when it has none; NULL when not about a node */
	char *what;    /* one sentence in the user's words */
	char *op_type; /* the node's op_type; NULL when not about a node */
} scs_check_problem;

typedef struct scs_check_findings {
	scs_check_problem *items;
	size_t n, cap;
	uint32_t failed;            /* bit (1u << rule) for each rule with at least one problem */
	uint64_t n_graphs, n_nodes, n_tensors;   /* what was checked */
} scs_check_findings;

typedef struct scs_check_cfg {
	int full;                   /* 1: also SCS_RULE_INFER */
	const char *model_dir;      /* folder external-data locations are resolved in; NULL: do not look at files
	                               (a skeleton about to be written: payload ids are checked against the payload
	                               set's lengths instead) */
	size_t max_problems;        /* stop collecting after this many (0: 1000) */
} scs_check_cfg;

/* Check @m (skeleton + its payload set; sealed main-graph initializers are read through their records).
 * SCS_OK when the check ran (problems, if any, are in @out); < 0 only when it could not run (ENOMEM). */
int scs_check_model(const scs_model *m, const scs_check_cfg *cfg, scs_check_findings *out);
void scs_check_findings_dispose(scs_check_findings *f);
/* One line: "graph 'main', node 'n3' (Gemm): order: input 'b' is not made by an earlier node ..." */
int scs_check_problem_line(const scs_check_problem *p, char *buf, size_t len);

#endif
