# SPDX-License-Identifier: MIT
"""The shared library through ctypes: loading, the option structs of
scs4onnx.h mirrored field for field, and one call with its report."""

import ctypes
import json
import os

# err.h's codes
OK = 0
ENOMEM = -1
EIO = -2
ECORRUPT = -3
ENOTFOUND = -4
EUNSUPPORTED = -5
ERANGE = -6
EUSAGE = -7
ECHECK = -8

CODE_NAMES = {
    ENOMEM: 'out of memory',
    EIO: 'I/O error',
    ECORRUPT: 'corrupt input',
    ENOTFOUND: 'not found',
    EUNSUPPORTED: 'unsupported',
    ERANGE: 'out of range',
    EUSAGE: 'usage error',
    ECHECK: 'output fails a check',
}

# scs_mode
MODE_SHRINK = 0
MODE_NPY = 1

LIBRARY_ENV = 'SCS4ONNX_LIBRARY'
SONAME = 'libscs4onnx.so.1'


class Error(RuntimeError):
    """A failing library call: str(e) is the library's one line (the file,
    the offset or tensor, the problem); e.code is the negative SCS_E* code
    (scs4onnx_c.ECORRUPT, ...); e.report is the report as far as the run
    got (a dict, or None)."""

    def __init__(self, code, message, report=None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.report = report

    @property
    def code_name(self):
        return CODE_NAMES.get(self.code, 'error %d' % self.code)


# void (*scs_progress_fn)(void *payload, const char *stage, uint64_t done, uint64_t total)
PROGRESS_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint64, ctypes.c_uint64)

_names = ctypes.POINTER(ctypes.c_char_p)


class _Versioned(ctypes.Structure):
    """An options struct of scs4onnx.h: its first field, version, is set to
    the version this mirror describes (what the struct's _INIT macro does in
    C); the library gives the fields a struct of an older version lacks their
    defaults. A new field goes at the end of _fields_ with VERSION raised, as
    in the header."""

    VERSION = 1

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.version = self.VERSION


class ShrinkOptions(_Versioned):
    VERSION = 3    # SCS_SHRINK_OPTIONS_VERSION
    _fields_ = [
        ('version', ctypes.c_uint),
        ('mode', ctypes.c_int),
        ('forced_op_names', _names),
        ('n_forced_op_names', ctypes.c_size_t),
        ('forced_constant_names', _names),
        ('n_forced_constant_names', ctypes.c_size_t),
        ('disable_auto_downcast', ctypes.c_int),
        ('optimize', ctypes.c_int),
        ('external_data', ctypes.c_int),
        ('store_dir', ctypes.c_char_p),
        ('progress', PROGRESS_FN),
        ('progress_payload', ctypes.c_void_p),
        ('fold_size_limit', ctypes.c_uint64),
        ('fold_grow', ctypes.c_int),
        ('fold_inexact', ctypes.c_int),
        ('input_shapes', _names),
        ('n_input_shapes', ctypes.c_size_t),
        ('write_shapes', ctypes.c_int),
        ('initializers_as_constants', ctypes.c_int),    # version 2
        ('fold_qdq', ctypes.c_int),
        ('keep_transposed', ctypes.c_int),              # version 3
        ('max_data_file_size', ctypes.c_uint64),
    ]


class SplitOptions(_Versioned):
    VERSION = 1    # SCS_SPLIT_OPTIONS_VERSION
    _fields_ = [
        ('version', ctypes.c_uint),
        ('max_shard_len', ctypes.c_uint64),
        ('store_dir', ctypes.c_char_p),
        ('progress', PROGRESS_FN),
        ('progress_payload', ctypes.c_void_p),
    ]


class MergeOptions(_Versioned):
    VERSION = 2    # SCS_MERGE_OPTIONS_VERSION
    _fields_ = [
        ('version', ctypes.c_uint),
        ('no_dedup', ctypes.c_int),
        ('external_data', ctypes.c_int),
        ('store_dir', ctypes.c_char_p),
        ('progress', PROGRESS_FN),
        ('progress_payload', ctypes.c_void_p),
        ('max_data_file_size', ctypes.c_uint64),        # version 2
        ('keep_transposed', ctypes.c_int),
    ]


class BigOptions(_Versioned):
    VERSION = 1    # SCS_BIG_OPTIONS_VERSION
    _fields_ = [
        ('version', ctypes.c_uint),
        ('shrink', ctypes.POINTER(ShrinkOptions)),
        ('max_shard_len', ctypes.c_uint64),
        ('work_dir', ctypes.c_char_p),
        ('keep_work', ctypes.c_int),
    ]


