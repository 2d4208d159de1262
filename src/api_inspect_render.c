/*
 * api_inspect_render.c: what scs_inspect found (api_inspect.h) as text
 * (scs4onnx-inspect's summary), as JSON (every figure) and as one HTML
 * page that needs nothing else: inline CSS, and an inline SVG treemap of
 * the constants' bytes by tensor, laid out squarified (each row of
 * rectangles as near to squares as the row allows), each rectangle
 * labelled where its label fits and titled (name, type, dims, bytes) for
 * the tooltip; then the same tables as the text.
 *
 * SPDX-License-Identifier: MIT
 */
#include "scs4onnx.h"

#include <stdlib.h>
#include <string.h>

#include "api_inspect.h"
#include "onnx/dtype.h"
#include "util/buf.h"

/* ---- what every renderer shares ---- */

/* Indices 0..n-1 ordered by @cmp over @base's elements of @size bytes. */
typedef struct sorter {
	const void *base;
	size_t size;
	int (*cmp)(const void *, const void *);
} sorter;

static _Thread_local const sorter *sorting;

static int
cmp_index(const void *a, const void *b)
{
	const char *base = sorting->base;

	return sorting->cmp(base + *(const size_t *)a * sorting->size, base + *(const size_t *)b * sorting->size);
}

static size_t *
sorted(const void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	sorter s = { base, size, cmp };
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx));

	if (idx == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	sorting = &s;
	qsort(idx, n, sizeof(*idx), cmp_index);
	sorting = NULL;
	return idx;
}

/* Larger @a first, then by name. */
static int
cmp_desc(uint64_t a, uint64_t b, const char *name_a, const char *name_b)
{
	if (a != b)
		return a > b ? -1 : 1;
	return strcmp(name_a, name_b);
}

/* Most bytes first, then by name. */
static int
cmp_tensor(const void *pa, const void *pb)
{
	const insp_tensor *a = pa, *b = pb;

	return cmp_desc(a->bytes, b->bytes, a->name, b->name);
}

/* Most nodes first, then by name. */
static int
cmp_op_nodes(const void *pa, const void *pb)
{
	const insp_op *a = pa, *b = pb;

	return cmp_desc(a->all, b->all, a->op, b->op);
}

/* Most constant bytes first, then by name. */
static int
cmp_op_bytes(const void *pa, const void *pb)
{
	const insp_op *a = pa, *b = pb;

	return cmp_desc(a->bytes, b->bytes, a->op, b->op);
}

/* Where tensor @t lies, in words. */
static const char *
where(const scs_inspect_result *r, const insp_tensor *t)
{
	if (t->file == -2)
		return "no payload";
	if (t->file == -1)
		return "inline (typed fields)";
	if (t->file == 0)
		return "inline";
	return r->files[t->file].path;
}

/* "[1, 3, 224, 224]" of a constant into @b. */
static int
dims_text(scs_buf *b, const int64_t *dims, size_t n)
{
	int rc = scs_buf_add_str(b, "[");

	for (size_t d = 0; rc == SCS_OK && d < n; d++)
		rc = scs_buf_printf(b, d ? ", %lld" : "%lld", (long long)dims[d]);
	return rc == SCS_OK ? scs_buf_add_str(b, "]") : rc;
}

/* "[N, 3, 224, 224]" of a graph input or output ("?" for an unknown rank) into @b. */
static int
shape_text(scs_buf *b, const insp_value *v)
{
	int rc;

	if (!v->has_shape)
		return scs_buf_add_str(b, "?");
	rc = scs_buf_add_str(b, "[");
	for (size_t d = 0; rc == SCS_OK && d < v->n_dims; d++)
		rc = scs_buf_printf(b, d ? ", %s" : "%s", v->dims[d].text);
	return rc == SCS_OK ? scs_buf_add_str(b, "]") : rc;
}

/* The readers of @t ("Conv, Gemm"; "-" for none) into @b. */
static int
readers_text(scs_buf *b, const scs_inspect_result *r, const insp_tensor *t)
{
	int rc = SCS_OK;

	if (t->n_readers == 0)
		return scs_buf_add_str(b, "-");
	for (size_t k = 0; rc == SCS_OK && k < t->n_readers; k++)
		rc = scs_buf_printf(b, k ? ", %s" : "%s", r->ops[t->readers[k]].op);
	return rc;
}

/* What shrink would save: the input's bytes less the output's (negative: it would grow). */
static int64_t
shrink_saves(const scs_inspect_result *r)
{
	return (int64_t)r->shrink.input_len - (int64_t)(r->shrink.output_len + r->shrink.output_data_len);
}

/* The buffer's text handed to the caller (NULL on @rc < 0). */
static char *
finish(scs_buf *b, int rc)
{
	char *text;

	if (rc == SCS_OK)
		rc = scs_buf_add(b, "", 1);
	if (rc < 0) {
		scs_buf_dispose(b);
		return NULL;
	}
	text = (char *)b->data;
	return text;
}

/* ---- text ---- */

/* The copies of a group of identical constants the text names. */
#define TEXT_COPIES 6

static int
text_values(scs_buf *b, const char *what, const insp_value *v, size_t n)
{
	int rc = scs_buf_printf(b, "%s:\n", what);

	for (size_t i = 0; rc == SCS_OK && i < n; i++)
		if ((rc = scs_buf_printf(b, "  %-24s %-10s ", v[i].name, v[i].type)) == SCS_OK &&
		    (rc = shape_text(b, &v[i])) == SCS_OK)
			rc = scs_buf_add_str(b, "\n");
	return rc;
}

