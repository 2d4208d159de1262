/*
 * extract_constant_to_initializer.c: Constant nodes of the main graph
 * become initializers of the same name (the value's payload is shared, not
 * copied); readers are left as they are, since the name does not change.
 *
 * A Constant holding a tensor (value) or value_float(s) / value_int(s)
 * moves; the latter are written as float32 / int64 tensors of rank 0 or 1,
 * the dims the attribute gives them. Left as nodes, with the reason: a
 * Constant whose output is a graph output (an initializer named as a graph
 * output is a value the graph does not compute, which some runtimes
 * refuse), string and sparse values. Constants of nested bodies stay
 * nodes, unreported, as in onnxoptimizer (only the main graph's move).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>

#include "model/model.h"
#include "onnx/dtype.h"
#include "opt/opt.h"

/* A payload holding the bytes of value_float(s) / value_int(s) constant @c into *id. */
static int
write_list(scs_opt_ctx *ctx, const scs_opt_const *c, uint32_t *id)
{
	unsigned char buf[4096];
	size_t esize = c->dtype == SCS_DT_FLOAT ? 4 : 8, total = (size_t)c->n_elems * esize, take;
	scs_opt_writer w;
	int rc;

	if ((rc = scs_opt_writer_open(&w, ctx, c->dtype)) < 0)
		return rc;
	for (size_t off = 0; off < total; off += take) {
		take = total - off < sizeof(buf) ? total - off : sizeof(buf);
		if ((rc = scs_opt_read_raw(ctx, c, off, take, buf)) < 0 || (rc = scs_opt_writer_put_raw(&w, buf, take)) < 0) {
			scs_opt_writer_abort(&w);
			return rc;
		}
	}
	return scs_opt_writer_finish(id, &w);
}

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	const char *name = node->n_output == 1 ? node->output[0] : "";
	int64_t dims[1];
	scs_opt_const c;
	char why[512];
	uint32_t id;
	Onnx__TensorProto *t;
	int r;

	(void)payload;
	if (ctx->scopes.items[scope].graph != ctx->m->proto->graph || !name[0])
		return 0;
	if (scs_opt_is_pinned(ctx, scope, name))
		return scs_opt_refuse(ctx, scope, node, "its output '%s' is a graph output: it stays a node", name);
	if ((r = scs_opt_constant(&c, ctx, scope, name, why, sizeof(why))) <= 0)
		return r < 0 ? r : scs_opt_refuse(ctx, scope, node, "%s", why);
	if (c.t) {
		if (c.t->data_type == SCS_DT_STRING || !scs_model_payload_of(ctx->m, c.t, &id))
			return scs_opt_refuse(ctx, scope, node, "its value is a string tensor: it stays a node");
		t = scs_opt_tensor_new(ctx, name, c.t->data_type, c.t->dims, c.t->n_dims, id);
	} else if (c.attr) {
		if ((r = write_list(ctx, &c, &id)) < 0)
			return r;
		dims[0] = c.n_elems;
		t = scs_opt_tensor_new(ctx, name, c.dtype, dims, c.rank, id);
	} else {
		return scs_opt_refuse(ctx, scope, node, "its value is not a dense tensor: it stays a node");
	}
	if (t == NULL)
		return scs_err_set(SCS_ENOMEM, "extract_constant_to_initializer: cannot allocate a tensor");
	if ((r = scs_opt_add_constant(ctx, scope, t, NULL)) < 0 || (r = scs_opt_drop_node(ctx, scope, node)) < 0)
		return r;
	return scs_opt_did(ctx, scope, node, "now the initializer '%s'", name) < 0 ? -1 : 1;
}

int
scs_opt_extract_constant_to_initializer(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Constant", one, changed);
}
