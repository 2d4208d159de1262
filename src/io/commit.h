/*
 * commit.h: outputs that appear whole or not at all.
 *
 * A commit is one result: files written into an existing folder (a model,
 * its data file, .npy files), or a new folder made whole at once (a shard
 * set). Each file of it is a sink: bytes go to a temporary that cannot
 * outlive the process (an O_TMPFILE file, which has no name), and
 * scs_commit_run() gives every file its name in one short step:
 *
 * - files: the other files first, then the data files (one, or several
 *   numbered ones, each under a name of its own made from the contents: see
 *   scs_sink_data_name() and scs_sink_data_part_name()), then the model,
 *   which appears or replaces the old one in one rename; so at every instant
 *   the model at the target is the old one or the new one, each with its own
 *   data files. Data files of the model's name that the new model does not
 *   use (the old model's, whatever their number, or a killed run's) are
 *   removed after the switch.
 * - a folder: the files are linked into a fresh hidden folder beside it,
 *   which is then renamed over the missing or empty target folder.
 *
 * The folder is fsynced after. Commits into one folder take turns (an
 * exclusive flock on the folder), so two runs writing the same output cannot
 * mix their files. The naming steps run in a child process, with the
 * process's SIGINT, SIGTERM and SIGHUP blocked: a run killed at any instant
 * (even with SIGKILL) leaves the old output or the new one and nothing else.
 * Only when the child dies too (power loss, a whole process group killed)
 * can a hidden temporary or an unused data file stay; the next commit of the
 * same output removes it.
 *
 * Where a filesystem has no O_TMPFILE, a temporary is a hidden file
 * ".NAME.XXXXXX.scs-tmp" beside its target, locked (flock) while its writer
 * lives and registered for scs_temps_remove_all(); a commit removes those a
 * killed run left.
 *
 * The bytes of each file go through its sink (sink.h).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_COMMIT_H
#define SCS_COMMIT_H

#include <stddef.h>
#include <stdint.h>

#include "io/sink.h"

typedef struct scs_commit scs_commit;

/* What a file is to its commit; it decides when the file appears. */
typedef enum scs_sink_role {
	SCS_SINK_FILE = 0,        /* a file of its own (.npy): named first, replacing an older one */
	SCS_SINK_DATA = 1,        /* a model's data file (one of several), named by scs_sink_data_name()
	                             or scs_sink_data_part_name() */
	SCS_SINK_MODEL = 2,       /* the model: named last; at most one per commit */
} scs_sink_role;

/*
 * Start a commit of files into the existing folder @dir. *out lives until
 * scs_commit_run() or scs_commit_abort() frees it.
 * @return SCS_OK; SCS_EIO when @dir cannot be opened.
 */
int scs_commit_files(scs_commit **out, const char *dir);

/*
 * Start a commit that makes the folder @dir, with every file in it at once.
 * @dir must be missing (its parent must exist) or an empty folder, which is
 * replaced (a link to a folder is followed). Nothing is created until
 * scs_commit_run(). *out lives until scs_commit_run() or scs_commit_abort()
 * frees it.
 * @return SCS_OK; SCS_EUSAGE when @dir is not a folder or not empty; SCS_EIO.
 */
int scs_commit_folder(scs_commit **out, const char *dir);

/* The folder where the commit's temporaries live (a temporary store may go
 * there too): @dir for files, @dir's parent for a folder. Owned by the
 * commit: valid until it ends (scs_commit_run() or scs_commit_abort()); do
 * not free it. */
const char *scs_commit_tmp_dir(const scs_commit *c);

/*
 * Open a temporary for the file @name (no '/') of the commit. The sink
 * belongs to the commit: scs_commit_run() or scs_commit_abort() frees it.
 * @return SCS_OK; SCS_EUSAGE when a file of that name exists and is not a
 * regular file (a device, FIFO, socket or folder is never replaced); SCS_EIO.
 */
int scs_commit_open(scs_sink **out, scs_commit *c, const char *name, scs_sink_role role);

/*
 * Give the file of sink @s (of commit @c, before scs_commit_run()) the name
 * @name instead of the one it was opened for: a data file whose name is
 * made from its contents, known once they are written.
 * @return SCS_OK; SCS_EUSAGE as scs_commit_open(); SCS_ENOMEM.
 */
int scs_commit_rename(scs_commit *c, scs_sink *s, const char *name);
/* Take sink @s out of commit @c and free it: its temporary goes, no file
 * gets a name from it. */
void scs_commit_drop(scs_commit *c, scs_sink *s);
/*
 * Flush and fsync every sink, then name the files as described above, and
 * fsync the folder. On failure before the switch, nothing at the targets
 * has changed (except .npy files named before a failing model), and no
 * temporary is left. Frees the commit on every path.
 */
int scs_commit_run(scs_commit *c);

/* Drop the commit and its temporaries. NULL is a no-op. */
void scs_commit_abort(scs_commit *c);

/* Hex digits of the token in a data file's name. */
#define SCS_DATA_TOKEN_LEN 16

/*
 * The name of model @model_name's data file whose contents have the digest
 * @token (SCS_DATA_TOKEN_LEN hex digits): "<model_name>.<token>.data". The
 * same contents always get the same name, so an existing file of that name
 * holds them already and may be replaced at any time. malloc'd: the caller
 * frees it. NULL on ENOMEM.
 */
char *scs_sink_data_name(const char *model_name, const char *token);

/*
 * The name of file @k (from 0) of the @n numbered data files of model
 * @model_name whose contents have the digest @token:
 * "<model_name>.<token>-<k + 1>-of-<n>.data", both numbers of 5 digits (more
 * when @n needs them, the same width in every name of the set), so that a
 * listing sorts them in order and each name says how many there are.
 * malloc'd: the caller frees it. NULL on ENOMEM.
 */
char *scs_sink_data_part_name(const char *model_name, const char *token, uint32_t k, uint32_t n);

/* The name a spill of model @model_name (payload.h) is opened with, before
 * it becomes a data file: "<model_name>.spill"; a commit of the model
 * removes the temporaries a killed run left under it. malloc'd: the caller
 * frees it. NULL on ENOMEM. */
char *scs_sink_spill_name(const char *model_name);

/* 1 when @name is a data file name of model @model_name by either rule
 * (one file or numbered files), or the "<model_name>.data" earlier versions
 * wrote; 0 otherwise. */
int scs_sink_is_data_of(const char *model_name, const char *name);

/*
 * Remove the temporaries that have names (the fallback without O_TMPFILE),
 * then the registered folders that are empty by then. Async-signal-safe (it
 * only unlinks and removes folders): for a SIGINT/SIGTERM handler.
 */
void scs_temps_remove_all(void);

/*
 * A folder a run made for its own use (scs4onnx-big's --work), registered
 * for scs_temps_remove_all() until dropped: an interrupted run removes it
 * when nothing else is in it. NULL when out of memory.
 */
typedef struct scs_temp_dir scs_temp_dir;
scs_temp_dir *scs_temp_dir_add(const char *path);
void scs_temp_dir_drop(scs_temp_dir *d);

#ifdef SCS_TEST_HOOKS
/* Test builds only: while @on, temporaries are named files, as where the
 * filesystem has no O_TMPFILE. */
void scs_commit_named_temporaries_for_tests(int on);
#endif

#endif