static int
text_head(scs_buf *b, const scs_inspect_result *r)
{
	int rc = scs_buf_printf(b, "model: %s\nIR version %lld, producer \"%s\" %s\nopsets:", r->path,
	    (long long)r->ir_version, r->producer, r->producer_version);

	for (size_t i = 0; rc == SCS_OK && i < r->n_opsets; i++)
		rc = scs_buf_printf(b, "%s %s %lld", i ? "," : "", r->opsets[i].domain[0] ? r->opsets[i].domain : "ai.onnx",
		    (long long)r->opsets[i].version);
	if (rc == SCS_OK && (rc = scs_buf_add_str(b, "\n")) == SCS_OK &&
	    (rc = text_values(b, "inputs", r->inputs, r->n_inputs)) == SCS_OK && r->n_default_inputs)
		rc = scs_buf_printf(b, "  (and %zu initializers listed among the inputs)\n", r->n_default_inputs);
	if (rc == SCS_OK)
		rc = text_values(b, "outputs", r->outputs, r->n_outputs);
	return rc;
}

static int
text_ops(scs_buf *b, const scs_inspect_result *r)
{
	size_t *idx = sorted(r->ops, r->n_ops, sizeof(*r->ops), cmp_op_nodes);
	char h[32];
	int rc;

	if (idx == NULL)
		return SCS_ENOMEM;
	rc = scs_buf_printf(b, "nodes: %llu in the main graph, %llu in all %zu graphs, bodies and functions\n"
	    "  %-28s %10s %10s\n", (unsigned long long)r->nodes_main, (unsigned long long)r->nodes_all, r->n_graphs,
	    "operator", "main", "all");
	for (size_t i = 0; rc == SCS_OK && i < r->n_ops; i++)
		rc = scs_buf_printf(b, "  %-28s %10llu %10llu\n", r->ops[idx[i]].op, (unsigned long long)r->ops[idx[i]].main,
		    (unsigned long long)r->ops[idx[i]].all);
	free(idx);
	if (rc < 0 || (idx = sorted(r->ops, r->n_ops, sizeof(*r->ops), cmp_op_bytes)) == NULL)
		return rc < 0 ? rc : SCS_ENOMEM;
	rc = scs_buf_printf(b, "constant bytes by operator reading them:\n  %-28s %10s %14s\n", "operator", "constants",
	    "bytes");
	for (size_t i = 0; rc == SCS_OK && i < r->n_ops && r->ops[idx[i]].tensors; i++)
		rc = scs_buf_printf(b, "  %-28s %10llu %14llu  %s\n", r->ops[idx[i]].op,
		    (unsigned long long)r->ops[idx[i]].tensors, (unsigned long long)r->ops[idx[i]].bytes,
		    scs_human_size(h, r->ops[idx[i]].bytes));
	if (rc == SCS_OK && r->n_unread)
		rc = scs_buf_printf(b, "  %-28s %10llu %14llu  %s\n", "(no reader)", (unsigned long long)r->n_unread,
		    (unsigned long long)r->unread_bytes, scs_human_size(h, r->unread_bytes));
	free(idx);
	return rc;
}

static int
text_tensors(scs_buf *b, const scs_inspect_result *r)
{
	size_t *idx = sorted(r->tensors, r->n_tensors, sizeof(*r->tensors), cmp_tensor);
	size_t n = r->n_tensors < r->top ? r->n_tensors : r->top;
	char h[32];
	int rc;

	if (idx == NULL)
		return SCS_ENOMEM;
	rc = scs_buf_printf(b, "constants: %zu, %llu bytes (%s); the %zu largest:\n", r->n_tensors,
	    (unsigned long long)r->const_bytes, scs_human_size(h, r->const_bytes), n);
	for (size_t i = 0; rc == SCS_OK && i < n; i++) {
		const insp_tensor *t = &r->tensors[idx[i]];

		if ((rc = scs_buf_printf(b, "  %-32s %-9s ", t->name, scs_dtype_name(t->dtype))) == SCS_OK &&
		    (rc = dims_text(b, t->dims, t->n_dims)) == SCS_OK &&
		    (rc = scs_buf_printf(b, "  %llu bytes, %s, read by ", (unsigned long long)t->bytes, where(r, t))) == SCS_OK &&
		    (rc = readers_text(b, r, t)) == SCS_OK)
			rc = scs_buf_add_str(b, "\n");
	}
	free(idx);
	return rc;
}

static int
text_files(scs_buf *b, const scs_inspect_result *r)
{
	char h[32];
	int rc = scs_buf_printf(b, "files: %zu, %llu bytes (%s)\n", r->n_files, (unsigned long long)r->input_len,
	    scs_human_size(h, r->input_len));

	for (size_t f = 0; rc == SCS_OK && f < r->n_files; f++) {
		const insp_file *fl = &r->files[f];

		rc = scs_buf_printf(b, "  %s: %llu bytes, %llu tensors (%llu bytes)%s", fl->path,
		    (unsigned long long)fl->bytes, (unsigned long long)fl->tensors, (unsigned long long)fl->tensor_bytes,
		    f == 0 ? " inline\n" : "");
		if (rc == SCS_OK && f > 0)
			rc = scs_buf_printf(b, ", offsets aligned to %llu\n", (unsigned long long)fl->align);
	}
	return rc;
}

