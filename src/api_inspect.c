/*
 * api_inspect.c: scs_inspect (scs4onnx-inspect): what a model holds and
 * what the tools would make of it, nothing written. Two loads of the
 * input, each as the tool it stands for loads it: the first (every
 * initializer a tensor, as scs4onnx-optimize loads) gives the figures of
 * the model as it is (inputs, outputs, opsets, nodes and constants by
 * operator, constants by tensor, data files), then runs the optimizer's
 * default passes on it; the second (sealed, as scs4onnx-shrink loads) runs
 * shrink's passes with default options and sizes the output as the writer
 * would write it (scs_emit_size). The renderers (text, JSON, HTML with a
 * squarified treemap of the constants' bytes) are in api_inspect_render.c.
 *
 * SPDX-License-Identifier: MIT
 */
#include "scs4onnx.h"

#include <stdlib.h>
#include <string.h>

#include "api_impl.h"
#include "api_inspect.h"
#include "model/emit.h"
#include "model/model.h"
#include "model/scope.h"
#include "onnx/dtype.h"
#include "opt/opt.h"
#include "shrink/pass.h"
#include "util/buf.h"
#include "util/path.h"
#include "io/source.h"
#include "io/store.h"

/* The value's type as text: "float32", "sequence", "sparse_tensor(float32)" ... */
static char *
type_text(const Onnx__TypeProto *t)
{
	char text[64];

	if (t == NULL)
		return strdup("?");
	switch (t->value_case) {
	case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
		return strdup(t->tensor_type ? scs_dtype_name(t->tensor_type->elem_type) : "?");
	case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE:
		snprintf(text, sizeof(text), "sparse_tensor(%s)",
		    t->sparse_tensor_type ? scs_dtype_name(t->sparse_tensor_type->elem_type) : "?");
		return strdup(text);
	case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
		return strdup("sequence");
	case ONNX__TYPE_PROTO__VALUE_MAP_TYPE:
		return strdup("map");
	case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
		return strdup("optional");
	default:
		return strdup("?");
	}
}

/* One graph input or output into @v: its name, type and dims (a name for a symbolic one, "?" for none). */
static int
value_of(insp_value *v, const Onnx__ValueInfoProto *vi)
{
	const Onnx__TypeProto *t = vi->type;
	const Onnx__TensorShapeProto *shape = NULL;
	char num[32];

	memset(v, 0, sizeof(*v));
	if (t && t->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && t->tensor_type)
		shape = t->tensor_type->shape;
	else if (t && t->value_case == ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE && t->sparse_tensor_type)
		shape = t->sparse_tensor_type->shape;
	if ((v->name = strdup(vi->name ? vi->name : "")) == NULL || (v->type = type_text(t)) == NULL)
		return scs_err_set(SCS_ENOMEM, "out of memory");
	v->has_shape = shape != NULL;
	if (!shape || shape->n_dim == 0)
		return SCS_OK;
	if ((v->dims = calloc(shape->n_dim, sizeof(*v->dims))) == NULL)
		return scs_err_set(SCS_ENOMEM, "out of memory");
	for (size_t d = 0; d < shape->n_dim; d++, v->n_dims++) {
		const Onnx__TensorShapeProto__Dimension *dim = shape->dim[d];
		const char *text = "?";

		v->dims[d].fixed = dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
		if (v->dims[d].fixed) {
			snprintf(num, sizeof(num), "%lld", (long long)dim->dim_value);
			text = num;
		} else if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && dim->dim_param &&
		    dim->dim_param[0])
			text = dim->dim_param;
		if ((v->dims[d].text = strdup(text)) == NULL)
			return scs_err_set(SCS_ENOMEM, "out of memory");
	}
	return SCS_OK;
}

