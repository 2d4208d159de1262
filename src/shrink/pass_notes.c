/*
 * pass_notes.c: the "name: detail" lists in which the passes return what
 * they did to a constant and why they left one alone (see pass.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/err.h"
#include "shrink/pass.h"

int
scs_pass_notes_add(scs_pass_notes *l, const char *name, const char *detail)
{
	int rc;

	if ((rc = scs_grow(&l->items, &l->cap, l->n, sizeof(*l->items), 16, "the report")) < 0)
		return rc;
	l->items[l->n].name = strdup(name);
	l->items[l->n].detail = strdup(detail ? detail : "");
	if (!l->items[l->n].name || !l->items[l->n].detail) {
		free(l->items[l->n].name);
		free(l->items[l->n].detail);
		return scs_err_set(SCS_ENOMEM, "cannot grow the report");
	}
	l->n++;
	return SCS_OK;
}

void
scs_pass_notes_truncate(scs_pass_notes *l, size_t n)
{
	for (size_t i = n; i < l->n; i++) {
		free(l->items[i].name);
		free(l->items[i].detail);
	}
	if (n < l->n)
		l->n = n;
}

void
scs_pass_notes_dispose(scs_pass_notes *l)
{
	scs_pass_notes_truncate(l, 0);
	free(l->items);
	memset(l, 0, sizeof(*l));
}
