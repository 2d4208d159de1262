/*
 * support.c: test helpers (see support.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "support.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

/*
 * ONNX Runtime's telemetry writes /tmp/mat-debug-<pid>.log, /tmp/.ses and a
 * cache under ~/.cache/Microsoft/ from every process that loads it, unless
 * ORT_DISABLE_TELEMETRY is set (CI=true has the same effect): set here, for
 * every test process and every checker it runs.
 */
__attribute__((constructor)) static void
quiet_onnx_runtime(void)
{
	setenv("ORT_DISABLE_TELEMETRY", "1", 1);
}

/*
 * Every folder tmpdir_new made in this process and tmpdir_remove has not
 * removed yet: a test that cr_skip_test ends (the unit tier's skips among
 * them) does not reach its .fini, so the process removes them as it exits.
 */
static char *made[64];

static void
remove_the_folders_left(void)
{
	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++)
		if (made[i]) {
			tmpdir_remove(made[i]);
			made[i] = NULL;
		}
}

char *
tmpdir_new(void)
{
	static int registered;
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *dir = malloc(strlen(base) + 32);

	if (dir == NULL)
		abort();
	sprintf(dir, "%s/scs-test.XXXXXX", base);
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		abort();
	}
	if (!registered) {
		atexit(remove_the_folders_left);
		registered = 1;
	}
	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++)
		if (made[i] == NULL) {
			made[i] = strdup(dir);
			break;
		}
	return dir;
}

void
tmpdir_remove(char *dir)
{
	if (dir == NULL)
		return;
	run(NULL, "rm -rf '%s'", dir);
	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++)
		if (made[i] && made[i] != dir && strcmp(made[i], dir) == 0) {
			free(made[i]);
			made[i] = NULL;
		}
	free(dir);
}

char *scratch_dir;

void
scratch_setup(void)
{
	scratch_dir = tmpdir_new();
}

void
scratch_teardown(void)
{
	tmpdir_remove(scratch_dir);
	scratch_dir = NULL;
}

char *
path_in(const char *dir, const char *name)
{
	char *p = malloc(strlen(dir) + strlen(name) + 2);

	if (p == NULL)
		abort();
	sprintf(p, "%s/%s", dir, name);
	return p;
}

char *
fixture(const char *name)
{
	return path_in(SCS_TEST_BUILD_DIR, name);
}

uint8_t *
read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data;
	long n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	data = malloc((size_t)n + 1);
	if (fread(data, 1, (size_t)n, f) != (size_t)n) {
		free(data);
		data = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return data;
}

void
write_all(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (f == NULL || fwrite(data, 1, len, f) != len) {
		perror(path);
		abort();
	}
	fclose(f);
}

int
file_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

uint64_t
file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

int
statfs_is_ext(const char *path)
{
	struct statfs fs;

	return statfs(path, &fs) == 0 && fs.f_type == 0xEF53;
}

int
count_files(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
			n++;
	closedir(d);
	return n;
}

/*
 * The unit tier (meson test --suite unit sets SCS_TEST_TIER=unit) needs
 * neither Python nor Node: a test reaching for them there is skipped at that
 * point, and runs whole in the e2e tier and in the unit binary run alone.
 */
static void
skip_outside_the_unit_tier(const char *cmd)
{
	const char *tier = getenv("SCS_TEST_TIER");

	if (tier && strcmp(tier, "unit") == 0 && (strstr(cmd, "python3") || strstr(cmd, "node '")))
		cr_skip_test("needs python3 or node: in the e2e tier");
}

static int
vrun(char **out, const char *fmt, va_list ap)
{
	char cmd[8192], buf[4096];
	size_t len = 0, n;
	char *text = NULL;
	FILE *p;
	int status;

	vsnprintf(cmd, sizeof(cmd) - 8, fmt, ap);
	skip_outside_the_unit_tier(cmd);
	strcat(cmd, " 2>&1");
	if ((p = popen(cmd, "r")) == NULL)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0) {
		text = realloc(text, len + n + 1);
		memcpy(text + len, buf, n);
		len += n;
	}
	if (text == NULL)
		text = calloc(1, 1);
	text[len] = '\0';
	status = pclose(p);
	if (out)
		*out = text;
	else
		free(text);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int
run(char **out, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vrun(out, fmt, ap);
	va_end(ap);
	return rc;
}

int
run_tool(char **out, const char *tool, const char *args_fmt, ...)
{
	char fmt[4096];
	va_list ap;
	int rc;

	snprintf(fmt, sizeof(fmt), "'%s/%s' %s", SCS_TOOLS_DIR, tool, args_fmt);
	va_start(ap, args_fmt);
	rc = vrun(out, fmt, ap);
	va_end(ap);
	return rc;
}