static int
text_shrink(scs_buf *b, const scs_inspect_result *r)
{
	const scs_report *s = &r->shrink;
	uint64_t copies = 0, dup_bytes = 0;
	int rc;

	for (size_t i = 0; i < s->n_groups; i++) {
		copies += s->groups[i].n_names;
		dup_bytes += s->groups[i].bytes * s->groups[i].n_names;
	}
	rc = scs_buf_printf(b, "duplicates: %zu group%s of identical constants (%llu cop%s, %llu bytes), "
	    "%zu transposed cop%s (%llu bytes)\n", s->n_groups, s->n_groups == 1 ? "" : "s", (unsigned long long)copies,
	    copies == 1 ? "y" : "ies", (unsigned long long)dup_bytes, s->transposed.n, s->transposed.n == 1 ? "y" : "ies",
	    (unsigned long long)s->bytes_transposed);
	for (size_t i = 0; rc == SCS_OK && i < s->n_groups; i++) {
		rc = scs_buf_printf(b, "  %s (%s, %llu bytes) also as", s->groups[i].canonical,
		    scs_dtype_name(s->groups[i].dtype), (unsigned long long)s->groups[i].bytes);
		/* the first TEXT_COPIES names (--json: every one) */
		for (size_t k = 0; rc == SCS_OK && k < s->groups[i].n_names && k < TEXT_COPIES; k++)
			rc = scs_buf_printf(b, " %s", s->groups[i].names[k]);
		if (rc == SCS_OK && s->groups[i].n_names > TEXT_COPIES)
			rc = scs_buf_printf(b, " and %zu more", s->groups[i].n_names - TEXT_COPIES);
		if (rc == SCS_OK)
			rc = scs_buf_add_str(b, "\n");
	}
	for (size_t i = 0; rc == SCS_OK && i < s->transposed.n; i++)
		rc = scs_buf_printf(b, "  %s = %s\n", s->transposed.items[i].name, s->transposed.items[i].detail);
	for (size_t i = 0; rc == SCS_OK && i < s->narrowed.n; i++)
		rc = scs_buf_printf(b, "  downcast: %s %s\n", s->narrowed.items[i].name, s->narrowed.items[i].detail);
	if (rc == SCS_OK)
		rc = scs_buf_printf(b, "scs4onnx-shrink would save %lld bytes: %llu bytes of input files, %llu of output "
		    "(model %llu, data %llu in %zu files)\n", (long long)shrink_saves(r), (unsigned long long)s->input_len,
		    (unsigned long long)(s->output_len + s->output_data_len), (unsigned long long)s->output_len,
		    (unsigned long long)s->output_data_len, r->shrink_data_files);
	return rc;
}

static int
text_optimize(scs_buf *b, const scs_inspect_result *r)
{
	const scs_report *o = &r->optimize;
	int rc = scs_buf_printf(b, "scs4onnx-optimize would remove %lld nodes (%llu -> %llu) and %lld constant bytes "
	    "(%llu -> %llu), in %u rounds\n", (long long)(o->nodes_before - o->nodes_after),
	    (unsigned long long)o->nodes_before, (unsigned long long)o->nodes_after,
	    (long long)(o->bytes_before - o->bytes_after), (unsigned long long)o->bytes_before,
	    (unsigned long long)o->bytes_after, o->rounds);

	for (size_t i = 0; rc == SCS_OK && i < o->n_pass_list; i++)
		if (o->pass_list[i].changes)
			rc = scs_buf_printf(b, "  %-32s %llu changes\n", o->pass_list[i].name,
			    (unsigned long long)o->pass_list[i].changes);
	return rc;
}

char *
scs_inspect_text(const scs_inspect_result *r)
{
	scs_buf b = SCS_BUF_INIT;
	int rc;

	if ((rc = text_head(&b, r)) == SCS_OK && (rc = text_ops(&b, r)) == SCS_OK && (rc = text_tensors(&b, r)) == SCS_OK &&
	    (rc = text_files(&b, r)) == SCS_OK && (rc = text_shrink(&b, r)) == SCS_OK)
		rc = text_optimize(&b, r);
	return finish(&b, rc);
}

/* ---- JSON ---- */

/* @s as a JSON string into @b. */
static int
json_str(scs_buf *b, const char *s)
{
	int rc = scs_buf_add_str(b, "\"");

	for (; rc == SCS_OK && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			rc = scs_buf_printf(b, "\\%c", c);
		else if (c < 0x20)
			rc = scs_buf_printf(b, "\\u%04x", c);
		else
			rc = scs_buf_add(b, s, 1);
	}
	return rc == SCS_OK ? scs_buf_add_str(b, "\"") : rc;
}

static int
json_values(scs_buf *b, const char *key, const insp_value *v, size_t n)
{
	int rc = scs_buf_printf(b, "\"%s\": [", key);

	for (size_t i = 0; rc == SCS_OK && i < n; i++) {
		if ((rc = scs_buf_add_str(b, i ? ", {\"name\": " : "{\"name\": ")) < 0 || (rc = json_str(b, v[i].name)) < 0 ||
		    (rc = scs_buf_add_str(b, ", \"type\": ")) < 0 || (rc = json_str(b, v[i].type)) < 0 ||
		    (rc = scs_buf_add_str(b, ", \"shape\": ")) < 0)
			return rc;
		if (!v[i].has_shape) {
			rc = scs_buf_add_str(b, "null}");
			continue;
		}
		rc = scs_buf_add_str(b, "[");
		for (size_t d = 0; rc == SCS_OK && d < v[i].n_dims; d++) {
			if (d)
				rc = scs_buf_add_str(b, ", ");
			if (rc == SCS_OK)
				rc = v[i].dims[d].fixed ? scs_buf_add_str(b, v[i].dims[d].text) : json_str(b, v[i].dims[d].text);
		}
		if (rc == SCS_OK)
			rc = scs_buf_add_str(b, "]}");
	}
	return rc == SCS_OK ? scs_buf_add_str(b, "]") : rc;
}

static int
json_head(scs_buf *b, const scs_inspect_result *r)
{
	int rc;

	if ((rc = scs_buf_add_str(b, "{\"model\": ")) < 0 || (rc = json_str(b, r->path)) < 0 ||
	    (rc = scs_buf_printf(b, ", \"ir_version\": %lld, \"producer_name\": ", (long long)r->ir_version)) < 0 ||
	    (rc = json_str(b, r->producer)) < 0 || (rc = scs_buf_add_str(b, ", \"producer_version\": ")) < 0 ||
	    (rc = json_str(b, r->producer_version)) < 0 || (rc = scs_buf_add_str(b, ", \"opset_import\": [")) < 0)
		return rc;
	for (size_t i = 0; rc == SCS_OK && i < r->n_opsets; i++)
		if ((rc = scs_buf_add_str(b, i ? ", {\"domain\": " : "{\"domain\": ")) == SCS_OK &&
		    (rc = json_str(b, r->opsets[i].domain)) == SCS_OK)
			rc = scs_buf_printf(b, ", \"version\": %lld}", (long long)r->opsets[i].version);
	if (rc == SCS_OK && (rc = scs_buf_add_str(b, "],\n ")) == SCS_OK &&
	    (rc = json_values(b, "inputs", r->inputs, r->n_inputs)) == SCS_OK &&
	    (rc = scs_buf_printf(b, ", \"initializer_inputs\": %zu,\n ", r->n_default_inputs)) == SCS_OK)
		rc = json_values(b, "outputs", r->outputs, r->n_outputs);
	return rc;
}

