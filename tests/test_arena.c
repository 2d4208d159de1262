/*
 * test_arena.c: bump allocation for loaded skeletons; a loaded model's
 * tree in its arena, edited and freed like any other.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "model/array.h"
#include "util/err.h"
#include "model/model.h"
#include "model/rename.h"
#include "io/store.h"
#include "support.h"

Test(arena, pieces_are_aligned_to_their_size_and_kept_apart)
{
	static const size_t lens[] = { 1, 13, 4, 12, 8, 232, 2, 24, 0, 7, 16 };
	uint8_t *p[sizeof(lens) / sizeof(lens[0])];
	scs_arena *a;

	cr_assert_eq(scs_arena_new(&a), SCS_OK, "%s", scs_err_msg());
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		size_t align = lens[i] & (~lens[i] + 1);

		cr_assert_not_null(p[i] = scs_arena_alloc(a, lens[i]));
		if (align == 0 || align > 8)
			align = 8;
		cr_assert_eq((uintptr_t)p[i] % align, 0, "a %zu-byte piece at %p", lens[i], (void *)p[i]);
		cr_assert(scs_arena_holds(p[i]), "piece %zu", i);
		memset(p[i], (int)i + 1, lens[i]);
	}
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		for (size_t k = 0; k < lens[i]; k++)
			cr_assert_eq(p[i][k], i + 1, "piece %zu byte %zu was overwritten: %d", i, k, p[i][k]);
	scs_arena_free(a);
	cr_assert_not(scs_arena_holds(p[0]), "a freed arena still claims its memory");
}

Test(arena, large_pieces_come_from_malloc_and_grow_copies_out_of_the_arena)
{
	scs_arena *a;
	char *big, *small, *grown;
	int on_stack;

	cr_assert_eq(scs_arena_new(&a), SCS_OK, "%s", scs_err_msg());
	cr_assert_not_null(big = scs_arena_alloc(a, SCS_ARENA_PIECE_MAX));
	cr_assert_not(scs_arena_holds(big), "a large piece lies in the arena");
	cr_assert_not(scs_arena_holds(&on_stack));
	cr_assert_not_null(small = scs_arena_alloc(a, 6));
	memcpy(small, "abcde", 6);
	cr_assert_not_null(grown = scs_arena_grow(small, 6, 4096));
	cr_assert_not(scs_arena_holds(grown), "a grown piece still lies in the arena");
	cr_assert_str_eq(grown, "abcde");
	/* both are malloc's now: release frees them */
	scs_arena_release(grown);
	scs_arena_release(big);
	scs_arena_release(NULL);
	scs_arena_free(a);
	scs_arena_free(NULL);
}

Test(arena, a_loaded_tree_lies_in_the_arena_and_takes_edits)
{
	char *path = fixture("tiny.onnx"), *dir = tmpdir_new();
	Onnx__GraphProto *g;
	Onnx__NodeProto *extra;
	scs_store *st;
	scs_model *m;

	cr_assert_eq(scs_store_open(&st, NULL, dir), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_model_load(&m, path, st, NULL), SCS_OK, "%s", scs_err_msg());
	g = m->proto->graph;
	cr_assert_eq(g->n_node, 1, "nodes: %zu", g->n_node);
	cr_assert_eq(g->n_initializer, 1, "initializers: %zu", g->n_initializer);
	cr_assert(scs_arena_holds(g->node[0]), "the node was not unpacked into the arena");
	cr_assert(scs_arena_holds(g->initializer[0]->name));
	cr_assert_str_eq(g->initializer[0]->name, "W");
	/* a rename frees the old name, a new node grows the list: neither may free arena memory */
	cr_assert_eq(scs_name_swap(&g->initializer[0]->name, "W_renamed"), SCS_OK, "%s", scs_err_msg());
	cr_assert_str_eq(g->initializer[0]->name, "W_renamed");
	cr_assert_not_null(extra = (Onnx__NodeProto *)scs_model_copy(m, &g->node[0]->base), "%s", scs_err_msg());
	cr_assert_eq(scs_array_insert(&g->node, &g->n_node, extra, 1), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(g->n_node, 2, "nodes: %zu", g->n_node);
	cr_assert_str_eq(g->node[1]->name, "add0");
	cr_assert_str_eq(g->node[0]->op_type, "Add");
	scs_model_free(m);
	scs_store_close(st);
	tmpdir_remove(dir);
	free(path);
}

Test(arena, a_piece_released_with_its_length_is_handed_out_again)
{
	scs_arena *a;
	void *first, *next, *other;

	cr_assert_eq(scs_arena_new(&a), SCS_OK, "%s", scs_err_msg());
	cr_assert_not_null(first = scs_arena_alloc(a, 24));
	cr_assert_not_null(other = scs_arena_alloc(a, 16));
	scs_arena_release_len(first, 24);
	cr_assert_not_null(next = scs_arena_alloc(a, 16));
	cr_assert_neq(next, first, "a 16-byte piece took a 24-byte one's place");
	cr_assert_neq(next, other);
	cr_assert_not_null(next = scs_arena_alloc(a, 24));
#if defined(__SANITIZE_ADDRESS__)
	cr_assert_neq(next, first, "under AddressSanitizer a released piece stays poisoned");
#else
	cr_assert_eq(next, first, "the released 24-byte piece was not handed out again");
#endif
	memset(next, 0xab, 24);
	scs_arena_free(a);
}
