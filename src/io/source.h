/*
 * source.h: input files. Opening, 64-bit sizes, complete positioned reads,
 * and the safe resolution of external-data locations (never outside the
 * model's folder). Knows nothing of ONNX.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_SOURCE_H
#define SCS_SOURCE_H

#include <stddef.h>
#include <stdint.h>

typedef struct scs_source scs_source;

/*
 * A bound on the descriptors a set of sources keeps open at once: a model
 * may come with one external data file per tensor, thousands of them. A
 * source of a pool lets its descriptor go when others need one (the least
 * recently used goes first) and opens its file again when next read, after
 * checking it is still the same file (device, inode and size).
 */
typedef struct scs_source_pool scs_source_pool;

/* A pool that keeps at most @max_open descriptors (1 or more) open; *out is
 * the caller's until scs_source_pool_free(). */
int scs_source_pool_new(scs_source_pool **out, size_t max_open);
/* NULL is a no-op. Close the pool's sources first. */
void scs_source_pool_free(scs_source_pool *pool);

/* Open @path read-only, in @pool (NULL: its descriptor stays open until
 * close). @out is freed with scs_source_close(). */
int scs_source_open_in(scs_source **out, const char *path, scs_source_pool *pool);

/* NULL is a no-op. */
void scs_source_close(scs_source *src);

uint64_t scs_source_size(const scs_source *src);
/* The path as given to open: owned by @src, valid until scs_source_close(); do not free it. */
const char *scs_source_path(const scs_source *src);

/*
 * The source's descriptor, opened again if its pool had let it go.
 * @return the descriptor, valid until another source of the same pool is
 * opened or read, or this one is closed; or a negative SCS_E* code (the file
 * cannot be opened again, or another file is there now).
 */
int scs_source_fd(scs_source *src);

/*
 * Read exactly @len bytes at @off.
 * @return SCS_OK; SCS_ECORRUPT when [off, off + len) passes the end of the
 * file (message names the file and offset); SCS_EIO.
 */
int scs_source_read(scs_source *src, void *buf, size_t len, uint64_t off);

/* 1 when @src is the file whose stat() gave @dev and @ino (device and
 * inode), 0 when not. */
int scs_source_is_file(const scs_source *src, uint64_t dev, uint64_t ino);

/*
 * Resolve the external-data @location of a model that lives in @dir.
 * Refuses (SCS_ECORRUPT) a location that is empty, absolute, contains a
 * ".." component, or resolves (through links) outside @dir; SCS_ENOTFOUND
 * (as SCS_ECORRUPT to the user) when the file is missing.
 * @param[out] out  malloc'd path; the caller frees it.
 */
int scs_source_resolve_external(char **out, const char *dir, const char *location);

#endif
