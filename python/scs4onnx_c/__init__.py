# SPDX-License-Identifier: MIT
"""scs4onnx_c: scs4onnx-c's library from Python (ctypes; nothing to compile).

    from scs4onnx_c import shrinking      # instead of: from scs4onnx import shrinking
    shrunk_graph, npy_file_paths = shrinking('input.onnx', 'output.onnx', mode='npy')

shrinking() takes scs4onnx's parameters and returns what scs4onnx returns.
shrink(), split(), merge(), big(), optimize() and share() work on paths only and return
the run's report as a dict (the tools' --json). check(path, full=False) gives
what scs4onnx-check finds: a dict whose 'problems' lists each (rule, graph,
node, op_type, what, line); 'valid' is True when there is none. A failing call raises
scs4onnx_c.Error, a RuntimeError carrying the library's one-line message and
its code; on failure no file at the output paths is created or changed.

The library is $SCS4ONNX_LIBRARY when that is set, else libscs4onnx.so.1 as
the dynamic loader finds it (LD_LIBRARY_PATH, then the system folders).

An onnx.ModelProto over 2 GiB cannot exist in Python (protobuf refuses to
serialize or parse a message that large): for such models pass the file's
path (input_onnx_file_path, or the path functions), never onnx_graph.
"""

import ctypes
import os
import re
import shutil
import sys
import tempfile

from . import _lib
from ._lib import (Error, ECORRUPT, EIO, ENOMEM, ENOTFOUND, ERANGE, EUNSUPPORTED, EUSAGE, ECHECK)
from ._report import format_report

__all__ = ['shrinking', 'shrink', 'split', 'merge', 'big', 'optimize', 'share', 'check', 'format_report', 'Error',
           'ENOMEM', 'EIO', 'ECORRUPT', 'ENOTFOUND', 'EUNSUPPORTED', 'ERANGE', 'EUSAGE', 'ECHECK', '__version__']

__version__ = _lib.version()

_MODES = {'shrink': _lib.MODE_SHRINK, 'npy': _lib.MODE_NPY}

_SIZE = re.compile(r'([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)([KkMmGgTt]?)(iB|i|B)?')
_UNITS = {'': 1.0, 'k': 1024.0, 'm': 1024.0 ** 2, 'g': 1024.0 ** 3, 't': 1024.0 ** 4}


def _size(value, what='max_shard_size'):
    """None -> 0 (the library's default); an int of bytes; or "1.8G", "512M",
    "4096" (K, M, G, T are powers of 1024), read as the tools read them."""
    if value is None:
        return 0
    if isinstance(value, bool):
        raise TypeError('%s: a size is an int or a string such as "1.8G", not a bool' % what)
    if isinstance(value, int):
        n = value
    elif isinstance(value, str):
        m = _SIZE.fullmatch(value.strip())
        if m is None:
            raise ValueError('%s: %r is not a size such as 1.8G, 512M or 4096' % (what, value))
        v = float(m.group(1)) * _UNITS[m.group(2).lower()]
        if v > 1e18:
            raise ValueError('%s: %r is too large' % (what, value))
        n = int(v)
    else:
        raise TypeError('%s: a size is an int or a string such as "1.8G"' % what)
    if n < 1:
        raise ValueError('%s: %r is not a size of at least one byte' % (what, value))
    return n


def _mode(mode):
    if mode not in _MODES:
        raise ValueError("mode: %r is neither 'shrink' nor 'npy'" % (mode,))
    return _MODES[mode]


def _dir_arg(p):
    return None if p is None else _lib.path_arg(p)


def _shrink_options(mode, op_names, constant_names, disable_auto_downcast, optimize, external_data, store):
    """scs_shrink_options, and what must stay alive while the call runs."""
    o = _lib.ShrinkOptions()
    o.mode = _mode(mode)
    o.forced_op_names, o.n_forced_op_names, keep_ops = _lib.names_arg(op_names)
    o.forced_constant_names, o.n_forced_constant_names, keep_constants = _lib.names_arg(constant_names)
    o.disable_auto_downcast = 1 if disable_auto_downcast else 0
    o.optimize = 1 if optimize else 0
    o.external_data = 1 if external_data else 0
    o.store_dir = _dir_arg(store)
    return o, (keep_ops, keep_constants)


def _shapes(o, input_shape, write_shapes):
    """Set @o's input_shapes and write_shapes; returns what must live as long as @o.
    input_shape: {name: dims}, or a list of "NAME=1,3,224,224" strings."""
    if isinstance(input_shape, dict):
        input_shape = ['%s=%s' % (k, ','.join(str(int(d)) for d in v)) for k, v in input_shape.items()]
    o.input_shapes, o.n_input_shapes, keep = _lib.names_arg(input_shape)
    o.write_shapes = 1 if write_shapes else 0
    return keep