void
tool_ok(const char *tool, const char *args_fmt, const char *a, const char *b, const char *extra)
{
	char args[8192], *text;

	snprintf(args, sizeof(args), args_fmt, a, b, extra ? extra : "");
	cr_assert_eq(run_tool(&text, tool, "%s", args), 0, "%s %s: %s", tool, args, text);
	free(text);
}

int
onnx_check(char **out, const char *path)
{
	return run(out, "/usr/bin/python3 '%s/tests/e2e/check_model.py' '%s'", SCS_TEST_SRC_DIR, path);
}

int
ort_same(char **out, const char *ref, const char *cand, const char *extra)
{
	return run(out, "node '%s/tests/e2e/ort_compare.mjs' '%s' '%s' --runs 4 %s", SCS_TEST_SRC_DIR, ref, cand,
	    extra ? extra : "");
}

/* "<base>.<16 lowercase hex>.data"? */
static int
is_data_name(const char *base, const char *name)
{
	size_t n = strlen(base);

	if (strncmp(name, base, n) != 0 || name[n] != '.' || strlen(name) != n + 1 + 16 + 5 ||
	    strcmp(name + n + 17, ".data") != 0)
		return 0;
	for (size_t i = n + 1; i < n + 17; i++)
		if (!strchr("0123456789abcdef", name[i]))
			return 0;
	return 1;
}

char *
data_file_beside(const char *model)
{
	const char *slash = strrchr(model, '/');
	char *dir = slash ? strndup(model, (size_t)(slash - model)) : strdup("."), *found = NULL, legacy[4096];
	const char *base = slash ? slash + 1 : model;
	struct dirent *e;
	DIR *d = opendir(dir);

	cr_assert_not_null(d, "%s: cannot list", dir);
	snprintf(legacy, sizeof(legacy), "%s.data", base);
	while ((e = readdir(d)) != NULL) {
		cr_assert_str_neq(e->d_name, legacy, "%s/%s: a data file under the old name", dir, e->d_name);
		if (!is_data_name(base, e->d_name))
			continue;
		cr_assert_null(found, "%s: two data files of this model (%s and %s)", dir, found, e->d_name);
		found = path_in(dir, e->d_name);
	}
	closedir(d);
	free(dir);
	return found;
}

char *
data_locations(const char *model)
{
	Onnx__ModelProto *m = load_proto(model);
	char *out = NULL;
	size_t len = 0;

	cr_assert_not_null(m, "%s does not parse", model);
	for (size_t i = 0; i < m->graph->n_initializer; i++) {
		Onnx__TensorProto *t = m->graph->initializer[i];

		for (size_t j = 0; j < t->n_external_data; j++) {
			const char *v = t->external_data[j]->value;
			size_t n = strlen(v);
			char *pad;

			if (strcmp(t->external_data[j]->key, "location") != 0)
				continue;
			cr_assert_gt(asprintf(&pad, " %s ", v), 0);
			if (out == NULL || strstr(out, pad) == NULL) {
				out = realloc(out, len + n + 3);
				memcpy(out + len, pad + (len ? 1 : 0), n + (len ? 2 : 3));
				len += n + (len ? 1 : 2);
			}
			free(pad);
		}
	}
	free_proto(m);
	return out;
}

char *
external_location(const char *model)
{
	char *all = data_locations(model), *location;
	size_t n;

	if (all == NULL)
		return NULL;
	n = strcspn(all + 1, " ");
	cr_assert_eq(all[n + 2], '\0', "%s: two data files:%s", model, all);
	location = strndup(all + 1, n);
	free(all);
	return location;
}

Onnx__ModelProto *
load_proto(const char *path)
{
	size_t len;
	uint8_t *data = read_all(path, &len);
	Onnx__ModelProto *m;

	if (data == NULL)
		return NULL;
	m = onnx__model_proto__unpack(NULL, len, data);
	free(data);
	return m;
}

void
free_proto(Onnx__ModelProto *m)
{
	if (m)
		onnx__model_proto__free_unpacked(m, NULL);
}

Onnx__TensorProto *
find_init(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_initializer; i++)
		if (strcmp(g->initializer[i]->name, name) == 0)
			return g->initializer[i];
	return NULL;
}

Onnx__NodeProto *
find_node_by_output(const Onnx__GraphProto *g, const char *output)
{
	for (size_t i = 0; i < g->n_node; i++)
		for (size_t j = 0; j < g->node[i]->n_output; j++)
			if (strcmp(g->node[i]->output[j], output) == 0)
				return g->node[i];
	return NULL;
}

