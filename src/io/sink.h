/*
 * sink.h: the bytes of an output file on their way to it. A sink buffers
 * what is written, lets the kernel copy a payload from an input file where
 * it can, and keeps only the last steps of a large file in the page cache
 * (sink.c, "behind the writes"). A sink is opened,
 * named and freed by its commit (commit.h), which makes its file appear
 * whole or not at all.
 *
 * Errors are sticky: after the first failed write the rest are no-ops and
 * the commit reports the first error.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_SINK_H
#define SCS_SINK_H

#include <stddef.h>
#include <stdint.h>

typedef struct scs_sink scs_sink;

/* Append @len bytes (buffered). */
int scs_sink_write(scs_sink *s, const void *data, size_t len);

/* Append @len bytes of file @fd starting at @off (kernel copy where it can). */
int scs_sink_copy_fd(scs_sink *s, int fd, uint64_t off, uint64_t len);

/* Bytes the kernel copied into outputs (copy_file_range) so far, by every
 * sink of the process: /proc/self/io counts them as read and written. */
uint64_t scs_sink_kernel_copied(void);
/* Bytes scs_sink_copy_fd() read and wrote through the sink's buffer (where
 * the kernel cannot copy) so far, by every sink of
 * the process: like copy_file_range's, a copy, not a read for the run's
 * own work. */
uint64_t scs_sink_copied_through(void);

/* Append zero bytes until the position is @pos (>= the position now). */
int scs_sink_pad_to(scs_sink *s, uint64_t pos);

/* Take back the bytes from @pos on (@pos <= the position now): the file
 * ends at @pos and the next byte written goes there. */
int scs_sink_truncate(scs_sink *s, uint64_t pos);
/*
 * Edits inside a file already written, for a data file made from a spill
 * (payload.h). Each first writes out what the sink buffers. @off and @len are multiples of 4096 (and of
 * the filesystem's block).
 *
 * scs_sink_cut(): bytes [off, off + len), which end before the file does,
 * go and the later ones move down by @len; scs_sink_open_gap(): @len zero
 * bytes come in at @off (before the end), the later ones moving up. The
 * filesystem moves the blocks (fallocate's collapse and insert ranges), no
 * byte is copied. SCS_OK; SCS_EUNSUPPORTED, with nothing changed and no
 * message, where the filesystem cannot (then write the rest anew).
 */
int scs_sink_cut(scs_sink *s, uint64_t off, uint64_t len);
int scs_sink_open_gap(scs_sink *s, uint64_t off, uint64_t len);
/* Write @len bytes at @off, inside what is written (@off + @len <= the position). */
int scs_sink_write_at(scs_sink *s, uint64_t off, const void *data, size_t len);
/* Flush and release the write buffer of a finished sink that waits for
 * its commit (writing to it afterwards is an error). */
int scs_sink_park(scs_sink *s);
/* Flush and release the write buffer of a sink that may be written again
 * later (it allocates the buffer again then): many sinks open at once
 * hold one buffer each only while they are written. */
int scs_sink_rest(scs_sink *s);

/* Bytes written so far. */
uint64_t scs_sink_pos(const scs_sink *s);

/* The first error so far (SCS_OK when none). */
int scs_sink_status(const scs_sink *s);

/* The path the file will have, for messages. Owned by the sink: valid until
 * the commit ends (scs_commit_run() or scs_commit_abort()); do not free it. */
const char *scs_sink_target(const scs_sink *s);

#endif
