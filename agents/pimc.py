"""Determinized search (Perfect Information Monte Carlo): sample worlds, play each move out, keep the best.

For each decision the agent draws ``worlds`` deals of the hidden cards that
are consistent with everything the acting seat knows
(:func:`trickenv.sampler.sample_worlds`). In every world it tries every legal
action and plays the rest of the deal ``rollouts`` times with a rollout policy
(the rule-based agent by default) on the batched engine; the action with the
best mean deal score for the seat (its side's in partnerships: the engine's
rewards already are) is chosen. All worlds x actions x rollouts of a batch of
decisions run as one batch of games, so the cost per decision is a few
thousand engine steps.

PIMC is a strong baseline but not a sound imperfect-information method: in
each world it plays as if it could see the cards (it never plays to gather
information or to hide it).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from trickenv.agents.base import BatchAgent, make_agent
from trickenv.agents.decisions import learned_decisions
from trickenv.agents.search_defaults import search_defaults
from trickenv.engine.layout import TO_ACT
from trickenv.engine.state import State
from trickenv.games.base import GameSpec
from trickenv.sampler import sample_worlds


class PIMCAgent(BatchAgent):
    """Search agent: ``worlds`` sampled deals x every legal action x ``rollouts`` playouts per decision.

    ``rollout`` names the policy that plays the playouts (``"rules"`` or
    ``"random"``). ``max_games`` caps the games simulated at once (memory).
    It needs the engine state: ``act_batch(obs, mask, state=vec.state,
    games=rows)``, or ``act(observation, state=env.unwrapped.game)`` in the AEC
    env; it reads the state only through the world sampler.

    ``search`` (``"all"`` or ``"cards"``: the rule-based agent makes the other
    decisions) and ``tiebreak`` (the weight of the side's card points, a share of
    120, added to the deal score) default to the game's ``decisions`` and ``tiebreak``
    in :mod:`trickenv.agents.search_defaults` (King Calling: ``"cards"`` and 1; that
    module says why). ``decisions``: where the decisions before the play come from learned values instead
    (:mod:`trickenv.agents.decisions`): ``"learned"`` (all the shipped ones for the variant), a folder or a
    value file; ``"own"``: none, the agent decides them; None: the game's default
    (``SearchDefaults.learned``, :meth:`default_decisions`).
    """

    name = "pimc"
    needs_state = True

    def __init__(self, spec: GameSpec, seed: int | None = None, worlds: int = 16, rollouts: int = 1,
                 rollout: str = "rules", max_games: int = 16384, tiebreak: float | None = None,
                 search: str | None = None, decisions: str | None = None) -> None:
        super().__init__(spec)
        for label, value in (("worlds", worlds), ("rollouts", rollouts), ("max_games", max_games)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{label} must be a positive integer, got {value!r}")
        self.worlds = int(worlds)
        self.rollouts = int(rollouts)
        self.max_games = int(max_games)
        self.rollout_name = rollout
        self.policy = make_agent(rollout, spec, seed=None if seed is None else seed + 7)
        self.seed = 0 if seed is None else int(seed)
        self.searched = 0  # decisions searched so far (seeds each one's worlds)
        tuning = search_defaults(spec)
        self.search = tuning.decisions if search is None else search
        if self.search not in ("all", "cards"):
            raise ValueError(f"search must be 'all' or 'cards', got {self.search!r}")
        self.bidder = make_agent("rules", spec, seed=None if seed is None else seed + 11) if self.search == "cards" else None
        self.tiebreak = float(tuning.tiebreak if tiebreak is None else tiebreak)
        self.learned = learned_decisions(spec, decisions, self.default_decisions(spec))

    @classmethod
    def default_decisions(cls, spec: GameSpec) -> tuple[str, ...]:
        """The decisions before the play this agent takes from the shipped learned values by default in
        ``spec``'s variant (``SearchDefaults.learned``)."""
        return search_defaults(spec).learned

    def act(self, observation: dict[str, np.ndarray], state: State | None = None, game: int = 0) -> int:
        """One action for the AEC env: pass ``state=env.unwrapped.game``."""
        if state is None:
            raise ValueError("PIMC needs the engine state: act(observation, state=env.unwrapped.game)")
        obs = np.asarray(observation["observation"], np.int8)[None, :]
        mask = np.asarray(observation["action_mask"]).astype(np.bool_)[None, :]
        return int(self.act_batch(obs, mask, state=state, games=np.array([game]))[0])

    def act_batch(self, obs: np.ndarray, mask: np.ndarray, state: State | None = None,
                  games: np.ndarray | None = None) -> np.ndarray:
        """One searched action per row; ``games[i]`` is row i's game in ``state``."""
        return self.search_batch(obs, mask, state, games)[0]

    def search_batch(self, obs: np.ndarray, mask: np.ndarray, state: State | None = None,
                     games: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The actions ``[B]`` and the searched mean value of every action ``[B, A]``.

        A value is the seat's mean deal score over the sampled worlds (plus the
        tie-break), the number the action was chosen by; it is NaN for actions
        that were not searched: illegal ones, forced moves, and the decisions
        left to the rule-based agent (King Calling's calls and declarations).
        Distilling these values, not only the chosen move, is what
        ``trickenv train --bc-teacher pimc --bc-temperature T`` does.
        """
        if state is None or games is None:
            raise ValueError("PIMC needs the engine state: act_batch(obs, mask, state=vec.state, games=rows)")
        mask = np.asarray(mask, np.bool_)
        games = np.asarray(games, np.int64).reshape(-1)
        if len(games) != len(mask):
            raise ValueError(f"games must list one game per row ({len(mask)}), got {len(games)}")
        if not mask.any(axis=1).all():
            raise ValueError("a row of mask has no legal action")
        values = np.full(mask.shape, np.nan, np.float32)
        learned = np.full(len(mask), -1, np.int64)
        if self.learned is not None:  # a declined decision leaves the agent the other actions
            learned, mask = self.learned.decide(obs, mask)
        rest = np.flatnonzero(learned < 0)  # the decisions the agent takes itself
        out = learned.copy()
        searched = np.zeros(len(mask), np.bool_)
        if self.bidder is not None and rest.size:
            # search="cards": the rule-based agent's choice unless it plays a card; then the cards are searched.
            out[rest] = np.array(self.bidder.act_batch(np.asarray(obs)[rest], mask[rest]), np.int64)
            searched[rest] = out[rest] < self.spec.deck
            mask = mask.copy()
            mask[:, self.spec.deck:] = False
        elif rest.size:
            out[rest] = mask[rest].argmax(axis=1)
            searched[rest] = True
        legal = [np.flatnonzero(m) for m in mask]
        todo = [i for i in np.flatnonzero(searched) if len(legal[i]) > 1]  # forced moves need no search
        per = self.worlds * self.rollouts
        start = 0
        while start < len(todo):
            chunk, size = [], 0
            while start < len(todo) and (not chunk or size + per * len(legal[todo[start]]) <= self.max_games):
                chunk.append(todo[start])
                size += per * len(legal[todo[start]])
                start += 1
            for i, mean in zip(chunk, self._search(state, games[chunk], [legal[i] for i in chunk]), strict=True):
                values[i, legal[i]] = mean
                out[i] = legal[i][int(np.argmax(mean))]
        return out, values

    def _search(self, state: State, games: np.ndarray, legal: list[np.ndarray]) -> list[np.ndarray]:
        """The mean value of each legal action of each decision: one batch of (world, action, rollout) playouts."""
        spec, w, r = self.spec, self.worlds, self.rollouts
        seats = state.s[games, TO_ACT].astype(np.int64)
        worlds = sample_worlds(spec, state, games, seats, w, seed=self.seed * 1_000_003 + self.searched)
        self.searched += len(games)
        # Game j of the simulation: decision i, action legal[i][a], world v, rollout u (in this nesting order).
        acts = np.concatenate(legal).astype(np.int64)
        decision = np.repeat(np.arange(len(legal)), [len(a) for a in legal])  # per (decision, action)
        owner = np.repeat(decision, w * r)
        index = owner * w + np.tile(np.repeat(np.arange(w), r), len(acts))
        first = np.repeat(acts, w * r)
        sim = worlds.take(index)
        sim.rng[:] = worlds.rng[index] + np.arange(len(index), dtype=np.uint64)
        value = play_out(spec, sim, first, self.policy)
        seat_of = seats[owner]
        gain = value[np.arange(len(index)), seat_of]
        if self.tiebreak:
            rec = spec.records(spec, sim, np.arange(sim.batch_size))
            gain = gain + self.tiebreak * spec.side_points(spec, rec, seat_of) / 120.0
        means = []
        pos = 0
        for acts in legal:
            block = gain[pos:pos + len(acts) * w * r].reshape(len(acts), w * r)
            pos += len(acts) * w * r
            means.append(block.mean(axis=1))
        return means


def play_out(spec: GameSpec, sim: State, first: np.ndarray, policy: Any) -> np.ndarray:
    """Apply ``first[j]`` in game j of ``sim`` (it must be legal), then let ``policy`` play to the end
    of the deal; returns the deal's rewards ``[games, players]`` (``sim`` is played in place)."""
    return play_until(spec, sim, first, policy)[0]


def play_until(spec: GameSpec, sim: State, first: np.ndarray, policy: Any,
               stop: Callable[[State], np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`play_out`, but a game also stops once ``stop(sim)`` flags it; returns the rewards ``[games,
    players]`` of the games whose deal ended (zero for the others) and which ended ``[games]``."""
    b = sim.batch_size
    obs = np.zeros((b, spec.obs_size), np.int8)
    mask = np.zeros((b, spec.num_actions), np.bool_)
    mask[np.arange(b), first] = True  # legal in the world: it was legal for the seat, which saw the same
    rewards = np.zeros((b, spec.num_players), np.float32)
    done = np.zeros(b, np.bool_)
    deal_end = np.zeros(b, np.bool_)
    value = np.zeros((b, spec.num_players), np.float32)
    ended = np.zeros(b, np.bool_)
    active = np.ones(b, np.bool_)
    actions = first.copy()
    kernel = spec.step_kernel
    for _ in range(spec.num_actions * 4):  # more than any deal's decisions
        bad = kernel(*sim.arrays(), spec.cfg, spec.tab, actions, active, mask, obs, rewards, done, deal_end, False)
        if bad:
            raise RuntimeError(f"{bad} illegal playout actions (a bug in the rollout policy or the sampler)")
        value[deal_end] = rewards[deal_end]
        ended |= deal_end
        active &= ~deal_end
        if stop is not None:
            active &= ~stop(sim)
        if not active.any():
            return value, ended
        actions = np.asarray(policy.act_batch(obs, mask), np.int64)
    raise RuntimeError("playouts did not finish their deals")