int
count_ops(const Onnx__GraphProto *g, const char *op_type)
{
	int n = 0;

	for (size_t i = 0; i < g->n_node; i++)
		n += g->node[i]->op_type && strcmp(g->node[i]->op_type, op_type) == 0;
	return n;
}

int
uses(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_node; i++)
		for (size_t j = 0; j < g->node[i]->n_input; j++)
			if (strcmp(g->node[i]->input[j], name) == 0)
				return 1;
	return 0;
}

Onnx__GraphProto *
subgraph(const Onnx__GraphProto *g, const char *op_type, const char *attr)
{
	for (size_t i = 0; i < g->n_node; i++) {
		if (strcmp(g->node[i]->op_type, op_type) != 0)
			continue;
		for (size_t j = 0; j < g->node[i]->n_attribute; j++)
			if (strcmp(g->node[i]->attribute[j]->name, attr) == 0)
				return g->node[i]->attribute[j]->g;
	}
	return NULL;
}

int
has_input(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_input; i++)
		if (strcmp(g->input[i]->name, name) == 0)
			return 1;
	return 0;
}

char *run_dir;
char *run_out;
scs_report run_rep = SCS_REPORT_INIT;

void
run_setup(void)
{
	run_dir = tmpdir_new();
	run_out = NULL;
	run_rep = (scs_report)SCS_REPORT_INIT;
}

void
run_teardown(void)
{
	scs_report_dispose(&run_rep);
	free(run_out);
	tmpdir_remove(run_dir);
}

Onnx__ModelProto *
run_optimize(const char *name, const scs_optimize_options *o)
{
	char *in = fixture(name);
	Onnx__ModelProto *m;

	scs_report_dispose(&run_rep);
	run_rep = (scs_report)SCS_REPORT_INIT;
	free(run_out);
	run_out = path_in(run_dir, name);
	cr_assert_eq(scs_optimize(&run_rep, in, run_out, o), SCS_OK, "%s: %s", name, scs_err_msg());
	m = load_proto(run_out);
	cr_assert_not_null(m, "%s: output unreadable", name);
	free(in);
	return m;
}

Onnx__ModelProto *
run_optimize_passes(const char *name, const char *const *passes)
{
	scs_optimize_options o = { .version = SCS_OPTIMIZE_OPTIONS_VERSION, .passes = passes };

	while (passes && passes[o.n_passes])
		o.n_passes++;
	return run_optimize(name, &o);
}

char *shrunk_dir;
scs_report shrunk_rep = SCS_REPORT_INIT;
Onnx__ModelProto *shrunk_model;

void
shrink_setup(void)
{
	shrunk_dir = tmpdir_new();
	shrunk_rep = (scs_report)SCS_REPORT_INIT;
	shrunk_model = NULL;
}

void
shrink_teardown(void)
{
	free_proto(shrunk_model);
	scs_report_dispose(&shrunk_rep);
	tmpdir_remove(shrunk_dir);
}

uint8_t *
read_model_and_data(const char *model, size_t *len)
{
	char *data = NULL, cmd[1024];
	uint8_t *m, *d = NULL, *all;
	size_t m_len, d_len = 0;
	FILE *ls;

	m = read_all(model, &m_len);
	snprintf(cmd, sizeof(cmd), "ls '%s'.*.data 2>/dev/null", model);
	if ((ls = popen(cmd, "r")) != NULL) {
		char line[1024];

		if (fgets(line, sizeof(line), ls)) {
			line[strcspn(line, "\n")] = '\0';
			data = strdup(line);
		}
		pclose(ls);
	}
	if (data)
		d = read_all(data, &d_len);
	all = malloc(m_len + d_len + 1);
	cr_assert(m && all);
	memcpy(all, m, m_len);
	if (d)
		memcpy(all + m_len, d, d_len);
	*len = m_len + d_len;
	free(m);
	free(d);
	free(data);
	return all;
}

Onnx__GraphProto *
shrink_fixture(const char *name, const scs_shrink_options *opts)
{
	char *in = fixture(name), *out = path_in(shrunk_dir, "out.onnx");

	cr_assert_eq(scs_shrink(&shrunk_rep, in, out, opts), SCS_OK, "%s", scs_err_msg());
	shrunk_model = load_proto(out);
	cr_assert_not_null(shrunk_model, "the output does not parse");
	free(in);
	free(out);
	return shrunk_model->graph;
}

