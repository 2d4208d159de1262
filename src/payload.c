/*
 * payload.c: payload locations, reads, compares and copies (see payload.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "payload.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "err.h"

void
scs_payload_at_store(scs_payload *p, const scs_blob *blob)
{
	p->key = blob->key;
	p->where = SCS_AT_STORE;
	p->file = 0;
	p->off = blob->id;
}

/* SCS_PAYLOADS_MAX_OPEN, or an eighth of the process's descriptor limit
 * when that is less: the outputs and the store need descriptors too. */
static size_t
max_open(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur / 8 < SCS_PAYLOADS_MAX_OPEN)
		return rl.rlim_cur >= 8 ? (size_t)(rl.rlim_cur / 8) : 1;
	return SCS_PAYLOADS_MAX_OPEN;
}

int
scs_payloads_init(scs_payloads *set, scs_store *store)
{
	memset(set, 0, sizeof(*set));
	set->store = store;
	if ((set->piece[0] = malloc(SCS_CHUNK_LEN)) == NULL || (set->piece[1] = malloc(SCS_CHUNK_LEN)) == NULL ||
	    scs_source_pool_new(&set->pool, max_open()) < 0) {
		scs_payloads_dispose(set);
		return scs_err_set(SCS_ENOMEM, "cannot allocate payload buffers");
	}
	return SCS_OK;
}

void
scs_payloads_dispose(scs_payloads *set)
{
	for (size_t i = 0; i < set->n_files; i++)
		scs_source_close(set->files[i]);
	scs_source_pool_free(set->pool);
	free(set->files);
	free(set->items);
	free(set->piece[0]);
	free(set->piece[1]);
	memset(set, 0, sizeof(*set));
}

int
scs_payloads_add_file(scs_payloads *set, const char *path, uint32_t *out)
{
	scs_source *src, **grown;
	struct stat st;
	size_t cap;
	int rc;

	/* one stat, then a compare a file (a model may name thousands) */
	for (size_t i = 0; stat(path, &st) == 0 && i < set->n_files; i++) {
		if (scs_source_is_file(set->files[i], (uint64_t)st.st_dev, (uint64_t)st.st_ino)) {
			*out = (uint32_t)i;
			return SCS_OK;
		}
	}
	if ((rc = scs_source_open_in(&src, path, set->pool)) < 0)
		return rc;
	if (set->n_files == set->cap_files) {
		cap = set->cap_files ? set->cap_files * 2 : 4;
		if ((grown = realloc(set->files, cap * sizeof(*grown))) == NULL) {
			scs_source_close(src);
			return scs_err_set(SCS_ENOMEM, "cannot grow the file list");
		}
		set->files = grown;
		set->cap_files = cap;
	}
	set->files[set->n_files] = src;
	*out = (uint32_t)set->n_files++;
	return SCS_OK;
}

int
scs_payloads_add(scs_payloads *set, const scs_payload *p, uint32_t *out)
{
	scs_payload *grown;
	size_t cap;

	if (set->n == set->cap) {
		cap = set->cap ? set->cap * 2 : 64;
		if (cap > UINT32_MAX || (grown = realloc(set->items, cap * sizeof(*grown))) == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot grow the payload table");
		set->items = grown;
		set->cap = cap;
	}
	set->items[set->n] = *p;
	*out = (uint32_t)set->n++;
	return SCS_OK;
}

int
scs_payloads_read(scs_payloads *set, uint32_t id, uint64_t off, void *buf, size_t len)
{
	const scs_payload *p = &set->items[id];
	scs_blob blob;

	if (off > p->key.len || len > p->key.len - off)
		return scs_err_set(SCS_ERANGE, "read past the end of a %llu-byte payload",
		    (unsigned long long)p->key.len);
	if (p->where == SCS_AT_FILE)
		return scs_source_read(set->files[p->file], buf, len, p->off + off);
	if (set->store == NULL)
		return scs_err_set(SCS_EUSAGE, "payload %u is in a store that is not open", id);
	blob.key = p->key;
	blob.id = p->off;
	return scs_store_read(set->store, &blob, off, buf, len);
}

int
scs_payloads_equal(scs_payloads *set, uint32_t a, uint32_t b)
{
	uint64_t len = set->items[a].key.len, off;
	size_t take;
	int rc;

	if (a == b)
		return 1;
	if (len != set->items[b].key.len)
		return 0;
	/* the store keeps one blob per distinct content, confirmed on write */
	if (set->items[a].where == SCS_AT_STORE && set->items[b].where == SCS_AT_STORE)
		return set->items[a].off == set->items[b].off;
	for (off = 0; off < len; off += take) {
		take = len - off > SCS_CHUNK_LEN ? SCS_CHUNK_LEN : (size_t)(len - off);
		if ((rc = scs_payloads_read(set, a, off, set->piece[0], take)) < 0 ||
		    (rc = scs_payloads_read(set, b, off, set->piece[1], take)) < 0)
			return rc;
		if (memcmp(set->piece[0], set->piece[1], take) != 0)
			return 0;
	}
	return 1;
}

int
scs_payloads_copy(scs_payloads *set, uint32_t id, scs_sink *sink)
{
	const scs_payload *p = &set->items[id];
	uint64_t off;
	size_t take;
	int rc, fd;

	/* the descriptor stays valid through the copy: no other file is touched */
	if (p->where == SCS_AT_FILE)
		return (fd = scs_source_fd(set->files[p->file])) < 0 ? fd : scs_sink_copy_fd(sink, fd, p->off, p->key.len);
	for (off = 0; off < p->key.len; off += take) {
		take = p->key.len - off > SCS_CHUNK_LEN ? SCS_CHUNK_LEN : (size_t)(p->key.len - off);
		if ((rc = scs_payloads_read(set, id, off, set->piece[0], take)) < 0 ||
		    (rc = scs_sink_write(sink, set->piece[0], take)) < 0)
			return rc;
	}
	return SCS_OK;
}

int
scs_payloads_reads_from(const scs_payloads *set, const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return 0;
	for (size_t i = 0; i < set->n_files; i++)
		if (scs_source_is_file(set->files[i], (uint64_t)st.st_dev, (uint64_t)st.st_ino))
			return 1;
	return 0;
}