static int
json_ops(scs_buf *b, const scs_inspect_result *r)
{
	int rc = scs_buf_printf(b, ",\n \"nodes\": {\"main\": %llu, \"all\": %llu, \"graphs\": %zu, \"by_operator\": [",
	    (unsigned long long)r->nodes_main, (unsigned long long)r->nodes_all, r->n_graphs);
	size_t *idx = sorted(r->ops, r->n_ops, sizeof(*r->ops), cmp_op_nodes);

	if (idx == NULL)
		return SCS_ENOMEM;
	for (size_t i = 0; rc == SCS_OK && i < r->n_ops; i++) {
		const insp_op *op = &r->ops[idx[i]];

		if ((rc = scs_buf_add_str(b, i ? ",\n  {\"op\": " : "\n  {\"op\": ")) == SCS_OK && (rc = json_str(b, op->op)) == SCS_OK)
			rc = scs_buf_printf(b, ", \"main\": %llu, \"all\": %llu, \"constants\": %llu, \"constant_bytes\": %llu}",
			    (unsigned long long)op->main, (unsigned long long)op->all, (unsigned long long)op->tensors,
			    (unsigned long long)op->bytes);
	}
	free(idx);
	return rc == SCS_OK ? scs_buf_add_str(b, "]}") : rc;
}

static int
json_tensors(scs_buf *b, const scs_inspect_result *r)
{
	size_t *idx = sorted(r->tensors, r->n_tensors, sizeof(*r->tensors), cmp_tensor);
	size_t n = r->n_tensors < r->top ? r->n_tensors : r->top;
	int rc;

	if (idx == NULL)
		return SCS_ENOMEM;
	rc = scs_buf_printf(b, ",\n \"constants\": {\"count\": %zu, \"bytes\": %llu, \"unread\": %llu, "
	    "\"unread_bytes\": %llu, \"largest\": [", r->n_tensors, (unsigned long long)r->const_bytes,
	    (unsigned long long)r->n_unread, (unsigned long long)r->unread_bytes);
	for (size_t i = 0; rc == SCS_OK && i < n; i++) {
		const insp_tensor *t = &r->tensors[idx[i]];

		if ((rc = scs_buf_add_str(b, i ? ",\n  {\"name\": " : "\n  {\"name\": ")) < 0 || (rc = json_str(b, t->name)) < 0 ||
		    (rc = scs_buf_printf(b, ", \"type\": \"%s\", \"dims\": ", scs_dtype_name(t->dtype))) < 0 ||
		    (rc = dims_text(b, t->dims, t->n_dims)) < 0 ||
		    (rc = scs_buf_printf(b, ", \"bytes\": %llu, \"where\": ", (unsigned long long)t->bytes)) < 0 ||
		    (rc = json_str(b, where(r, t))) < 0 || (rc = scs_buf_add_str(b, ", \"read_by\": [")) < 0)
			break;
		for (size_t k = 0; rc == SCS_OK && k < t->n_readers; k++)
			if ((rc = scs_buf_add_str(b, k ? ", " : "")) == SCS_OK)
				rc = json_str(b, r->ops[t->readers[k]].op);
		if (rc == SCS_OK)
			rc = scs_buf_add_str(b, "]}");
	}
	free(idx);
	return rc == SCS_OK ? scs_buf_add_str(b, "]}") : rc;
}

static int
json_files(scs_buf *b, const scs_inspect_result *r)
{
	int rc = scs_buf_printf(b, ",\n \"files\": {\"bytes\": %llu, \"list\": [", (unsigned long long)r->input_len);

	for (size_t f = 0; rc == SCS_OK && f < r->n_files; f++) {
		const insp_file *fl = &r->files[f];

		if ((rc = scs_buf_add_str(b, f ? ",\n  {\"path\": " : "\n  {\"path\": ")) == SCS_OK &&
		    (rc = json_str(b, fl->path)) == SCS_OK)
			rc = scs_buf_printf(b, ", \"role\": \"%s\", \"bytes\": %llu, \"tensors\": %llu, \"tensor_bytes\": %llu, "
			    "\"alignment\": %llu}", f ? "data" : "model", (unsigned long long)fl->bytes,
			    (unsigned long long)fl->tensors, (unsigned long long)fl->tensor_bytes, (unsigned long long)fl->align);
	}
	return rc == SCS_OK ? scs_buf_add_str(b, "]}") : rc;
}

/* A report list of @s as a JSON array of [name, detail] pairs. */
static int
json_pairs(scs_buf *b, const char *key, const scs_report_list *l)
{
	int rc = scs_buf_printf(b, ", \"%s\": [", key);

	for (size_t i = 0; rc == SCS_OK && i < l->n; i++)
		if ((rc = scs_buf_add_str(b, i ? ", [" : "[")) == SCS_OK && (rc = json_str(b, l->items[i].name)) == SCS_OK &&
		    (rc = scs_buf_add_str(b, ", ")) == SCS_OK && (rc = json_str(b, l->items[i].detail)) == SCS_OK)
			rc = scs_buf_add_str(b, "]");
	return rc == SCS_OK ? scs_buf_add_str(b, "]") : rc;
}

