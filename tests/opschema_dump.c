/*
 * opschema_dump.c: the schema table and the downcast rule as JSON lines, for
 * tests/e2e/gen_downcast_ops.py, which builds one model per operator input the
 * downcast pass would narrow. Usage: opschema-dump OPSET...
 * For each opset, one line per default-domain operator in force at it:
 *   {"opset":18,"op":"Gather","since":13,"inputs":[...],"outputs":[...]}
 * an argument being {"name","tv","types":[elem types],"container","optional",
 * "variadic"} and, for inputs, "narrow": {"1": "" or a refusal, "6": ...}
 * (float32 and int32: "" where the pass may narrow to that type).
 *
 * opschema-dump --schemas: one line per table entry (every domain and version),
 * for tests/e2e/compare_opschema.py, which holds it against onnx's own schemas:
 *   {"domain":"","op":"Split","since":1,"deprecated":0,"any_attrs":0,"inputs":[1,2],
 *    "outputs":[1,2147483647],"attrs":[["axis",2,0],["split",7,0]]}
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx/dtype.h"
#include "onnx/opschema.h"
#include "shrink/pass.h"

static void
put_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	putchar('"');
}

static void
put_arg(const scs_opschema *s, const scs_opschema_arg *a, int input, size_t i)
{
	uint64_t mask = a->type_var < 0 ? a->concrete : s->type_vars[a->type_var].allowed;
	int container = a->type_var < 0 ? a->container : s->type_vars[a->type_var].container, first = 1;
	static const int narrow[] = { SCS_DT_FLOAT, SCS_DT_INT32 };
	char why[256];

	printf("{\"name\":");
	put_str(a->name);
	printf(",\"tv\":");
	put_str(a->type_var < 0 ? "" : s->type_vars[a->type_var].name);
	printf(",\"types\":[");
	for (int dt = 1; dt < 64; dt++)
		if (mask & SCS_OPSCHEMA_BIT(dt)) {
			printf("%s%d", first ? "" : ",", dt);
			first = 0;
		}
	printf("],\"container\":%d,\"optional\":%d,\"variadic\":%d", container, a->optional, a->variadic);
	if (input) {
		printf(",\"narrow\":{");
		for (size_t k = 0; k < 2; k++) {
			why[0] = '\0';
			scs_pass_downcast_narrowable(s, i, narrow[k], why, sizeof(why));
			printf("%s\"%d\":", k ? "," : "", narrow[k]);
			put_str(why);
		}
		putchar('}');
	}
	putchar('}');
}

/* The --schemas line of table entry @s. */
static void
put_schema(const scs_opschema *s)
{
	printf("{\"domain\":");
	put_str(s->domain);
	printf(",\"op\":");
	put_str(s->op_type);
	printf(",\"since\":%d,\"deprecated\":%d,\"any_attrs\":%d,\"inputs\":[%d,%d],\"outputs\":[%d,%d],\"attrs\":[",
	    s->since_version, s->deprecated, s->any_attrs, s->min_inputs, s->max_inputs, s->min_outputs,
	    s->max_outputs);
	for (size_t j = 0; j < s->n_attrs; j++) {
		printf("%s[", j ? "," : "");
		put_str(s->attrs[j].name);
		printf(",%d,%d]", s->attrs[j].type, s->attrs[j].required);
	}
	printf("]}\n");
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: opschema-dump OPSET... | --schemas\n");
		return 2;
	}
	if (strcmp(argv[1], "--schemas") == 0) {
		for (size_t i = 0; i < scs_opschema_table_len; i++)
			put_schema(&scs_opschema_table[i]);
		return 0;
	}
	for (int k = 1; k < argc; k++) {
		long opset = strtol(argv[k], NULL, 10);

		for (size_t i = 0; i < scs_opschema_table_len; i++) {
			const scs_opschema *e = &scs_opschema_table[i], *s;

			if (e->domain[0] || (i + 1 < scs_opschema_table_len &&
			    strcmp(scs_opschema_table[i + 1].op_type, e->op_type) == 0 && !scs_opschema_table[i + 1].domain[0]))
				continue;      /* once per operator: its last entry */
			if ((s = scs_opschema_find("", e->op_type, opset)) == NULL)
				continue;
			printf("{\"opset\":%ld,\"op\":\"%s\",\"since\":%d,\"deprecated\":%d,\"inputs\":[", opset, s->op_type,
			    s->since_version, s->deprecated);
			for (size_t j = 0; j < s->n_inputs; j++) {
				if (j)
					putchar(',');
				put_arg(s, &s->inputs[j], 1, j);
			}
			printf("],\"outputs\":[");
			for (size_t j = 0; j < s->n_outputs; j++) {
				if (j)
					putchar(',');
				put_arg(s, &s->outputs[j], 0, j);
			}
			printf("]}\n");
		}
	}
	return 0;
}