def shrink(input, output, mode='shrink', forced_extraction_op_names=None, forced_extraction_constant_names=None,
           disable_auto_downcast=False, optimize=False, external_data=False, store=None, fold_size_limit=None,
           fold_grow=False, fold_inexact=False, input_shape=None, write_shapes=False, max_data_file_size=None,
           keep_transposed=False):
    """scs4onnx-shrink on paths: shrink the model at @input (any size, inline
    or with external data) into @output, and return the report as a dict.
    mode 'npy' and forced extraction write <output stem>_exported_<name>.npy
    beside @output (report['npy'] lists them). optimize: the optimizer's
    default passes first (fold_size_limit, fold_grow, fold_inexact,
    input_shape, write_shapes: as in optimize()).
    external_data: write the data file
    OUTPUT.<16 hex>.data even when the model fits inline.
    max_data_file_size: external data (even when the model fits inline) in
    numbered files OUTPUT.<16 hex>-00001-of-0000N.data of at most this size
    each, an int of bytes or "64M" (at least 4096; a tensor longer than it
    in a file of its own); report['data_files'] lists the data files written.
    store: a folder keeping the payloads between runs. keep_transposed: a
    2-D constant equal to another one transposed stays a copy of its own (by
    default one is kept and the other read through Gemm or a Transpose;
    report['transposed']). Needs no onnx module. Raises Error."""
    o, keep = _shrink_options(mode, forced_extraction_op_names, forced_extraction_constant_names,
                              disable_auto_downcast, optimize, external_data, store)
    o.keep_transposed = 1 if keep_transposed else 0
    o.fold_size_limit, o.fold_grow = _size(fold_size_limit, 'fold_size_limit'), 1 if fold_grow else 0
    o.fold_inexact = 1 if fold_inexact else 0
    o.max_data_file_size = _size(max_data_file_size, 'max_data_file_size')
    keep_shapes = _shapes(o, input_shape, write_shapes)
    return _lib.call('scs_shrink', input, output, o)


def _graphs(graph):
    """@graph and every graph nested in its nodes' attributes."""
    yield graph
    for node in graph.node:
        for a in node.attribute:
            if a.HasField('g'):
                yield from _graphs(a.g)
            for g in a.graphs:
                yield from _graphs(g)


def _names_used(model):
    names = set()
    for g in _graphs(model.graph):
        names.update(v.name for v in list(g.input) + list(g.output) + list(g.value_info))
        names.update(t.name for t in g.initializer)
        for node in g.node:
            names.update(node.output)
            names.update(node.input)
    return names


def _npy_to_cwd(model, paths, stem):
    """Move the .npy files the library wrote beside a temporary output named
    <stem>.onnx into the current folder under scs4onnx's names for a run
    without an output path (exported_<name>.npy), renaming the graph inputs
    that carry their names to match. A name the model already uses stays as
    the library made it."""
    taken = _names_used(model)
    renames = {}
    moved = []
    for p in paths:
        old = os.path.basename(p)
        new = old[len(stem) + 1:] if old.startswith(stem + '_exported_') else old
        if new != old and new in taken:
            new = old
        shutil.move(p, new)
        renames[old] = new
        moved.append(new)
    for g in _graphs(model.graph):
        for v in list(g.input) + list(g.value_info):
            v.name = renames.get(v.name, v.name)
        for node in g.node:
            for i, name in enumerate(node.input):
                if name in renames:
                    node.input[i] = renames[name]
    return moved