/* The operator @domain/@op_type's entry of @r (made when new): its index, < 0 on ENOMEM. */
static long
op_index(scs_inspect_result *r, scs_strmap *ops, const char *domain, const char *op_type)
{
	char *key;
	int64_t at;
	int rc;

	if (scs_is_onnx_domain(domain ? domain : ""))
		key = strdup(op_type ? op_type : "");
	else if (asprintf(&key, "%s:%s", domain, op_type ? op_type : "") < 0)
		key = NULL;
	if (key == NULL)
		return scs_err_set(SCS_ENOMEM, "out of memory");
	if (scs_strmap_get(ops, key, &at)) {
		free(key);
		return (long)at;
	}
	if ((rc = scs_grow(&r->ops, &r->cap_ops, r->n_ops, sizeof(*r->ops), 32, "the operators")) < 0) {
		free(key);
		return rc;
	}
	memset(&r->ops[r->n_ops], 0, sizeof(r->ops[r->n_ops]));
	r->ops[r->n_ops].op = key;
	if ((rc = scs_strmap_put(ops, key, (int64_t)r->n_ops)) < 0)
		return rc;
	return (long)r->n_ops++;
}

/* What the walk over the constants keeps: the result, the scopes, each scope's constants by name. */
typedef struct walk {
	scs_inspect_result *r;
	scs_model *m;
	scs_scopes scopes;
	scs_strmap *consts;       /* per scope: name -> index in r->tensors */
	scs_strmap ops;           /* operator key -> index in r->ops */
	int rc;
} walk;

static int
each_constant(void *ctx, int scope, Onnx__TensorProto *t, Onnx__NodeProto *node, const char *name)
{
	walk *w = ctx;
	scs_inspect_result *r = w->r;
	insp_tensor *it;
	uint32_t id;

	(void)node;
	if ((w->rc = scs_grow(&r->tensors, &r->cap_tensors, r->n_tensors, sizeof(*r->tensors), 64, "the constants")) < 0)
		return 1;
	it = &r->tensors[r->n_tensors];
	memset(it, 0, sizeof(*it));
	it->dtype = t->data_type;
	it->file = -2;            /* no payload */
	if ((it->name = strdup(name ? name : "")) == NULL ||
	    (t->n_dims && (it->dims = malloc(t->n_dims * sizeof(*it->dims))) == NULL)) {
		free(it->name);
		w->rc = scs_err_set(SCS_ENOMEM, "out of memory");
		return 1;
	}
	if (t->n_dims)
		memcpy(it->dims, t->dims, t->n_dims * sizeof(*it->dims));
	it->n_dims = t->n_dims;
	if (scs_model_payload_of(w->m, t, &id)) {
		const scs_payload *p = &w->m->payloads->items[id];

		it->bytes = p->key.len;
		it->file = p->where == SCS_AT_FILE ? (int)p->file : -1;
	}
	r->const_bytes += it->bytes;
	r->n_tensors++;
	if ((w->rc = scs_strmap_put(&w->consts[scope], it->name, (int64_t)(r->n_tensors - 1))) < 0)
		return 1;
	return 0;
}

/* The constant input @name of a node of scope @s reads: its index, or -1 (an input or a node's output). */
static long
constant_read(const walk *w, int s, const char *name)
{
	int64_t at;

	for (; s >= 0; s = w->scopes.items[s].parent) {
		if (scs_strmap_get(&w->consts[s], name, &at))
			return (long)at;
		if (scs_strmap_get(&w->scopes.items[s].defs, name, NULL))
			return -1;
	}
	return -1;
}

/* Operator @op among tensor @t's readers (once). */
static int
add_reader(insp_tensor *t, uint32_t op)
{
	uint32_t *grown;

	for (size_t i = 0; i < t->n_readers; i++)
		if (t->readers[i] == op)
			return SCS_OK;
	if ((grown = realloc(t->readers, (t->n_readers + 1) * sizeof(*grown))) == NULL)
		return scs_err_set(SCS_ENOMEM, "out of memory");
	t->readers = grown;
	t->readers[t->n_readers++] = op;
	return SCS_OK;
}

