/*
 * datafiles.h: the external data files of a model, or of several models
 * that share them: which payload goes to which file at which offset (the
 * layout), what the files are called, and writing them as data files of a
 * commit (commit.h).
 *
 * Without a maximum, every payload goes into one file "<stem>.<16 hex>.data"
 * (scs_sink_data_name()). With one (at least SCS_DATA_FILE_MIN bytes), the
 * payloads go, in the order given, into numbered files
 * "<stem>.<16 hex>-00001-of-00004.data" (scs_sink_data_part_name()), a new
 * file starting when the next payload would take the current one over the
 * maximum: no file is longer than the maximum, but one that holds a single
 * payload longer than it, alone (a payload is never cut). In every file a
 * payload starts at a multiple of SCS_DATA_ALIGN. A payload listed several
 * times is placed once; with SCS_DATA_SHARE_EQUAL, so are payloads of equal
 * bytes (the same key, then compared byte for byte), each tensor pointing at
 * the one place. The 16 hex digits are a digest of the whole layout
 * (each file's length; each payload's file, offset and content key), so the
 * same data always gets the same names, and a file of such a name always
 * holds the same bytes.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_DATAFILES_H
#define SCS_DATAFILES_H

#include <stddef.h>
#include <stdint.h>

#include "util/progress.h"
#include "io/commit.h"
#include "io/payload.h"

/* Every payload's offset in its data file is a multiple of this. */
#define SCS_DATA_ALIGN 4096
/* The smallest maximum file length a layout takes. */
#define SCS_DATA_FILE_MIN 4096

/* 1 when a numbered file of @max bytes at most (0: one file), holding @cur
 * bytes, takes no payload of @len bytes at offset @at (@cur aligned up):
 * a file holding something takes nothing that would go past the maximum.
 * The layout's rule, and the spill's (payload.c), which follows it. */
static inline int
scs_data_file_full(uint64_t cur, uint64_t at, uint64_t len, uint64_t max)
{
	return max && cur > 0 && (at > max || len > max - at);
}

/* scs_data_layout_make()'s flags: */
#define SCS_DATA_SHARE_EQUAL 1u   /* payloads of equal bytes placed once */
#define SCS_DATA_SIZE_ONLY 2u     /* the names' digest left as zeros, no payload read for it: a layout
                                     that sizes a model (the names' length is the same), never written */

/* Where one payload lies. */
typedef struct scs_data_place {
	uint32_t id;              /* the payload */
	uint32_t file;            /* its file: 0 .. n_files - 1 */
	uint64_t offset;          /* its first byte in that file */
} scs_data_place;

typedef struct scs_data_layout {
	scs_data_place *places;   /* each payload once, in the order first given (files and offsets ascending) */
	size_t n;
	uint64_t *file_len;       /* each file's length */
	uint32_t n_files;
	int numbered;             /* 1: a maximum was given: numbered names, even for one file */
	char token[SCS_DATA_TOKEN_LEN + 1];
	size_t *index;            /* per payload id of the set: its place + 1; 0 when not placed */
	size_t n_index;
} scs_data_layout;

/*
 * Lay out the payloads @ids (@n of them, ids of @set, repeats allowed) in
 * data files of at most @max_file_len bytes each (0: one file), in the
 * order given; @flags: SCS_DATA_SHARE_EQUAL, SCS_DATA_SIZE_ONLY or 0.
 * Computes the names' digest (which reads the digest of a payload not keyed
 * yet), unless SCS_DATA_SIZE_ONLY.
 * @return SCS_OK; SCS_EUSAGE when 0 < @max_file_len < SCS_DATA_FILE_MIN;
 * SCS_ENOMEM, or an error reading a payload. Dispose of *l in any case.
 */
int scs_data_layout_make(scs_data_layout *l, scs_payloads *set, const uint32_t *ids, size_t n, uint64_t max_file_len,
    unsigned flags);

/* Where payload @id lies (with SCS_DATA_SHARE_EQUAL, maybe the place of
 * another payload of the same bytes); NULL when the layout does not hold it. */
const scs_data_place *scs_data_layout_find(const scs_data_layout *l, uint32_t id);

/* The name of file @file of the layout for data files of @stem (a model's
 * file name): malloc'd, the caller frees it; NULL on ENOMEM. */
char *scs_data_layout_name(const scs_data_layout *l, const char *stem, uint32_t file);

/* Bytes of every file together. */
uint64_t scs_data_layout_len(const scs_data_layout *l);

/* 1 when the process may hold @n_files more descriptors open beside those
 * kept for a run's other files (the descriptor limit). */
int scs_data_files_room(uint64_t n_files);

/*
 * Write every file of the layout, named for @stem, as a data file
 * (SCS_SINK_DATA) of commit @c, each payload streamed from where it lies
 * in @set; file f takes spill file f of @set's spill of commit @c
 * (payload.h), keeping what of it matches the layout, from the start, and
 * writing the rest; @progress (NULL: none) hears the bytes written of them all.
 * Each file holds a descriptor until the commit ends: SCS_EUSAGE, before
 * anything is written, when there are more files than the descriptor limit
 * leaves room for. Nothing is visible before scs_commit_run(@c); on failure
 * the caller aborts the commit.
 */
int scs_data_layout_write(const scs_data_layout *l, scs_payloads *set, scs_commit *c, const char *stem,
    scs_progress_cb progress, void *progress_payload);

void scs_data_layout_dispose(scs_data_layout *l);

#endif