static int
json_shrink(scs_buf *b, const scs_inspect_result *r)
{
	const scs_report *s = &r->shrink;
	int rc = scs_buf_add_str(b, ",\n \"duplicates\": {\"groups\": [");

	for (size_t i = 0; rc == SCS_OK && i < s->n_groups; i++) {
		if ((rc = scs_buf_add_str(b, i ? ",\n  {\"kept\": " : "\n  {\"kept\": ")) < 0 ||
		    (rc = json_str(b, s->groups[i].canonical)) < 0 ||
		    (rc = scs_buf_printf(b, ", \"type\": \"%s\", \"bytes\": %llu, \"copies\": [", scs_dtype_name(s->groups[i].dtype),
		    (unsigned long long)s->groups[i].bytes)) < 0)
			break;
		for (size_t k = 0; rc == SCS_OK && k < s->groups[i].n_names; k++)
			if ((rc = scs_buf_add_str(b, k ? ", " : "")) == SCS_OK)
				rc = json_str(b, s->groups[i].names[k]);
		if (rc == SCS_OK)
			rc = scs_buf_add_str(b, "]}");
	}
	if (rc == SCS_OK && (rc = scs_buf_add_str(b, "]")) == SCS_OK &&
	    (rc = json_pairs(b, "transposed", &s->transposed)) == SCS_OK &&
	    (rc = scs_buf_printf(b, ", \"transposed_bytes\": %llu", (unsigned long long)s->bytes_transposed)) == SCS_OK &&
	    (rc = json_pairs(b, "downcast", &s->narrowed)) == SCS_OK && (rc = json_pairs(b, "skipped", &s->skipped)) == SCS_OK)
		rc = scs_buf_printf(b, "},\n \"shrink\": {\"input_bytes\": %llu, \"output_bytes\": %llu, \"output_model_bytes\": "
		    "%llu, \"output_data_bytes\": %llu, \"output_data_files\": %zu, \"saves\": %lld, "
		    "\"constant_bytes_before\": %llu, \"constant_bytes_after\": %llu}",
		    (unsigned long long)s->input_len, (unsigned long long)(s->output_len + s->output_data_len),
		    (unsigned long long)s->output_len, (unsigned long long)s->output_data_len, r->shrink_data_files,
		    (long long)shrink_saves(r), (unsigned long long)s->bytes_before, (unsigned long long)s->bytes_after);
	return rc;
}

static int
json_optimize(scs_buf *b, const scs_inspect_result *r)
{
	const scs_report *o = &r->optimize;
	int rc = scs_buf_printf(b, ",\n \"optimize\": {\"nodes_before\": %llu, \"nodes_after\": %llu, \"nodes_removed\": %lld, "
	    "\"constant_bytes_before\": %llu, \"constant_bytes_after\": %llu, \"constant_bytes_freed\": %lld, "
	    "\"rounds\": %u, \"passes\": [", (unsigned long long)o->nodes_before, (unsigned long long)o->nodes_after,
	    (long long)(o->nodes_before - o->nodes_after), (unsigned long long)o->bytes_before,
	    (unsigned long long)o->bytes_after, (long long)(o->bytes_before - o->bytes_after), o->rounds);

	for (size_t i = 0; rc == SCS_OK && i < o->n_pass_list; i++)
		rc = scs_buf_printf(b, "%s{\"name\": \"%s\", \"changes\": %llu, \"left\": %llu}", i ? ", " : "",
		    o->pass_list[i].name, (unsigned long long)o->pass_list[i].changes,
		    (unsigned long long)o->pass_list[i].refusals);
	return rc == SCS_OK ? scs_buf_add_str(b, "]}}\n") : rc;
}

char *
scs_inspect_json(const scs_inspect_result *r)
{
	scs_buf b = SCS_BUF_INIT;
	int rc;

	if ((rc = json_head(&b, r)) == SCS_OK && (rc = json_ops(&b, r)) == SCS_OK && (rc = json_tensors(&b, r)) == SCS_OK &&
	    (rc = json_files(&b, r)) == SCS_OK && (rc = json_shrink(&b, r)) == SCS_OK)
		rc = json_optimize(&b, r);
	return finish(&b, rc);
}

/* ---- HTML ---- */

/* The treemap's size in pixels, its most rectangles (the rest as one), and its colours by rank. */
#define MAP_W 1100
#define MAP_H 480
#define MAP_MAX 400
static const char *const map_colours[] = { "#3b6fb6", "#e8743b", "#2e9e5b", "#c23b5a", "#8a5fc7", "#d4a017",
	"#1f9fb0", "#9b6a3c", "#e05fa8", "#5b7d1e" };
#define MAP_REST_COLOUR "#b8b8b8"
#define N_COLOURS (sizeof(map_colours) / sizeof(map_colours[0]))

/* @s with &, <, >, " and ' escaped, into @b. */
static int
html_str(scs_buf *b, const char *s)
{
	int rc = SCS_OK;

	for (; rc == SCS_OK && *s; s++) {
		switch (*s) {
		case '&': rc = scs_buf_add_str(b, "&amp;"); break;
		case '<': rc = scs_buf_add_str(b, "&lt;"); break;
		case '>': rc = scs_buf_add_str(b, "&gt;"); break;
		case '"': rc = scs_buf_add_str(b, "&quot;"); break;
		case '\'': rc = scs_buf_add_str(b, "&#39;"); break;
		default: rc = scs_buf_add(b, s, 1);
		}
	}
	return rc;
}

/* @s, or past the continuation bytes it starts with: a UTF-8 character whole. */
static const char *
utf8_start(const char *s)
{
	while (((unsigned char)*s & 0xc0) == 0x80)
		s++;
	return s;
}

typedef struct map_rect {
	double area;              /* in, scaled to the map's pixels */
	double x, y, w, h;        /* out */
} map_rect;

/* The worst aspect ratio of a row of areas summing to @sum with extremes @lo, @hi, laid along a side @side. */
static double
worst(double sum, double lo, double hi, double side)
{
	double s2 = sum * sum, w2 = side * side, a = w2 * hi / s2, b = s2 / (w2 * lo);

	return a > b ? a : b;
}

/*
 * Squarified layout of @rects (areas descending, summing to w * h) in the
 * box (x, y, w, h): rows along the shorter side, each taking areas while
 * that does not make its worst aspect ratio worse, then the rest of the box.
 */
