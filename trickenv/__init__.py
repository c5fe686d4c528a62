"""trickenv: trick-taking card games as PettingZoo AEC envs and batched numba engines."""

from __future__ import annotations

import importlib
from typing import Any

import numba

from trickenv.decode import card_sets, decode, encode
from trickenv.envs import make, make_vec
from trickenv.games import GAMES, make_spec
from trickenv.vector import VecEnv

__version__ = "0.1.0"
__all__ = [
    "GAMES", "make", "make_vec", "make_single", "make_spec", "VecEnv", "decode", "encode", "card_sets",
    "four_tricks_v0", "farbwechsel_v0", "koenigrufen_v0",
]

def make_single(game: str, seat: int | str = 0, opponents: Any = ("random",), **options: Any):
    """A gymnasium env of one seat of ``game``; the other seats are played by ``opponents``.

    ``seat``: a seat number, ``"rotate"`` (the next seat every deal) or ``"random"``
    (drawn per deal). ``opponents``: agents or agent names (``"random"``, ``"rules"``,
    ``"pimc"``, ``"model:PATH"``; see trickenv.agents). One episode is one deal; the
    reward is the learner's deal score times ``trickenv.rewards.reward_scale``.
    Observations are ``Box`` (float32 unless ``dtype="int8"``), actions ``Discrete``;
    ``env.action_masks()`` and ``info["action_mask"]`` give the legal actions. Other
    options (``sampler``, ``seed``, ``reward_scale``, ``illegal_action``, game options):
    :class:`trickenv.gym_env.SingleSeatEnv`. Also ``gymnasium.make("trickenv/FourTricks-v0")``.
    """
    from trickenv.gym_env import SingleSeatEnv

    return SingleSeatEnv(game, seat=seat, opponents=opponents, **options)


def _register_gymnasium() -> None:
    """``gymnasium.make("trickenv/FourTricks-v0", ...)`` etc.; ``gymnasium.make_vec`` gives the batched VectorEnv."""
    import gymnasium

    names = {"FourTricks": "four_tricks", "Farbwechsel": "farbwechsel", "KingCalling": "koenigrufen",
             "Koenigrufen": "koenigrufen"}
    for title, game in names.items():
        env_id = f"trickenv/{title}-v0"
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                entry_point="trickenv.gym_env:SingleSeatEnv",
                vector_entry_point="trickenv.gym_env:SeatVectorEnv",
                kwargs={"game": game},
                disable_env_checker=False,
            )


_register_gymnasium()

# Start numba's thread pool now. Starting it (anything that asks numba for its thread count or runs
# a parallel kernel does) sets OpenMP's thread count to numba's default, and on numba's OpenMP layer
# that is the count torch uses too: a torch.set_num_threads(1) made before then was silently undone,
# and small networks ran 10-30x slower on a busy 2-core machine. trickenv's kernels run no numba
# threads (VecEnv(threads=k) steps slices of the batch on Python threads), but code beside it may.
# Started at import, a torch.set_num_threads made after `import trickenv` stays in force.
numba.get_num_threads()


def __getattr__(name: str):
    if name in {"four_tricks_v0", "farbwechsel_v0", "koenigrufen_v0"}:
        return importlib.import_module(f"trickenv.{name}")
    raise AttributeError(f"module 'trickenv' has no attribute {name!r}")
