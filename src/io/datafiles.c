/*
 * datafiles.c: the external data files' layout, names and writing (see
 * datafiles.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "io/datafiles.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "util/buf.h"
#include "util/err.h"
#include "util/num.h"

/* Progress is reported every this many bytes written. */
#define PROGRESS_STEP ((uint64_t)64 << 20)

static void
hash_word(scs_hash *h, uint64_t w)
{
	uint8_t le[8];

	for (size_t b = 0; b < 8; b++)
		le[b] = (uint8_t)(w >> (8 * b));
	scs_hash_update(h, le, sizeof(le));
}

/*
 * The digest in the names. One file without a maximum: its length, then
 * each payload's offset and key, as the single data file has always been
 * named. Numbered files: a tag, their count and lengths, then each
 * payload's file, offset and key.
 */
static int
layout_token(scs_data_layout *l, scs_payloads *set)
{
	scs_hash h;
	scs_key k, key;
	int rc;

	scs_hash_init(&h);
	if (l->numbered) {
		scs_hash_update(&h, "numbered", 8);
		hash_word(&h, l->n_files);
		for (uint32_t f = 0; f < l->n_files; f++)
			hash_word(&h, l->file_len[f]);
	} else {
		hash_word(&h, l->n_files ? l->file_len[0] : 0);
	}
	for (size_t i = 0; i < l->n; i++) {
		if ((rc = scs_payloads_key(set, l->places[i].id, &key)) < 0)
			return rc;
		if (l->numbered)
			hash_word(&h, l->places[i].file);
		hash_word(&h, l->places[i].offset);
		hash_word(&h, key.h[0]);
		hash_word(&h, key.h[1]);
		hash_word(&h, key.len);
	}
	scs_hash_final(&k, &h);
	snprintf(l->token, sizeof(l->token), "%016llx", (unsigned long long)(k.h[0] ^ k.h[1]));
	return SCS_OK;
}

/* Payloads placed so far, by content key: open addressing, place + 1 (0: empty). */
typedef struct by_key {
	size_t *slots;
	size_t mask;
} by_key;

static size_t
slot_of(const scs_key *k, size_t mask)
{
	return (size_t)(k->h[0] ^ (k->h[1] * 0x9e3779b97f4a7c15u) ^ k->len) & mask;
}

/*
 * A place already holding the bytes of payload @id (key @k), compared byte
 * for byte: its index + 1, else 0 (and then @id's slot is where *@free_slot
 * says). < 0 on error.
 */
static long long
find_equal(scs_data_layout *l, scs_payloads *set, const by_key *bk, uint32_t id, const scs_key *k, size_t *free_slot)
{
	scs_key other;
	size_t s = slot_of(k, bk->mask);
	int rc;

	for (; bk->slots[s]; s = (s + 1) & bk->mask) {
		uint32_t o = l->places[bk->slots[s] - 1].id;

		if ((rc = scs_payloads_key(set, o, &other)) < 0)
			return rc;
		if (other.h[0] != k->h[0] || other.h[1] != k->h[1] || other.len != k->len)
			continue;
		if ((rc = scs_payloads_equal(set, o, id)) < 0)
			return rc;
		if (rc == 1)
			return (long long)bk->slots[s];
	}
	*free_slot = s;
	return 0;
}

/* Start file number l->n_files (its length 0). */
static int
new_file(scs_data_layout *l, size_t *cap)
{
	if (l->n_files == UINT32_MAX)
		return scs_err_set(SCS_EUSAGE, "too many data files; give a larger maximum file size");
	int rc = scs_grow(&l->file_len, cap, l->n_files, sizeof(*l->file_len), 16, "the data files' layout");

	if (rc < 0)
		return rc;
	l->file_len[l->n_files++] = 0;
	return SCS_OK;
}