static void
squarify(map_rect *rects, size_t n, double x, double y, double w, double h)
{
	size_t i = 0;

	while (i < n) {
		double side = w < h ? w : h, sum = rects[i].area, lo = sum, hi = sum, thick;
		size_t end = i + 1;

		if (side <= 0)
			side = 1e-9;
		while (end < n) {
			double a = rects[end].area, s = sum + a;
			double nlo = a < lo ? a : lo, nhi = a > hi ? a : hi;

			if (worst(s, nlo, nhi, side) > worst(sum, lo, hi, side))
				break;
			sum = s;
			lo = nlo;
			hi = nhi;
			end++;
		}
		thick = sum / side;
		for (double at = 0; i < end; i++) {
			double len = rects[i].area / thick;

			if (w >= h) {         /* a column on the left */
				rects[i].x = x;
				rects[i].y = y + at;
				rects[i].w = thick;
				rects[i].h = len;
			} else {              /* a row on top */
				rects[i].x = x + at;
				rects[i].y = y;
				rects[i].w = len;
				rects[i].h = thick;
			}
			at += len;
		}
		if (w >= h) {
			x += thick;
			w -= thick;
		} else {
			y += thick;
			h -= thick;
		}
	}
}

/* One rectangle of the map: filled, titled, labelled when the label fits. */
static int
map_rect_html(scs_buf *b, const map_rect *m, const char *colour, const char *title, const char *label, uint64_t bytes)
{
	char h[32];
	int rc = scs_buf_add_str(b, "<g><title>");

	if (rc == SCS_OK && (rc = html_str(b, title)) == SCS_OK)
		rc = scs_buf_printf(b, "</title><rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>", m->x,
		    m->y, m->w, m->h, colour);
	/* about 7 pixels a character at 12px */
	if (rc == SCS_OK && m->w >= 48 && m->h >= 30) {
		size_t fit = (size_t)((m->w - 8) / 7), len = strlen(label);

		/* a name too long: its end, which tells a layer's weights apart */
		if ((rc = scs_buf_printf(b, "<text x=\"%.2f\" y=\"%.2f\">%s", m->x + 4, m->y + 14,
		    len > fit ? "&#8230;" : "")) == SCS_OK)
			rc = html_str(b, len > fit ? utf8_start(label + len - (fit - 1)) : label);
		if (rc == SCS_OK)
			rc = scs_buf_printf(b, "</text><text x=\"%.2f\" y=\"%.2f\">%s</text>", m->x + 4, m->y + 27,
			    scs_human_size(h, bytes));
	}
	return rc == SCS_OK ? scs_buf_add_str(b, "</g>\n") : rc;
}

/* The treemap of the constants' bytes by tensor, the largest MAP_MAX apart and the rest as one. */
static int
html_map(scs_buf *b, const scs_inspect_result *r)
{
	size_t *idx = sorted(r->tensors, r->n_tensors, sizeof(*r->tensors), cmp_tensor);
	size_t n = 0, n_rest = 0;
	uint64_t rest = 0;
	map_rect *rects;
	scs_buf title = SCS_BUF_INIT;
	int rc = SCS_OK;

	if (idx == NULL || (rects = calloc(MAP_MAX + 2, sizeof(*rects))) == NULL) {
		free(idx);
		return SCS_ENOMEM;
	}
	for (size_t i = 0; i < r->n_tensors && r->tensors[idx[i]].bytes; i++) {
		if (n < MAP_MAX)
			rects[n++].area = (double)r->tensors[idx[i]].bytes;
		else {
			rest += r->tensors[idx[i]].bytes;
			n_rest++;
		}
	}
	if (rest)
		rects[n].area = (double)rest;
	if (r->const_bytes == 0) {
		rc = scs_buf_add_str(b, "<p>No constant holds bytes: no treemap.</p>\n");
		goto done;
	}
	for (size_t i = 0; i < n + (rest != 0); i++)
		rects[i].area *= (double)MAP_W * MAP_H / (double)r->const_bytes;
	/* the rest, one rectangle, last */
	squarify(rects, n + (rest != 0), 0, 0, MAP_W, MAP_H);
	rc = scs_buf_printf(b, "<svg id=\"treemap\" width=\"%d\" height=\"%d\" "
	    "viewBox=\"0 0 %d %d\">\n", MAP_W, MAP_H, MAP_W, MAP_H);
	for (size_t i = 0; rc == SCS_OK && i < n; i++) {
		const insp_tensor *t = &r->tensors[idx[i]];

		title.len = 0;
		if ((rc = scs_buf_printf(&title, "%s %s ", t->name, scs_dtype_name(t->dtype))) == SCS_OK &&
		    (rc = dims_text(&title, t->dims, t->n_dims)) == SCS_OK &&
		    (rc = scs_buf_printf(&title, " %llu bytes", (unsigned long long)t->bytes)) == SCS_OK)
			rc = map_rect_html(b, &rects[i], map_colours[i % N_COLOURS], (const char *)title.data, t->name, t->bytes);
	}
	if (rc == SCS_OK && rest) {
		title.len = 0;
		if ((rc = scs_buf_printf(&title, "%zu smaller constants, %llu bytes", n_rest, (unsigned long long)rest)) == SCS_OK)
			rc = map_rect_html(b, &rects[n], MAP_REST_COLOUR, (const char *)title.data, "the rest", rest);
	}
	if (rc == SCS_OK)
		rc = scs_buf_add_str(b, "</svg>\n");
done:
	scs_buf_dispose(&title);
	free(rects);
	free(idx);
	return rc;
}

/* One cell of a table row: @text escaped (@num: right-aligned). */
static int
td(scs_buf *b, const char *text, int num)
{
	int rc = scs_buf_add_str(b, num ? "<td class=\"n\">" : "<td>");

	if (rc == SCS_OK && (rc = html_str(b, text)) == SCS_OK)
		rc = scs_buf_add_str(b, "</td>");
	return rc;
}

static int
tdn(scs_buf *b, uint64_t n)
{
	return scs_buf_printf(b, "<td class=\"n\">%llu</td>", (unsigned long long)n);
}

