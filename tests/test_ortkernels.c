/*
 * test_ortkernels.c: the table of ONNX Runtime CPU kernels (src/onnx/ortkernels.c),
 * written by hand, against the ONNX schemas (src/onnx/opschema_table.c): sorted,
 * each operator's opset ranges in order and starting at a version of its
 * schema, every type constraint one the schema names, holding only types some
 * version of the schema allows; and the lookups the passes make.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <string.h>

#include "onnx/dtype.h"
#include "onnx/opschema.h"
#include "onnx/ortkernels.h"

/* The type variable of @s called @name, or NULL. */
static const scs_opschema_typevar *
schema_tv(const scs_opschema *s, const char *name)
{
	for (int k = 0; k < s->n_type_vars; k++)
		if (strcmp(s->type_vars[k].name, name) == 0)
			return &s->type_vars[k];
	return NULL;
}

Test(ortkernels, every_row_agrees_with_the_onnx_schemas)
{
	for (size_t i = 0; i < scs_ortkernels_len; i++) {
		const scs_ortkernel *k = &scs_ortkernels_table[i], *prev = i ? &scs_ortkernels_table[i - 1] : NULL;
		const scs_opschema *s;

		if (prev && strcmp(prev->op_type, k->op_type) == 0)
			cr_assert(prev->until > 0 && prev->until < k->since, "%s: [%d,%d] then [%d,%d]", k->op_type, prev->since,
			    prev->until, k->since, k->until);
		else if (prev)
			cr_assert_lt(strcmp(prev->op_type, k->op_type), 0, "%s before %s", prev->op_type, k->op_type);
		if (k->since == 0) {
			/* an operator ONNX Runtime lists no CPU kernel for: one row, nothing in it */
			cr_assert(k->tv[0].name == NULL && (!prev || strcmp(prev->op_type, k->op_type) != 0), "%s", k->op_type);
			cr_assert_not_null(scs_opschema_find("", k->op_type, scs_opschema_newest_opset("")), "%s", k->op_type);
			continue;
		}
		cr_assert(k->until == 0 || k->until >= k->since, "%s-%d: until %d", k->op_type, k->since, k->until);
		s = scs_opschema_find("", k->op_type, k->since);
		cr_assert_not_null(s, "%s-%d: no ONNX schema", k->op_type, k->since);
		cr_assert_eq(s->since_version, k->since, "%s: a row starts at %d, between schema versions (%d)", k->op_type,
		    k->since, s->since_version);
		for (int t = 0; t < SCS_ORTK_MAX_TV && k->tv[t].name; t++) {
			const scs_opschema_typevar *v = schema_tv(s, k->tv[t].name);

			uint64_t any = 0;

			cr_assert_not_null(v, "%s-%d: the schema has no type constraint %s", k->op_type, k->since, k->tv[t].name);
			/* ONNX Runtime may register more than that version allows (Equal-7 on float), never a type no
			 * version of the operator allows; but its all-types lists hold bfloat16 also for operators
			 * whose last version came before ONNX had bfloat16 (Scatter) */
			any = SCS_OPSCHEMA_BIT(SCS_DT_BFLOAT16);
			for (int op = 1; op <= scs_opschema_newest_opset(""); op++) {
				const scs_opschema *o = scs_opschema_find("", k->op_type, op);

				if (o && (v = schema_tv(o, k->tv[t].name)) != NULL)
					any |= v->allowed;
			}
			cr_assert_eq(k->tv[t].types & ~any, 0, "%s-%d %s: types no schema version allows (0x%llx)", k->op_type,
			    k->since, k->tv[t].name, (unsigned long long)(k->tv[t].types & ~any));
			cr_assert_neq(k->tv[t].types, 0, "%s-%d %s: no type", k->op_type, k->since, k->tv[t].name);
		}
		for (size_t c = 0; c < k->n_combos; c++) {
			int types[SCS_ORTK_MAX_TV];

			for (int t = 0; t < SCS_ORTK_MAX_TV; t++)
				types[t] = k->combos[c][t];
			cr_assert(scs_ortkernel_has(k, types), "%s-%d: combination %zu outside its constraints", k->op_type,
			    k->since, c);
		}
	}
}

Test(ortkernels, lookups)
{
	const scs_ortkernel *k;
	int onehot[SCS_ORTK_MAX_TV] = { SCS_DT_INT64, SCS_DT_INT32, SCS_DT_INT64, 0 };

	cr_assert_eq(scs_ortkernel_lookup(&k, "", "Gemm", 13), SCS_ORTK_FOUND);
	cr_assert_eq(k->since, 13);
	cr_assert_eq(scs_ortkernel_types(k, "T"), SCS_OPSCHEMA_BIT(SCS_DT_FLOAT) | SCS_OPSCHEMA_BIT(SCS_DT_DOUBLE));
	cr_assert_eq(scs_ortkernel_lookup(&k, "ai.onnx", "Gemm", 10), SCS_ORTK_FOUND);
	cr_assert_eq(k->since, 9);
	cr_assert_eq(scs_ortkernel_lookup(&k, "", "Gemm", 6), SCS_ORTK_NONE);
	cr_assert_null(k);
	cr_assert_eq(scs_ortkernel_lookup(&k, "", "CastLike", 21), SCS_ORTK_NONE);
	cr_assert_eq(scs_ortkernel_lookup(&k, "", "NoSuchOp", 13), SCS_ORTK_UNKNOWN);
	cr_assert_eq(scs_ortkernel_lookup(&k, "com.microsoft", "Gemm", 1), SCS_ORTK_UNKNOWN);
	/* OneHot: each type is in its constraint's union, the combination is not registered */
	cr_assert_eq(scs_ortkernel_lookup(&k, "", "OneHot", 13), SCS_ORTK_FOUND);
	cr_assert_not(scs_ortkernel_has(k, onehot));
	onehot[2] = SCS_DT_FLOAT;
	cr_assert(scs_ortkernel_has(k, onehot));
	onehot[2] = 0;          /* values unbound: some combination fits */
	onehot[1] = SCS_DT_INT32;
	cr_assert(scs_ortkernel_has(k, onehot));
	onehot[1] = SCS_DT_INT16;
	cr_assert_not(scs_ortkernel_has(k, onehot));
}
