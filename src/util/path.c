/*
 * path.c: file names as strings (see path.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "util/path.h"

#include <stdlib.h>
#include <string.h>

char *
scs_path_dir(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

const char *
scs_path_base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

char *
scs_path_join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *p;

	if ((p = malloc(a + b + 2)) == NULL)
		return NULL;
	memcpy(p, dir, a);
	p[a] = '/';
	memcpy(p + a + 1, name, b + 1);
	return p;
}
