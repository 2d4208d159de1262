#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate deterministic test ONNX models for scs4onnx-c.

Usage:
  gen-model.py KIND OUT.onnx [options]

Kinds:
  gmflow   ~300 MB inline model shaped like an optical-flow model: six copies of
           an [8,HW,HW] float32 0/-100 attention mask, duplicated [HW,HW] and
           [1,HW] tensors, duplicated scalars and Reshape shape constants.
           Deduplication shrinks it to well under 25 % of its size.
  llm      exported-LLM-like model of about --size bytes (default 3G): per-layer
           distinct [H,H] weights plus per-layer COPIES of the causal mask,
           rotary cos/sin tables, norm weights, a scale scalar and Reshape
           shape constants; tied (identical) [V,H] embeddings used by Gather
           and by Gemm(transB=1).  --big-tensor SIZE adds one [N,H] tensor of
           about SIZE bytes (used by a Gather).  Inline unless --external.
           --tied-transposed stores the output projection as [H,V], the
           embedding transposed, read by a MatMul (an export's constant
           folding of a tied weight).
  inline   the llm kind, always inline (a single .onnx, default --size 2.3G,
           i.e. larger than the 2 GiB protobuf limit).
  many     --count N (default 4000) small DISTINCT float32 [4] constants, each
           Added in a chain to input X [4]; nothing is duplicated.  A chain of
           N nodes: the split benchmark's input.
  dups     --count N (default 4000) float32 [4] constants in --groups G
           (default 1) groups of equal values (constant i in group i mod G),
           each Added in a chain to input X [4]: dedup keeps const_0 ..
           const_<G-1> and removes the other N - G.
  gpt      GPT-like decoder with a tied embedding saved transposed: input_ids
           (int64 [B, S], or [B*S] with --rank 2) -> Gather of wte [V, D] ->
           --layers blocks h + MatMul(h, W_l) (distinct [D, D] weights) ->
           logits = MatMul(h, wte_T) where wte_T [D, V] holds wte's values
           transposed (another initializer).  --variant writes the rewrite
           candidates instead: transpose (no wte_T initializer; a Transpose
           node, perm [1, 0], of wte) or gemm (Gemm(h, wte, transB=1), with
           Reshape to [B*S, D] and back for rank 3).  --size scales V.  Over
           2 GiB the model is written with --external data (implied).

Options:
  --size SIZE        total file size target (K/M/G/T suffixes, binary units,
                     decimals allowed: 50M, 2.3G); llm/inline only; includes
                     --big-tensor
  --big-tensor SIZE  llm/inline: add one single tensor of about SIZE bytes
  --seed N           RNG seed (default 0); same arguments -> identical bytes
  --external         write tensors of >= --ext-threshold bytes to a separate
                     data file (default OUT.onnx.data), offsets 4096-aligned
  --data NAME        external data file name, relative to the model's folder
                     (implies --external)
  --ext-threshold B  smallest tensor (bytes) to move to external data (1024;
                     at 32 or less the Reshape shape constants go external
                     too, and ONNX Runtime then refuses the model)
  --tied-transposed  llm/inline: lm_head.weight is [H,V], the embedding
                     transposed, read by MatMul instead of Gemm(transB=1)
  --layers/--hidden/--vocab/--seq  override the llm dimensions
  --vocab/--width/--layers/--seq/--batch  gpt dimensions (32000, 1024, 2, 32, 1)
  --dtype T          gpt: float32 (default) or float16
  --opset N          gpt: 17 (default, IR 8) or 21 (IR 10)
  --rank R           gpt: activations [B, S, D] (3, default) or [B*S, D] (2)
  --variant V        gpt: original (default), transpose or gemm
  --hw N             gmflow spatial size (default 1200)
  --count N          many/dups: number of constants (default 4000)
  --groups G         dups: number of distinct values (default 1)

The protobuf wire format is written directly and streamed: every message size
is computed before writing, tensor payloads are produced and written in pieces
of a few MiB, so memory stays small whatever the model size.  Models use
ir_version 8 and opset 13 of the default domain (gpt: --opset); every initializer is used
by a node, all shapes are static (run with all-zero inputs of the declared
input shapes).  Initializers whose content is the same are byte-identical;
all others differ.  One summary line goes to stderr at the end:
  gen-model: KIND: wrote OUT.onnx (N bytes)[ + DATA (N bytes)]; I initializers
  (D distinct), payload P bytes (Q distinct)
