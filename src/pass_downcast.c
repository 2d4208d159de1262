/*
 * pass_downcast.c: lossless narrowing of constants (see pass.h).
 *
 * Each candidate (a float64 or int64 initializer or Constant value that is
 * not a graph input or output) is checked against every node that reads it,
 * in its own scope and in nested scopes that do not shadow its name. Inputs
 * bound to one type variable must change together, so candidates sharing a
 * type variable at some node are joined (union-find) and a refusal of one
 * refuses its whole set. Only then are values read: every value of the set
 * must survive narrowing and widening bit for bit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "err.h"
#include "num.h"
#include "opschema.h"
#include "pass.h"

typedef struct dcand {
	int scope;
	Onnx__TensorProto *t;
	const char *name;
	int parent;               /* union-find */
	char *refusal;            /* owned; NULL while allowed */
} dcand;

typedef struct downcast {
	scs_model *m;
	scs_report *rep;
	scs_scopes scopes;
	dcand *c;
	size_t n, cap;
	uint8_t *in, *out;
} downcast;

static int
narrow_type(int dt)
{
	return dt == SCS_DT_DOUBLE ? SCS_DT_FLOAT : dt == SCS_DT_INT64 ? SCS_DT_INT32 : 0;
}

static int
find_root(downcast *d, int i)
{
	while (d->c[i].parent != i)
		i = d->c[i].parent = d->c[d->c[i].parent].parent;
	return i;
}

static void
join(downcast *d, int a, int b)
{
	a = find_root(d, a);
	b = find_root(d, b);
	if (a != b)
		d->c[b].parent = a;
}

