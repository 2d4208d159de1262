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
		/* a file holding something already takes nothing that would go past the maximum */
		if (max_file_len && *cur > 0 && (at > max_file_len || len > max_file_len - at)) {
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

/*
 * Each data file stays open until the commit names it (a nameless
 * temporary is named through its descriptor): SCS_EUSAGE, before anything
 * is written, when the layout has more files than the process may hold open.
 */
static int
check_fd_room(const scs_data_layout *l, const char *stem)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY || l->n_files + OTHER_FDS <= rl.rlim_cur)
		return SCS_OK;
	return scs_err_set(SCS_EUSAGE, "%s: %u data files, more than the process may hold open at once (%llu "
	    "descriptors, %d kept for its other files): give a larger maximum data file size", stem, l->n_files,
	    (unsigned long long)rl.rlim_cur, OTHER_FDS);
}

int
scs_data_layout_write(const scs_data_layout *l, scs_payloads *set, scs_commit *c, const char *stem,
    scs_progress_cb progress, void *progress_payload)
{
	uint64_t total = scs_data_layout_len(l), done = 0, reported = 0;
	scs_sink *sink = NULL;
	char *name;
	size_t i = 0;
	int rc;

	if ((rc = check_fd_room(l, stem)) < 0)
		return rc;

	for (uint32_t f = 0; f < l->n_files; f++) {
		if ((name = scs_data_layout_name(l, stem, f)) == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot allocate a path");
		rc = scs_commit_open(&sink, c, name, SCS_SINK_DATA);
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