/* Nodes by operator, every scope and the main graph's; each constant's reading operators. */
static int
count_nodes(walk *w)
{
	scs_inspect_result *r = w->r;
	int rc;

	for (size_t s = 0; s < w->scopes.n; s++) {
		scs_scope *sc = &w->scopes.items[s];
		int main_graph = sc->graph != NULL && sc->graph == w->m->proto->graph;
		size_t *n;
		Onnx__NodeProto **nodes = *scs_scope_nodes(sc, &n);

		for (size_t i = 0; i < *n; i++) {
			long op = op_index(r, &w->ops, nodes[i]->domain, nodes[i]->op_type);

			if (op < 0)
				return (int)op;
			r->ops[op].all++;
			r->nodes_all++;
			if (main_graph) {
				r->ops[op].main++;
				r->nodes_main++;
			}
			for (size_t k = 0; k < nodes[i]->n_input; k++) {
				long t;

				if (!nodes[i]->input[k][0] || (t = constant_read(w, (int)s, nodes[i]->input[k])) < 0)
					continue;
				if ((rc = add_reader(&r->tensors[t], (uint32_t)op)) < 0)
					return rc;
			}
		}
	}
	r->n_graphs = w->scopes.n;
	return SCS_OK;
}

/* Each constant's bytes on the operators that read it (each reading operator once per constant). */
static void
bytes_by_operator(scs_inspect_result *r)
{
	for (size_t i = 0; i < r->n_tensors; i++) {
		const insp_tensor *t = &r->tensors[i];

		if (t->n_readers == 0) {
			r->unread_bytes += t->bytes;
			r->n_unread++;
		}
		for (size_t k = 0; k < t->n_readers; k++) {
			r->ops[t->readers[k]].bytes += t->bytes;
			r->ops[t->readers[k]].tensors++;
		}
	}
}

/* The input's files: the .onnx, then each external data file, its tensors, their bytes and alignment. */
static int
data_files(scs_inspect_result *r, const scs_model *m)
{
	const scs_payloads *set = m->payloads;

	r->n_files = set->n_files;
	if ((r->files = calloc(set->n_files ? set->n_files : 1, sizeof(*r->files))) == NULL)
		return scs_err_set(SCS_ENOMEM, "out of memory");
	for (size_t f = 0; f < set->n_files; f++) {
		r->files[f].bytes = scs_source_size(set->files[f]);
		r->files[f].align = (uint64_t)1 << 20;
		r->input_len += r->files[f].bytes;
		if ((r->files[f].path = strdup(scs_source_path(set->files[f]))) == NULL)
			return scs_err_set(SCS_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < set->n; i++) {
		const scs_payload *p = &set->items[i];
		insp_file *f;

		if (p->where != SCS_AT_FILE || p->file >= set->n_files)
			continue;
		f = &r->files[p->file];
		f->tensors++;
		f->tensor_bytes += p->key.len;
		while (f->align > 1 && p->off % f->align)
			f->align >>= 1;
	}
	for (size_t f = 0; f < set->n_files; f++)
		if (r->files[f].tensors == 0)
			r->files[f].align = 0;
	return SCS_OK;
}

/* The model as it is: header, opsets, inputs and outputs, nodes, constants, files. */
static int
describe(scs_inspect_result *r, scs_model *m)
{
	Onnx__ModelProto *mp = m->proto;
	Onnx__GraphProto *g = mp->graph;
	walk w;
	int rc;

	r->ir_version = mp->has_ir_version ? mp->ir_version : 0;
	if ((r->producer = strdup(mp->producer_name ? mp->producer_name : "")) == NULL ||
	    (r->producer_version = strdup(mp->producer_version ? mp->producer_version : "")) == NULL ||
	    (r->opsets = calloc(mp->n_opset_import + 1, sizeof(*r->opsets))) == NULL)
		return scs_err_set(SCS_ENOMEM, "out of memory");
	for (size_t i = 0; i < mp->n_opset_import; i++, r->n_opsets++) {
		r->opsets[i].version = mp->opset_import[i]->version;
		if ((r->opsets[i].domain = strdup(mp->opset_import[i]->domain ? mp->opset_import[i]->domain : "")) == NULL)
			return scs_err_set(SCS_ENOMEM, "out of memory");
	}
	if ((rc = data_files(r, m)) < 0)
		return rc;
	memset(&w, 0, sizeof(w));
	w.r = r;
	w.m = m;
	if ((rc = scs_scopes_build(&w.scopes, mp)) < 0)
		return rc;
	if ((w.consts = calloc(w.scopes.n + 1, sizeof(*w.consts))) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "out of memory");
		goto done;
	}
	scs_scopes_each_constant(&w.scopes, each_constant, &w);
	if ((rc = w.rc) < 0 || (rc = count_nodes(&w)) < 0)
		goto done;
	bytes_by_operator(r);
	if (g) {
		int main_scope = scs_scopes_of(&w.scopes, g);

		if ((r->inputs = calloc(g->n_input + 1, sizeof(*r->inputs))) == NULL ||
		    (r->outputs = calloc(g->n_output + 1, sizeof(*r->outputs))) == NULL) {
			rc = scs_err_set(SCS_ENOMEM, "out of memory");
			goto done;
		}
		for (size_t i = 0; i < g->n_input; i++) {
			/* an initializer listed among the inputs: a default, counted apart */
			if (main_scope >= 0 && scs_strmap_get(&w.consts[main_scope], g->input[i]->name, NULL)) {
				r->n_default_inputs++;
				continue;
			}
			if ((rc = value_of(&r->inputs[r->n_inputs++], g->input[i])) < 0)
				goto done;
		}
		for (size_t i = 0; i < g->n_output; i++)
			if ((rc = value_of(&r->outputs[r->n_outputs++], g->output[i])) < 0)
				goto done;
	}
done:
	for (size_t s = 0; w.consts && s < w.scopes.n; s++)
		scs_strmap_dispose(&w.consts[s]);
	free(w.consts);
	scs_strmap_dispose(&w.ops);
	scs_scopes_dispose(&w.scopes);
	return rc;
}

