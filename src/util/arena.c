/*
 * arena.c: bump allocation in large blocks (see arena.h). Blocks are
 * mapped, so giving one back returns its pages at once and pages never
 * handed out are never resident. Every live block is in one list of the
 * thread, so that scs_arena_holds() can tell arena memory from malloc's
 * without knowing the arena. A call of the library runs in one thread and
 * makes, uses and frees its arenas there, so the list is the call's own:
 * calls in other threads at once never see it, and it needs no lock.
 *
 * SPDX-License-Identifier: MIT
 */
#include "util/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util/err.h"

#if defined(__SANITIZE_ADDRESS__)
#define ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_ASAN 1
#endif
#endif

#ifdef ARENA_ASAN
#include <sanitizer/asan_interface.h>
/* each piece starts after a header holding its length, for poisoning */
#define HEADER_LEN ((size_t)16)
#define POISON(p, len) ASAN_POISON_MEMORY_REGION((p), (len))
#define UNPOISON(p, len) ASAN_UNPOISON_MEMORY_REGION((p), (len))
#else
#define HEADER_LEN ((size_t)0)
#define POISON(p, len) ((void)(p), (void)(len))
#define UNPOISON(p, len) ((void)(p), (void)(len))
#endif

#define BLOCK_MIN ((size_t)1 << 20)
#define BLOCK_MAX ((size_t)64 << 20)

/* Released pieces of 8, 16, ... SPARE_MAX bytes are handed out again. */
#define SPARE_MAX 64

typedef struct block {
	uint8_t *base;
	size_t len, used;
} block;

struct scs_arena {
	block *blocks;      /* the last one is being filled */
	size_t n, cap;
	void *spare[SPARE_MAX / 8 + 1];   /* by length / 8: released pieces, each holding the next */
};

/* every live block of the thread's arenas, by address range */
static _Thread_local struct {
	uintptr_t *lo, *hi;
	scs_arena **owner;
	size_t n, cap, last;
} live;

static int
live_add(scs_arena *a, const block *b)
{
	uintptr_t *lo, *hi;
	scs_arena **owner;
	size_t cap;

	if (live.n == live.cap) {
		cap = live.cap ? live.cap * 2 : 16;
		if ((lo = realloc(live.lo, cap * sizeof(*lo))) == NULL)
			return SCS_ENOMEM;
		live.lo = lo;
		if ((hi = realloc(live.hi, cap * sizeof(*hi))) == NULL)
			return SCS_ENOMEM;
		live.hi = hi;
		if ((owner = realloc(live.owner, cap * sizeof(*owner))) == NULL)
			return SCS_ENOMEM;
		live.owner = owner;
		live.cap = cap;
	}
	live.lo[live.n] = (uintptr_t)b->base;
	live.hi[live.n] = (uintptr_t)b->base + b->len;
	live.owner[live.n] = a;
	live.n++;
	return SCS_OK;
}

static void
live_remove(const block *b)
{
	for (size_t i = 0; i < live.n; i++) {
		if (live.lo[i] == (uintptr_t)b->base) {
			live.lo[i] = live.lo[live.n - 1];
			live.hi[i] = live.hi[live.n - 1];
			live.owner[i] = live.owner[live.n - 1];
			live.n--;
			break;
		}
	}
	live.last = 0;
	if (live.n == 0) {
		free(live.lo);
		free(live.hi);
		free(live.owner);
		memset(&live, 0, sizeof(live));
	}
}

/* The arena whose block holds @p, or NULL. */
static scs_arena *
owner_of(const void *p)
{
	uintptr_t a = (uintptr_t)p;

	if (live.last < live.n && a >= live.lo[live.last] && a < live.hi[live.last])
		return live.owner[live.last];
	for (size_t i = 0; i < live.n; i++) {
		if (a >= live.lo[i] && a < live.hi[i]) {
			live.last = i;
			return live.owner[i];
		}
	}
	return NULL;
}

int
scs_arena_holds(const void *p)
{
	return owner_of(p) != NULL;
}

