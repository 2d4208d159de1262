#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The Python package scs4onnx_c against the tools: scs4onnx's README
examples (shrinking() on a file, on a ModelProto, in npy mode, with forced
extraction) must give what the CLI gives, byte for byte; split, merge, big
and optimize return their reports; failures raise scs4onnx_c.Error with the
library's message; the ctypes structs match the C layout.

    SCS4ONNX_LIBRARY=.../libscs4onnx.so.1 SCS4ONNX_TOOLS=build/tools \
        /usr/bin/python3 tests/python/test_scs4onnx_c.py

SCS4ONNX_LIBRARY  the shared library (else libscs4onnx.so.1 as dlopen finds it)
SCS4ONNX_TOOLS    the folder of the scs4onnx-* tools (default: build/tools)
SCS4ONNX_INCLUDE  the folders of scs4onnx.h and its siblings for the layout test, joined
                  with ':' (default: include/scs4onnx and build/include/scs4onnx)
CC                the C compiler of the layout test (default: cc)

The package is imported from PYTHONPATH when it is there (an installed
tree), else from the source tree's python/ folder. Needs python3-onnx and
python3-numpy; fixtures come from tests/e2e/gen_models.py,
gen_optimize_models.py, gen_fold_models.py and gen_share_models.py, written
to a temporary folder.
"""

import contextlib
import ctypes
import inspect
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.append(os.path.join(ROOT, 'python'))    # after PYTHONPATH: an installed package wins

import scs4onnx_c  # noqa: E402
from scs4onnx_c import _lib  # noqa: E402

TOOLS = os.environ.get('SCS4ONNX_TOOLS') or os.path.join(ROOT, 'build', 'tools')
INCLUDE = (os.environ.get('SCS4ONNX_INCLUDE') or os.pathsep.join(
    [os.path.join(ROOT, 'include', 'scs4onnx'), os.path.join(ROOT, 'build', 'include', 'scs4onnx')])).split(os.pathsep)
E2E = os.path.join(ROOT, 'tests', 'e2e')


def tool(name):
    return os.path.join(TOOLS, 'scs4onnx-' + name)


def cli(name, *args, cwd=None, quiet=True):
    """Run a tool; its stderr. Fails the test when it fails."""
    cmd = [tool(name)] + [str(a) for a in args] + (['-n'] if quiet else [])
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise AssertionError('%s: exit %d: %s' % (' '.join(cmd), r.returncode, r.stderr))
    return r.stderr


def same_files(a, b):
    with open(a, 'rb') as fa, open(b, 'rb') as fb:
        return fa.read() == fb.read()


def without_timings(text):
    """The summary without the lines that hold times."""
    return [ln for ln in text.splitlines() if not ln.startswith(('INFO: stage ', 'INFO: finished in '))]


@contextlib.contextmanager
def cwd(path):
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


class Base(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fx = tempfile.mkdtemp(prefix='scs4onnx_c-fx-')
        for gen in ('gen_models.py', 'gen_optimize_models.py', 'gen_fold_models.py', 'gen_share_models.py',
                    'gen_transposed_models.py', 'gen_check_models.py'):
            subprocess.run([sys.executable, os.path.join(E2E, gen), cls.fx], check=True,
                           stdout=subprocess.DEVNULL)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.fx)

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='scs4onnx_c-')
        self.py = os.path.join(self.tmp, 'py')
        self.cli = os.path.join(self.tmp, 'cli')
        os.mkdir(self.py)
        os.mkdir(self.cli)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def model(self, name):
        return os.path.join(self.fx, name)

    def assertSameFolders(self, a, b):
        """The same file names, each with the same bytes, in every folder."""
        names = sorted(os.listdir(a))
        self.assertEqual(names, sorted(os.listdir(b)))
        for n in names:
            if os.path.isdir(os.path.join(a, n)):
                self.assertSameFolders(os.path.join(a, n), os.path.join(b, n))
            else:
                self.assertTrue(same_files(os.path.join(a, n), os.path.join(b, n)), os.path.join(a, n))


class TestSetup(Base):
    def test_loaded_library(self):
        want = os.environ.get('SCS4ONNX_LIBRARY')
        if want:
            self.assertEqual(os.path.realpath(_lib.library()._name), os.path.realpath(want))
        roots = [os.path.realpath(p) for p in os.environ.get('PYTHONPATH', '').split(os.pathsep) if p]
        if roots:    # the package tested is the one PYTHONPATH names (an installed tree), not python/
            here = os.path.realpath(scs4onnx_c.__file__)
            self.assertTrue([r for r in roots if here.startswith(r + os.sep)], here)
        r = subprocess.run([tool('shrink'), '--version'], stdout=subprocess.PIPE, text=True, check=True)
        self.assertEqual(r.stdout.split(), ['scs4onnx-shrink', scs4onnx_c.__version__])

    def test_code_names(self):
        name = _lib.library().scs_err_name
        name.argtypes = [ctypes.c_int]
        name.restype = ctypes.c_char_p
        for code, text in _lib.CODE_NAMES.items():
            self.assertEqual(name(code).decode(), text)
            self.assertEqual(scs4onnx_c.Error(code, 'x').code_name, text)

    def test_signature_is_scs4onnx(self):
        sig = inspect.signature(scs4onnx_c.shrinking)
        self.assertEqual([(p.name, p.default) for p in sig.parameters.values()], [
            ('input_onnx_file_path', ''), ('output_onnx_file_path', ''), ('onnx_graph', None),
            ('mode', 'shrink'), ('forced_extraction_op_names', []), ('forced_extraction_constant_names', []),
            ('disable_auto_downcast', False), ('non_verbose', False)])

    def test_struct_layout(self):
        """offsetof and sizeof from the C compiler equal ctypes' for every field, each struct's version
        is its _VERSION macro's; the codes are err.h's."""
        lines = ['#include <stddef.h>', '#include <stdio.h>', '#include "scs4onnx.h"', 'int main(void) {']
        want = []
        for cname, st in _lib.STRUCTS.items():
            lines.append('printf("%%s %%zu\\n", "%s", sizeof(%s));' % (cname, cname))
            want.append('%s %d' % (cname, ctypes.sizeof(st)))
            lines.append('printf("%%s version %%d\\n", "%s", %s_VERSION);' % (cname, cname.upper()))
            want.append('%s version %d' % (cname, st().version))
            for field in st._fields_:
                fname = field[0]
                lines.append('printf("%%s.%%s %%zu %%zu\\n", "%s", "%s", offsetof(%s, %s), sizeof(((%s *)0)->%s));'
                             % (cname, fname, cname, fname, cname, fname))
                want.append('%s.%s %d %d' % (cname, fname, getattr(st, fname).offset, getattr(st, fname).size))
        for code in ('ENOMEM', 'EIO', 'ECORRUPT', 'ENOTFOUND', 'EUNSUPPORTED', 'ERANGE', 'EUSAGE', 'ECHECK'):
            lines.append('printf("SCS_%s %%d\\n", SCS_%s);' % (code, code))
            want.append('SCS_%s %d' % (code, getattr(scs4onnx_c, code)))
        lines += ['return 0;', '}']
        src = os.path.join(self.tmp, 'layout.c')
        exe = os.path.join(self.tmp, 'layout')
        with open(src, 'w') as f:
            f.write('\n'.join(lines) + '\n')
        cc = os.environ.get('CC') or 'cc'
        subprocess.run([cc, '-std=c11'] + ['-I' + d for d in INCLUDE] + ['-o', exe, src], check=True)
        got = subprocess.run([exe], stdout=subprocess.PIPE, text=True, check=True).stdout.splitlines()
        self.assertEqual(got, want)


class TestCheck(Base):
    """check() gives what scs4onnx-check prints and writes as JSON."""

    def test_problems_as_the_tool_gives_them(self):
        path = self.model('ck_bad_body_later.onnx')
        r = scs4onnx_c.check(path)
        self.assertFalse(r['valid'])
        self.assertEqual(len(r['problems']), 1)
        p = r['problems'][0]
        self.assertEqual((p['rule'], p['graph'], p['node'], p['op_type']),
                         ('order', 'main/if.then_branch', 'then_id', 'Identity'))
        out = subprocess.run([tool('check'), path, '-n', '--json', '-'], stdout=subprocess.PIPE, text=True)
        self.assertEqual(out.returncode, 1)
        self.assertEqual(json.loads(out.stdout)['problems'][0]['line'], p['line'])
        self.assertEqual(scs4onnx_c.check(self.model('ck_ok_nested.onnx'))['problems'], [])

    def test_full(self):
        path = self.model('ck_full_out_type.onnx')
        self.assertTrue(scs4onnx_c.check(path)['valid'])
        r = scs4onnx_c.check(path, full=True)
        self.assertEqual([p['rule'] for p in r['problems']], ['infer'])

    def test_missing_file(self):
        with self.assertRaises(scs4onnx_c.Error) as cm:
            scs4onnx_c.check(os.path.join(self.tmp, 'none.onnx'))
        self.assertEqual(cm.exception.code, scs4onnx_c.EIO)


class TestShrinking(Base):
    """scs4onnx's README examples, each compared with scs4onnx-shrink."""

    def run_both(self, model, *cli_args, **kwargs):
        """shrinking(...) into py/out.onnx and the CLI into cli/out.onnx."""
        cli('shrink', self.model(model), 'out.onnx', *cli_args, cwd=self.cli)
        with cwd(self.py):
            return scs4onnx_c.shrinking(input_onnx_file_path=self.model(model), output_onnx_file_path='out.onnx',
                                        non_verbose=True, **kwargs)

    def test_file(self):
        shrunk, npys = self.run_both('dup_basic.onnx', '--mode', 'shrink', mode='shrink')
        self.assertEqual(npys, [])
        self.assertSameFolders(self.py, self.cli)
        self.assertEqual(shrunk, onnx.load(os.path.join(self.cli, 'out.onnx')))
        names = [t.name for t in shrunk.graph.initializer]
        self.assertNotIn('W2', names)   # merged into W1: the run did something

    def test_model_proto(self):
        cli('shrink', self.model('dup_basic.onnx'), 'out.onnx', '-n', cwd=self.cli)
        graph = onnx.load(self.model('dup_basic.onnx'))
        shrunk, npys = scs4onnx_c.shrinking(onnx_graph=graph, output_onnx_file_path=os.path.join(self.py, 'out.onnx'),
                                            mode='shrink', non_verbose=True)
        self.assertEqual(npys, [])
        self.assertSameFolders(self.py, self.cli)
        # no output path: nothing written, the model returned
        with cwd(self.py):
            alone, npys = scs4onnx_c.shrinking(onnx_graph=graph, non_verbose=True)
        self.assertEqual(npys, [])
        self.assertEqual(alone, onnx.load(os.path.join(self.cli, 'out.onnx')))
        self.assertEqual(sorted(os.listdir(self.py)), ['out.onnx'])

    def test_npy(self):
        shrunk, npys = self.run_both('dup_basic.onnx', '--mode', 'npy', mode='npy')
        self.assertEqual(sorted(npys), ['out_exported_O1.npy', 'out_exported_W1.npy'])
        self.assertSameFolders(self.py, self.cli)
        inputs = [i.name for i in shrunk.graph.input]
        for p in npys:
            self.assertIn(p, inputs)
            self.assertEqual(np.load(os.path.join(self.py, p)).dtype, np.float32)

    def test_npy_paths_beside_output(self):
        shrunk, npys = scs4onnx_c.shrinking(self.model('dup_basic.onnx'), os.path.join(self.py, 'out.onnx'),
                                            mode='npy', non_verbose=True)
        self.assertEqual(sorted(npys), [os.path.join(self.py, 'out_exported_O1.npy'),
                                        os.path.join(self.py, 'out_exported_W1.npy')])
        for p in npys:
            self.assertTrue(os.path.isfile(p))

    def test_npy_without_output(self):
        """scs4onnx's names: exported_<name>.npy in the current folder, inputs renamed to match."""
        cli('shrink', self.model('dup_basic.onnx'), 'out.onnx', '--mode', 'npy', cwd=self.cli)
        with cwd(self.py):
            shrunk, npys = scs4onnx_c.shrinking(onnx_graph=onnx.load(self.model('dup_basic.onnx')), mode='npy',
                                                non_verbose=True)
        self.assertEqual(sorted(npys), ['exported_O1.npy', 'exported_W1.npy'])
        self.assertEqual(sorted(os.listdir(self.py)), sorted(npys))
        for p in npys:
            self.assertTrue(same_files(os.path.join(self.py, p), os.path.join(self.cli, 'out_' + p)), p)
        onnx.checker.check_model(shrunk)
        names = [i.name for i in shrunk.graph.input]
        used = [n for node in shrunk.graph.node for n in node.input]
        for p in npys:
            self.assertIn(p, names)
            self.assertIn(p, used)
        self.assertFalse([n for n in names + used if 'model_exported' in n])
        # the CLI's model with the inputs renamed the same way is the returned one
        want = onnx.load(os.path.join(self.cli, 'out.onnx'))
        for v in want.graph.input:
            v.name = v.name.replace('out_exported_', 'exported_')
        for node in want.graph.node:
            for i, n in enumerate(node.input):
                node.input[i] = n.replace('out_exported_', 'exported_')
        self.assertEqual(shrunk, want)
        self.ort_check(shrunk, npys)

    def ort_check(self, shrunk, npys):
        """ONNX Runtime gives the original's outputs when fed the .npy files."""
        node = shutil.which('node')
        if node is None or not os.path.isdir(os.path.join(E2E, 'node_modules', 'onnxruntime-node')):
            return
        cand = os.path.join(self.tmp, 'cand.onnx')
        onnx.save(shrunk, cand)
        feeds = []
        for p in npys:
            feeds += ['--feed', '%s=%s' % (p, os.path.join(self.py, p))]
        r = subprocess.run([node, os.path.join(E2E, 'ort_compare.mjs'), self.model('dup_basic.onnx'), cand] + feeds,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.assertEqual(r.returncode, 0, r.stdout)

    def test_forced_op_names(self):
        shrunk, npys = self.run_both('dup_basic.onnx', '--forced_extraction_op_names', 'add_w1',
                                     forced_extraction_op_names=['add_w1'])
        self.assertEqual(npys, ['out_exported_W1.npy'])
        self.assertSameFolders(self.py, self.cli)

    def test_forced_constant_names(self):
        shrunk, npys = self.run_both('downcast.onnx', '--forced_extraction_constant_names', 'shape34', 'f64_inexact',
                                     forced_extraction_constant_names=['shape34', 'f64_inexact'])
        self.assertEqual(sorted(npys), ['out_exported_f64_inexact.npy', 'out_exported_shape34.npy'])
        self.assertSameFolders(self.py, self.cli)
        self.assertEqual(np.load(os.path.join(self.py, 'out_exported_f64_inexact.npy')).dtype, np.float64)

    def test_disable_auto_downcast(self):
        self.run_both('downcast.onnx', '--disable_auto_downcast', disable_auto_downcast=True)
        self.assertSameFolders(self.py, self.cli)
        other = os.path.join(self.tmp, 'downcast.onnx')
        cli('shrink', self.model('downcast.onnx'), other)
        self.assertFalse(same_files(other, os.path.join(self.py, 'out.onnx')))

    def test_summary_is_the_cli_s(self):
        text = cli('shrink', self.model('dup_basic.onnx'), 'out.onnx', '--mode', 'npy', cwd=self.cli, quiet=False)
        err = io.StringIO()
        with cwd(self.py), contextlib.redirect_stderr(err):
            scs4onnx_c.shrinking(self.model('dup_basic.onnx'), 'out.onnx', mode='npy')
        self.assertIn('INFO: merged: W1 <- W2, W3, Cw', err.getvalue())
        self.assertEqual(without_timings(err.getvalue()), without_timings(text))
        err = io.StringIO()
        with cwd(self.py), contextlib.redirect_stderr(err):
            scs4onnx_c.shrinking(self.model('dup_basic.onnx'), 'out.onnx', non_verbose=True)
        self.assertEqual(err.getvalue(), '')

    def test_bad_arguments(self):
        with self.assertRaises(ValueError):
            scs4onnx_c.shrinking()
        with self.assertRaises(ValueError):
            scs4onnx_c.shrinking(self.model('dup_basic.onnx'), os.path.join(self.py, 'out.onnx'), mode='zip')
        self.assertEqual(os.listdir(self.py), [])


class TestErrors(Base):
    def test_missing_input(self):
        missing = os.path.join(self.tmp, 'missing.onnx')
        out = os.path.join(self.py, 'out.onnx')
        with self.assertRaises(scs4onnx_c.Error) as cm:
            scs4onnx_c.shrinking(input_onnx_file_path=missing, output_onnx_file_path=out, non_verbose=True)
        e = cm.exception
        self.assertIsInstance(e, RuntimeError)
        self.assertIn(missing, str(e))
        self.assertEqual(e.code, scs4onnx_c.EIO)
        self.assertEqual(e.report['groups'], [])    # the report as far as the run got
        self.assertEqual(os.listdir(self.py), [])

    def test_corrupt_input(self):
        bad = os.path.join(self.tmp, 'bad.onnx')
        with open(bad, 'wb') as f:
            f.write(b'\x0a\xff\xff\xff\xff\x0f')    # field 1, length 4 GiB - 1, nothing after
        with self.assertRaises(scs4onnx_c.Error) as cm:
            scs4onnx_c.shrink(bad, os.path.join(self.py, 'out.onnx'))
        self.assertEqual(cm.exception.code, scs4onnx_c.ECORRUPT)
        self.assertTrue(str(cm.exception).startswith(bad + ':'), str(cm.exception))
        self.assertEqual(os.listdir(self.py), [])
        r = subprocess.run([tool('shrink'), bad, os.path.join(self.cli, 'out.onnx')], stderr=subprocess.PIPE,
                           text=True)
        self.assertEqual(r.returncode, 1)
        self.assertIn(str(cm.exception), r.stderr)

    def test_unknown_pass(self):
        with self.assertRaises(scs4onnx_c.Error) as cm:
            scs4onnx_c.optimize(self.model('dup_basic.onnx'), os.path.join(self.py, 'out.onnx'), passes=['no_such_pass'])
        self.assertEqual(cm.exception.code, scs4onnx_c.EUSAGE)
        self.assertIn('no_such_pass', str(cm.exception))

    def test_sizes(self):
        size = scs4onnx_c._size
        self.assertEqual(size(None), 0)
        self.assertEqual(size(4096), 4096)
        self.assertEqual(size('4096'), 4096)
        self.assertEqual(size('512M'), 512 << 20)
        self.assertEqual(size('1.8G'), int(1.8 * (1 << 30)))
        self.assertEqual(size('2GiB'), 2 << 30)
        for bad in ('', 'G', '1.8X', '-1', '0', 0, 'lots'):
            with self.assertRaises(ValueError, msg=repr(bad)):
                size(bad)
        with self.assertRaises(TypeError):
            size(True)


class TestPathFunctions(Base):
    def test_split_merge(self):
        rep = scs4onnx_c.split(self.model('nested_if.onnx'), os.path.join(self.py, 'shards'), max_shard_size='1K',
                               store=None)
        cli('split', self.model('nested_if.onnx'), os.path.join(self.cli, 'shards'), '--max-shard-size', '1K')
        self.assertIsInstance(rep, dict)
        self.assertGreaterEqual(rep['n_shards'], 1)
        self.assertEqual(len(rep['shards']), rep['n_shards'])
        self.assertSameFolders(os.path.join(self.py, 'shards'), os.path.join(self.cli, 'shards'))

        rep = scs4onnx_c.merge(os.path.join(self.py, 'shards'), os.path.join(self.py, 'merged.onnx'))
        cli('merge', os.path.join(self.cli, 'shards'), os.path.join(self.cli, 'merged.onnx'))
        self.assertEqual(rep['n_shards'], len(os.listdir(os.path.join(self.py, 'shards'))))
        self.assertTrue(same_files(os.path.join(self.py, 'merged.onnx'), os.path.join(self.cli, 'merged.onnx')))
        onnx.checker.check_model(os.path.join(self.py, 'merged.onnx'))

    def test_merge_options(self):
        shards = os.path.join(self.py, 'shards')
        rep = scs4onnx_c.split(self.model('external.onnx'), shards, max_shard_size=8192)
        self.assertGreater(rep['n_shards'], 1)
        rep = scs4onnx_c.merge(shards, os.path.join(self.py, 'joined.onnx'), no_dedup=True, external_data=True)
        self.assertTrue(rep['external_data'])
        self.assertEqual(rep['groups'], [])
        cli('split', self.model('external.onnx'), os.path.join(self.cli, 'shards'), '--max-shard-size', '8K')
        cli('merge', os.path.join(self.cli, 'shards'), os.path.join(self.cli, 'joined.onnx'), '--no-dedup',
            '--external-data')
        self.assertSameFolders(self.py, self.cli)

    def test_keep_transposed(self):
        for keep in (False, True):
            name = 'kept.onnx' if keep else 'out.onnx'
            rep = scs4onnx_c.shrink(self.model('tr_gpt_f32_21.onnx'), os.path.join(self.py, name),
                                    keep_transposed=keep)
            cli('shrink', self.model('tr_gpt_f32_21.onnx'), os.path.join(self.cli, name),
                *(['--keep-transposed'] if keep else []))
            self.assertEqual(rep['transposed'], [] if keep else
                             [{'name': 'wte_T', 'rewrite': 'Gemm(transB=1) of wte [50, 12] float32, 2.3 KiB'}])
            self.assertEqual(rep['bytes_transposed'], 0 if keep else 2400)
        shards = os.path.join(self.tmp, 'shards')
        scs4onnx_c.split(self.model('tr_gpt_f32_21.onnx'), shards, max_shard_size=3072)
        rep = scs4onnx_c.merge(shards, os.path.join(self.py, 'merged.onnx'), keep_transposed=True)
        self.assertEqual(rep['transposed'], [])
        rep = scs4onnx_c.big(self.model('tr_gpt_f32_21.onnx'), os.path.join(self.py, 'big.onnx'),
                             max_shard_size=3072, keep_transposed=True)
        self.assertEqual(rep['transposed'], [])
        cli('merge', shards, os.path.join(self.cli, 'merged.onnx'), '--keep-transposed')
        cli('big', self.model('tr_gpt_f32_21.onnx'), os.path.join(self.cli, 'big.onnx'), '--max-shard-size', '3K',
            '--keep-transposed')
        self.assertSameFolders(self.py, self.cli)

    def test_big(self):
        out = os.path.join(self.py, 'out.onnx')
        rep = scs4onnx_c.big(self.model('dup_basic.onnx'), out, mode='npy', max_shard_size=1024)
        cli('big', self.model('dup_basic.onnx'), os.path.join(self.cli, 'out.onnx'), '--mode', 'npy',
            '--max-shard-size', '1024')
        self.assertEqual([s['name'] for s in rep['stages']],
                         ['scan', 'split', 'shrink', 'merge', 'dedup', 'write', 'check'])
        self.assertEqual(sorted(i['path'] for i in rep['npy']),
                         [os.path.join(self.py, 'out_exported_O1.npy'), os.path.join(self.py, 'out_exported_W1.npy')])
        self.assertSameFolders(self.py, self.cli)

    def test_share(self):
        models = [self.model('share_dec.onnx'), self.model('share_dec_past.onnx')]
        dry = scs4onnx_c.share(os.path.join(self.py, 'out'), models, dry_run=True, max_data_file_size='64M')
        self.assertFalse(os.path.exists(os.path.join(self.py, 'out')))
        rep = scs4onnx_c.share(os.path.join(self.py, 'out'), models, max_data_file_size='64M')
        cli('share', os.path.join(self.cli, 'out'), *models, '--max-data-file-size', '64M')
        self.assertSameFolders(self.py, self.cli)
        self.assertEqual([s['constant'] for s in rep['shared']], ['wte', 'w1', 'w2'])
        self.assertEqual([m['path'] for m in rep['models']], [os.path.join(self.py, 'out', 'share_dec.onnx'),
                                                              os.path.join(self.py, 'out', 'share_dec_past.onnx')])
        self.assertEqual(len(rep['data_files']), 1)
        self.assertEqual(dry['data_files'], rep['data_files'])
        with self.assertRaises(scs4onnx_c.Error) as e:
            scs4onnx_c.share(os.path.join(self.py, 'out2'), [models[0], models[0]])
        self.assertEqual(e.exception.code, scs4onnx_c.EUSAGE)
        self.assertFalse(os.path.exists(os.path.join(self.py, 'out2')))

    def test_inspect(self):
        model = self.model('tr_if.onnx')
        got = scs4onnx_c.inspect(model, top=3)
        r = subprocess.run([tool('inspect'), model, '--top', '3', '--json', '-'], stdout=subprocess.PIPE, text=True,
                           check=True)
        want = json.loads(r.stdout)
        self.assertEqual({k: v for k, v in got.items() if k not in ('summary', 'html')}, want)
        self.assertEqual(len(got['constants']['largest']), 3)
        self.assertIn('scs4onnx-shrink would save 235 bytes', got['summary'])
        self.assertIn('<svg id="treemap"', got['html'])
        with self.assertRaises(scs4onnx_c.Error) as e:
            scs4onnx_c.inspect(os.path.join(self.tmp, 'missing.onnx'))
        self.assertEqual(e.exception.code, scs4onnx_c.EIO)

    def test_big_keep_work(self):
        work = os.path.join(self.tmp, 'work')
        scs4onnx_c.big(self.model('nested_if.onnx'), os.path.join(self.py, 'out.onnx'), work=work, keep_work=True,
                       disable_auto_downcast=True)
        self.assertTrue(os.listdir(os.path.join(work, 'shards')))

    def test_optimize(self):
        rep = scs4onnx_c.optimize(self.model('opt_identity.onnx'), os.path.join(self.py, 'out.onnx'))
        cli('optimize', self.model('opt_identity.onnx'), os.path.join(self.cli, 'out.onnx'))
        self.assertSameFolders(self.py, self.cli)
        opt = rep['optimize']
        self.assertLess(opt['nodes_after'], opt['nodes_before'])
        self.assertIn('eliminate_identity', [p['name'] for p in opt['passes']])

        rep = scs4onnx_c.optimize(self.model('opt_identity.onnx'), os.path.join(self.py, 'only.onnx'),
                                  passes='eliminate_deadend', skip=[])
        self.assertEqual([p['name'] for p in rep['optimize']['passes']], ['eliminate_deadend'])
        text = scs4onnx_c.format_report(rep)
        self.assertIn('INFO: passes: eliminate_deadend\n', text)
        self.assertNotIn('constants studied', text)

    def test_optimize_fold_flags(self):
        """fold_grow and fold_size_limit reach the library as the tools' --fold-grow and --fold-size-limit."""
        src = self.model('fold_rotary.onnx')
        folded = {}
        for name, kw, flags in (('plain.onnx', {}, []),
                                ('grow.onnx', {'fold_grow': True}, ['--fold-grow']),
                                ('tiny.onnx', {'fold_grow': True, 'fold_size_limit': '16'},
                                 ['--fold-grow', '--fold-size-limit', '16'])):
            rep = scs4onnx_c.optimize(src, os.path.join(self.py, name), **kw)
            cli('optimize', src, os.path.join(self.cli, name), *flags)
            folded[name] = len([c for c in rep['optimize']['changes'] if c['pass'] == 'fold_constants'])
        self.assertLess(folded['plain.onnx'], folded['grow.onnx'], folded)   # the table itself grows the model
        self.assertLess(folded['tiny.onnx'], folded['grow.onnx'], folded)
        self.assertSameFolders(self.py, self.cli)
        with self.assertRaises(ValueError):
            scs4onnx_c.optimize(src, os.path.join(self.py, 'x.onnx'), fold_size_limit='lots')

    def test_input_shape_and_write_shapes(self):
        """input_shape and write_shapes reach the library as the tool's --input-shape and --write-shapes."""
        src = self.model('fold_dynamic.onnx')
        rep = scs4onnx_c.optimize(src, os.path.join(self.py, 'd.onnx'), input_shape={'X': [2, 3, 4]},
                                  write_shapes=True)
        cli('optimize', src, os.path.join(self.cli, 'd.onnx'), '--input-shape', 'X=2,3,4', '--write-shapes')
        m = onnx.load(os.path.join(self.py, 'd.onnx'))
        self.assertEqual(len(m.graph.node), 2, rep['optimize'])
        self.assertEqual([d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim], [2, 3, 4])
        self.assertEqual([vi.name for vi in m.graph.value_info], ['r'])
        self.assertSameFolders(self.py, self.cli)
        with self.assertRaises(scs4onnx_c.Error):
            scs4onnx_c.optimize(src, os.path.join(self.py, 'x.onnx'), input_shape=['Q=1'])

    def test_input_shape_and_write_shapes_with_optimize(self):
        """shrink() and big() take input_shape and write_shapes as the tools take them with --optimize."""
        src = self.model('fold_dynamic.onnx')
        for fn, tool in ((scs4onnx_c.shrink, 'shrink'), (scs4onnx_c.big, 'big')):
            fn(src, os.path.join(self.py, tool + '.onnx'), optimize=True, input_shape={'X': [2, 3, 4]},
               write_shapes=True)
            cli(tool, src, os.path.join(self.cli, tool + '.onnx'), '--optimize', '--input-shape', 'X=2,3,4',
                '--write-shapes')
            m = onnx.load(os.path.join(self.py, tool + '.onnx'))
            self.assertEqual([d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim], [2, 3, 4], tool)
            self.assertEqual([(vi.name, [d.dim_value for d in vi.type.tensor_type.shape.dim])
                              for vi in m.graph.value_info], [('r', [1, 24])], tool)
        self.assertSameFolders(self.py, self.cli)

    def test_fold_inexact(self):
        """fold_inexact reaches the library as the tools' --fold-inexact, in optimize(), shrink() and big()."""
        src = self.model('fold_inexact.onnx')
        for fn, kw, flags in ((scs4onnx_c.optimize, {}, ['optimize']),
                              (scs4onnx_c.shrink, {'optimize': True}, ['shrink', '--optimize']),
                              (scs4onnx_c.big, {'optimize': True}, ['big', '--optimize'])):
            for inexact in (False, True):
                name = '%s_%d.onnx' % (flags[0], inexact)
                rep = fn(src, os.path.join(self.py, name), fold_inexact=inexact, **kw)
                cli(flags[0], src, os.path.join(self.cli, name), *(flags[1:] + (['--fold-inexact'] if inexact else [])))
                nodes = len(onnx.load(os.path.join(self.py, name)).graph.node)
                self.assertEqual(nodes, 10 if inexact else 19, (name, rep['optimize']))
        self.assertSameFolders(self.py, self.cli)

    def test_shrink_report(self):
        rep = scs4onnx_c.shrink(self.model('external.onnx'), os.path.join(self.py, 'out.onnx'), external_data=True)
        cli('shrink', self.model('external.onnx'), os.path.join(self.cli, 'out.onnx'), '--external-data', '--json',
            os.path.join(self.tmp, 'cli.json'))
        self.assertTrue(rep['external_data'])
        self.assertTrue(rep['groups'])
        self.assertEqual(len(os.listdir(self.py)), 2)    # out.onnx and its data file
        self.assertSameFolders(self.py, self.cli)
        with open(os.path.join(self.tmp, 'cli.json')) as f:
            want = json.load(f)
        # the data files, each in its own run's folder
        self.assertEqual([os.path.basename(d['name']) for d in rep.pop('data_files')],
                         [os.path.basename(d['name']) for d in want.pop('data_files')])
        for r in (rep, want):   # times, and the process's I/O (the CLI's start-up reads too)
            for key in ('summary', 'seconds', 'stages', 'bytes_read', 'bytes_written', 'bytes_kernel_copied',
                        'bytes_compared_mapped'):
                r.pop(key, None)
        self.assertEqual(rep, want)

    def test_max_data_file_size(self):
        src = self.model('external.onnx')
        rep = scs4onnx_c.shrink(src, os.path.join(self.py, 'out.onnx'), max_data_file_size='4K')
        cli('shrink', src, os.path.join(self.cli, 'out.onnx'), '--max-data-file-size', '4K')
        self.assertEqual([os.path.basename(d['name'])[-20:] for d in rep['data_files']],
                         ['-00001-of-00002.data', '-00002-of-00002.data'])
        self.assertEqual(sorted(os.listdir(self.py)), ['out.onnx'] + [os.path.basename(d['name'])
                                                                     for d in rep['data_files']])
        self.assertSameFolders(self.py, self.cli)
        with self.assertRaises(scs4onnx_c.Error):
            scs4onnx_c.shrink(src, os.path.join(self.py, 'out2.onnx'), max_data_file_size=4095)


def load_tests(loader, tests, pattern):
    """The layout and setup first: a struct that does not match would crash later calls."""
    suite = unittest.TestSuite([loader.loadTestsFromTestCase(TestSetup)])
    for case in (TestShrinking, TestPathFunctions, TestErrors):
        suite.addTests(loader.loadTestsFromTestCase(case))
    return suite


if __name__ == '__main__':
    unittest.main(verbosity=2)
