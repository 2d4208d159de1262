/*
 * replace_einsum_with_matmul.c: an Einsum of two inputs whose equation is a
 * batched matrix product becomes a MatMul: "...mk,...kn->...mn" directly,
 * "...mk,...nk->...mn" with a Transpose of the second input's last two axes
 * first. The batch letters must be the same, in the same places, in all
 * three terms; every term has as many letters as the others (no ellipsis),
 * at least 2, and no letter twice in one term (a repeated letter takes a
 * diagonal or sums it, which MatMul does not do). The element type must be
 * one MatMul takes (float, double, float16, int32, int64, uint32, uint64).
 * The sums run over the same products, possibly in another order, so
 * floating-point results may differ in rounding. Not in the default set
 * (onnxoptimizer's rule).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <string.h>

#include "onnx/attr.h"
#include "onnx/dtype.h"
#include "opt/opt.h"

#define MAX_TERM 52

/* Whether @t (@len letters) names each of its axes once, with letters only. */
static int
distinct_letters(const char *t, size_t len)
{
	int seen[128] = { 0 };

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)t[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) || seen[c]++)
			return 0;
	}
	return 1;
}

/*
 * Parse @eq: 1 and *@transpose (0: "mk,kn->mn", 1: "mk,nk->mn"), *@rank
 * when it is a batched matrix product; 0 with @why when not.
 */
static int
parse(const char *eq, int *transpose, size_t *rank, char *why, size_t why_len)
{
	char buf[3 * MAX_TERM + 8];
	const char *t1, *t2, *o;
	char *comma, *arrow;
	size_t n = 0, l;

	for (const char *p = eq; *p; p++)
		if (*p != ' ') {
			if (n + 1 >= sizeof(buf))
				return snprintf(why, why_len, "its equation is too long for a matrix product"), 0;
			buf[n++] = *p;
		}
	buf[n] = '\0';
	if ((arrow = strstr(buf, "->")) == NULL)
		return snprintf(why, why_len, "its equation has no '->' (an implicit output)"), 0;
	*arrow = '\0';
	o = arrow + 2;
	if ((comma = strchr(buf, ',')) == NULL || strchr(comma + 1, ','))
		return snprintf(why, why_len, "its equation does not have two terms"), 0;
	*comma = '\0';
	if (strchr(buf, '.') || strchr(comma + 1, '.') || strchr(o, '.'))
		return snprintf(why, why_len, "it has an ellipsis (batch axes that broadcast)"), 0;
	t1 = buf;
	t2 = comma + 1;
	l = strlen(t1);
	if (l < 2 || strlen(t2) != l || strlen(o) != l)
		return snprintf(why, why_len, "its terms are not all of one rank, at least 2"), 0;
	if (!distinct_letters(t1, l) || !distinct_letters(t2, l) || !distinct_letters(o, l))
		return snprintf(why, why_len, "a term repeats a letter or has one that is not a letter (a diagonal, a sum)"),
		    0;
	for (size_t i = 0; i + 2 < l; i++)
		if (t1[i] != t2[i] || t1[i] != o[i])
			return snprintf(why, why_len, "its batch letters differ between the terms"), 0;
	if (o[l - 2] != t1[l - 2])
		return snprintf(why, why_len, "its output's rows are not the first term's"), 0;
	if (t2[l - 2] == t1[l - 1] && o[l - 1] == t2[l - 1])
		*transpose = 0;
	else if (t2[l - 1] == t1[l - 1] && o[l - 1] == t2[l - 2])
		*transpose = 1;
	else
		return snprintf(why, why_len, "it is not a matrix product of its last two axes"), 0;
	*rank = l;
	return 1;
}

static int
matmul_type(int dt)
{
	return dt == SCS_DT_FLOAT || dt == SCS_DT_DOUBLE || dt == SCS_DT_FLOAT16 || dt == SCS_DT_INT32 ||
	    dt == SCS_DT_INT64 || dt == SCS_DT_UINT32 || dt == SCS_DT_UINT64;
}

/* Remove attribute @name of @node (in place). */
static void
drop_attr(Onnx__NodeProto *node, const char *name)
{
	size_t keep = 0;

	for (size_t i = 0; i < node->n_attribute; i++) {
		if (node->attribute[i]->name && strcmp(node->attribute[i]->name, name) == 0)
			scs_model_free_part(&node->attribute[i]->base);
		else
			node->attribute[keep++] = node->attribute[i];
	}
	node->n_attribute = keep;
}

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	const Onnx__AttributeProto *eq = scs_attr_find(node, "equation");
	char why[256], text[3 * MAX_TERM + 8];
	const char *second = NULL, *tname;
	int64_t perm[MAX_TERM];
	int transpose, r;
	size_t rank;
	scs_vfacts f;

	(void)payload;
	if (node->n_input != 2 || node->n_output != 1 || !node->input[0][0] || !node->input[1][0])
		return 0;
	if (eq == NULL || !eq->has_s)
		return scs_opt_refuse(ctx, scope, node, "it has no equation");
	if (eq->s.len >= sizeof(text))
		return scs_opt_refuse(ctx, scope, node, "its equation is too long for a matrix product");
	snprintf(text, sizeof(text), "%.*s", (int)eq->s.len, (const char *)eq->s.data);
	if (!parse(text, &transpose, &rank, why, sizeof(why)))
		return scs_opt_refuse(ctx, scope, node, "%s ('%s')", why, text);
	for (size_t i = 0; i < 2; i++) {
		if ((r = scs_opt_facts(ctx, scope, node->input[i], &f)) < 0)
			return r;
		if (!matmul_type(f.elem))
			return scs_opt_refuse(ctx, scope, node, f.elem ? "MatMul does not take the element type of '%s'" :
			    "the element type of '%s' is not known", node->input[i]);
	}
	second = node->input[1];
	if (transpose) {
		Onnx__NodeProto *t;
		char base[300];

		snprintf(base, sizeof(base), "%.250s_transposed", second);
		if ((r = scs_opt_fresh_name(&tname, ctx, base)) < 0)
			return r;
		for (size_t i = 0; i < rank; i++)
			perm[i] = (int64_t)i;
		perm[rank - 2] = (int64_t)rank - 1;
		perm[rank - 1] = (int64_t)rank - 2;
		if ((t = scs_opt_node_new("Transpose", tname, &second, 1, &tname, 1)) == NULL)
			return scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate a node");
		if ((r = scs_opt_set_attr_ints(t, "perm", perm, rank)) < 0) {
			scs_opt_node_free(ctx, t);
			return r;
		}
		if ((r = scs_opt_insert_node(ctx, scope, node, t)) < 0 || (r = scs_opt_set_input(ctx, node, 1, tname)) < 0)
			return r;
	}
	if (scs_opt_did(ctx, scope, node, "'%s' replaced by a MatMul%s", text,
	    transpose ? " of the second input transposed" : "") < 0)
		return -1;
	drop_attr(node, "equation");
	if ((r = scs_opt_set_name(ctx, &node->op_type, "MatMul")) < 0)
		return r;
	scs_opt_touch(ctx);
	return 1;
}

int
scs_opt_replace_einsum_with_matmul(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Einsum", one, changed);
}