int
scs_data_layout_make(scs_data_layout *l, scs_payloads *set, const uint32_t *ids, size_t n, uint64_t max_file_len,
    unsigned flags)
{
	size_t cap_places = 0, cap_files = 0, slot = 0;
	by_key bk = { NULL, 0 };
	scs_key key;
	long long same;
	int rc = SCS_OK;

	memset(l, 0, sizeof(*l));
	if (max_file_len && max_file_len < SCS_DATA_FILE_MIN)
		return scs_err_set(SCS_EUSAGE, "a data file's maximum size of %llu bytes is below the smallest, %d",
		    (unsigned long long)max_file_len, SCS_DATA_FILE_MIN);
	l->numbered = max_file_len != 0;
	l->n_index = set->n;
	if ((l->index = calloc(set->n ? set->n : 1, sizeof(*l->index))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate the data files' layout");
	if (flags & SCS_DATA_SHARE_EQUAL) {
		for (bk.mask = 15; bk.mask < 2 * n; bk.mask = 2 * bk.mask + 1)
			;
		if ((bk.slots = calloc(bk.mask + 1, sizeof(*bk.slots))) == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot allocate the data files' layout");
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t id = ids[i];
		uint64_t len = set->items[id].key.len, at;
		uint64_t *cur;

		if (l->index[id])
			continue;    /* placed once, read by every tensor that holds it */
		if (bk.slots) {
			if ((rc = scs_payloads_key(set, id, &key)) < 0 ||
			    (same = find_equal(l, set, &bk, id, &key, &slot)) < 0) {
				rc = rc < 0 ? rc : (int)same;
				goto done;
			}
			if (same) {
				l->index[id] = (size_t)same;    /* the same bytes: one place */
				continue;
			}
		}
		if (l->n_files == 0 && (rc = new_file(l, &cap_files)) < 0)
			goto done;
		cur = &l->file_len[l->n_files - 1];
		at = scs_align_up(*cur, SCS_DATA_ALIGN);
		if (scs_data_file_full(*cur, at, len, max_file_len)) {
			if ((rc = new_file(l, &cap_files)) < 0)
				goto done;
			cur = &l->file_len[l->n_files - 1];
			at = 0;
		}
		if ((rc = scs_grow(&l->places, &cap_places, l->n, sizeof(*l->places), 64, "the data files' layout")) < 0)
			goto done;
		l->places[l->n].id = id;
		l->places[l->n].file = l->n_files - 1;
		l->places[l->n].offset = at;
		l->index[id] = ++l->n;
		if (bk.slots)
			bk.slots[slot] = l->n;
		*cur = at + len;
	}
	if (l->n && (flags & SCS_DATA_SIZE_ONLY))
		memset(l->token, '0', SCS_DATA_TOKEN_LEN);
	else if (l->n)
		rc = layout_token(l, set);
done:
	free(bk.slots);
	return rc;
}

const scs_data_place *
scs_data_layout_find(const scs_data_layout *l, uint32_t id)
{
	if (id >= l->n_index || l->index[id] == 0)
		return NULL;
	return &l->places[l->index[id] - 1];
}

char *
scs_data_layout_name(const scs_data_layout *l, const char *stem, uint32_t file)
{
	if (!l->numbered)
		return scs_sink_data_name(stem, l->token);
	return scs_sink_data_part_name(stem, l->token, file, l->n_files);
}

uint64_t
scs_data_layout_len(const scs_data_layout *l)
{
	uint64_t sum = 0;

	for (uint32_t f = 0; f < l->n_files; f++)
		sum += l->file_len[f];
	return sum;
}

/* Descriptors kept for what else a run holds open: its inputs (SCS_PAYLOADS_MAX_OPEN), the store, the model. */
#define OTHER_FDS (SCS_PAYLOADS_MAX_OPEN + 64)

int
scs_data_files_room(uint64_t n_files)
{
	struct rlimit rl;

	return getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY || n_files + OTHER_FDS <= rl.rlim_cur;
}

/*
 * Each data file stays open until the commit names it (a nameless
 * temporary is named through its descriptor): SCS_EUSAGE, before anything
 * is written, when the layout has more files than the process may hold open.
 */
static int
check_fd_room(const scs_data_layout *l, const char *stem)
{
	struct rlimit rl;

	if (scs_data_files_room(l->n_files) || getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return SCS_OK;
	return scs_err_set(SCS_EUSAGE, "%s: %u data files, more than the process may hold open at once (%llu "
	    "descriptors, %d kept for its other files): give a larger maximum data file size", stem, l->n_files,
	    (unsigned long long)rl.rlim_cur, OTHER_FDS);
}

/* A payload's extent in a data file: its length up to the next multiple of SCS_DATA_ALIGN. */
static uint64_t
extent(uint64_t len)
{
	return (len + SCS_DATA_ALIGN - 1) / SCS_DATA_ALIGN * SCS_DATA_ALIGN;
}

/* What the spill holds, in file order: one per payload whose bytes it kept (not a twin's). */
typedef struct held {
	uint64_t off, len;
	int used;                 /* a place of the layout takes these bytes */
} held;

static int
held_by_off(const void *key, const void *item)
{
	uint64_t off = *(const uint64_t *)key, at = ((const held *)item)->off;

	return off < at ? -1 : off > at;
}

/* Payload bytes [0, len) of payload @id written at @off of @sink (inside it). */
static int
write_payload_at(scs_payloads *set, uint32_t id, scs_sink *sink, uint64_t off)
{
	scs_pieces pc;
	int rc;

	scs_payloads_pieces(&pc, set, id, set->piece[1]);
	while ((rc = scs_payloads_next_piece(&pc)) == SCS_OK)
		if ((rc = scs_sink_write_at(sink, off + pc.off, pc.buf, pc.len)) < 0)
			return rc;
	return rc == SCS_DONE ? SCS_OK : rc;
}

/*
 * Make spill file @f, @sink, hold the layout's file @f, as far as it can,
 * starting at place *@done (the file's first): places whose bytes it holds
 * stay where they are; payloads no place takes are cut out, the later
 * bytes moving down; a payload it does not hold (or holds in another file)
 * gets a gap of its extent at its place, written from where it lies; the
 * filesystem moves the blocks (scs_sink_cut(), scs_sink_open_gap()), no
 * byte of the spill is read or copied. *@done: the first place not done;
 * the caller takes the file back to where that place starts and writes the
 * rest of the file after it (all of it where the filesystem moves no
 * blocks, or from the first place whose bytes the spill holds further on:
 * another order, or another file's length moved the place).
 */
static int
spill_edit(const scs_data_layout *l, scs_payloads *set, uint32_t f, scs_sink *sink, size_t *done)
{
	held *h = NULL;
	size_t n_h = 0, i = 0, k = *done;
	uint64_t at, shift = 0;       /* held bytes at h[i].off now lie at h[i].off + shift - cut */
	uint64_t cut = 0;
	uint32_t in;
	int rc = SCS_OK;

	if ((h = malloc((set->n_recs ? set->n_recs : 1) * sizeof(*h))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate the spill's list");
	for (size_t r = 0; r < set->n_recs; r++)
		if (set->recs[r].twin == UINT32_MAX && set->recs[r].file == f &&
		    set->recs[r].off + set->items[set->recs[r].id].key.len <= scs_sink_pos(sink)) {
			h[n_h].off = set->recs[r].off;
			h[n_h].len = set->items[set->recs[r].id].key.len;
			h[n_h++].used = 0;
		}
	for (size_t p = k; p < l->n && l->places[p].file == f; p++) {
		held *x;

		if (scs_payloads_spilled_at(set, l->places[p].id, &in, &at) && in == f &&
		    (x = bsearch(&at, h, n_h, sizeof(*h), held_by_off)) != NULL)
			x->used = 1;
	}
	for (; k < l->n && l->places[k].file == f; k++) {
		const scs_data_place *pl = &l->places[k];
		uint64_t len = set->items[pl->id].key.len;
		int in_spill = scs_payloads_spilled_at(set, pl->id, &in, &at) && in == f;

		/* bytes no place takes go */
		while (i < n_h && !h[i].used) {
			if ((rc = scs_sink_cut(sink, h[i].off + shift - cut, extent(h[i].len))) != SCS_OK)
				goto stop;
			cut += extent(h[i].len);
			i++;
		}
		if (in_spill && i < n_h && h[i].off == at) {
			if (at + shift - cut != pl->offset)
				goto stop;    /* not where the layout has it: another file's length moved it */
			i++;
			continue;
		}
		if (in_spill && i < n_h && at > h[i].off)
			goto stop;        /* held further on: another order */
		/* a payload the spill does not hold here (or holds once, for another place): a gap at its place */
		if (pl->offset >= scs_sink_pos(sink) ||
		    (rc = scs_sink_open_gap(sink, pl->offset, extent(len))) != SCS_OK ||
		    (rc = write_payload_at(set, pl->id, sink, pl->offset)) < 0)
			goto stop;
		shift += extent(len);
	}
stop:
	*done = k;
	free(h);
	return rc == SCS_EUNSUPPORTED ? SCS_OK : rc;
}

int
scs_data_layout_write(const scs_data_layout *l, scs_payloads *set, scs_commit *c, const char *stem,
    scs_progress_cb progress, void *progress_payload)
{
	uint64_t total = scs_data_layout_len(l), done = 0, reported = 0, cut;
	scs_sink *sink = NULL;
	char *name;
	size_t i = 0;
	int rc;

	if ((rc = check_fd_room(l, stem)) < 0)
		return rc;

	for (uint32_t f = 0; f < l->n_files; f++) {
		if ((name = scs_data_layout_name(l, stem, f)) == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot allocate a path");
		if (f < set->n_spill && set->spill[f] && set->spill_owner == c) {
			/* spill file f holds the file's payloads, in the same places, up to place i */
			sink = set->spill[f];
			set->spill[f] = NULL;
			if ((rc = spill_edit(l, set, f, sink, &i)) == SCS_OK) {
				cut = i < l->n && l->places[i].file == f ? l->places[i].offset : l->file_len[f];
				if (cut > scs_sink_pos(sink))
					cut = scs_sink_pos(sink);
				if ((rc = scs_sink_truncate(sink, cut)) == SCS_OK)
					rc = scs_commit_rename(c, sink, name);
			}
		} else {
			rc = scs_commit_open(&sink, c, name, SCS_SINK_DATA);
		}
		free(name);
		if (rc < 0)
			return rc;
		/* the places of a file follow each other, their offsets ascending */
		for (; i < l->n && l->places[i].file == f; i++) {
			if ((rc = scs_sink_pad_to(sink, l->places[i].offset)) < 0 ||
			    (rc = scs_payloads_copy(set, l->places[i].id, sink)) < 0)
				return rc;
			if (progress && done + scs_sink_pos(sink) - reported >= PROGRESS_STEP) {
				reported = done + scs_sink_pos(sink);
				progress(progress_payload, reported, total);
			}
		}
		if (scs_sink_pos(sink) != l->file_len[f])
			return scs_err_set(SCS_EIO, "%s: wrote %llu bytes where %llu were laid out", scs_sink_target(sink),
			    (unsigned long long)scs_sink_pos(sink), (unsigned long long)l->file_len[f]);
		done += l->file_len[f];
		if ((rc = scs_sink_park(sink)) < 0)
			return rc;
	}
	return SCS_OK;
}

void
scs_data_layout_dispose(scs_data_layout *l)
{
	free(l->places);
	free(l->file_len);
	free(l->index);
	memset(l, 0, sizeof(*l));
}