where Q is the payload left after an ideal dedup of identical initializers.

Note: an inline model over 2 GiB (kind inline) cannot be parsed by protobuf
based tools (onnx.checker, ONNX Runtime); that is what it is for.
"""

import argparse
import math
import os
import struct
import sys

import numpy as np

CHUNK = 4 << 20          # bytes per generated payload piece
ALIGN = 4096             # external data offset alignment
IR_VERSION = 8
OPSET = 13
PRODUCER = "scs4onnx-c gen-model"

# TensorProto.DataType
FLOAT, INT64, FLOAT16 = 1, 7, 10
NP_OF = {FLOAT: np.dtype("<f4"), INT64: np.dtype("<i8"), FLOAT16: np.dtype("<f2")}

# AttributeProto.AttributeType
A_FLOAT, A_INT, A_STRING, A_INTS = 1, 2, 3, 7


# --------------------------------------------------------------------------
# protobuf wire format
# --------------------------------------------------------------------------

def varint(n):
    if n < 0:
        n += 1 << 64            # int64 negative: ten-byte two's complement
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def tag(field, wire_type):
    return varint((field << 3) | wire_type)


class Lazy:
    """A length-delimited payload of known size produced in pieces."""

    __slots__ = ("nbytes", "pieces")

    def __init__(self, nbytes, pieces):
        self.nbytes = nbytes
        self.pieces = pieces        # callable -> iterator of buffers

    def write_to(self, out):
        n = 0
        for p in self.pieces():
            mv = memoryview(p).cast("B")
            out.write(mv)
            n += len(mv)
        if n != self.nbytes:
            raise AssertionError("payload produced %d bytes, expected %d"
                                 % (n, self.nbytes))


class Msg:
    """A protobuf message as a list of encoded parts and sub-messages."""

    __slots__ = ("parts", "_n")

    def __init__(self):
        self.parts = []
        self._n = None

    def varint(self, field, v):
        self.parts.append(tag(field, 0) + varint(v))
        return self

    def float(self, field, v):
        self.parts.append(tag(field, 5) + struct.pack("<f", v))
        return self

    def bytes(self, field, b):
        if isinstance(b, str):
            b = b.encode("utf-8")
        self.parts.append(tag(field, 2) + varint(len(b)) + b)
        return self

    def sub(self, field, m):
        """Append a sub-message (Msg) or a streamed payload (Lazy)."""
        self.parts.append((field, m))
        return self

    @property
    def nbytes(self):
        if self._n is None:
            n = 0
            for p in self.parts:
                if isinstance(p, bytes):
                    n += len(p)
                else:
                    f, m = p
                    s = m.nbytes
                    n += len(tag(f, 2)) + len(varint(s)) + s
            self._n = n
        return self._n

    def write_to(self, out):
        for p in self.parts:
            if isinstance(p, bytes):
                out.write(p)
            else:
                f, m = p
                out.write(tag(f, 2) + varint(m.nbytes))
                m.write_to(out)


class Out:
    """Buffered file writer that counts bytes; writes to NAME.tmp, renames."""

    def __init__(self, path):
        self.path = path
        self.tmp = path + ".tmp"
        self.f = open(self.tmp, "wb", buffering=1 << 20)
        self.n = 0

    def write(self, b):
        self.f.write(b)
        self.n += len(b)

    def pad_to(self, off):
        gap = off - self.n
        if gap < 0:
            raise AssertionError("negative padding")
        while gap:
            k = min(gap, CHUNK)
            self.write(bytes(k))
            gap -= k

    def close(self):
        self.f.close()
        os.replace(self.tmp, self.path)

    def abort(self):
        try:
            self.f.close()
        finally:
            try:
                os.unlink(self.tmp)
            except OSError:
                pass


# --------------------------------------------------------------------------
# graph building
# --------------------------------------------------------------------------

class Tensor:
    """An initializer: its content is identified by `ident`; two tensors with
    the same ident (and dtype/dims) have identical bytes."""

    __slots__ = ("name", "dtype", "dims", "ident", "pieces", "nbytes")

    def __init__(self, name, dtype, dims, ident, pieces):
        self.name = name
        self.dtype = dtype
        self.dims = list(dims)
        self.ident = (ident, dtype, tuple(dims))
        self.pieces = pieces
        self.nbytes = int(np.prod(self.dims, dtype=np.int64)) * NP_OF[dtype].itemsize


class Graph:
    def __init__(self, name):
        self.name = name
        self.nodes = []
        self.inits = []
        self.inputs = []
        self.outputs = []
        self._names = set()
        self._uid = 0
        self.ir_version = IR_VERSION
        self.opset = OPSET

    def _fresh(self, base):
        while True:
            self._uid += 1
            n = "%s_%d" % (base, self._uid)
            if n not in self._names:
                self._names.add(n)
                return n

    def init(self, name, dtype, dims, ident, pieces):
        if name in self._names:
            raise AssertionError("duplicate name " + name)
        self._names.add(name)
        self.inits.append(Tensor(name, dtype, dims, ident, pieces))
        return name

    def init_array(self, name, arr, ident=None):
        """Small initializer from an explicit array (identity = its bytes)."""
        dtype = {np.dtype("float32"): FLOAT, np.dtype("int64"): INT64}[arr.dtype]
        a = np.ascontiguousarray(arr, dtype=NP_OF[dtype])
        data = a.tobytes()
        if ident is None:
            ident = ("bytes", data)
        return self.init(name, dtype, a.shape, ident, lambda d=data: iter((d,)))

    def input(self, name, dtype, shape):
        self._names.add(name)
        self.inputs.append((name, dtype, shape))
        return name

    def output(self, name, dtype, shape):
        self.outputs.append((name, dtype, shape))

    def node(self, op, inputs, out=None, **attrs):
        if out is None:
            out = self._fresh(op.lower())
        else:
            if out in self._names:
                raise AssertionError("duplicate name " + out)
            self._names.add(out)
        self.nodes.append((op, list(inputs), out, attrs, "n%d_%s" % (len(self.nodes), op)))
        return out


def pieces_const_rows(row_fn, nrows, row_bytes):
    """Payload built row block by row block: row_fn(r0, r1) -> array."""
    step = max(1, CHUNK // max(1, row_bytes))

    def gen():
        for r0 in range(0, nrows, step):
            yield row_fn(r0, min(nrows, r0 + step))
    return gen


def pieces_uniform(seed_words, count, scale):
    """`count` float32 values uniform in [-scale, scale), seeded by the tuple
    `seed_words`; produced in fixed-size pieces, so the stream is
    deterministic."""
    per = CHUNK // 4

    def gen():
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(list(seed_words))))
        left = count
        while left:
            k = min(left, per)
            a = rng.random(k, dtype=np.float32)
            a -= np.float32(0.5)
            a *= np.float32(2.0 * scale)
            left -= k
            yield a
    return gen


def pieces_transposed(pieces, rows, cols):
    """The [rows, cols] float32 payload of `pieces` transposed ([cols, rows]),
    in row blocks: the whole matrix is held once (rows * cols * 4 bytes)."""
    def gen():
        m = np.concatenate([np.asarray(p, dtype=np.float32) for p in pieces()]).reshape(rows, cols)
        step = max(1, CHUNK // (4 * rows))
        for r0 in range(0, cols, step):
            yield np.ascontiguousarray(m[:, r0:r0 + step].T)
    return gen


# --------------------------------------------------------------------------
# serialisation
# --------------------------------------------------------------------------

def attr_msg(name, v):
    a = Msg().bytes(1, name)
    if isinstance(v, bool) or isinstance(v, (int, np.integer)):
        a.varint(3, int(v)).varint(20, A_INT)
    elif isinstance(v, float):
        a.float(2, v).varint(20, A_FLOAT)
    elif isinstance(v, str):
        a.bytes(4, v).varint(20, A_STRING)
    elif isinstance(v, (list, tuple)):
        for x in v:               # proto2: repeated int64 is not packed
            a.varint(8, int(x))
        a.varint(20, A_INTS)
    else:
        raise TypeError(v)
    return a


def value_info(name, elem, shape):
    sh = Msg()
    for d in shape:
        dim = Msg()
        if isinstance(d, str):
            dim.bytes(2, d)
        else:
            dim.varint(1, d)
        sh.sub(1, dim)
    tt = Msg().varint(1, elem).sub(2, sh)
    tp = Msg().sub(1, tt)
    return Msg().bytes(1, name).sub(2, tp)


def tensor_msg(t, ext=None):
    m = Msg()
    for d in t.dims:
        m.varint(1, d)
    m.varint(2, t.dtype)
    m.bytes(8, t.name)
    if ext is None:
        m.sub(9, Lazy(t.nbytes, t.pieces))
    else:
        location, offset = ext
        for k, v in (("location", location), ("offset", str(offset)),
                     ("length", str(t.nbytes))):
            m.sub(13, Msg().bytes(1, k).bytes(2, v))
        m.varint(14, 1)           # data_location = EXTERNAL
    return m


def model_msg(g, ext_map):
    gm = Msg()
    for op, ins, out, attrs, nname in g.nodes:
        n = Msg()
        for i in ins:
            n.bytes(1, i)
        n.bytes(2, out)
        n.bytes(3, nname)
        n.bytes(4, op)
        for k in sorted(attrs):
            n.sub(5, attr_msg(k, attrs[k]))
        gm.sub(1, n)
    gm.bytes(2, g.name)
    for t in g.inits:
        gm.sub(5, tensor_msg(t, ext_map.get(t.name)))
    for name, dt, shape in g.inputs:
        gm.sub(11, value_info(name, dt, shape))
    for name, dt, shape in g.outputs:
        gm.sub(12, value_info(name, dt, shape))

    m = Msg()
    m.varint(1, g.ir_version)
    m.bytes(2, PRODUCER)
    m.bytes(3, "1")
    m.sub(7, gm)
    m.sub(8, Msg().bytes(1, "").varint(2, g.opset))
    return m


def save(g, out_path, external, data_name, threshold):
    ext_map = {}
    ext_list = []
    data_path = None
    if external:
        if data_name is None:
            data_name = os.path.basename(out_path) + ".data"
        data_path = os.path.join(os.path.dirname(out_path) or ".", data_name)
        os.makedirs(os.path.dirname(data_path) or ".", exist_ok=True)
        off = 0
        for t in g.inits:
            if t.nbytes >= threshold:
                off = (off + ALIGN - 1) // ALIGN * ALIGN
                ext_map[t.name] = (data_name, off)
                ext_list.append((t, off))
                off += t.nbytes

    m = model_msg(g, ext_map)
    expected = m.nbytes
    outs = []
    try:
        o = Out(out_path)
        outs.append(o)
        m.write_to(o)
        if o.n != expected:
            raise AssertionError("wrote %d bytes, computed %d" % (o.n, expected))
        if ext_list:
            d = Out(data_path)
            outs.append(d)
            for t, off in ext_list:
                d.pad_to(off)
                Lazy(t.nbytes, t.pieces).write_to(d)
        for x in outs:
            x.close()
    except BaseException:
        for x in outs:
            x.abort()
        raise
    sizes = [(out_path, os.path.getsize(out_path))]
    if ext_list:
        sizes.append((data_path, os.path.getsize(data_path)))
    return sizes


# --------------------------------------------------------------------------
# model kinds
# --------------------------------------------------------------------------

def build_gmflow(a):
    hw = a.hw
    nb = 8
    g = Graph("gmflow_like")
    x = g.input("X", FLOAT, [nb, hw, hw])
    idx = np.arange(hw)

    def mask_pieces():
        # one [hw, hw] plane at a time: plane b uses windows of size blk
        # (shifted by half a window on odd planes); planes >= 4 are also
        # causal.  0 = attend, -100 = masked.
        for b in range(nb):
            blk = max(1, hw // (2 + b % 4))
            shift = blk // 2 if b % 2 else 0
            win = (idx + shift) // blk
            m = np.where(win[:, None] == win[None, :], np.float32(0), np.float32(-100))
            if b >= 4:
                m = np.where(idx[None, :] <= idx[:, None], m, np.float32(-100))
            yield np.ascontiguousarray(m, dtype="<f4")

    masks = [g.init("attn_mask_%d" % i, FLOAT, [nb, hw, hw], ("gmask", hw), mask_pieces)
             for i in range(6)]
    pos = [g.init("pos_embed_%d" % i, FLOAT, [hw, hw], ("pos", a.seed, hw),
                  pieces_uniform((a.seed, 101, hw), hw * hw, 0.5))
           for i in range(3)]
    bias = [g.init("bias_%d" % i, FLOAT, [1, hw], ("bias", a.seed, hw),
                   pieces_uniform((a.seed, 102, hw), hw, 0.1))
            for i in range(2)]
    distinct = g.init("proj_bias", FLOAT, [hw], ("dbias", a.seed, hw),
                      pieces_uniform((a.seed, 103, hw), hw, 0.1))
    half = [g.init_array("half_%d" % i, np.array(0.5, np.float32)) for i in range(4)]
    one = [g.init_array("one_%d" % i, np.array(1.0, np.float32)) for i in range(3)]
    flat = [g.init_array("shape_flat_%d" % i, np.array([nb, -1], np.int64)) for i in range(2)]
    back = [g.init_array("shape_back_%d" % i, np.array([nb, hw, hw], np.int64)) for i in range(2)]

    h = x
    for i in range(6):
        h = g.node("Add", [h, masks[i]])
        if i < 3:
            h = g.node("Mul", [h, pos[i]])
        if i < 4:
            h = g.node("Mul", [h, half[i]])
        if i < 2:
            h = g.node("Add", [h, bias[i]])
            h = g.node("Reshape", [h, flat[i]])
            h = g.node("Reshape", [h, back[i]])
        if i < 3:
            h = g.node("Add", [h, one[i]])
    g.node("Add", [h, distinct], out="Y")
    g.output("Y", FLOAT, [nb, hw, hw])
    return g


def llm_dims(a):
    total = a.size
    big = a.big_tensor or 0
    S = a.seq or 32
    rem = max(total - big, 1 << 20)
    H = a.hidden
    if H is None:
        H = 64
        while H < 2048 and 4 * (2 * H) ** 2 <= rem / 16:
            H *= 2
    V = a.vocab
    if V is None:
        V = max(64, int(0.1 * rem / (8 * H)) // 64 * 64)
    per_layer = 4 * H * H + 8 * S * H + 4 * S * S + 4 * H + 4 + 8 * 4 + 8 * 3
    L = a.layers
    if L is None:
        L = max(1, int(round((rem - 8 * V * H - 8 * S) / per_layer)))
    N = 0
    if big:
        N = max(1, int(round(big / (4 * H))))
    return S, H, V, L, N


def build_llm(a):
    S, H, V, L, N = llm_dims(a)
    seed = a.seed
    g = Graph("llm_like")
    x = g.input("X", FLOAT, [1, S, H])

    # tied embeddings: two identical [V, H] tensors
    emb = pieces_uniform((seed, 1), V * H, 0.02)
    e_in = g.init("model.embed_tokens.weight", FLOAT, [V, H], ("emb", seed, V, H), emb)
    if a.tied_transposed:
        e_out = g.init("lm_head.weight", FLOAT, [H, V], ("emb_t", seed, V, H), pieces_transposed(emb, V, H))
    else:
        e_out = g.init("lm_head.weight", FLOAT, [V, H], ("emb", seed, V, H), emb)
    ids = (np.arange(S, dtype=np.int64) * 7919 + seed) % V
    ids_t = g.init_array("input_ids_const", ids.reshape(1, S))
    h = g.node("Gather", [e_in, ids_t], axis=0)          # [1,S,H]
    h = g.node("Add", [x, h])

    if N:
        big = g.init("big.weight", FLOAT, [N, H], ("big", seed, N, H),
                     pieces_uniform((seed, 3), N * H, 0.02))
        bidx = np.linspace(0, N - 1, S).round().astype(np.int64)
        bidx_t = g.init_array("big_indices", bidx.reshape(1, S))
        bh = g.node("Gather", [big, bidx_t], axis=0)     # [1,S,H]
        h = g.node("Add", [h, bh])

    # per-layer copies of identical constants
    mask = np.triu(np.full((S, S), np.finfo(np.float32).min, np.float32), 1).reshape(1, 1, S, S)
    pos = np.arange(S, dtype=np.float64)[:, None]
    inv = 10000.0 ** (-(np.arange(H) // 2 * 2) / H)
    ang = pos * inv[None, :]
    cos_rows = lambda r0, r1: np.cos(ang[r0:r1]).astype("<f4")
    sin_rows = lambda r0, r1: np.sin(ang[r0:r1]).astype("<f4")
    cos_p = pieces_const_rows(cos_rows, S, 4 * H)
    sin_p = pieces_const_rows(sin_rows, S, 4 * H)
    ones = np.ones(H, np.float32)
    scale = np.array(1.0 / math.sqrt(H), np.float32)
    shp4 = np.array([1, 1, S, H], np.int64)
    shp3 = np.array([1, S, -1], np.int64)

    for l in range(L):
        p = "model.layers.%d." % l
        nw = g.init_array(p + "input_layernorm.weight", ones)
        w = g.init(p + "self_attn.proj.weight", FLOAT, [H, H], ("w", seed, l),
                   pieces_uniform((seed, 2, l), H * H, 1.0 / math.sqrt(H)))
        cos = g.init(p + "rotary.cos_cached", FLOAT, [S, H], ("cos", S, H), cos_p)
        sin = g.init(p + "rotary.sin_cached", FLOAT, [S, H], ("sin", S, H), sin_p)
        mk = g.init_array(p + "causal_mask", mask)
        sc = g.init_array(p + "attn_scale", scale)
        s4 = g.init_array(p + "shape_4d", shp4)
        s3 = g.init_array(p + "shape_3d", shp3)

        hn = g.node("Mul", [h, nw])
        t = g.node("MatMul", [hn, w])                    # [1,S,H]
        c = g.node("Mul", [t, cos])
        s = g.node("Mul", [t, sin])
        r = g.node("Add", [c, s])
        r4 = g.node("Reshape", [r, s4])                  # [1,1,S,H]
        rt = g.node("Transpose", [r4], perm=[0, 1, 3, 2])  # [1,1,H,S]
        att = g.node("MatMul", [r4, rt])                 # [1,1,S,S]
        att = g.node("Mul", [att, sc])
        att = g.node("Add", [att, mk])
        att = g.node("Softmax", [att], axis=-1)
        ctx = g.node("MatMul", [att, r4])                # [1,1,S,H]
        ctx = g.node("Reshape", [ctx, s3])               # [1,S,H]
        h = g.node("Add", [h, ctx])

    s2 = g.init_array("final_shape", np.array([S, H], np.int64))
    h2 = g.node("Reshape", [h, s2])                      # [S,H]
    if a.tied_transposed:
        g.node("MatMul", [h2, e_out], out="logits")      # [S,V]
    else:
        g.node("Gemm", [h2, e_out], out="logits", transB=1)  # [S,V]
    g.output("logits", FLOAT, [S, V])
    return g


def build_many(a, same=False):
    n = a.count
    g = Graph("duplicate_constants" if same else "many_constants")
    x = g.input("X", FLOAT, [4])
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([a.seed, 7])))
    vals = rng.standard_normal((n, 4)).astype(np.float32)
    if same:
        vals[:] = vals[np.arange(n) % a.groups]       # row i equals row i mod G
    else:
        vals[:, 0] = np.arange(n, dtype=np.float32)   # makes every row distinct
    h = x
    for i in range(n):
        c = g.init_array("const_%d" % i, vals[i])
        h = g.node("Add", [h, c], out="Y" if i == n - 1 else None)
    if n == 0:
        g.node("Identity", [x], out="Y")
    g.output("Y", FLOAT, [4])
    return g


def hashed_values(idx, seed_words, scale, dt):
    """Values uniform in [-scale, scale) that depend only on the element
    index `idx` (uint64 array) and `seed_words`: any block of a tensor, or of
    its transpose, can be produced on its own."""
    mix = np.uint64(0)
    for w in seed_words:
        mix = np.uint64((int(mix) * 0x100000001B3 + int(w) + 0x9E3779B9) % (1 << 64))
    x = idx.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15) + mix
    x ^= x >> np.uint64(33)
    x *= np.uint64(0xFF51AFD7ED558CCD)
    x ^= x >> np.uint64(33)
    x *= np.uint64(0xC4CEB9FE1A85EC53)
    x ^= x >> np.uint64(33)
    u = (x >> np.uint64(40)).astype(np.float64) * (1.0 / (1 << 24))
    return ((u - 0.5) * (2.0 * scale)).astype(NP_OF[dt])


def pieces_hashed(seed_words, rows, cols, scale, dt, transposed=False):
    """A [rows, cols] tensor of hashed_values, row block by row block.  With
    `transposed`, the tensor is the transpose of the [cols, rows] one of the
    same seed: element (r, c) is element (c, r) of that one, bit for bit."""
    def block(r0, r1):
        r = np.arange(r0, r1, dtype=np.uint64)[:, None]
        c = np.arange(cols, dtype=np.uint64)[None, :]
        idx = c * np.uint64(rows) + r if transposed else r * np.uint64(cols) + c
        return hashed_values(idx, seed_words, scale, dt)
    return pieces_const_rows(block, rows, cols * NP_OF[dt].itemsize)


GPT_VARIANTS = ("original", "transpose", "gemm")


def gpt_dims(a):
    """(B, S, V, D, L): --vocab scaled to reach --size where it is given."""
    es = NP_OF[FLOAT16 if a.dtype == "float16" else FLOAT].itemsize
    D = a.width or 1024
    L = a.layers or 2
    B = a.batch or 1
    S = a.seq or 32
    V = a.vocab
    if V is None:
        if a.size is None:
            V = 32000
        else:
            V = max(64, (a.size - L * D * D * es) // (2 * D * es) // 64 * 64)
    return B, S, V, D, L


def build_gpt(a):
    B, S, V, D, L = gpt_dims(a)
    dt = FLOAT16 if a.dtype == "float16" else FLOAT
    seed = a.seed
    g = Graph("gpt_like")
    g.opset = a.opset
    g.ir_version = 10 if a.opset >= 21 else 8
    ids_shape = [B, S] if a.rank == 3 else [B * S]
    out_shape = ids_shape + [V]
    ids = g.input("input_ids", INT64, ids_shape)

    # the tied embedding: wte [V, D] read by Gather; the original also holds
    # it transposed, wte_T [D, V], as the output projection's weight
    wte = g.init("transformer.wte.weight", dt, [V, D], ("wte", seed, V, D, dt),
                 pieces_hashed((seed, 1), V, D, 0.02, dt))
    h = g.node("Gather", [wte, ids], axis=0)
    for l in range(L):
        w = g.init("transformer.h.%d.mlp.weight" % l, dt, [D, D], ("w", seed, l, D, dt),
                   pieces_hashed((seed, 2, l), D, D, 0.5 / math.sqrt(D), dt))
        t = g.node("MatMul", [h, w])
        h = g.node("Add", [h, t])
    if a.variant == "original":
        wt = g.init("lm_head.weight", dt, [D, V], ("wte_T", seed, V, D, dt),
                    pieces_hashed((seed, 1), D, V, 0.02, dt, transposed=True))
        g.node("MatMul", [h, wt], out="logits")
    elif a.variant == "transpose":
        wt = g.node("Transpose", [wte], out="lm_head.weight", perm=[1, 0])
        g.node("MatMul", [h, wt], out="logits")
    else:
        if a.rank == 3:
            flat = g.init_array("lm_head.flat_shape", np.array([B * S, D], np.int64))
            back = g.init_array("lm_head.out_shape", np.array(out_shape, np.int64))
            h = g.node("Reshape", [h, flat])
            y = g.node("Gemm", [h, wte], transB=1)
            g.node("Reshape", [y, back], out="logits")
        else:
            g.node("Gemm", [h, wte], out="logits", transB=1)
    g.output("logits", dt, out_shape)
    return g


# --------------------------------------------------------------------------
# command line
# --------------------------------------------------------------------------

def parse_size(s):
    t = s.strip().upper()
    for suf in ("IB", "B"):
        if t.endswith(suf) and len(t) > len(suf) and t[-len(suf) - 1] in "KMGT":
            t = t[:-len(suf)]
            break
    mult = 1
    if t and t[-1] in "KMGT":
        mult = 1 << (10 * ("KMGT".index(t[-1]) + 1))
        t = t[:-1]
    try:
        v = float(t)
    except ValueError:
        raise argparse.ArgumentTypeError("bad size: %r" % s)
    if v < 0 or not math.isfinite(v):
        raise argparse.ArgumentTypeError("bad size: %r" % s)
    return int(v * mult)


def positive_int(s):
    v = int(s)
    if v <= 0:
        raise argparse.ArgumentTypeError("must be > 0: %r" % s)
    return v


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="gen-model.py",
        description="Generate deterministic test ONNX models (streamed wire format).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Kinds:" + __doc__.split("Kinds:", 1)[1].split("Options:", 1)[0])
    ap.add_argument("kind", choices=["gmflow", "llm", "inline", "many", "dups", "gpt"])
    ap.add_argument("out", metavar="OUT.onnx")
    ap.add_argument("--size", type=parse_size, default=None,
                    help="target total size (llm default 3G, inline 2.3G)")
    ap.add_argument("--big-tensor", type=parse_size, default=None,
                    help="llm/inline: add one tensor of about SIZE bytes")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--external", action="store_true",
                    help="write large tensors to an external data file")
    ap.add_argument("--data", default=None, metavar="NAME",
                    help="external data file name (implies --external)")
    ap.add_argument("--ext-threshold", type=parse_size, default=1024,
                    help="min tensor bytes to externalise (default 1024)")
    ap.add_argument("--tied-transposed", action="store_true",
                    help="llm/inline: lm_head.weight is the embedding transposed, read by MatMul")
    ap.add_argument("--layers", type=positive_int)
    ap.add_argument("--hidden", type=positive_int)
    ap.add_argument("--vocab", type=positive_int)
    ap.add_argument("--seq", type=positive_int)
    ap.add_argument("--width", type=positive_int, help="gpt: embedding width D")
    ap.add_argument("--batch", type=positive_int, help="gpt: batch B")
    ap.add_argument("--dtype", choices=["float32", "float16"], default=None, help="gpt: element type")
    ap.add_argument("--opset", type=int, choices=[17, 21], default=None, help="gpt: opset")
    ap.add_argument("--rank", type=int, choices=[2, 3], default=None, help="gpt: activation rank")
    ap.add_argument("--variant", choices=GPT_VARIANTS, default=None, help="gpt: the graph written")
    ap.add_argument("--hw", type=positive_int, default=1200, help="gmflow spatial size")
    ap.add_argument("--count", type=int, default=4000, help="many/dups: number of constants")
    ap.add_argument("--groups", type=positive_int, default=1, help="dups: number of distinct values")
    a = ap.parse_args(argv)

    if a.seed < 0 or a.seed >= 1 << 63:
        ap.error("--seed must be in [0, 2^63)")
    if a.data is not None:
        if os.path.isabs(a.data) or ".." in a.data.replace("\\", "/").split("/") or not a.data:
            ap.error("--data must be a relative path inside the model's folder")
        a.external = True
    if a.kind == "inline" and a.external:
        ap.error("kind 'inline' is always inline; use kind 'llm' with --external")
    gpt_only = ("width", "batch", "dtype", "opset", "rank", "variant")
    if a.kind in ("llm", "inline"):
        if a.size is None:
            a.size = parse_size("3G" if a.kind == "llm" else "2.3G")
    elif a.kind == "gpt":
        for opt in ("big_tensor", "hidden"):
            if getattr(a, opt) is not None:
                ap.error("--%s applies to llm/inline only" % opt.replace("_", "-"))
        a.dtype = a.dtype or "float32"
        a.opset = a.opset or 17
        a.rank = a.rank or 3
        a.variant = a.variant or "original"
    else:
        for opt in ("size", "big_tensor", "layers", "hidden", "vocab", "seq"):
            if getattr(a, opt) is not None:
                ap.error("--%s applies to llm/inline only" % opt.replace("_", "-"))
    if a.kind != "gpt":
        for opt in gpt_only:
            if getattr(a, opt) is not None:
                ap.error("--%s applies to gpt only" % opt)
    if a.tied_transposed and a.kind not in ("llm", "inline"):
        ap.error("--tied-transposed applies to llm/inline only")
    if a.kind != "dups" and a.groups != 1:
        ap.error("--groups applies to dups only")
    if a.kind in ("many", "dups") and a.count < 0:
        ap.error("--count must be >= 0")

    g = {"gmflow": build_gmflow, "llm": build_llm, "inline": build_llm,
         "many": build_many, "dups": lambda a: build_many(a, same=True),
         "gpt": build_gpt}[a.kind](a)
    if a.kind == "gpt" and not a.external and sum(t.nbytes for t in g.inits) > (2 << 30) - (16 << 20):
        a.external = True         # protobuf's 2 GiB limit: the data goes out
    sizes = save(g, a.out, a.external, a.data, a.ext_threshold)

    total = sum(t.nbytes for t in g.inits)
    seen = {}
    for t in g.inits:
        seen.setdefault(t.ident, t.nbytes)
    files = " + ".join("%s (%d bytes)" % (p, n) for p, n in sizes)
    sys.stderr.write(
        "gen-model: %s: wrote %s; %d initializers (%d distinct), payload %d bytes "
        "(%d distinct)\n" % (a.kind, files, len(g.inits), len(seen), total,
                             sum(seen.values())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