/* What scs4onnx-optimize with its defaults does to @m (loaded as it loads it): lift, passes, restore. */
static int
optimize_dry(scs_inspect_result *r, scs_model *m)
{
	static const scs_opt_settings settings;
	scs_defaults dflt = { NULL, NULL, 0, 0, 0, 0 };
	int rc;

	r->optimize.version = SCS_REPORT_VERSION;
	if ((rc = scs_api_lift_defaults(&dflt, m, &r->optimize, 0)) == SCS_OK) {
		r->optimize.bytes_before = scs_pass_payload_bytes(m);
		if ((rc = scs_api_run_optimizer(m, &r->optimize, NULL, 0, NULL, 0, &settings)) == SCS_OK &&
		    (rc = scs_pass_defaults_restore(&dflt, m)) == SCS_OK)
			r->optimize.bytes_after = scs_pass_payload_bytes(m);
	}
	scs_defaults_dispose(&dflt, m);
	return rc;
}

/* What scs4onnx-shrink with its defaults does to @m (loaded sealed, as it loads it), and the output's size. */
static int
shrink_dry(scs_inspect_result *r, scs_model *m, const char *in)
{
	static const scs_shrink_options defaults;
	scs_defaults dflt = { NULL, NULL, 0, 0, 0, 0 };
	scs_emit_options eo;
	scs_emit_result res;
	int rc;

	memset(&res, 0, sizeof(res));
	memset(&eo, 0, sizeof(eo));
	r->shrink.version = SCS_REPORT_VERSION;
	if ((rc = scs_api_lift_defaults(&dflt, m, &r->shrink, 0)) == SCS_OK) {
		r->shrink.bytes_before = scs_pass_payload_bytes(m);
		if ((rc = scs_api_shrink_passes(m, &r->shrink, &defaults, 1, NULL)) == SCS_OK &&
		    (rc = scs_pass_defaults_restore(&dflt, m)) == SCS_OK) {
			r->shrink.bytes_after = scs_pass_payload_bytes(m);
			rc = scs_emit_size(&res, m, scs_path_base(in), &eo);
		}
	}
	if (rc == SCS_OK) {
		r->shrink.external = res.external;
		r->shrink.output_len = res.model_len;
		r->shrink.output_data_len = res.data_len;
		r->shrink_data_files = res.data.n_files;
	}
	scs_emit_result_dispose(&res);
	scs_defaults_dispose(&dflt, m);
	return rc;
}

