/*
 * set_unique_name_for_nodes.c: every node without a name (in every graph,
 * nested body and function) gets one no other node of the model has:
 * its op type and a number ("Add_3"). Names already there stay. Node names
 * are labels (no value refers to them), so what the model computes does
 * not change. Not in the default set (onnxoptimizer's rule).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>

#include "model/rename.h"
#include "opt/opt.h"
#include "util/strmap.h"

typedef struct naming {
	scs_strmap taken;                   /* every node name (borrowed from the nodes) */
	uint64_t next;                      /* the number the next new name tries first */
	uint64_t named;
} naming;

static int
collect(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	naming *nm = payload;

	(void)ctx;
	(void)scope;
	if (node->name && node->name[0])
		return scs_strmap_put(&nm->taken, node->name, 1);
	return SCS_OK;
}

static int
give(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	naming *nm = payload;
	const char *op = node->op_type && node->op_type[0] ? node->op_type : "node";
	char name[256];
	int rc;

	(void)ctx;
	(void)scope;
	if (node->name && node->name[0])
		return SCS_OK;
	do
		snprintf(name, sizeof(name), "%.200s_%llu", op, (unsigned long long)++nm->next);
	while (scs_strmap_get(&nm->taken, name, NULL));
	if (node->name == protobuf_c_empty_string)
		node->name = NULL;     /* the library's shared "": not ours to free */
	if ((rc = scs_name_swap(&node->name, name)) < 0 || (rc = scs_strmap_put(&nm->taken, node->name, 1)) < 0)
		return rc;
	nm->named++;
	return SCS_OK;
}

int
scs_opt_set_unique_name_for_nodes(scs_opt_ctx *ctx, int *changed)
{
	naming nm = { SCS_STRMAP_INIT, 0, 0 };
	int rc;

	if ((rc = scs_opt_each_node(ctx, collect, &nm)) >= 0)
		rc = scs_opt_each_node(ctx, give, &nm);
	scs_strmap_dispose(&nm.taken);
	if (rc < 0)
		return rc;
	if (nm.named == 0)
		return SCS_OK;
	*changed = 1;
	return scs_opt_did(ctx, 0, NULL, "%llu nodes without a name named (op type and a number)",
	    (unsigned long long)nm.named) < 0 ? -1 : SCS_OK;
}
