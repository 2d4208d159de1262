/*
 * arena.h: bump allocation in large blocks, freed all at once; for the
 * many small pieces of an unpacked skeleton (a message, its strings and
 * arrays), which malloc would give a 16-byte header and a rounded size
 * each. Knows nothing of protobuf-c or ONNX (model.c wires it in).
 *
 * Memory of an arena is never handed to free() or realloc(): code that
 * drops or grows a piece that may lie in one calls scs_arena_release() or
 * scs_arena_grow(), which do the right thing for arena and malloc memory
 * alike. Under AddressSanitizer each piece carries its size, a released
 * piece is poisoned and so is every byte not handed out, so a use after
 * release or a stray access is still reported.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_ARENA_H
#define SCS_ARENA_H

#include <stddef.h>

typedef struct scs_arena scs_arena;

/* Pieces at least this long come from malloc() (scs_arena_release() frees
 * them at once): protobuf-c's scratch space while unpacking, and large
 * arrays, which a model may grow or drop, are not kept until the end. */
#define SCS_ARENA_PIECE_MAX ((size_t)1024)

/* An empty arena; SCS_ENOMEM. Free it with scs_arena_free(). */
int scs_arena_new(scs_arena **out);

/* Give back every block of @a at once; NULL is a no-op. Nothing of the
 * arena may be used afterwards. */
void scs_arena_free(scs_arena *a);

/* @len bytes aligned for any object of that size (at most 8); NULL on
 * ENOMEM. Lives until scs_arena_free(@a), or until scs_arena_release() for
 * a piece of SCS_ARENA_PIECE_MAX bytes or more (those are malloc's). */
void *scs_arena_alloc(scs_arena *a, size_t len);

/* 1 when @p lies in a block of any arena of this thread not yet freed (an
 * arena is made, used and freed in one thread: the call's). */
int scs_arena_holds(const void *p);

/* free(@p) when it is malloc's; nothing when it lies in an arena (whose
 * memory goes with the arena). NULL is a no-op. */
void scs_arena_release(void *p);

/* scs_arena_release() of a piece known to be @len bytes long: in an arena,
 * a piece of 8 to 64 bytes (a multiple of 8) is handed out again by the next
 * scs_arena_alloc() of that length from the same arena (not under
 * AddressSanitizer, which poisons it instead). */
void scs_arena_release_len(void *p, size_t len);

/* realloc(@p, @len) for a piece that may lie in an arena: arena memory is
 * copied (@old_len bytes of it) into a new malloc() piece. NULL on ENOMEM
 * (then @p is untouched). */
void *scs_arena_grow(void *p, size_t old_len, size_t len);

#endif