/* A heading and a table's header row: @cols, '|'-separated. */
static int
table_head(scs_buf *b, const char *title, const char *cols)
{
	int rc = scs_buf_add_str(b, "<h2>");

	if (rc == SCS_OK && (rc = html_str(b, title)) == SCS_OK)
		rc = scs_buf_add_str(b, "</h2>\n<table><tr><th>");
	for (; rc == SCS_OK && *cols; cols++)
		rc = *cols == '|' ? scs_buf_add_str(b, "</th><th>") : scs_buf_add(b, cols, 1);
	return rc == SCS_OK ? scs_buf_add_str(b, "</th></tr>\n") : rc;
}

static int
html_values(scs_buf *b, const char *title, const insp_value *v, size_t n)
{
	scs_buf shape = SCS_BUF_INIT;
	int rc = table_head(b, title, "name|type|shape");

	for (size_t i = 0; rc == SCS_OK && i < n; i++) {
		shape.len = 0;
		if ((rc = shape_text(&shape, &v[i])) == SCS_OK && (rc = scs_buf_add_str(b, "<tr>")) == SCS_OK &&
		    (rc = td(b, v[i].name, 0)) == SCS_OK && (rc = td(b, v[i].type, 0)) == SCS_OK &&
		    (rc = td(b, (const char *)shape.data, 0)) == SCS_OK)
			rc = scs_buf_add_str(b, "</tr>\n");
	}
	scs_buf_dispose(&shape);
	return rc == SCS_OK ? scs_buf_add_str(b, "</table>\n") : rc;
}

static int
html_ops(scs_buf *b, const scs_inspect_result *r)
{
	size_t *idx = sorted(r->ops, r->n_ops, sizeof(*r->ops), cmp_op_nodes);
	int rc = idx ? table_head(b, "Nodes by operator", "operator|main graph|all graphs|constants read|their bytes") :
	    SCS_ENOMEM;

	for (size_t i = 0; rc == SCS_OK && i < r->n_ops; i++) {
		const insp_op *op = &r->ops[idx[i]];

		if ((rc = scs_buf_add_str(b, "<tr>")) == SCS_OK && (rc = td(b, op->op, 0)) == SCS_OK &&
		    (rc = tdn(b, op->main)) == SCS_OK && (rc = tdn(b, op->all)) == SCS_OK &&
		    (rc = tdn(b, op->tensors)) == SCS_OK && (rc = tdn(b, op->bytes)) == SCS_OK)
			rc = scs_buf_add_str(b, "</tr>\n");
	}
	free(idx);
	return rc == SCS_OK ? scs_buf_add_str(b, "</table>\n") : rc;
}

static int
html_tensors(scs_buf *b, const scs_inspect_result *r)
{
	size_t *idx = sorted(r->tensors, r->n_tensors, sizeof(*r->tensors), cmp_tensor);
	size_t n = r->n_tensors < r->top ? r->n_tensors : r->top;
	scs_buf cell = SCS_BUF_INIT;
	int rc = idx ? table_head(b, "The largest constants", "name|type|dims|bytes|where|read by") : SCS_ENOMEM;

	for (size_t i = 0; rc == SCS_OK && i < n; i++) {
		const insp_tensor *t = &r->tensors[idx[i]];

		if ((rc = scs_buf_add_str(b, "<tr>")) < 0 || (rc = td(b, t->name, 0)) < 0 ||
		    (rc = td(b, scs_dtype_name(t->dtype), 0)) < 0)
			break;
		cell.len = 0;
		if ((rc = dims_text(&cell, t->dims, t->n_dims)) < 0 || (rc = td(b, (const char *)cell.data, 0)) < 0 ||
		    (rc = tdn(b, t->bytes)) < 0 || (rc = td(b, where(r, t), 0)) < 0)
			break;
		cell.len = 0;
		if ((rc = readers_text(&cell, r, t)) == SCS_OK && (rc = td(b, (const char *)cell.data, 0)) == SCS_OK)
			rc = scs_buf_add_str(b, "</tr>\n");
	}
	scs_buf_dispose(&cell);
	free(idx);
	return rc == SCS_OK ? scs_buf_add_str(b, "</table>\n") : rc;
}

static int
html_files(scs_buf *b, const scs_inspect_result *r)
{
	int rc = table_head(b, "Files", "path|bytes|tensors|their bytes|offsets aligned to");

	for (size_t f = 0; rc == SCS_OK && f < r->n_files; f++) {
		const insp_file *fl = &r->files[f];

		if ((rc = scs_buf_add_str(b, "<tr>")) == SCS_OK && (rc = td(b, fl->path, 0)) == SCS_OK &&
		    (rc = tdn(b, fl->bytes)) == SCS_OK && (rc = tdn(b, fl->tensors)) == SCS_OK &&
		    (rc = tdn(b, fl->tensor_bytes)) == SCS_OK)
			rc = f ? tdn(b, fl->align) : td(b, "(the model)", 0);
		if (rc == SCS_OK)
			rc = scs_buf_add_str(b, "</tr>\n");
	}
	return rc == SCS_OK ? scs_buf_add_str(b, "</table>\n") : rc;
}

static int
html_duplicates(scs_buf *b, const scs_inspect_result *r)
{
	const scs_report *s = &r->shrink;
	scs_buf names = SCS_BUF_INIT;
	int rc = table_head(b, "Duplicates scs4onnx-shrink merges", "kept|type|bytes each|copies");

	for (size_t i = 0; rc == SCS_OK && i < s->n_groups; i++) {
		names.len = 0;
		for (size_t k = 0; rc == SCS_OK && k < s->groups[i].n_names; k++)
			rc = scs_buf_printf(&names, k ? " %s" : "%s", s->groups[i].names[k]);
		if (rc == SCS_OK && (rc = scs_buf_add_str(b, "<tr>")) == SCS_OK && (rc = td(b, s->groups[i].canonical, 0)) == SCS_OK &&
		    (rc = td(b, scs_dtype_name(s->groups[i].dtype), 0)) == SCS_OK && (rc = tdn(b, s->groups[i].bytes)) == SCS_OK &&
		    (rc = td(b, names.data ? (const char *)names.data : "", 0)) == SCS_OK)
			rc = scs_buf_add_str(b, "</tr>\n");
	}
	scs_buf_dispose(&names);
	if (rc == SCS_OK && (rc = scs_buf_add_str(b, "</table>\n")) == SCS_OK)
		rc = table_head(b, "Transposed copies and downcasts", "constant|what becomes of it");
	for (size_t i = 0; rc == SCS_OK && i < s->transposed.n + s->narrowed.n; i++) {
		const scs_report_item *it = i < s->transposed.n ? &s->transposed.items[i] :
		    &s->narrowed.items[i - s->transposed.n];

		if ((rc = scs_buf_add_str(b, "<tr>")) == SCS_OK && (rc = td(b, it->name, 0)) == SCS_OK &&
		    (rc = td(b, it->detail, 0)) == SCS_OK)
			rc = scs_buf_add_str(b, "</tr>\n");
	}
	return rc == SCS_OK ? scs_buf_add_str(b, "</table>\n") : rc;
}

