"""Three 16-byte vector operations for the hot loops, with portable fallbacks.

Why they exist: the block writers in :mod:`trickenv.engine.kernels` turn card bitsets and
``played_by`` rows into bytes for every game on every step, and the random agent reads a
mask row per decision. Written as plain loops over 32 cards, LLVM unrolls them into 32
scalar shift/compare/store triples instead of vectorizing them (it vectorizes only loops
whose length it cannot see), which made those blocks 2-5x slower. These numba
``@intrinsic`` functions emit one 16-lane LLVM vector operation each, which LLVM lowers to
the target's vector instructions (SSE/AVX, NEON, ...):

* :func:`bits16`: ``out[g, i + k] = bit k of x`` for k < 16 (a bitset to bytes);
* :func:`equal16`: ``out[g, i + k] = (row[g, j + k] == value)`` for k < 16;
* :func:`nonzero16`: the bitset of ``arr[g, i + k] != 0`` for k < 16 (bytes to a bitset).

Each has a plain-numba twin (``*_portable``) with the same result; tests/test_simd.py checks
that they agree. ``TRICKENV_PORTABLE=1`` in the environment makes every user take the twins
(numba's on-disk cache does not see this switch: point ``NUMBA_CACHE_DIR`` at a fresh
directory when flipping it). ``nonzero16`` reads the compare result as an integer, whose bit
order follows the byte order, so big-endian machines always take its twin.

They take 2-D C-contiguous byte arrays (int8, uint8 or bool) and touch 16 bytes from
``[g, i]``; the caller keeps them inside the row.
"""

from __future__ import annotations

import os
import sys

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils, errors
from numba.extending import intrinsic

W = 16  # lanes (bytes) per operation
PORTABLE = os.environ.get("TRICKENV_PORTABLE", "") not in ("", "0")

_I8, _I16, _I32 = ir.IntType(8), ir.IntType(16), ir.IntType(32)


def _check_bytes(ty: types.Type, name: str) -> None:
    ok = (isinstance(ty, types.Array) and ty.ndim == 2 and ty.layout == "C"
          and ty.dtype in (types.int8, types.uint8, types.boolean))
    if not ok:
        raise errors.TypingError(f"{name} must be a 2-D C-contiguous int8, uint8 or bool array, got {ty}")


def _lanes_ptr(context, builder, arrty, arr, g, gty, i, ity):
    """Pointer to ``arr[g, i]`` as a pointer to 16 bytes (bounds-checked under NUMBA_BOUNDSCHECK)."""
    ary = context.make_array(arrty)(context, builder, arr)
    shape = cgutils.unpack_tuple(builder, ary.shape)
    g = context.cast(builder, g, gty, types.intp)
    i = context.cast(builder, i, ity, types.intp)
    if context.enable_boundscheck:
        cgutils.do_boundscheck(context, builder, builder.add(i, i.type(W - 1)), shape[1], 1)
    ptr = cgutils.get_item_pointer2(context, builder, data=ary.data, shape=shape,
                                    strides=cgutils.unpack_tuple(builder, ary.strides), layout=arrty.layout,
                                    inds=[g, i], wraparound=False, boundscheck=True)
    return builder.bitcast(ptr, ir.VectorType(_I8, W).as_pointer())


def _splat(builder, value, vty):
    v = builder.insert_element(ir.Constant(vty, ir.Undefined), value, ir.Constant(_I32, 0))
    return builder.shuffle_vector(v, ir.Constant(vty, ir.Undefined), ir.Constant(ir.VectorType(_I32, W), [0] * W))


