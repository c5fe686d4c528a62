"""The vector intrinsics of trickenv.engine.simd against their portable twins, and the block writers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from numba import njit

from trickenv.engine import simd
from trickenv.engine.kernels import clear, get_bits, put_bits, put_equal


@njit
def _bits(out, offs, xs, portable):
    for g in range(out.shape[0]):
        if portable:
            simd.bits16_portable(out, g, offs[g], xs[g])
        else:
            simd.bits16(out, g, offs[g], xs[g])


@njit
def _equal(out, offs, row, js, values, portable):
    for g in range(out.shape[0]):
        if portable:
            simd.equal16_portable(out, g, offs[g], row, js[g], values[g])
        else:
            simd.equal16(out, g, offs[g], row, js[g], values[g])


@njit
def _nonzero(arr, offs, out, portable):
    for g in range(arr.shape[0]):
        out[g] = simd.nonzero16_portable(arr, g, offs[g]) if portable else simd.nonzero16(arr, g, offs[g])


@njit
def _blocks(out, offs, xs, row, values, ns):
    for g in range(out.shape[0]):
        put_bits(out, g, offs[g], xs[g], ns[g])
        put_equal(out, g, offs[g] + ns[g], row, values[g], ns[g])
        clear(out, g, offs[g] + 2 * ns[g], 5)


@njit
def _read(arr, offs, ns, out):
    for g in range(arr.shape[0]):
        out[g] = get_bits(arr, g, offs[g], ns[g])


def test_get_bits_reads_exactly_its_block():
    """get_bits is put_bits read back: entries that are not 0 (any byte value) become bits, nothing else."""
    rs = np.random.default_rng(2)
    b = 400
    ns = rs.choice([1, 5, 16, 20, 32, 48, 52, 64], b)
    offs = rs.integers(0, 30, b)
    arr = np.where(rs.random((b, 100)) < 0.5, 0, rs.integers(-128, 128, (b, 100))).astype(np.int8)
    got = np.zeros(b, np.uint64)
    _read(arr, offs, ns, got)
    want = np.array([sum(1 << c for c in range(ns[g]) if arr[g, offs[g] + c] != 0) for g in range(b)], np.uint64)
    assert np.array_equal(got, want)
    got_bool = np.zeros(b, np.uint64)
    _read(arr != 0, offs, ns, got_bool)
    assert np.array_equal(got_bool, want)


def test_intrinsics_and_portable_twins_agree():
    rs = np.random.default_rng(0)
    b = 500
    offs = rs.integers(0, 48, b)
    xs = rs.integers(0, 2**63, b, dtype=np.int64).astype(np.uint64) * np.uint64(2) + rs.integers(0, 2, b, np.uint64)
    outs = []
    for portable in (False, True):
        out = np.full((b, 64), 7, np.int8)
        _bits(out, offs, xs, portable)
        outs.append(out)
    want = np.full((b, 64), 7, np.int8)
    for g in range(b):
        want[g, offs[g]:offs[g] + 16] = (xs[g] >> np.arange(16, dtype=np.uint64)) & np.uint64(1)
    assert np.array_equal(outs[0], want) and np.array_equal(outs[1], want)

    row = rs.integers(-1, 4, (b, 64)).astype(np.int8)
    js = rs.integers(0, 48, b)
    values = rs.integers(-1, 4, b)
    outs = []
    for portable in (False, True):
        out = np.full((b, 64), 7, np.int8)
        _equal(out, offs, row, js, values, portable)
        outs.append(out)
    want = np.full((b, 64), 7, np.int8)
    for g in range(b):
        want[g, offs[g]:offs[g] + 16] = row[g, js[g]:js[g] + 16] == values[g]
    assert np.array_equal(outs[0], want) and np.array_equal(outs[1], want)

    for arr in (rs.random((b, 64)) < 0.3, rs.integers(-3, 3, (b, 64)).astype(np.int8)):
        got = [np.zeros(b, np.uint64), np.zeros(b, np.uint64)]
        for portable in (False, True):
            _nonzero(arr, offs, got[portable], portable)
        want = [sum(1 << k for k in range(16) if arr[g, offs[g] + k]) for g in range(b)]
        assert got[0].tolist() == want and got[1].tolist() == want


def test_block_writers_write_exactly_their_blocks():
    rs = np.random.default_rng(1)
    b = 400
    ns = rs.choice([3, 16, 32, 48, 52], b)
    offs = rs.integers(0, 20, b)
    xs = rs.integers(0, 2**63, b, dtype=np.int64).astype(np.uint64) * np.uint64(2) + rs.integers(0, 2, b, np.uint64)
    row = rs.integers(-1, 4, (b, 52)).astype(np.int8)
    values = rs.integers(-1, 4, b)
    out = np.full((b, 200), 9, np.int8)
    _blocks(out, offs, xs, row, values, ns)
    want = np.full((b, 200), 9, np.int8)
    for g in range(b):
        o, n = offs[g], ns[g]
        want[g, o:o + n] = (xs[g] >> np.arange(n, dtype=np.uint64)) & np.uint64(1)
        want[g, o + n:o + 2 * n] = row[g, :n] == values[g]
        want[g, o + 2 * n:o + 2 * n + 5] = 0
    assert np.array_equal(out, want)


_PLAY = textwrap.dedent("""
    import hashlib, json, sys
    import numpy as np
    import trickenv
    from trickenv.engine import simd
    out = {"portable": simd.PORTABLE}
    # Every game writes its observation with the same two block writers (put_bits, put_equal), so two
    # games cover them: 52 cards (a block that is no multiple of 16) and Farbwechsel's runtime offsets.
    # Each game here costs about 80 s of compiling in CI.
    for game, options in [("four_tricks", {"deck": 52, "trump": "turn_up"}), ("farbwechsel", {"num_players": 4})]:
        v = trickenv.make_vec(game, 16, seed=5, **options)
        obs, mask, _ = v.reset()
        h = hashlib.sha256()
        for t in range(60):
            score = (np.arange(mask.shape[1]) * 37 + t) % 101 + 1  # positive: a legal action has the top score
            obs, mask, _, rewards, _ = v.step(np.argmax(mask * score, axis=1))
            for x in (obs, mask, rewards, v.observe(t % v.num_players)):
                h.update(x.tobytes())
        out[game] = h.hexdigest()
    print(json.dumps(out))
""")


def _play(portable: bool, cache_dir: str | None) -> dict:
    env = dict(os.environ, TRICKENV_PORTABLE="1" if portable else "0")
    if cache_dir is not None:  # the portable kernels compile afresh: numba's cache does not see the switch
        env["NUMBA_CACHE_DIR"] = cache_dir
    res = subprocess.run([sys.executable, "-c", _PLAY], env=env, capture_output=True, text=True, timeout=1800)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


# This test sets TRICKENV_PORTABLE itself, in two subprocesses (fast, then portable). With the variable already
# set in the parent (a portable-mode run of the whole suite), its "fast" half would not be fast: nothing to compare.
@pytest.mark.skipif(os.environ.get("TRICKENV_PORTABLE", "") not in ("", "0"), reason="runs both modes itself")
def test_portable_mode_plays_byte_identical_games(tmp_path):
    """Games played with the portable twins (TRICKENV_PORTABLE=1, compiled afresh) give the same bytes."""
    fast = _play(False, None)
    portable = _play(True, str(tmp_path / "portable"))
    assert not fast.pop("portable") and portable.pop("portable")
    assert fast == portable