void
expect_equivalent(const char *ref, const char *cand, const char *extra)
{
	char *text;

	cr_assert_eq(onnx_check(&text, cand), 0, "onnx.checker: %s", text);
	free(text);
	cr_assert_eq(ort_same(&text, ref, cand, extra), 0, "ONNX Runtime: %s", text);
	cr_assert_not_null(strstr(text, "identical"), "%s", text);
	free(text);
}

char *
shard_list(const char *dir, int *count)
{
	struct dirent **list;
	int n = scandir(dir, &list, NULL, alphasort);
	size_t cap = 64, len = 0;
	char *out = calloc(1, cap);

	*count = 0;
	for (int i = 0; i < n; i++) {
		size_t need = strlen(dir) + strlen(list[i]->d_name) + 8;
		size_t nl = strlen(list[i]->d_name);

		if (nl > 5 && strcmp(list[i]->d_name + nl - 5, ".onnx") == 0) {
			while (len + need >= cap)
				out = realloc(out, cap *= 2);
			len += (size_t)sprintf(out + len, "'%s/%s' ", dir, list[i]->d_name);
			(*count)++;
		}
		free(list[i]);
	}
	free(list);
	return out;
}

void
expect_shards_compute(const char *model, const char *dir)
{
	int count;
	char *list = shard_list(dir, &count), *text;

	cr_assert_gt(count, 0, "no shards in %s", dir);
	cr_assert_eq(run(&text, "/usr/bin/python3 '%s/tests/e2e/check_model.py' %s", SCS_TEST_SRC_DIR, list), 0, "%s", text);
	free(text);
	cr_assert_eq(run(&text, "node '%s/tests/e2e/ort_compare.mjs' '%s' %s --chain --runs 4", SCS_TEST_SRC_DIR, model, list), 0,
	    "%s", text);
	free(text);
	free(list);
}

void
shrink_shards(const char *shards, const char *shrunk)
{
	char *text;

	cr_assert_eq(run(&text, "mkdir '%s' && for f in '%s'/*.onnx; do '%s/scs4onnx-shrink' \"$f\" '%s'/$(basename \"$f\") -n || exit 1; done",
	    shrunk, shards, SCS_TOOLS_DIR, shrunk), 0, "%s", text);
	free(text);
}

void
expect_split_merge_big(const char *model, const char *max_shard_size, int min_shards)
{
	char *dir = tmpdir_new(), *shards = path_in(dir, "shards"), *merged = path_in(dir, "merged.onnx"),
	     *big = path_in(dir, "big.onnx"), *text;
	int count;

	cr_assert_eq(run_tool(&text, "scs4onnx-split", "'%s' '%s' --max-shard-size %s -n", model, shards, max_shard_size), 0,
	    "split: %s", text);
	free(text);
	free(shard_list(shards, &count));
	cr_assert_geq(count, min_shards, "%s: %d shards, wanted %d or more", model, count, min_shards);
	expect_shards_compute(model, shards);
	cr_assert_eq(run_tool(&text, "scs4onnx-merge", "'%s' '%s' -n", shards, merged), 0, "merge: %s", text);
	free(text);
	expect_equivalent(model, merged, NULL);
	cr_assert_eq(run_tool(&text, "scs4onnx-big", "'%s' '%s' --max-shard-size %s -n", model, big, max_shard_size), 0,
	    "big: %s", text);
	free(text);
	expect_equivalent(model, big, NULL);
	free(shards);
	free(merged);
	free(big);
	tmpdir_remove(dir);
}

const char *
report_left_all(const scs_report *rep)
{
	static char buf[16384];
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < rep->left.n && used < sizeof(buf); i++)
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "\n  %s: %s", rep->left.items[i].name,
		    rep->left.items[i].detail);
	return buf;
}

int
report_left_has(const scs_report *rep, const char *node, const char *what)
{
	char subject[256];

	snprintf(subject, sizeof(subject), "node '%s' ", node);
	for (size_t i = 0; i < rep->left.n; i++)
		if (strstr(rep->left.items[i].detail, subject) && strstr(rep->left.items[i].detail, what))
			return 1;
	return 0;
}


unsigned long long
json_number(const char *text, const char *key)
{
	char pattern[64];
	const char *at;

	snprintf(pattern, sizeof(pattern), "\"%s\": ", key);
	at = strstr(text, pattern);
	cr_assert_not_null(at, "no %s in: %s", key, text);
	return strtoull(at + strlen(pattern), NULL, 10);
}

const char *
test_stride(void)
{
	const char *v = getenv("SCS_TEST_STRIDE");

	if (v == NULL || *v == '\0' || strlen(v) > 4 || strspn(v, "0123456789") != strlen(v) || atoi(v) < 1)
		return "1";
	return v;
}