def shrinking(
    input_onnx_file_path='',
    output_onnx_file_path='',
    onnx_graph=None,
    mode='shrink',
    forced_extraction_op_names=[],
    forced_extraction_constant_names=[],
    disable_auto_downcast=False,
    non_verbose=False,
):
    """scs4onnx's shrinking(), with the same parameters, run by scs4onnx-c.

    input_onnx_file_path: str
        The model to shrink (any size; inline or with external data).
        Either input_onnx_file_path or onnx_graph must be given.
    output_onnx_file_path: str
        Where to write the result (with its data file OUTPUT.<16 hex>.data
        beside it when over 2 GiB). When empty, no .onnx file is left: the
        result is only returned.
    onnx_graph: onnx.ModelProto
        A model in memory; when given, input_onnx_file_path is ignored.
        A ModelProto over 2 GiB cannot exist in Python (protobuf's limit):
        pass such a model as input_onnx_file_path instead.
    mode: 'shrink' or 'npy'
        shrink: identical non-scalar constants become one inside the model.
        npy: each repeated constant is moved to a .npy file and becomes a
        graph input named like the file.
    forced_extraction_op_names: list of str
        Move the constants read by the main-graph nodes of these names to .npy.
    forced_extraction_constant_names: list of str
        Move the constants of these names to .npy.
    disable_auto_downcast: bool
        Keep float64 and int64 constants as they are (no lossless narrowing).
    non_verbose: bool
        False: print the summary (INFO lines, on stderr, as the tools do).

    The .npy files are <output stem>_exported_<name>.npy beside the output
    path; without an output path, exported_<name>.npy in the current folder,
    as scs4onnx names them.

    Returns (shrunken_graph, npy_file_paths): the result as an
    onnx.ModelProto (read back from the file written) and the list of .npy
    files written (empty when nothing was extracted). Returning a model over
    2 GiB needs it to have external data; for models that large call
    shrink() or big(), which return the report and load nothing.

    Raises scs4onnx_c.Error with the library's message on failure (nothing
    at the output path is created or changed), ValueError for bad arguments.
    """
    import onnx

    if onnx_graph is None and not input_onnx_file_path:
        raise ValueError('shrinking: give input_onnx_file_path or onnx_graph')
    o, keep = _shrink_options(mode, forced_extraction_op_names, forced_extraction_constant_names,
                              disable_auto_downcast, False, False, None)
    with tempfile.TemporaryDirectory(prefix='scs4onnx_c-') as tmp:
        src = input_onnx_file_path
        if onnx_graph is not None:
            src = os.path.join(tmp, 'input.onnx')
            with open(src, 'wb') as f:
                f.write(onnx_graph.SerializeToString())
        stem = 'model'
        out = output_onnx_file_path or os.path.join(tmp, stem + '.onnx')
        report = _lib.call('scs_shrink', src, out, o)
        if not non_verbose:
            sys.stderr.write(format_report(report))
            sys.stderr.flush()
        model = onnx.load(out)
        paths = [it['path'] for it in report['npy']]
        if not output_onnx_file_path and paths:
            paths = _npy_to_cwd(model, paths, stem)
    return model, paths


def split(input, directory, max_shard_size=None, store=None):
    """scs4onnx-split: cut the model at @input into standalone shards
    @directory/shard-000.onnx, ... (the folder must be missing or empty; it
    appears with every shard at once). max_shard_size: the largest shard
    file, an int of bytes or "1.8G" (the default). Returns the report as a
    dict (report['shards'] lists the files). Raises Error."""
    o = _lib.SplitOptions()
    o.max_shard_len = _size(max_shard_size)
    o.store_dir = _dir_arg(store)
    return _lib.call('scs_split', input, directory, o)


def merge(directory, output, no_dedup=False, external_data=False, store=None, max_data_file_size=None,
          keep_transposed=False):
    """scs4onnx-merge: join the shards in @directory (every *.onnx there) into
    @output, then merge identical constants across the whole model unless
    no_dedup. external_data: write the data file even when the model fits
    inline; max_data_file_size, keep_transposed: as in shrink(). Returns the
    report as a dict. Raises Error."""
    o = _lib.MergeOptions()
    o.no_dedup = 1 if no_dedup else 0
    o.keep_transposed = 1 if keep_transposed else 0
    o.external_data = 1 if external_data else 0
    o.max_data_file_size = _size(max_data_file_size, 'max_data_file_size')
    o.store_dir = _dir_arg(store)
    return _lib.call('scs_merge', directory, output, o)


def big(input, output, mode='shrink', forced_extraction_op_names=None, forced_extraction_constant_names=None,
        disable_auto_downcast=False, external_data=False, store=None, max_shard_size=None, work=None,
        keep_work=False, optimize=False, fold_size_limit=None, fold_grow=False, fold_inexact=False,
        input_shape=None, write_shapes=False, max_data_file_size=None, keep_transposed=False):
    """scs4onnx-big: the one-shot journey for models of any size (2 GiB and
    over): split, shrink each shard, merge, global dedup, then npy mode and
    forced extraction on the joined model, reading @input once. The shrink
    parameters are shrink()'s; max_shard_size as in split(); work: the
    folder for the temporary store (default: beside @output); keep_work:
    also write the shards to work/shards; optimize: the optimizer's default
    passes on the whole model first (fold_size_limit, fold_grow,
    fold_inexact, input_shape: as in optimize()); write_shapes: the joined
    model's inferred shapes to value_info; max_data_file_size: as in
    shrink(). Returns the report as a dict (with report['stages']). Raises
    Error."""
    o = _lib.BigOptions()
    so, keep = _shrink_options(mode, forced_extraction_op_names, forced_extraction_constant_names,
                               disable_auto_downcast, optimize, external_data, store)
    so.fold_size_limit, so.fold_grow = _size(fold_size_limit, 'fold_size_limit'), 1 if fold_grow else 0
    so.fold_inexact = 1 if fold_inexact else 0
    so.max_data_file_size = _size(max_data_file_size, 'max_data_file_size')
    keep_shapes = _shapes(so, input_shape, write_shapes)
    so.keep_transposed = 1 if keep_transposed else 0
    o.shrink = ctypes.pointer(so)
    o.max_shard_len = _size(max_shard_size)
    o.work_dir = _dir_arg(work)
    o.keep_work = 1 if keep_work else 0
    return _lib.call('scs_big', input, output, o)


