"""Where in a deal one player loses to (or gains on) another: let it play only part of each deal.

    python notebooks/experiments/where_it_loses.py koenigrufen            # the shipped player against pimc
    python -m trickenv.research.where_it_loses four_tricks --field random,rules --deals 1000

A trained player that trails a search by 0.06 a deal says nothing of where the 0.06 goes. Here the
``--player`` plays only some of a seat's decisions and the ``--reference`` the rest, in a stand-in
seated against the reference (and any ``--field`` agents) on the same duplicate deals as every other
row. Each row is one split:

- ``all``: the player itself;
- ``bids only``: the player's calls, bids, trump choices and declarations (every action that is not a
  card), the reference's cards; where both are legal at once (King Calling's first trick) the player
  decides whether to declare, and the reference which card to play when it does not;
- ``cards only``: the other way round;
- ``tricks 1-K`` / ``tricks K+1-N`` for each ``--split K``: the player's cards up to trick K (and its
  bids), the reference's after, and the other way round.

A row reports the stand-in's mean deal score minus the reference's, the 95% CI paired over the deals
(:func:`trickenv.agents.evaluation.evaluate`). A row near ``all`` says the player loses there; a row near zero says
that part of its play is as good as the reference's.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

import trickenv
from trickenv.agents import make_agent
from trickenv.agents.evaluation import evaluate
from trickenv.agents.base import BatchAgent, act_rows
from trickenv.engine.layout import TRICK_NO
from trickenv.games.base import GameSpec


class Split(BatchAgent):
    """``early`` plays the cards of tricks before ``trick`` (0-based), ``late`` those from it on; ``bids``
    makes every decision that can be something other than a card (declining leaves the card to the others)."""

    needs_state = True

    def __init__(self, spec: GameSpec, early: Any, late: Any, bids: Any, trick: int, name: str = "split") -> None:
        super().__init__(spec)
        if not 0 <= trick <= spec.num_tricks:
            raise ValueError(f"trick must be in 0..{spec.num_tricks}, got {trick}")
        self.early, self.late, self.bids, self.trick, self.name = early, late, bids, trick, name

    def act_batch(self, obs: np.ndarray, mask: np.ndarray, state=None, games=None) -> np.ndarray:
        if state is None or games is None:
            raise ValueError("Split reads the trick number: act_batch(obs, mask, state=vec.state, games=rows)")
        mask = np.asarray(mask, np.bool_)
        games = np.asarray(games, np.int64)
        deck = self.spec.deck
        out = np.zeros(len(mask), np.int64)
        bid = np.flatnonzero(mask[:, deck:].any(axis=1))
        if len(bid):
            out[bid] = act_rows(self.bids, obs[bid], mask[bid], state, games[bid])
        card = np.ones(len(mask), np.bool_)
        card[bid] = out[bid] < deck
        cards_only = mask.copy()
        cards_only[:, deck:] = False
        early = state.s[games, TRICK_NO] < self.trick
        for agent, rows in ((self.early, np.flatnonzero(card & early)), (self.late, np.flatnonzero(card & ~early))):
            if len(rows):
                out[rows] = act_rows(agent, obs[rows], cards_only[rows], state, games[rows])
        return out


def splits(spec: GameSpec, player: Any, reference: Any, at: list[int]) -> list[tuple[str, Any]]:
    """The stand-ins of the module docstring: (row label, agent)."""
    n = spec.num_tricks
    rows = [("all", player),
            ("bids only", Split(spec, reference, reference, player, n)),
            ("cards only", Split(spec, player, player, reference, n))]
    for k in at:
        if not 0 < k < n:
            raise ValueError(f"--split must be between 1 and {n - 1} ({spec.name} has {n} tricks), got {k}")
        rows.append((f"tricks 1-{k}", Split(spec, player, reference, player, k)))
        rows.append((f"tricks {k + 1}-{n}", Split(spec, reference, player, player, k)))
    return rows


def measure(game: str, player: str = "model", reference: str = "pimc", field: tuple[str, ...] = (),
            at: list[int] | None = None, deals: int = 2000, seed: int = 0) -> list[dict[str, Any]]:
    """One row per split: label, mean difference to the reference and its paired 95% CI."""
    spec = trickenv.make_spec(game)
    at = [spec.num_tricks // 2] if at is None else at
    out = []
    for i in range(len(splits(spec, None, None, at))):  # the row count (and `at` checked) before any deal
        # Fresh agents, seeded alike, for every row: a search's worlds depend on how many decisions it made before.
        label, agent = splits(spec, make_agent(player, spec, seed=seed + 1), make_agent(reference, spec, seed=seed + 2),
                              at)[i]
        res = evaluate(game, [(label, agent), ("reference", make_agent(reference, spec, seed=seed + 3)),
                              *[(f"{name}#{j}", make_agent(name, spec, seed=seed + 4 + j)) for j, name in enumerate(field)]],
                       deals=deals, seed=seed, progress=False, ratings=False).to_dict()
        pair = next(p for p in res["pairs"] if p["a"] == label and p["b"] == "reference")
        out.append({"split": label, "diff": float(pair["diff"]), "ci95": [float(x) for x in pair["ci95"]]})
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game", choices=list(trickenv.GAMES))
    ap.add_argument("--player", default="model", help="the agent whose play is split (default: the shipped model)")
    ap.add_argument("--reference", default="pimc", help="the agent it is compared with (default: pimc)")
    ap.add_argument("--field", default="", help="other agents at the table, comma-separated (e.g. random,rules)")
    ap.add_argument("--split", type=int, nargs="*", default=None,
                    help="tricks after which the cards change hands (default: half the deal)")
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    field = tuple(filter(None, args.field.split(",")))
    try:
        rows = measure(args.game, args.player, args.reference, field, args.split, args.deals, args.seed)
    except ValueError as e:  # a bad split, agent name or count: the message says what is allowed
        ap.error(str(e))
    print(f"{args.game}: {args.player} in part, the rest {args.reference}; against {args.reference}"
          f"{' with ' + ', '.join(field) if field else ''}; {args.deals} deals, seed {args.seed}\n")
    print(f"| the player plays | stand-in - {args.reference} | 95% CI |")
    print("|---|---:|---|")
    for r in rows:
        print(f"| {r['split']} | {r['diff']:+.3f} | [{r['ci95'][0]:+.3f}, {r['ci95'][1]:+.3f}] |")


if __name__ == "__main__":
    main()