static int
refuse(downcast *d, int i, const char *why)
{
	int r = find_root(d, i);

	if (d->c[r].refusal)
		return SCS_OK;
	if ((d->c[r].refusal = strdup(why)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot copy a reason");
	return SCS_OK;
}

static int
add(void *ctx, int scope, Onnx__TensorProto *t, Onnx__NodeProto *node, const char *name)
{
	downcast *d = ctx;
	dcand *grown;
	uint32_t id;

	(void)node;
	/* function bodies import their own opsets: left alone */
	if (d->scopes.items[scope].graph == NULL)
		return SCS_OK;
	if (!name || !name[0] || !narrow_type(t->data_type) || !scs_model_payload_of(d->m, t, &id))
		return SCS_OK;
	if (scs_strmap_get(&d->scopes.items[scope].pinned, name, NULL))
		return SCS_OK;     /* a graph input or output keeps its type */
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 64;
		if ((grown = realloc(d->c, d->cap * sizeof(*grown))) == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot grow the downcast list");
		d->c = grown;
	}
	d->c[d->n] = (dcand){ scope, t, name, (int)d->n, NULL };
	d->n++;
	return SCS_OK;
}

/* The candidate a reference to @name in scope @at reads, or -1. */
static int
resolve(downcast *d, int at, const char *name)
{
	for (int s = at; s >= 0; s = d->scopes.items[s].parent) {
		if (!scs_strmap_get(&d->scopes.items[s].defs, name, NULL))
			continue;
		for (size_t i = 0; i < d->n; i++)
			if (d->c[i].scope == s && strcmp(d->c[i].name, name) == 0)
				return (int)i;
		return -1;     /* defined here, but not by a candidate */
	}
	return -1;
}

/* One node: join the constants bound to one type variable, refuse what the schema forbids. */
static int
check_node(downcast *d, int scope, Onnx__NodeProto *node, int64_t opset)
{
	const scs_opschema *s;
	char why[256];
	int ci, cj, f, tv, rc;

	for (size_t i = 0; i < node->n_input; i++) {
		if (!node->input[i][0] || (ci = resolve(d, scope, node->input[i])) < 0)
			continue;
		s = node->op_type && scs_model_opset(d->m->proto, node->domain) > 0 ?
		    scs_opschema_find(node->domain, node->op_type, opset) : NULL;
		if (s == NULL) {
			snprintf(why, sizeof(why), "read by %s%s%s, an operator without a known schema",
			    node->domain && node->domain[0] ? node->domain : "", node->domain && node->domain[0] ? "." : "",
			    node->op_type ? node->op_type : "(no op_type)");
			if ((rc = refuse(d, ci, why)) < 0)
				return rc;
			continue;
		}
		f = scs_opschema_input_formal(s, i);
		tv = f < 0 ? -1 : s->inputs[f].type_var;
		if (f < 0 || tv < 0) {
			snprintf(why, sizeof(why), "%s input %zu takes only %s", node->op_type, i,
			    scs_dtype_name(d->c[ci].t->data_type));
			if ((rc = refuse(d, ci, why)) < 0)
				return rc;
			continue;
		}
		if (!(s->type_vars[tv].allowed & SCS_OPSCHEMA_BIT(narrow_type(d->c[ci].t->data_type)))) {
			snprintf(why, sizeof(why), "%s input %zu (%s) does not accept %s", node->op_type, i,
			    s->type_vars[tv].name, scs_dtype_name(narrow_type(d->c[ci].t->data_type)));
			if ((rc = refuse(d, ci, why)) < 0)
				return rc;
			continue;
		}
		if (scs_opschema_typevar_types_output(s, tv)) {
			snprintf(why, sizeof(why), "%s input %zu (%s) also types its output", node->op_type, i,
			    s->type_vars[tv].name);
			if ((rc = refuse(d, ci, why)) < 0)
				return rc;
			continue;
		}
		/* every other input on the same type variable changes with it */
		for (size_t j = 0; j < node->n_input; j++) {
			if (j == i || !node->input[j][0] || scs_opschema_input_formal(s, j) < 0 ||
			    s->inputs[scs_opschema_input_formal(s, j)].type_var != tv)
				continue;
			cj = resolve(d, scope, node->input[j]);
			if (cj < 0 || d->c[cj].t->data_type != d->c[ci].t->data_type) {
				snprintf(why, sizeof(why), "%s input %zu shares %s with input %zu, which is not a constant to narrow",
				    node->op_type, i, s->type_vars[tv].name, j);
				if ((rc = refuse(d, ci, why)) < 0)
					return rc;
				continue;
			}
			join(d, ci, cj);
		}
	}
	return SCS_OK;
}

static int
check_uses(downcast *d)
{
	Onnx__NodeProto **nodes;
	size_t *n;
	int ci, rc;

	for (size_t s = 0; s < d->scopes.n; s++) {
		scs_scope *sc = &d->scopes.items[s];
		int64_t opset;

		nodes = *scs_scope_nodes(sc, &n);
		for (size_t i = 0; i < *n; i++) {
			opset = scs_model_opset(d->m->proto, nodes[i]->domain);
			if ((rc = check_node(d, (int)s, nodes[i], opset)) < 0)
				return rc;
		}
		/* a nested graph that outputs the constant would change its output type */
		if (sc->graph && sc->parent >= 0)
			for (size_t i = 0; i < sc->graph->n_output; i++)
				if (sc->graph->output[i]->name && (ci = resolve(d, (int)s, sc->graph->output[i]->name)) >= 0 &&
				    (rc = refuse(d, ci, "a nested graph outputs it")) < 0)
					return rc;
	}
	return SCS_OK;
}

/* 1 when every value of candidate @i survives narrowing; < 0 on error. */
static int
survives(downcast *d, int i, char *why, size_t why_len)
{
	uint32_t id;
	uint64_t len, off;
	size_t take, k;
	int dt = d->c[i].t->data_type, rc;

	scs_model_payload_of(d->m, d->c[i].t, &id);
	len = d->m->payloads->items[id].key.len;
	for (off = 0; off < len; off += take) {
		take = len - off > SCS_CHUNK_LEN ? SCS_CHUNK_LEN : (size_t)(len - off);
		if ((rc = scs_payloads_read(d->m->payloads, id, off, d->in, take)) < 0)
			return rc;
		for (k = 0; k + 8 <= take; k += 8) {
			uint64_t bits = scs_load_le64(d->in + k);

			if (dt == SCS_DT_DOUBLE) {
				double v, back;
				float f;

				memcpy(&v, &bits, 8);
				f = (float)v;
				back = (double)f;
				if (memcmp(&back, &v, 8) != 0) {
					snprintf(why, why_len, "value %.17g at element %llu does not survive float32", v,
					    (unsigned long long)((off + k) / 8));
					return 0;
				}
			} else {
				int64_t v = (int64_t)bits;

				if (v < INT32_MIN || v > INT32_MAX) {
					snprintf(why, why_len, "value %lld at element %llu does not fit int32", (long long)v,
					    (unsigned long long)((off + k) / 8));
					return 0;
				}
			}
		}
	}
	return 1;
}

/* Write the narrowed payload and retype the tensor. */
static int
narrow(downcast *d, int i)
{
	scs_store_writer *w;
	scs_payload pl;
	scs_blob blob;
	uint32_t id, new_id;
	uint64_t len, off;
	size_t take, k;
	int dt = d->c[i].t->data_type, rc;

	if (d->m->payloads->store == NULL)
		return scs_err_set(SCS_EUSAGE, "narrowing needs a store");
	scs_model_payload_of(d->m, d->c[i].t, &id);
	len = d->m->payloads->items[id].key.len;
	if ((rc = scs_store_writer_open(&w, d->m->payloads->store)) < 0)
		return rc;
	for (off = 0; off < len; off += take) {
		take = len - off > SCS_CHUNK_LEN ? SCS_CHUNK_LEN : (size_t)(len - off);
		if ((rc = scs_payloads_read(d->m->payloads, id, off, d->in, take)) < 0)
			goto fail;
		for (k = 0; k + 8 <= take; k += 8) {
			uint64_t bits = scs_load_le64(d->in + k);

			if (dt == SCS_DT_DOUBLE) {
				double v;
				float f;
				uint32_t fb;

				memcpy(&v, &bits, 8);
				f = (float)v;
				memcpy(&fb, &f, 4);
				scs_store_le32(d->out + k / 2, fb);
			} else {
				scs_store_le32(d->out + k / 2, (uint32_t)(int32_t)(int64_t)bits);
			}
		}
		if ((rc = scs_store_writer_write(w, d->out, take / 2)) < 0)
			goto fail;
	}
	memset(&pl, 0, sizeof(pl));
	if ((rc = scs_store_writer_finish(&blob, w)) < 0)
		return rc;
	scs_payload_at_store(&pl, &blob);
	if ((rc = scs_payloads_add(d->m->payloads, &pl, &new_id)) < 0)
		return rc;
	d->c[i].t->data_type = narrow_type(dt);
	scs_model_set_payload(d->m, d->c[i].t, new_id);
	return SCS_OK;
fail:
	scs_store_writer_abort(w);
	return rc;
}

/* value_info entries of narrowed names carry the new element type. */
static void
retype_value_info(downcast *d, int i)
{
	for (size_t s = 0; s < d->scopes.n; s++) {
		Onnx__GraphProto *g = d->scopes.items[s].graph;

		if (g == NULL || !scs_scope_encloses(&d->scopes, d->c[i].scope, (int)s))
			continue;
		for (size_t k = 0; k < g->n_value_info; k++) {
			Onnx__ValueInfoProto *vi = g->value_info[k];

			if (vi->name && strcmp(vi->name, d->c[i].name) == 0 && vi->type && vi->type->tensor_type)
				vi->type->tensor_type->elem_type = d->c[i].t->data_type;
		}
	}
}

int
scs_pass_downcast(scs_model *m, scs_report *rep)
{
	downcast d;
	char why[256], change[128];
	uint64_t before;
	int rc, r;

	memset(&d, 0, sizeof(d));
	d.m = m;
	d.rep = rep;
	if ((rc = scs_scopes_build(&d.scopes, m->proto)) < 0 || (rc = scs_scopes_each_constant(&d.scopes, add, &d)) < 0 || (rc = check_uses(&d)) < 0)
		goto done;
	if ((d.in = malloc(SCS_CHUNK_LEN)) == NULL || (d.out = malloc(SCS_CHUNK_LEN)) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "cannot allocate downcast buffers");
		goto done;
	}
	for (size_t i = 0; i < d.n; i++) {
		r = find_root(&d, (int)i);
		if (d.c[r].refusal)
			continue;
		if ((rc = survives(&d, (int)i, why, sizeof(why))) < 0)
			goto done;
		if (rc == 0 && (rc = refuse(&d, (int)i, why)) < 0)
			goto done;
	}
	for (size_t i = 0; i < d.n; i++) {
		r = find_root(&d, (int)i);
		if (d.c[r].refusal) {
			if (r != (int)i)
				snprintf(why, sizeof(why), "shares a type with '%s', which is not narrowed: %s", d.c[r].name,
				    d.c[r].refusal);
			else
				snprintf(why, sizeof(why), "%s", d.c[r].refusal);
			if ((rc = scs_report_add(&rep->refused, d.c[i].name, why)) < 0)
				goto done;
			continue;
		}
		before = d.c[i].t->data_type;
		if ((rc = narrow(&d, (int)i)) < 0)
			goto done;
		retype_value_info(&d, (int)i);
		snprintf(change, sizeof(change), "%s -> %s", scs_dtype_name((int)before), scs_dtype_name(d.c[i].t->data_type));
		if ((rc = scs_report_add(&rep->narrowed, d.c[i].name, change)) < 0)
			goto done;
	}
	rc = SCS_OK;
done:
	for (size_t i = 0; i < d.n; i++)
		free(d.c[i].refusal);
	free(d.c);
	free(d.in);
	free(d.out);
	scs_scopes_dispose(&d.scopes);
	return rc;
}