int
scs_arena_new(scs_arena **out)
{
	if ((*out = calloc(1, sizeof(**out))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate an arena");
	return SCS_OK;
}

void
scs_arena_free(scs_arena *a)
{
	if (a == NULL)
		return;
	for (size_t i = 0; i < a->n; i++) {
		live_remove(&a->blocks[i]);
		UNPOISON(a->blocks[i].base, a->blocks[i].len);
		munmap(a->blocks[i].base, a->blocks[i].len);
	}
	free(a->blocks);
	free(a);
}

/* A new block for at least @len bytes, each twice as long as the last up
 * to BLOCK_MAX. */
static int
add_block(scs_arena *a, size_t len)
{
	size_t want = a->n ? a->blocks[a->n - 1].len * 2 : BLOCK_MIN, cap;
	block *grown, b;

	if (want > BLOCK_MAX)
		want = BLOCK_MAX;
	if (want < len)
		want = len;
	if (a->n == a->cap) {
		cap = a->cap ? a->cap * 2 : 8;
		if ((grown = realloc(a->blocks, cap * sizeof(*grown))) == NULL)
			return SCS_ENOMEM;
		a->blocks = grown;
		a->cap = cap;
	}
	b.base = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b.base == MAP_FAILED)
		return SCS_ENOMEM;
	b.len = want;
	b.used = 0;
	if (live_add(a, &b) < 0) {
		munmap(b.base, b.len);
		return SCS_ENOMEM;
	}
	POISON(b.base, b.len);
	a->blocks[a->n++] = b;
	return SCS_OK;
}

void *
scs_arena_alloc(scs_arena *a, size_t len)
{
	/* the lowest set bit of the length: an object's size is a multiple of its alignment */
	size_t align = len & (~len + 1), at;
	block *b;

	if (len >= SCS_ARENA_PIECE_MAX)
		return malloc(len);
	if (!HEADER_LEN && len && len <= SPARE_MAX && len % 8 == 0 && a->spare[len / 8]) {
		void *p = a->spare[len / 8];

		memcpy(&a->spare[len / 8], p, sizeof(void *));
		return p;
	}
	if (align == 0 || align > 8 || HEADER_LEN)
		align = HEADER_LEN ? HEADER_LEN : 8;
	b = a->n ? &a->blocks[a->n - 1] : NULL;
	at = b ? (b->used + align - 1) & ~(align - 1) : 0;
	if (b == NULL || at > b->len || HEADER_LEN + len > b->len - at) {
		if (add_block(a, HEADER_LEN + len) < 0)
			return NULL;
		b = &a->blocks[a->n - 1];
		at = 0;
	}
	b->used = at + HEADER_LEN + len;
#ifdef ARENA_ASAN
	UNPOISON(b->base + at, sizeof(len));
	memcpy(b->base + at, &len, sizeof(len));
	POISON(b->base + at, HEADER_LEN);
#endif
	UNPOISON(b->base + at + HEADER_LEN, len);
	return b->base + at + HEADER_LEN;
}

void
scs_arena_release(void *p)
{
	if (p == NULL)
		return;
	if (!scs_arena_holds(p)) {
		free(p);
		return;
	}
#ifdef ARENA_ASAN
	{
		uint8_t *h = (uint8_t *)p - HEADER_LEN;
		size_t len;

		UNPOISON(h, sizeof(len));
		memcpy(&len, h, sizeof(len));
		POISON(h, HEADER_LEN + len);
	}
#endif
}

void
scs_arena_release_len(void *p, size_t len)
{
	scs_arena *a;

	if (HEADER_LEN || p == NULL || len == 0 || len > SPARE_MAX || len % 8 != 0 || (a = owner_of(p)) == NULL) {
		scs_arena_release(p);
		return;
	}
	memcpy(p, &a->spare[len / 8], sizeof(void *));
	a->spare[len / 8] = p;
}

void *
scs_arena_grow(void *p, size_t old_len, size_t len)
{
	void *q;

	if (p == NULL || !scs_arena_holds(p))
		return realloc(p, len ? len : 1);
	if ((q = malloc(len ? len : 1)) == NULL)
		return NULL;
	memcpy(q, p, old_len < len ? old_len : len);
	scs_arena_release(p);
	return q;
}
