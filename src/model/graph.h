/*
 * graph.h: facts of a graph's data flow: the names a node reads (its inputs
 * and the outer-scope names its nested graphs read), and a stable
 * topological order of the nodes (a node keeps its place unless something
 * it reads comes later; sorting a sorted graph is the identity).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_GRAPH_H
#define SCS_GRAPH_H

#include <stddef.h>

#include "model/model.h"

typedef struct scs_names {
	const char **items;       /* borrowed from the model */
	size_t n, cap;
} scs_names;

int scs_names_add(scs_names *l, const char *name);

/* Append every name @n reads (each once) to @out. */
int scs_node_reads(const Onnx__NodeProto *n, scs_names *out);

/*
 * The nodes of @g (those with skip[i] == 0 when @skip is set) in a stable
 * topological order, given what each reads (@reads[i]). SCS_ECORRUPT names
 * a node on a cycle (@label names the model). *out is malloc'd: the caller
 * frees it.
 */
int scs_graph_order(size_t **out, size_t *n_out, const Onnx__GraphProto *g, const scs_names *reads, const int *skip,
    const char *label);

/*
 * Reorder @g's nodes in place into one order that depends only on the data
 * flow and on the order of the nodes that are not Constants: those in the
 * stable topological order above, each Constant right before its first
 * reader (in the order that reader reads), unread Constants last. So
 * sorting a sorted graph changes nothing, and a graph joined from shards
 * gets the same order wherever the cuts fell.
 */
int scs_graph_sort(Onnx__GraphProto *g, const char *label);

#endif