def _pass_names(names):
    """A list of pass names, or one string of comma-separated names."""
    if isinstance(names, str):
        names = [n for n in names.split(',') if n]
    return names


def optimize(input, output, passes=None, skip=None, external_data=False, store=None, fold_size_limit=None,
             fold_grow=False, fold_inexact=False, input_shape=None, write_shapes=False, max_data_file_size=None):
    """scs4onnx-optimize: run the optimizer's passes (onnxoptimizer's names)
    on the model at @input until nothing changes and write @output. passes:
    run only these (default: the default set); skip: leave these out; both
    a list or a comma-separated string. An unknown name raises Error (code
    EUSAGE) before anything is read. Returns the report as a dict
    (report['optimize'] says what each pass changed and what it left alone,
    with the reason). fold_size_limit: fold_constants' cap on the bytes of
    each folded output (an int or "1M"-style string; default 1 MiB);
    fold_grow: also make folds whose outputs are bigger than the constants
    they free; fold_inexact: also fold the math library's functions (Exp,
    Pow, Tanh, ...) and float sums of more than two terms, whose values a
    runtime may round otherwise; input_shape: {name: dims} (or a list of
    "NAME=1,3,224,224" strings), graph inputs given these dims, as
    --input-shape; write_shapes: write the inferred shapes to value_info;
    max_data_file_size: as in shrink(). Raises Error."""
    o = _lib.OptimizeOptions()
    o.passes, o.n_passes, keep_passes = _lib.names_arg(_pass_names(passes))
    o.skip, o.n_skip, keep_skip = _lib.names_arg(_pass_names(skip))
    o.fold_size_limit, o.fold_grow = _size(fold_size_limit, 'fold_size_limit'), 1 if fold_grow else 0
    o.fold_inexact = 1 if fold_inexact else 0
    keep_shapes = _shapes(o, input_shape, write_shapes)
    o.external_data = 1 if external_data else 0
    o.max_data_file_size = _size(max_data_file_size, 'max_data_file_size')
    o.store_dir = _dir_arg(store)
    return _lib.call('scs_optimize', input, output, o)


def share(directory, models, disable_auto_downcast=False, store=None, keep_transposed=False,
          max_data_file_size=None, dry_run=False, optimize=False):
    """scs4onnx-share: write the models at the paths @models into the folder
    @directory (missing or empty; it appears with every file at once), each
    as directory/<its file name>, shrunk as shrink() shrinks it, with one
    data file directory/shared.<16 hex>.data that every model references,
    each payload of 1 KiB or more in it once whichever models hold it.
    max_data_file_size: taken (an int or "64M"); the data goes into one file
    for now. dry_run: every step but the writing. optimize: the optimizer's
    default passes on each model first. Returns the report as a
    dict (report['models'], report['shared'], report['data_files']). Raises
    Error."""
    o = _lib.ShareOptions()
    o.disable_auto_downcast = 1 if disable_auto_downcast else 0
    o.store_dir = _dir_arg(store)
    o.keep_transposed = 1 if keep_transposed else 0
    o.max_data_file_size = _size(max_data_file_size, 'max_data_file_size')
    o.dry_run = 1 if dry_run else 0
    o.optimize = 1 if optimize else 0
    if isinstance(models, (str, bytes, os.PathLike)):
        models = [models]
    paths = [_lib.path_arg(m) for m in models]
    arr = (ctypes.c_char_p * max(len(paths), 1))(*paths)
    return _lib.call_with('scs_share', (_lib.path_arg(directory), ctypes.cast(arr, _lib._names), len(paths)), o)


def check(path, full=False):
    """The rules of the ONNX checker on the model at @path (scs4onnx-check;
    @full: also type and shape contradictions): {'valid', 'problems': [{'rule',
    'graph', 'node', 'op_type', 'what', 'line'}], 'graphs', 'nodes',
    'tensors', 'input_bytes', 'seconds'}. A model that cannot be read as ONNX
    is one problem; Error only when the file cannot be opened or read."""
    return _lib.check(path, full)