static int
html_tools(scs_buf *b, const scs_inspect_result *r)
{
	const scs_report *o = &r->optimize;
	int rc = scs_buf_printf(b, "<h2>What the tools would do</h2>\n<p>scs4onnx-shrink would save %lld bytes: %llu bytes "
	    "of input files, %llu of output.</p>\n<p>scs4onnx-optimize would remove %lld nodes (%llu &#8594; %llu) and %lld "
	    "constant bytes, in %u rounds.</p>\n", (long long)shrink_saves(r), (unsigned long long)r->shrink.input_len,
	    (unsigned long long)(r->shrink.output_len + r->shrink.output_data_len), (long long)(o->nodes_before - o->nodes_after),
	    (unsigned long long)o->nodes_before, (unsigned long long)o->nodes_after, (long long)(o->bytes_before - o->bytes_after),
	    o->rounds);

	if (rc == SCS_OK)
		rc = table_head(b, "Optimizer passes that change the model", "pass|changes|left alone");
	for (size_t i = 0; rc == SCS_OK && i < o->n_pass_list; i++)
		if (o->pass_list[i].changes && (rc = scs_buf_add_str(b, "<tr>")) == SCS_OK &&
		    (rc = td(b, o->pass_list[i].name, 0)) == SCS_OK && (rc = tdn(b, o->pass_list[i].changes)) == SCS_OK &&
		    (rc = tdn(b, o->pass_list[i].refusals)) == SCS_OK)
			rc = scs_buf_add_str(b, "</tr>\n");
	return rc == SCS_OK ? scs_buf_add_str(b, "</table>\n") : rc;
}

/* Every table of the text, as HTML tables. */
static int
html_tables(scs_buf *b, const scs_inspect_result *r)
{
	int rc = scs_buf_printf(b, "<p>IR version %lld, producer &#8220;", (long long)r->ir_version);

	if (rc == SCS_OK && (rc = html_str(b, r->producer)) == SCS_OK && (rc = scs_buf_add_str(b, "&#8221;")) == SCS_OK &&
	    r->producer_version[0] && (rc = scs_buf_add_str(b, " ")) == SCS_OK)
		rc = html_str(b, r->producer_version);
	if (rc == SCS_OK)
		rc = scs_buf_add_str(b, "; opsets:");
	for (size_t i = 0; rc == SCS_OK && i < r->n_opsets; i++)
		if ((rc = scs_buf_add_str(b, i ? ", " : " ")) == SCS_OK &&
		    (rc = html_str(b, r->opsets[i].domain[0] ? r->opsets[i].domain : "ai.onnx")) == SCS_OK)
			rc = scs_buf_printf(b, " %lld", (long long)r->opsets[i].version);
	if (rc == SCS_OK)
		rc = scs_buf_printf(b, "; %llu nodes in the main graph, %llu in all %zu graphs, bodies and functions.</p>\n",
		    (unsigned long long)r->nodes_main, (unsigned long long)r->nodes_all, r->n_graphs);
	if (rc == SCS_OK && (rc = html_values(b, "Inputs", r->inputs, r->n_inputs)) == SCS_OK &&
	    (rc = html_values(b, "Outputs", r->outputs, r->n_outputs)) == SCS_OK && (rc = html_ops(b, r)) == SCS_OK &&
	    (rc = html_tensors(b, r)) == SCS_OK && (rc = html_files(b, r)) == SCS_OK &&
	    (rc = html_duplicates(b, r)) == SCS_OK)
		rc = html_tools(b, r);
	return rc;
}

char *
scs_inspect_html(const scs_inspect_result *r)
{
	scs_buf b = SCS_BUF_INIT;
	char h[32];
	int rc;

	if ((rc = scs_buf_add_str(&b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>")) == SCS_OK &&
	    (rc = html_str(&b, r->path)) == SCS_OK &&
	    (rc = scs_buf_add_str(&b, "</title>\n<style>\nbody{margin:8px;font:13px sans-serif;color:#222;background:#fff}\n"
	    "h1{font-size:15px;margin:0 0 6px}\n#treemap rect{stroke:#fff;stroke-width:1}\n"
	    "#treemap text{font:12px monospace;fill:#fff;pointer-events:none}\nh2{font-size:14px;margin:14px 0 4px}\n"
	    "table{border-collapse:collapse}\ntd,th{border:1px solid #ccc;padding:2px 6px;text-align:left}\n"
	    "td.n{text-align:right;font-variant-numeric:tabular-nums}\np{margin:4px 0}\n"
	    "</style></head><body>\n<h1>")) == SCS_OK && (rc = html_str(&b, r->path)) == SCS_OK &&
	    (rc = scs_buf_printf(&b, ": %zu constants, %llu bytes (%s)</h1>\n", r->n_tensors,
	    (unsigned long long)r->const_bytes, scs_human_size(h, r->const_bytes))) == SCS_OK &&
	    (rc = html_map(&b, r)) == SCS_OK && (rc = html_tables(&b, r)) == SCS_OK)
		rc = scs_buf_add_str(&b, "</body></html>\n");
	return finish(&b, rc);
}
