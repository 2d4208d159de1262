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
 *
 * The schema rule (scs_pass_downcast_narrowable): an input may narrow only
 * where no output's type can follow it. Type variables say that for outputs
 * that share a variable with an input; they do not say it for an output whose
 * variable no input carries (Cast's T2 comes from the `to` attribute,
 * EyeLike's and RandomNormalLike's T2 from `dtype` or else from the input,
 * Bernoulli's likewise, DequantizeLinear-23's from output_dtype or else from
 * x_scale), nor for sequence, optional and map arguments (SequenceConstruct,
 * SequenceInsert, SplitToSequence, Optional: the element type of the
 * container follows the tensors) or heterogeneous variadics (Loop, Scan, If:
 * the body graph decides). So an input narrows only when every output of its
 * operator is a concrete type, or a variable with one allowed type, or a
 * variable that also types a (homogeneous) input, and no argument of the
 * operator is a container or heterogeneous. This refuses some safe cases
 * (Cast to a number, SplitToSequence's split) and no unsafe one the schema
 * can show; Cast to string would also print a float32 differently from the
 * float64 of the same value, so leaving Cast alone costs nothing real.
 * Values as well as types must stay: a schema does not say at which precision
 * an operator computes, and Pow(x, float32 y) may round differently from
 * Pow(x, float64 y) of the same y. So float64 narrows only where no output can
 * be floating-point or string (ArgMax, Equal, IsNaN, NonZero, Shape: indices,
 * booleans, shapes); int64 -> int32 keeps every value exactly as it was.
 * Where ONNX's own implementation is narrower than its schema (Pad's axes,
 * CenterCropPad's shape), a short list (gaps[]) refuses too.
 * Operators outside the default domain are not narrowed (ai.onnx.ml matches
 * input types against attributes), and nothing narrows in a model importing
 * an opset newer than the table knows (scs_opschema_newest_opset).
 *
 * Schemas allow more than runtimes implement, and an output must load in
 * ONNX Runtime's CPU provider wherever its input did: so the narrow type
 * must also be one ONNX Runtime registers for the input's type constraint
 * (ortkernels.h); an operator its table does not list, or lists without a
 * CPU kernel (one ONNX Runtime runs as a function body), is not narrowed.
 * Where ONNX Runtime registers kernels per combination of types (OneHot's
 * indices, depth and values), the combination the node would have after
 * narrowing must be one of them: the node's constants narrow together or
 * not at all, and the types of its other inputs must be known (declared,
 * or constants).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "onnx/dtype.h"
#include "util/err.h"
#include "util/num.h"
#include "onnx/opschema.h"
#include "onnx/ortkernels.h"
#include "shrink/pass.h"
#include "model/scope.h"

typedef struct dcand {
	int scope;
	Onnx__TensorProto *t;
	const char *name;
	int parent;               /* union-find */
	char *refusal;            /* owned; NULL while allowed */
} dcand;

typedef struct downcast {
	scs_model *m;
	scs_scopes scopes;
	dcand *c;
	size_t n, cap;
	scs_strmap *cand_of;      /* per scope: name -> its first candidate */
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
	if (a == b)
		return;
	d->c[b].parent = a;
	/* a refusal is the set's: it moves to the new root */
	if (d->c[a].refusal == NULL) {
		d->c[a].refusal = d->c[b].refusal;
		d->c[b].refusal = NULL;
	}
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
	uint32_t id;
	int rc;

	/* function bodies import their own opsets: left alone */
	if (d->scopes.items[scope].graph == NULL)
		return SCS_OK;
	if (!name || !name[0] || !narrow_type(t->data_type) || !scs_model_payload_of(d->m, t, &id))
		return SCS_OK;
	if (scs_strmap_get(&d->scopes.items[scope].pinned, name, NULL))
		return SCS_OK;     /* a graph input or output keeps its type */
	if (node == NULL) {
		if ((t = scs_sealed_keep(t)) == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot keep a constant");
		name = t->name;
	}
	if ((rc = scs_grow(&d->c, &d->cap, d->n, sizeof(*d->c), 64, "the downcast list")) < 0)
		return rc;
	d->c[d->n] = (dcand){ scope, t, name, (int)d->n, NULL };
	if (!scs_strmap_get(&d->cand_of[scope], name, NULL) &&
	    (rc = scs_strmap_put(&d->cand_of[scope], name, (int64_t)d->n)) < 0)
		return rc;
	d->n++;
	return SCS_OK;
}

/* The candidate a reference to @name in scope @at reads, or -1. */
static int
resolve(downcast *d, int at, const char *name)
{
	int64_t i;

	for (int s = at; s >= 0; s = d->scopes.items[s].parent) {
		if (!scs_strmap_get(&d->scopes.items[s].defs, name, NULL))
			continue;
		/* -1: defined here, but not by a candidate */
		return scs_strmap_get(&d->cand_of[s], name, &i) ? (int)i : -1;
	}
	return -1;
}

/* Element types whose values depend on the precision they were computed in (or printed from). */
#define ROUNDING (SCS_OPSCHEMA_BIT(SCS_DT_FLOAT) | SCS_OPSCHEMA_BIT(SCS_DT_DOUBLE) | SCS_OPSCHEMA_BIT(SCS_DT_FLOAT16) | \
	SCS_OPSCHEMA_BIT(SCS_DT_BFLOAT16) | SCS_OPSCHEMA_BIT(SCS_DT_COMPLEX64) | SCS_OPSCHEMA_BIT(SCS_DT_COMPLEX128) | \
	SCS_OPSCHEMA_BIT(SCS_DT_FLOAT8E4M3FN) | SCS_OPSCHEMA_BIT(SCS_DT_FLOAT8E4M3FNUZ) | \
	SCS_OPSCHEMA_BIT(SCS_DT_FLOAT8E5M2) | SCS_OPSCHEMA_BIT(SCS_DT_FLOAT8E5M2FNUZ) | \
	SCS_OPSCHEMA_BIT(SCS_DT_FLOAT4E2M1) | SCS_OPSCHEMA_BIT(SCS_DT_FLOAT8E8M0) | SCS_OPSCHEMA_BIT(SCS_DT_STRING))

/* "int64", "int64 or int32", "a sequence, optional or map" for a concrete formal. */
static void
concrete_name(char *out, size_t len, const scs_opschema_arg *a)
{
	size_t used = 0;

	out[0] = '\0';
	if (a->container) {
		snprintf(out, len, "a sequence, optional or map");
		return;
	}
	for (int dt = 1; dt < 64 && used < len; dt++)
		if (a->concrete & SCS_OPSCHEMA_BIT(dt))
			used += (size_t)snprintf(out + used, len - used, "%s%s", used ? " or " : "", scs_dtype_name(dt));
	if (out[0] == '\0')
		snprintf(out, len, "no tensor type");
}

/* Where an argument is a sequence, optional or map, or heterogeneous: its formal's name; else NULL. */
static const char *
container_formal(const scs_opschema *s)
{
	const scs_opschema_arg *a;

	for (size_t k = 0; k < (size_t)s->n_inputs + s->n_outputs; k++) {
		a = k < s->n_inputs ? &s->inputs[k] : &s->outputs[k - s->n_inputs];
		if (a->heterogeneous || (a->type_var < 0 ? a->container : s->type_vars[a->type_var].container))
			return a->name;
	}
	return NULL;
}

/* 1 when some input formal carries type variable @tv homogeneously. */
static int
typevar_types_input(const scs_opschema *s, int tv)
{
	for (size_t k = 0; k < s->n_inputs; k++)
		if (s->inputs[k].type_var == tv && !s->inputs[k].heterogeneous)
			return 1;
	return 0;
}

/*
 * Inputs whose schema allows int32 but whose implementations in ONNX itself
 * do not (found by the downcast_ops suite, which narrows every input the rule
 * allows and loads the result in ONNX Runtime): the one list in this pass.
 */
static const struct {
	const char *op_type;
	size_t input;
	const char *why;
} gaps[] = {
	{ "CenterCropPad", 1, "ONNX's function body for CenterCropPad mixes it with int64 constants" },
	{ "Pad", 3, "ONNX's shape inference for Pad reads it as int64 only" },
};

/* 1 when ONNX Runtime has a CPU kernel of @s taking @narrow at input @i (formal @a); else 0 and why. */
static int
ort_allows(const scs_opschema *s, size_t i, const scs_opschema_arg *a, int narrow, char *why, size_t why_len)
{
	const scs_ortkernel *k;
	const char *tv = s->type_vars[a->type_var].name;

	switch (scs_ortkernel_lookup(&k, s->domain, s->op_type, s->since_version)) {
	case SCS_ORTK_UNKNOWN:
		snprintf(why, why_len, "%s-%d is not in the table of ONNX Runtime CPU kernels held here: whether ONNX "
		    "Runtime loads it with %s input %zu '%s' is not known", s->op_type, s->since_version,
		    scs_dtype_name(narrow), i, a->name);
		return 0;
	case SCS_ORTK_NONE:
		snprintf(why, why_len, "no ONNX Runtime CPU kernel for %s-%d (ONNX Runtime runs its function body, if it "
		    "has one, whose types are not checked here)", s->op_type, s->since_version);
		return 0;
	default:
		break;
	}
	if (!(scs_ortkernel_types(k, tv) & SCS_OPSCHEMA_BIT(narrow))) {
		snprintf(why, why_len, "no ONNX Runtime CPU kernel for %s-%d on %s input %zu '%s' (%s)", s->op_type,
		    s->since_version, scs_dtype_name(narrow), i, a->name, tv);
		return 0;
	}
	return 1;
}

int
scs_pass_downcast_narrowable(const scs_opschema *s, size_t i, int narrow, char *why, size_t why_len)
{
	const scs_opschema_arg *a;
	const char *op = s->op_type, *cont;
	char types[128];
	uint64_t allowed;
	int f, tv;

	if (s->domain[0]) {
		snprintf(why, why_len, "read by %s.%s: only default-domain operators are narrowed (ai.onnx.ml operators "
		    "match input types against attributes, e.g. LabelEncoder keys)", s->domain, op);
		return 0;
	}
	if (s->deprecated) {
		snprintf(why, why_len, "read by %s-%d, deprecated: its schema lists no inputs", op, s->since_version);
		return 0;
	}
	if ((f = scs_opschema_input_formal(s, i)) < 0) {
		snprintf(why, why_len, "%s-%d has no input %zu in its schema (%d formal inputs, none variadic)", op,
		    s->since_version, i, s->n_inputs);
		return 0;
	}
	a = &s->inputs[f];
	if ((tv = a->type_var) < 0) {
		concrete_name(types, sizeof(types), a);
		snprintf(why, why_len, "%s input %zu '%s' takes only %s", op, i, a->name, types);
		return 0;
	}
	allowed = s->type_vars[tv].allowed;
	if (!(allowed & SCS_OPSCHEMA_BIT(narrow))) {
		snprintf(why, why_len, "%s input %zu '%s' (%s) does not accept %s", op, i, a->name, s->type_vars[tv].name,
		    scs_dtype_name(narrow));
		return 0;
	}
	for (size_t k = 0; k < sizeof(gaps) / sizeof(gaps[0]); k++)
		if (strcmp(gaps[k].op_type, op) == 0 && gaps[k].input == i) {
			snprintf(why, why_len, "%s input %zu '%s': %s, whatever its schema allows", op, i, a->name,
			    gaps[k].why);
			return 0;
		}
	if (scs_opschema_typevar_types_output(s, tv)) {
		snprintf(why, why_len, "%s input %zu '%s' (%s) also types its output", op, i, a->name,
		    s->type_vars[tv].name);
		return 0;
	}
	if ((cont = container_formal(s)) != NULL) {
		snprintf(why, why_len, "%s has a sequence, optional, map or heterogeneous argument ('%s'), whose types "
		    "follow its inputs by inference", op, cont);
		return 0;
	}
	for (size_t k = 0; k < s->n_outputs; k++) {
		const scs_opschema_arg *o = &s->outputs[k];
		uint64_t m;

		if (o->type_var < 0)
			continue;
		m = s->type_vars[o->type_var].allowed;
		if ((m & (m - 1)) == 0 || typevar_types_input(s, o->type_var))
			continue;
		snprintf(why, why_len, "%s output %zu '%s' (%s) is typed by no input: its type comes from an attribute "
		    "or from an input by inference", op, k, o->name, s->type_vars[o->type_var].name);
		return 0;
	}
	/* The schema does not say at which precision an operator computes, so a
	 * float64 input narrows only where no output carries computed values that
	 * could round (or print) differently: outputs of indices, shapes, booleans. */
	for (size_t k = 0; narrow == SCS_DT_FLOAT && k < s->n_outputs; k++) {
		const scs_opschema_arg *o = &s->outputs[k];

		if (!((o->type_var < 0 ? o->concrete : s->type_vars[o->type_var].allowed) & ROUNDING))
			continue;
		snprintf(why, why_len, "%s output %zu '%s' may be floating-point or string: the schema does not say at "
		    "which precision %s computes it from float64", op, k, o->name, op);
		return 0;
	}
	return ort_allows(s, i, a, narrow, why, why_len);
}

/* The element type @v declares for a tensor (0 when it does not). */
static int
vi_elem(const Onnx__ValueInfoProto *v)
{
	return v && v->type && v->type->tensor_type ? v->type->tensor_type->elem_type : 0;
}

/* The element type of the value @name read from scope @at, as declared or as a constant holds it; 0 when not known. */
static int
known_type(downcast *d, int at, const char *name)
{
	Onnx__NodeProto **nodes;
	Onnx__GraphProto *g;
	Onnx__TensorProto *t;
	scs_sealed *sealed;
	size_t *n;
	int ci = resolve(d, at, name);

	if (ci >= 0)
		return d->c[ci].t->data_type;
	for (int s = at; s >= 0; s = d->scopes.items[s].parent) {
		if (!scs_strmap_get(&d->scopes.items[s].defs, name, NULL))
			continue;
		if ((g = d->scopes.items[s].graph) == NULL)
			return 0;
		for (size_t k = 0; k < g->n_initializer; k++)
			if (g->initializer[k]->name && strcmp(g->initializer[k]->name, name) == 0)
				return g->initializer[k]->data_type;
		sealed = scs_sealed_of(g);
		for (size_t k = 0; sealed && k < sealed->n; k++)
			if ((t = scs_sealed_get(sealed, k)) && t->name && strcmp(t->name, name) == 0)
				return t->data_type;
		for (size_t k = 0; k < g->n_input; k++)
			if (g->input[k]->name && strcmp(g->input[k]->name, name) == 0)
				return vi_elem(g->input[k]);
		for (size_t k = 0; k < g->n_value_info; k++)
			if (g->value_info[k]->name && strcmp(g->value_info[k]->name, name) == 0 && vi_elem(g->value_info[k]))
				return vi_elem(g->value_info[k]);
		for (size_t k = 0; k < g->n_output; k++)
			if (g->output[k]->name && strcmp(g->output[k]->name, name) == 0 && vi_elem(g->output[k]))
				return vi_elem(g->output[k]);
		nodes = *scs_scope_nodes(&d->scopes.items[s], &n);
		for (size_t k = 0; k < *n; k++) {
			Onnx__NodeProto *c = nodes[k];

			if (!c->op_type || strcmp(c->op_type, "Constant") != 0 || c->n_output < 1 || strcmp(c->output[0], name) ||
			    c->n_attribute < 1)
				continue;
			if ((t = scs_node_constant(c)) != NULL)
				return t->data_type;
			if (strncmp(c->attribute[0]->name, "value_int", 9) == 0)
				return SCS_DT_INT64;
			if (strncmp(c->attribute[0]->name, "value_float", 11) == 0)
				return SCS_DT_FLOAT;
			return 0;
		}
		return 0;
	}
	return 0;
}

/*
 * Where ONNX Runtime registers @node's kernels per combination of types:
 * the constants that narrow here (@narrows[i] for input i) narrow together,
 * and only when the node's types after narrowing are a combination it
 * registers. Refuses them otherwise.
 */
static int
check_combination(downcast *d, int scope, Onnx__NodeProto *node, const scs_opschema *s, const uint8_t *narrows)
{
	const scs_ortkernel *k;
	int types[SCS_ORTK_MAX_TV] = { 0 }, first = -1, ci, f, j;
	size_t used = 0;
	char why[256], combo[160];

	if (scs_ortkernel_lookup(&k, s->domain, s->op_type, s->since_version) != SCS_ORTK_FOUND || k->n_combos == 0)
		return SCS_OK;
	for (size_t i = 0; i < node->n_input && i < 64; i++)
		if (narrows[i] && (ci = resolve(d, scope, node->input[i])) >= 0) {
			if (first < 0)
				first = ci;
			else
				join(d, first, ci);
		}
	if (first < 0)
		return SCS_OK;
	combo[0] = '\0';
	for (size_t i = 0; i < node->n_input && i < 64; i++) {
		int t;

		if (!node->input[i][0] || (f = scs_opschema_input_formal(s, i)) < 0 || s->inputs[f].type_var < 0 ||
		    (j = scs_ortkernel_tv(k, s->type_vars[s->inputs[f].type_var].name)) < 0)
			continue;
		t = known_type(d, scope, node->input[i]);
		if (t > 0 && narrows[i])
			t = narrow_type(t);
		if (t <= 0) {
			snprintf(why, sizeof(why), "ONNX Runtime has %s kernels for some combinations of types only, and the "
			    "type of input %zu '%s' is not known here", s->op_type, i, node->input[i]);
			return refuse(d, first, why);
		}
		types[j] = t;
		if (used < sizeof(combo))
			used += (size_t)snprintf(combo + used, sizeof(combo) - used, "%s%s %s", used ? ", " : "",
			    s->inputs[f].name, scs_dtype_name(t));
	}
	if (scs_ortkernel_has(k, types))
		return SCS_OK;
	snprintf(why, sizeof(why), "no ONNX Runtime CPU kernel for %s-%d on %s (it registers some combinations of types "
	    "only)", s->op_type, s->since_version, combo);
	return refuse(d, first, why);
}

/* One node: join the constants bound to one type variable, refuse what the schema forbids. */
static int
check_node(downcast *d, int scope, Onnx__NodeProto *node, int64_t opset)
{
	const scs_opschema *s = NULL;
	uint8_t narrows[64] = { 0 };
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
		if (!scs_pass_downcast_narrowable(s, i, narrow_type(d->c[ci].t->data_type), why, sizeof(why))) {
			if ((rc = refuse(d, ci, why)) < 0)
				return rc;
			continue;
		}
		if (i < sizeof(narrows))
			narrows[i] = 1;
		/* every other input on the same type variable changes with it */
		tv = s->inputs[scs_opschema_input_formal(s, i)].type_var;
		for (size_t j = 0; j < node->n_input; j++) {
			if (j == i || !node->input[j][0] || (f = scs_opschema_input_formal(s, j)) < 0 ||
			    s->inputs[f].type_var != tv)
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
	return s ? check_combination(d, scope, node, s, narrows) : SCS_OK;
}

/* A model importing an opset newer than the table knows: why nothing narrows, or NULL. */
static const char *
newer_opset(downcast *d, char *why, size_t why_len)
{
	Onnx__ModelProto *p = d->m->proto;
	int newest;

	for (size_t k = 0; k < p->n_opset_import; k++) {
		const char *dom = p->opset_import[k]->domain ? p->opset_import[k]->domain : "";

		newest = scs_opschema_newest_opset(dom);
		if (newest > 0 && p->opset_import[k]->version > newest) {
			snprintf(why, why_len, "the model imports %s opset %lld, newer than the operator schemas known here "
			    "(up to %d)", dom[0] ? dom : "ai.onnx", (long long)p->opset_import[k]->version, newest);
			return why;
		}
	}
	return NULL;
}

static int
check_uses(downcast *d)
{
	Onnx__NodeProto **nodes;
	size_t *n;
	char why[256];
	int ci, rc;

	if (newer_opset(d, why, sizeof(why)) != NULL) {
		for (size_t i = 0; i < d->n; i++)
			if ((rc = refuse(d, (int)i, why)) < 0)
				return rc;
		return SCS_OK;
	}
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
	scs_pieces pc;
	uint32_t id;
	uint64_t off;
	size_t take, k;
	int dt = d->c[i].t->data_type, rc;

	scs_model_payload_of(d->m, d->c[i].t, &id);
	scs_payloads_pieces(&pc, d->m->payloads, id, d->in);
	while ((rc = scs_payloads_next_piece(&pc)) == SCS_OK) {
		off = pc.off;
		take = pc.len;
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
	return rc == SCS_DONE ? 1 : rc;
}

/* Write the narrowed payload and retype the tensor. */
static int
narrow(downcast *d, int i)
{
	scs_store_writer *w;
	scs_payload pl;
	scs_blob blob;
	scs_pieces pc;
	uint32_t id, new_id;
	size_t take, k;
	int dt = d->c[i].t->data_type, rc;

	if (d->m->payloads->store == NULL)
		return scs_err_set(SCS_EUSAGE, "narrowing needs a store");
	scs_model_payload_of(d->m, d->c[i].t, &id);
	if ((rc = scs_store_writer_open(&w, d->m->payloads->store)) < 0)
		return rc;
	scs_payloads_pieces(&pc, d->m->payloads, id, d->in);
	while ((rc = scs_payloads_next_piece(&pc)) == SCS_OK) {
		take = pc.len;
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
	if (rc < 0)
		goto fail;
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
scs_pass_downcast(scs_model *m, scs_downcast_result *res)
{
	downcast d;
	char why[256], change[128];
	uint64_t before;
	int rc, r;

	memset(&d, 0, sizeof(d));
	d.m = m;
	if ((rc = scs_scopes_build(&d.scopes, m->proto)) < 0)
		goto done;
	if ((d.cand_of = calloc(d.scopes.n ? d.scopes.n : 1, sizeof(*d.cand_of))) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "cannot allocate the downcast index");
		goto done;
	}
	if ((rc = scs_scopes_each_constant(&d.scopes, add, &d)) < 0 || (rc = check_uses(&d)) < 0)
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
			if ((rc = scs_pass_notes_add(&res->refused, d.c[i].name, why)) < 0)
				goto done;
			continue;
		}
		before = d.c[i].t->data_type;
		if ((rc = narrow(&d, (int)i)) < 0)
			goto done;
		retype_value_info(&d, (int)i);
		snprintf(change, sizeof(change), "%s -> %s", scs_dtype_name((int)before), scs_dtype_name(d.c[i].t->data_type));
		if ((rc = scs_pass_notes_add(&res->narrowed, d.c[i].name, change)) < 0)
			goto done;
	}
	rc = SCS_OK;
done:
	for (size_t i = 0; i < d.n; i++)
		free(d.c[i].refusal);
	for (size_t s = 0; d.cand_of && s < d.scopes.n; s++)
		scs_strmap_dispose(&d.cand_of[s]);
	free(d.cand_of);
	free(d.c);
	free(d.in);
	free(d.out);
	scs_scopes_dispose(&d.scopes);
	return rc;
}

void
scs_downcast_result_dispose(scs_downcast_result *r)
{
	scs_pass_notes_dispose(&r->narrowed);
	scs_pass_notes_dispose(&r->refused);
}
