/*
 * infer_flow.c: the shape rules of the control-flow operators (see
 * infer_impl.h): the outputs of If, Loop and Scan as their bodies declare
 * them, a loop-carried value as its initial value and the body agree on,
 * a scan output stacked along a new axis. Every rule follows the ONNX
 * operator spec; a dim the spec leaves to the data stays unknown.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "infer/infer_impl.h"

/* The facts graph @g declares of its output @j (rank -1, elem 0 when none). */
static void
declared_output(const scs_infer_rule *r, scs_vfacts *f, const Onnx__GraphProto *g, size_t j)
{
	memset(f, 0, sizeof(*f));
	f->rank = -1;
	if (g && j < g->n_output)
		scs_infer_facts_from_type(f, g->output[j]->type, r->inf);
}

/* Into @o what @a and @b agree on: the type, and with the rank the dims both give. */
static void
agree(scs_vfacts *o, const scs_vfacts *a, const scs_vfacts *b)
{
	if (a->elem > 0 && a->elem == b->elem)
		o->elem = a->elem;
	if (a->rank < 0 || a->rank != b->rank)
		return;
	o->rank = a->rank;
	for (int i = 0; i < a->rank; i++)
		o->dims[i] = a->dims[i] == b->dims[i] ? a->dims[i] : -1;
}

/* The body's graph, or NULL. */
static const Onnx__GraphProto *
graph_attr(const scs_infer_rule *r, const char *name)
{
	const Onnx__AttributeProto *a = scs_attr_find(r->n, name);

	return a ? a->g : NULL;
}

/* If: what both branches declare of their output @j. */
void
scs_infer_if(const scs_infer_rule *r, size_t j, scs_vfacts *o)
{
	scs_vfacts t, e;

	declared_output(r, &t, graph_attr(r, "then_branch"), j);
	declared_output(r, &e, graph_attr(r, "else_branch"), j);
	agree(o, &t, &e);
}

/*
 * Loop (@scan 0) and Scan from opset 9 (@scan 1): a loop-carried value is
 * what its initial value and the body's output agree on; a scan output
 * stacks the body's output along a new axis (of the scan inputs' length
 * for Scan, unknown for Loop).
 */
static void
loop_scan(const scs_infer_rule *r, size_t j, scs_vfacts *o, int scan)
{
	const Onnx__AttributeProto *ax;
	const scs_vfacts *x;
	scs_vfacts b, init;
	int64_t m = scan ? scs_attr_int(r->n, "num_scan_inputs", -1) : 2, n_state, axis = 0, seq = -1, in_axis = 0;

	if ((scan && r->opset < 9) || m < 0 || (n_state = (int64_t)r->n->n_input - m) < 0)
		return;
	declared_output(r, &b, graph_attr(r, "body"), j + !scan);     /* Loop's body gives its condition first */
	if ((int64_t)j < n_state) {
		memset(&init, 0, sizeof(init));
		init.rank = -1;
		if (scs_infer_input(r, (size_t)(j + (size_t)(scan ? 0 : 2))))
			init = *scs_infer_input(r, (size_t)(j + (size_t)(scan ? 0 : 2)));
		init.elem = r->in[scan ? j : j + 2].elem;
		agree(o, &b, &init);
		return;
	}
	o->elem = b.elem;
	if (b.rank < 0 || b.rank + 1 > SCS_INFER_MAX_RANK)
		return;
	if (scan && (ax = scs_attr_find(r->n, "scan_output_axes")) && (size_t)(j - (size_t)n_state) < ax->n_ints)
		axis = ax->ints[j - (size_t)n_state];
	if (!scs_infer_axis_in(&axis, b.rank + 1))
		return;
	if (scan && (x = scs_infer_input(r, (size_t)n_state)) != NULL) {
		if ((ax = scs_attr_find(r->n, "scan_input_axes")) && ax->n_ints > 0)
			in_axis = ax->ints[0];
		if (scs_infer_axis_in(&in_axis, x->rank))
			seq = x->dims[in_axis];
	}
	o->rank = b.rank + 1;
	for (int i = 0, k = 0; i < o->rank; i++)
		o->dims[i] = i == axis ? seq : b.dims[k++];
}

void
scs_infer_loop(const scs_infer_rule *r, size_t j, scs_vfacts *o)
{
	loop_scan(r, j, o, 0);
}

void
scs_infer_scan(const scs_infer_rule *r, size_t j, scs_vfacts *o)
{
	loop_scan(r, j, o, 1);
}