/* Load @in (sealed or not) into a store of its own under @tmp, the stage "scan" of @pc; *m and *store are
 * the caller's to free. */
static int
load(scs_model **m, scs_store **store, const char *in, const char *tmp, int sealed, scs_api_progress *pc)
{
	scs_scan_options so;
	int rc;

	scs_api_stage_start(pc, "scan");
	scs_api_scan_options(&so, NULL, pc);
	if ((rc = scs_store_open(store, NULL, tmp)) < 0)
		return rc;
	return (sealed ? scs_model_load_sealed : scs_model_load)(m, in, *store, &so);
}

int
scs_api_inspect(scs_inspect_result **out, const char *in, const scs_inspect_options *opts)
{
	scs_inspect_result *r;
	scs_store *store = NULL;
	scs_model *m = NULL;
	const char *tmp = opts->tmp_dir;
	scs_api_progress pc;
	int rc;

	*out = NULL;
	if (tmp == NULL && ((tmp = getenv("TMPDIR")) == NULL || !tmp[0]))
		tmp = "/tmp";
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return scs_err_set(SCS_ENOMEM, "out of memory");
	r->top = opts->top ? opts->top : 20;
	if ((r->path = strdup(in)) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "out of memory");
		goto done;
	}
	memset(&pc, 0, sizeof(pc));
	pc.fn = opts->progress;
	pc.payload = opts->progress_payload;
	/* as scs4onnx-optimize loads it: the figures of the model as it is, then its passes */
	if ((rc = load(&m, &store, in, tmp, 0, &pc)) < 0 || (rc = describe(r, m)) < 0)
		goto done;
	scs_api_stage_start(&pc, "optimize");
	if ((rc = optimize_dry(r, m)) < 0)
		goto done;
	scs_model_free(m);
	scs_store_close(store);
	m = NULL;
	store = NULL;
	/* as scs4onnx-shrink loads it */
	if ((rc = load(&m, &store, in, tmp, 1, &pc)) < 0)
		goto done;
	scs_api_stage_start(&pc, "shrink");
	if ((rc = shrink_dry(r, m, in)) < 0)
		goto done;
	r->shrink.input_len = r->input_len;
done:
	scs_model_free(m);
	scs_store_close(store);
	if (rc < 0) {
		scs_inspect_free(r);
		return rc;
	}
	*out = r;
	return SCS_OK;
}

void
scs_inspect_free(scs_inspect_result *r)
{
	if (r == NULL)
		return;
	free(r->path);
	free(r->producer);
	free(r->producer_version);
	for (size_t i = 0; i < r->n_opsets; i++)
		free(r->opsets[i].domain);
	free(r->opsets);
	for (size_t i = 0; i < r->n_inputs + r->n_outputs; i++) {
		insp_value *v = i < r->n_inputs ? &r->inputs[i] : &r->outputs[i - r->n_inputs];

		for (size_t d = 0; d < v->n_dims; d++)
			free(v->dims[d].text);
		free(v->dims);
		free(v->name);
		free(v->type);
	}
	free(r->inputs);
	free(r->outputs);
	for (size_t i = 0; i < r->n_ops; i++)
		free(r->ops[i].op);
	free(r->ops);
	for (size_t i = 0; i < r->n_tensors; i++) {
		free(r->tensors[i].name);
		free(r->tensors[i].dims);
		free(r->tensors[i].readers);
	}
	free(r->tensors);
	for (size_t i = 0; i < r->n_files; i++)
		free(r->files[i].path);
	free(r->files);
	scs_report_dispose(&r->shrink);
	scs_report_dispose(&r->optimize);
	free(r);
}
