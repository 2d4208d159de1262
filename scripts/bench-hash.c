/*
 * bench-hash.c: speed of src/util/hash.c over a buffer in memory (1 GiB unless
 * an argument gives the length): the content key fed in 1 MiB updates, as
 * the scanner feeds it, and the 64-bit check over 1 MiB chunks, as the
 * store computes it. Best of five runs each, in MB/s (10^6 bytes) of the
 * thread's CPU time, which other loads on a shared machine disturb less
 * than wall time does.
 * scripts/bench-hash.sh builds it against the current and an older hash.c.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hash.h"

#define PIECE ((size_t)1 << 20)

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	size_t len = argc > 1 ? (size_t)strtoull(argv[1], NULL, 0) : (size_t)1 << 30;
	uint64_t x = 88172645463325252u, sum = 0;
	double best_key = 1e30, best_check = 1e30, t;
	uint8_t *buf = malloc(len);
	char hex[33];
	scs_key k;
	scs_hash h;

	if (buf == NULL || len == 0) {
		fprintf(stderr, "bench-hash: cannot allocate %zu bytes\n", len);
		return 1;
	}
	for (size_t i = 0; i + 8 <= len; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		for (int b = 0; b < 8; b++)
			buf[i + b] = (uint8_t)(x >> (8 * b));
	}
	for (int run = 0; run < 5; run++) {
		t = now();
		scs_hash_init(&h);
		for (size_t off = 0; off < len; off += PIECE)
			scs_hash_update(&h, buf + off, len - off < PIECE ? len - off : PIECE);
		scs_hash_final(&k, &h);
		t = now() - t;
		best_key = t < best_key ? t : best_key;
		t = now();
		for (size_t off = 0; off < len; off += PIECE)
			sum += scs_hash64(buf + off, len - off < PIECE ? len - off : PIECE);
		t = now() - t;
		best_check = t < best_check ? t : best_check;
	}
	scs_key_hex(hex, &k);
	printf("key %8.0f MB/s   check %8.0f MB/s   (%zu bytes, key %s, checks %016llx)\n",
	    (double)len / best_key / 1e6, (double)len / best_check / 1e6, len, hex, (unsigned long long)sum);
	free(buf);
	return 0;
}
