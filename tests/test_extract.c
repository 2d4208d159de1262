/*
 * test_extract.c: npy mode and forced extraction: the .npy files are valid
 * NumPy files holding the constants' values, the model takes them as graph
 * inputs, and fed back in, the model computes what it computed before.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/err.h"
#include "shrink/npy.h"
#include "scs4onnx.h"
#include "support.h"

static Onnx__ValueInfoProto *
input_named(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_input; i++)
		if (strcmp(g->input[i]->name, name) == 0)
			return g->input[i];
	return NULL;
}

/* numpy loads @npy and finds the values of @constant in model @onnx. */
static void
expect_npy_holds(const char *npy, const char *onnx, const char *constant)
{
	char *text;
	int rc = run(&text, "/usr/bin/python3 -c \"import numpy, onnx, onnx.numpy_helper as h; "
	    "a = numpy.load('%s'); m = onnx.load('%s'); "
	    "w = [h.to_array(t) for t in m.graph.initializer if t.name == '%s'][0]; "
	    "assert a.dtype == w.dtype and a.shape == w.shape and a.tobytes() == w.tobytes(), (a, w); print('same')\"",
	    npy, onnx, constant);

	cr_assert_eq(rc, 0, "%s", text);
	free(text);
}

Test(extract, npy_mode_exports_each_repeated_constant)
{
	char *dir = tmpdir_new(), *in = fixture("dup_basic.onnx"), *out = path_in(dir, "out.onnx"),
	     *w1 = path_in(dir, "out_exported_W1.npy"), *o1 = path_in(dir, "out_exported_O1.npy"), *text, feeds[4096];
	Onnx__ModelProto *m;
	Onnx__ValueInfoProto *vi;
	scs_shrink_options o = SCS_SHRINK_OPTIONS_INIT;
	scs_report rep = SCS_REPORT_INIT;

	o.mode = SCS_MODE_NPY;
	cr_assert_eq(scs_shrink(&rep, in, out, &o), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(rep.npy.n, 2, "exported: %zu", rep.npy.n);
	cr_assert_eq(count_files(dir, "out_exported_G"), 0, "a graph output is not exported");
	expect_npy_holds(w1, in, "W1");
	expect_npy_holds(o1, in, "O1");
	m = load_proto(out);
	cr_assert_null(find_init(m->graph, "W1"));
	cr_assert_null(find_init(m->graph, "W2"));
	vi = input_named(m->graph, "out_exported_W1.npy");
	cr_assert_not_null(vi, "no graph input named like the .npy file");
	cr_assert_eq(vi->type->tensor_type->elem_type, 1);
	cr_assert_eq(vi->type->tensor_type->shape->n_dim, 2);
	cr_assert_eq(vi->type->tensor_type->shape->dim[0]->dim_value, 3);
	cr_assert_eq(vi->type->tensor_type->shape->dim[1]->dim_value, 4);
	cr_assert(uses(m->graph, "out_exported_W1.npy"));
	free_proto(m);
	cr_assert_eq(onnx_check(&text, out), 0, "%s", text);
	free(text);
	snprintf(feeds, sizeof(feeds), "--feed out_exported_W1.npy='%s' --feed out_exported_O1.npy='%s'", w1, o1);
	cr_assert_eq(ort_same(&text, in, out, feeds), 0, "%s", text);
	free(text);
	scs_report_dispose(&rep);
	free(in);
	free(out);
	free(w1);
	free(o1);
	tmpdir_remove(dir);
}

Test(extract, forced_extraction_by_op_and_by_constant_name_together)
{
	char *dir = tmpdir_new(), *in = fixture("dup_encodings.onnx"), *out = path_in(dir, "f.onnx"),
	     *fraw = path_in(dir, "f_exported_F_raw.npy"), *draw = path_in(dir, "f_exported_Dd_typed.npy"), *text,
	     feeds[4096];

	/* Dd_typed by name; F_raw (which F_typed merged into) as an input of node "add_f_raw" */
	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s' -fc Dd_typed -fo add_f_raw --forced_extraction_constant_names nosuch",
	    in, out), 0, "%s", text);
	cr_assert_not_null(strstr(text, "INFO: not exported: nosuch"), "%s", text);
	free(text);
	cr_assert(file_exists(draw), "no %s", draw);
	cr_assert(file_exists(fraw), "no %s", fraw);
	snprintf(feeds, sizeof(feeds), "--feed f_exported_F_raw.npy='%s' --feed f_exported_Dd_typed.npy='%s'", fraw, draw);
	cr_assert_eq(ort_same(&text, in, out, feeds), 0, "%s", text);
	free(text);
	free(in);
	free(out);
	free(fraw);
	free(draw);
	tmpdir_remove(dir);
}

Test(extract, npy_names_are_sanitized_as_scs4onnx_does)
{
	char *name = scs_npy_file_name("some/dir/model.onnx", "a:b;c/d,e");

	cr_assert_str_eq(name, "model_exported_a_b_c_d_e.npy");
	free(name);
}

Test(extract, npy_headers_are_64_byte_aligned_and_describe_the_array)
{
	scs_buf b = SCS_BUF_INIT;
	int64_t dims[2] = { 3, 4 };

	cr_assert_eq(scs_npy_header(&b, 1, dims, 2), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(b.len % 64, 0, "header of %zu bytes", b.len);
	cr_assert_arr_eq(b.data, "\x93NUMPY\x01\x00", 8);
	cr_assert_eq(b.data[8] | b.data[9] << 8, (int)b.len - 10);
	cr_assert_not_null(strstr((char *)b.data + 10, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }"),
	    "%s", b.data + 10);
	cr_assert_eq(b.data[b.len - 1], '\n');
	b.len = 0;
	cr_assert_eq(scs_npy_header(&b, 7, dims, 1), SCS_OK);
	cr_assert_not_null(strstr((char *)b.data + 10, "'shape': (3,), }"), "%s", b.data + 10);
	b.len = 0;
	cr_assert_eq(scs_npy_header(&b, 16, dims, 1), SCS_EUNSUPPORTED, "bfloat16 has no NumPy type");
	scs_buf_dispose(&b);
}
