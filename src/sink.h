/*
 * sink.h: output files, written atomically. Bytes go to a temporary name
 * beside the target; scs_sink_commit() makes one or several targets appear
 * together, and on any failure every target is left exactly as it was.
 * Errors are sticky: after the first failed write the rest are no-ops and
 * finish/commit report the first error.
 */
#ifndef SCS_SINK_H
#define SCS_SINK_H

#include <stddef.h>
#include <stdint.h>

typedef struct scs_sink scs_sink;

/* Create a temporary file beside @target. SCS_EUSAGE when @target exists and
 * is not a regular file (a device, FIFO, socket or folder is never replaced). */
int scs_sink_open(scs_sink **out, const char *target);

/* Append @len bytes (buffered). */
int scs_sink_write(scs_sink *s, const void *data, size_t len);

/* Append @len bytes of file @fd starting at @off (kernel copy where it can). */
int scs_sink_copy_fd(scs_sink *s, int fd, uint64_t off, uint64_t len);

/* Append zero bytes until the position is @pos (>= the position now). */
int scs_sink_pad_to(scs_sink *s, uint64_t pos);

/* Flush and release the write buffer of a finished sink that waits for
 * its commit (writing to it afterwards is an error). */
int scs_sink_park(scs_sink *s);

/* Bytes written so far. */
uint64_t scs_sink_pos(const scs_sink *s);

/* The first error so far (SCS_OK when none). */
int scs_sink_status(const scs_sink *s);

const char *scs_sink_target(const scs_sink *s);

/*
 * Flush, fsync and rename every sink's temporary file onto its target, as
 * one step: a target that existed is kept aside until all renames worked,
 * and put back if one failed. Frees the sinks on every path.
 */
int scs_sink_commit(scs_sink **sinks, size_t n);

/* Remove the temporary file and free. NULL is a no-op. */
void scs_sink_abort(scs_sink *s);

/*
 * Temporary files and folders of this process (sinks, temporary stores) are
 * registered while they exist, so that a signal handler can remove them.
 * scs_temps_remove_all() is async-signal-safe: it only unlinks and rmdirs.
 */
void scs_temps_register(const char *path, int is_dir);
void scs_temps_unregister(const char *path);
void scs_temps_remove_all(void);

#endif