class OptimizeOptions(_Versioned):
    VERSION = 3    # SCS_OPTIMIZE_OPTIONS_VERSION
    _fields_ = [
        ('version', ctypes.c_uint),
        ('passes', _names),
        ('n_passes', ctypes.c_size_t),
        ('skip', _names),
        ('n_skip', ctypes.c_size_t),
        ('external_data', ctypes.c_int),
        ('store_dir', ctypes.c_char_p),
        ('progress', PROGRESS_FN),
        ('progress_payload', ctypes.c_void_p),
        ('fold_size_limit', ctypes.c_uint64),
        ('fold_grow', ctypes.c_int),
        ('fold_inexact', ctypes.c_int),
        ('input_shapes', _names),
        ('n_input_shapes', ctypes.c_size_t),
        ('write_shapes', ctypes.c_int),
        ('initializers_as_constants', ctypes.c_int),    # version 2
        ('fold_qdq', ctypes.c_int),
        ('max_data_file_size', ctypes.c_uint64),        # version 3
    ]


class ShareOptions(_Versioned):
    VERSION = 1    # SCS_SHARE_OPTIONS_VERSION
    _fields_ = [
        ('version', ctypes.c_uint),
        ('disable_auto_downcast', ctypes.c_int),
        ('store_dir', ctypes.c_char_p),
        ('progress', PROGRESS_FN),
        ('progress_payload', ctypes.c_void_p),
        ('keep_transposed', ctypes.c_int),
        ('max_data_file_size', ctypes.c_uint64),
        ('dry_run', ctypes.c_int),
        ('optimize', ctypes.c_int),
    ]


class CheckOptions(_Versioned):
    VERSION = 1    # SCS_CHECK_OPTIONS_VERSION
    _fields_ = [
        ('version', ctypes.c_uint),
        ('full', ctypes.c_int),
        ('progress', PROGRESS_FN),
        ('progress_payload', ctypes.c_void_p),
    ]


class CheckItem(ctypes.Structure):
    _fields_ = [
        ('rule', ctypes.c_void_p),      # char *: read with ctypes.string_at (node holds the op_type after its NUL)
        ('graph', ctypes.c_void_p),
        ('node', ctypes.c_void_p),
        ('what', ctypes.c_void_p),
    ]


class CheckResult(_Versioned):
    VERSION = 1    # SCS_CHECK_RESULT_VERSION
    _fields_ = [
        ('version', ctypes.c_uint),
        ('items', ctypes.POINTER(CheckItem)),
        ('n_items', ctypes.c_size_t),
        ('cap_items', ctypes.c_size_t),
        ('n_graphs', ctypes.c_uint64),
        ('n_nodes', ctypes.c_uint64),
        ('n_tensors', ctypes.c_uint64),
        ('input_len', ctypes.c_uint64),
        ('seconds', ctypes.c_double),
    ]


# the C name of each mirrored struct, for the layout test
STRUCTS = {
    'scs_check_options': CheckOptions,
    'scs_check_result': CheckResult,
    'scs_shrink_options': ShrinkOptions,
    'scs_split_options': SplitOptions,
    'scs_merge_options': MergeOptions,
    'scs_big_options': BigOptions,
    'scs_optimize_options': OptimizeOptions,
    'scs_share_options': ShareOptions,
}

_lib = None


def library():
    """The loaded library: $SCS4ONNX_LIBRARY when set, else libscs4onnx.so.1
    as the dynamic loader finds it (LD_LIBRARY_PATH, the system folders)."""
    global _lib
    if _lib is not None:
        return _lib
    path = os.environ.get(LIBRARY_ENV) or SONAME
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError('scs4onnx_c: cannot load %s (%s); install libscs4onnx or set %s to its path'
                          % (path, e, LIBRARY_ENV)) from e
    rep = ctypes.c_void_p
    for name, opts in (('scs_shrink', ShrinkOptions), ('scs_split', SplitOptions), ('scs_merge', MergeOptions),
                       ('scs_big', BigOptions), ('scs_optimize', OptimizeOptions)):
        fn = getattr(lib, name)
        fn.argtypes = [rep, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(opts)]
        fn.restype = ctypes.c_int
    lib.scs_share.argtypes = [rep, ctypes.c_char_p, _names, ctypes.c_size_t, ctypes.POINTER(ShareOptions)]
    lib.scs_share.restype = ctypes.c_int
    lib.scs_check.argtypes = [ctypes.POINTER(CheckResult), ctypes.c_char_p, ctypes.POINTER(CheckOptions)]
    lib.scs_check.restype = ctypes.c_int
    lib.scs_check_result_dispose.argtypes = [ctypes.POINTER(CheckResult)]
    lib.scs_check_result_dispose.restype = None
    lib.scs_check_item_line.argtypes = [ctypes.POINTER(CheckItem)]
    lib.scs_check_item_line.restype = ctypes.c_void_p
    lib.scs_report_new.argtypes = []
    lib.scs_report_new.restype = rep
    lib.scs_report_free.argtypes = [rep]
    lib.scs_report_free.restype = None
    lib.scs_report_json.argtypes = [rep]
    lib.scs_report_json.restype = ctypes.c_void_p    # freed with scs_free, so not c_char_p
    lib.scs_report_text.argtypes = [rep]
    lib.scs_report_text.restype = ctypes.c_void_p
    lib.scs_free.argtypes = [ctypes.c_void_p]
    lib.scs_free.restype = None
    lib.scs_version.argtypes = []
    lib.scs_version.restype = ctypes.c_char_p
    lib.scs_err_msg.argtypes = []
    lib.scs_err_msg.restype = ctypes.c_char_p
    _lib = lib
    return lib