@intrinsic
def bits16(typingctx, out, g, i, x):
    """out[g, i + k] = (x >> k) & 1 for k < 16, as one vector operation (x: an integer bitset)."""
    _check_bytes(out, "out")
    if not all(isinstance(t, types.Integer) for t in (g, i, x)):
        raise errors.TypingError("g, i and x must be integers")
    sig = types.void(out, g, i, x)

    def codegen(context, builder, signature, args):
        arrty, gty, ity, xty = signature.args
        ptr = _lanes_ptr(context, builder, arrty, args[0], args[1], gty, args[2], ity)
        x16 = builder.trunc(context.cast(builder, args[3], xty, types.uint64), _I16)
        vty = ir.VectorType(_I16, W)
        lanes = builder.and_(_splat(builder, x16, vty), ir.Constant(vty, [1 << k for k in range(W)]))
        on = builder.icmp_unsigned("!=", lanes, ir.Constant(vty, [0] * W))
        builder.store(builder.zext(on, ir.VectorType(_I8, W)), ptr).align = 1
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def equal16(typingctx, out, g, i, row, j, value):
    """out[g, i + k] = (row[g, j + k] == value) for k < 16, as one vector compare (value cast to a byte)."""
    _check_bytes(out, "out")
    _check_bytes(row, "row")
    if not all(isinstance(t, types.Integer) for t in (g, i, j, value)):
        raise errors.TypingError("g, i, j and value must be integers")
    sig = types.void(out, g, i, row, j, value)

    def codegen(context, builder, signature, args):
        outty, gty, ity, rowty, jty, vty = signature.args
        dst = _lanes_ptr(context, builder, outty, args[0], args[1], gty, args[2], ity)
        src = _lanes_ptr(context, builder, rowty, args[3], args[1], gty, args[4], jty)
        vals = builder.load(src)
        vals.align = 1
        v8 = builder.trunc(context.cast(builder, args[5], vty, types.int64), _I8)
        on = builder.icmp_unsigned("==", vals, _splat(builder, v8, ir.VectorType(_I8, W)))
        builder.store(builder.zext(on, ir.VectorType(_I8, W)), dst).align = 1
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def nonzero16(typingctx, arr, g, i):
    """Bitset (uint64) of the entries of ``arr[g, i:i + 16]`` that are not 0: bit k for entry i + k."""
    _check_bytes(arr, "arr")
    if not all(isinstance(t, types.Integer) for t in (g, i)):
        raise errors.TypingError("g and i must be integers")
    sig = types.uint64(arr, g, i)

    def codegen(context, builder, signature, args):
        arrty, gty, ity = signature.args
        src = _lanes_ptr(context, builder, arrty, args[0], args[1], gty, args[2], ity)
        vals = builder.load(src)
        vals.align = 1
        on = builder.icmp_unsigned("!=", vals, ir.Constant(ir.VectorType(_I8, W), [0] * W))
        return builder.zext(builder.bitcast(on, _I16), ir.IntType(64))  # lane k -> bit k (little-endian)

    return sig, codegen


@njit(inline="always")
def bits16_portable(out, g, i, x):
    """:func:`bits16` in plain numba."""
    base = np.uint64(i)
    y = np.uint64(x)
    for k in range(W):
        out[g, base + np.uint64(k)] = (y >> np.uint64(k)) & np.uint64(1)


@njit(inline="always")
def equal16_portable(out, g, i, row, j, value):
    """:func:`equal16` in plain numba."""
    a = np.uint64(i)
    b = np.uint64(j)
    v = np.int8(value)
    for k in range(W):
        out[g, a + np.uint64(k)] = np.int8(row[g, b + np.uint64(k)]) == v


@njit(inline="always")
def nonzero16_portable(arr, g, i):
    """:func:`nonzero16` in plain numba."""
    base = np.uint64(i)
    x = np.uint64(0)
    for k in range(W):
        if arr[g, base + np.uint64(k)] != 0:
            x |= np.uint64(1) << np.uint64(k)
    return x


# What the engine and the agents call.
if PORTABLE:
    bits16_any, equal16_any = bits16_portable, equal16_portable
else:
    bits16_any, equal16_any = bits16, equal16
nonzero16_any = nonzero16_portable if PORTABLE or sys.byteorder != "little" else nonzero16
