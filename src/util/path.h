/*
 * path.h: file names as strings: the folder and last component of a path,
 * and joining a folder and a name. Touches no file system.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_PATH_H
#define SCS_PATH_H

/* The folder part of @path ("." when none, "/" for a file in the root).
 * malloc'd: the caller frees it. NULL on ENOMEM (no message set). */
char *scs_path_dir(const char *path);

/* The last component of @path: a pointer into @path, living as long as
 * @path does; do not free it. */
const char *scs_path_base(const char *path);

/* @dir + "/" + @name. malloc'd: the caller frees it. NULL on ENOMEM (no
 * message set). */
char *scs_path_join(const char *dir, const char *name);

#endif