def version():
    return library().scs_version().decode()


def path_arg(p):
    """A path (str, bytes or os.PathLike) as the library takes it."""
    return os.fsencode(p)


def names_arg(names):
    """A list of names as (const char *const *, n, what keeps them alive);
    one str is one name."""
    if names is None:
        return None, 0, None
    if isinstance(names, (str, bytes)):
        names = [names]
    encoded = [n.encode() if isinstance(n, str) else bytes(n) for n in names]
    if not encoded:
        return None, 0, None
    arr = (ctypes.c_char_p * len(encoded))(*encoded)
    return ctypes.cast(arr, _names), len(encoded), (arr, encoded)


def _taken_string(lib, text):
    """A string the library made (freed here with scs_free); None for NULL."""
    if not text:
        return None
    try:
        return ctypes.string_at(text).decode('utf-8', 'replace')
    finally:
        lib.scs_free(text)


def _report_dict(lib, rep):
    """The report as the tools' --json writes it, plus 'summary': the INFO
    lines the tools print (scs_report_text). None when out of memory."""
    text = _taken_string(lib, lib.scs_report_json(rep))
    summary = _taken_string(lib, lib.scs_report_text(rep))
    if text is None or summary is None:
        return None
    report = json.loads(text)
    report['summary'] = summary
    return report


def call(name, src, dst, opts):
    """Run scs_<name>(rep, src, dst, &opts); the report as a dict, or Error."""
    return call_with(name, (path_arg(src), path_arg(dst)), opts)


def call_with(name, args, opts):
    """Run scs_<name>(rep, *args, &opts); the report as a dict, or Error."""
    lib = library()
    rep = lib.scs_report_new()
    if not rep:
        raise MemoryError('scs4onnx_c: cannot allocate a report')
    try:
        rc = getattr(lib, name)(rep, *args, ctypes.byref(opts))
        if rc < 0:
            msg = lib.scs_err_msg()
            msg = msg.decode('utf-8', 'replace') if msg else CODE_NAMES.get(rc, 'error %d' % rc)
            raise Error(rc, msg, _report_dict(lib, rep))
        report = _report_dict(lib, rep)
        if report is None:
            raise MemoryError('scs4onnx_c: cannot write the report')
        return report
    finally:
        lib.scs_report_free(rep)


def _c_string(p):
    return ctypes.string_at(p).decode('utf-8', 'replace') if p else None


def check(path, full=False):
    """scs_check() of the model at @path: its problems, each a dict (rule,
    graph, node, op_type, what, line), and what was checked; Error when the
    file cannot be read."""
    lib = library()
    res = CheckResult()
    o = CheckOptions()
    o.full = 1 if full else 0
    rc = lib.scs_check(ctypes.byref(res), path_arg(path), ctypes.byref(o))
    if rc < 0:
        msg = lib.scs_err_msg()
        raise Error(rc, msg.decode('utf-8', 'replace') if msg else CODE_NAMES.get(rc, 'error %d' % rc))
    try:
        problems = []
        for i in range(res.n_items):
            it = res.items[i]
            node = _c_string(it.node)
            op = _c_string(it.node + len(ctypes.string_at(it.node)) + 1) if it.node else None
            line = _taken_string(lib, lib.scs_check_item_line(ctypes.byref(it)))
            problems.append({'rule': _c_string(it.rule), 'graph': _c_string(it.graph), 'node': node,
                             'op_type': op, 'what': _c_string(it.what), 'line': line})
        return {'valid': not problems, 'problems': problems, 'graphs': res.n_graphs, 'nodes': res.n_nodes,
                'tensors': res.n_tensors, 'input_bytes': res.input_len, 'seconds': res.seconds}
    finally:
        lib.scs_check_result_dispose(ctypes.byref(res))
