"""Policy-based inference: weigh sampled worlds by how likely the other seats' moves were in each.

A world from :func:`trickenv.sampler.sample_worlds` is consistent with the voids and
duties a seat has seen, but not with *why* the others played as they did. Rebstock et
al. (2019, Skat) weight each world by the likelihood of the observed moves under a
policy. :func:`history_log_likelihood` does that here by replaying the deal in every
world: the world's cards are put back where they were dealt, the public history (the
dealer's trump, the bids, every card played, in order) is stepped on the batched engine,
and at each decision of another seat the ``policy`` is asked what it would have done with
that seat's hand *in that world*. A deterministic policy (the rule-based agent) gets the
soft likelihood ``1 - epsilon + epsilon / n`` when it agrees with the move that was
made and ``epsilon / n`` when it does not (``n`` legal moves): ``epsilon`` is how often
a real player leaves that policy. A network (a policy with ``logits``, the shipped
``model``) gives ``(1 - epsilon) * p(move) + epsilon / n`` with ``p`` its softmax over the
legal moves.

It reads only what the seat knows: the replay starts from
:func:`trickenv.sampler.information_state` (public history) and the sampled worlds; the
hidden cards of the real game never enter. The game names its non-card decisions
through ``GameSpec.worlds.history_actions`` (a game without that hook raises ValueError), fixes
the deal a replay starts from where it deals in parts (``replay_deal``: King Calling's second
batches) and names the decisions a world cannot weigh (``unweighed``: King Calling's call, made
from a first batch the worlds do not keep).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from trickenv.engine.layout import DEALER, PHASE, TO_ACT, TRICK_NO
from trickenv.engine.state import State
from trickenv.games.base import GameSpec
from trickenv.sampler import information_state


def check_policy_inference(spec: GameSpec) -> None:
    """ValueError when ``spec`` cannot replay its deals from what a seat knows (no ``history_actions``)."""
    if spec.worlds.history_actions is None:
        raise ValueError(f"inference='policy' needs a game whose decisions can be replayed from the public "
                         f"history (GameSpec.worlds.history_actions); {spec.name} has none. Use inference='none' or 'cards'")


def start_rows(spec: GameSpec, worlds: State) -> np.ndarray:
    """Seat code of every card at the start of each world's deal (held or played by the seat; -1 undealt)."""
    deck = spec.deck
    bits = (worlds.hands[:, :spec.num_players, None] >> np.arange(deck, dtype=np.uint64)) & np.uint64(1)
    rows = np.full((worlds.batch_size, deck), -1, np.int8)
    for p in range(spec.num_players):
        rows[bits[:, p].astype(np.bool_) | (worlds.played_by == p)] = p
    return rows


def history_log_likelihood(spec: GameSpec, state: State, games: np.ndarray, seats: np.ndarray, worlds: State,
                           per: int, policy: Any, epsilon: float) -> np.ndarray:
    """``[len(games), per]``: log-likelihood of the other seats' moves so far in each world under ``policy``.

    ``worlds`` holds ``per`` worlds of each decision (decision i's are rows ``i * per ..``), as
    :func:`trickenv.sampler.sample_worlds` returns them for ``seats[i]`` in ``games[i]``.
    Forced moves, the seat's own moves and the game's unweighed decisions add nothing. A world in which the
    history is not legal (a sampler bug) raises RuntimeError.
    """
    check_policy_inference(spec)
    n = len(games)
    info = information_state(spec, state, games, seats)
    b = worlds.batch_size
    owner = np.repeat(np.arange(n), per)
    me = np.repeat(np.asarray(seats, np.int64), per)
    # Card played by each seat in each trick of the real deal (public): the replay's card moves.
    card_at = np.full((n, spec.num_tricks, 4), -1, np.int64)
    i, c = np.nonzero(info.played_by >= 0)
    card_at[i, info.played_in[i, c], info.played_by[i, c]] = c
    # Where the replay stops: the seat to act at the decision, in its phase, with as many cards played.
    goal = np.stack([info.s[:, PHASE], info.s[:, TO_ACT], (info.played_by >= 0).sum(axis=1)], axis=1)[owner]
    played = np.zeros(b, np.int64)  # cards played so far in each replay
    logits = getattr(policy, "logits", None)

    sim = spec.new_state(b)
    obs = np.zeros((b, spec.obs_size), np.int8)
    mask = np.zeros((b, spec.num_actions), np.bool_)
    deal = start_rows(spec, worlds)
    if spec.worlds.replay_deal is not None:
        spec.worlds.replay_deal(spec, worlds, deal)
    spec.reset_kernel(*sim.arrays(), spec.cfg, spec.tab, deal, np.ones(b, np.bool_),
                      info.s[owner, DEALER].astype(np.int32), mask, obs)
    rewards = np.zeros((b, spec.num_players), np.float32)
    done = np.zeros(b, np.bool_)
    deal_end = np.zeros(b, np.bool_)
    loglik = np.zeros(b, np.float64)
    keep, leave = np.log1p(-epsilon), np.log(epsilon)
    for _ in range(spec.num_actions * 4):
        now = np.stack([sim.s[:, PHASE], sim.s[:, TO_ACT], played], axis=1)
        active = ~(now == goal).all(axis=1)
        if not active.any():
            return loglik.reshape(n, per)
        rows = np.flatnonzero(active)
        actions = spec.worlds.history_actions(spec, info, owner[rows], sim, rows)
        card = actions < 0
        seat = sim.s[rows[card], TO_ACT]
        actions[card] = card_at[owner[rows[card]], sim.s[rows[card], TRICK_NO], seat]
        legal = mask[rows].sum(axis=1)
        ask = (sim.s[rows, TO_ACT] != me[rows]) & (legal > 1)
        if spec.worlds.unweighed is not None:
            ask &= ~spec.worlds.unweighed(spec, sim, rows)
        if ask.any():
            r = rows[ask]
            k = legal[ask].astype(np.float64)
            if logits is not None:  # a network: its probability of the move, mixed with uniform
                z = np.where(mask[r], logits(obs[r]).astype(np.float64), -np.inf)
                z -= z.max(axis=1, keepdims=True)
                logp = z[np.arange(len(r)), actions[ask]] - np.log(np.exp(z).sum(axis=1))
                loglik[r] += np.logaddexp(keep + logp, leave - np.log(k))
            else:  # deterministic: (1 - eps + eps / k) where it agrees with the move, else eps / k
                guess = np.asarray(policy.act_batch(obs[r], mask[r]), np.int64)
                loglik[r] += np.where(guess == actions[ask], np.logaddexp(keep, leave - np.log(k)), leave - np.log(k))
        full = np.zeros(b, np.int64)
        full[rows] = actions
        bad = spec.step_kernel(*sim.arrays(), spec.cfg, spec.tab, full, active, mask, obs, rewards, done, deal_end,
                               False)
        if bad:
            raise RuntimeError(f"{bad} replayed moves are illegal in their sampled worlds (a bug in the sampler)")
        played[rows[card]] += 1
    raise RuntimeError("the replays did not reach their decisions")
