"""Fit the card-location model a search weights its worlds with (:mod:`trickenv.agents.card_model`).

    python -m trickenv.training.card_model koenigrufen              # writes agents/models/koenigrufen_cards.npz
    python -m trickenv.training.card_model four_tricks --samples 400000 --out fourtricks_cards.npz

The data is rule-based self-play on the batched engine: at every decision, the acting
seat's observation, and (the label, privileged: only here) where each card it has not
seen really is. The model is a linear softmax per card over the observation, fitted by
Adam on the cross-entropy of the unseen cards' places. Same seed, same file.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from trickenv.agents import make_agent
from trickenv.agents.base import act_rows
from trickenv.agents.card_model import place_classes, shipped_card_model_path, unseen_cards
from trickenv.engine.layout import PH_PLAY, PHASE, TO_ACT
from trickenv.envs import make_vec
from trickenv.games import GAMES, make_spec


def card_data(game: str, samples: int, seed: int = 0, batch: int = 1024,
              every: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """``(obs [N, obs_size] int8, places [N, deck] int8)`` from rule-based self-play: every ``every``-th card-play
    decision of ``batch`` games; ``places`` as :func:`trickenv.agents.card_model.place_classes`, -1 for the cards
    the seat has seen (its own, the played ones)."""
    vec = make_vec(game, batch, seed=seed)
    spec = vec.spec
    agent = make_agent("rules", spec, seed=seed + 1)
    obs, mask, _ = vec.reset()
    rows = np.arange(batch)
    xs, ys, total, step = [], [], 0, 0
    while total < samples:
        if step % every == 0:
            playing = np.flatnonzero(vec.state.s[:, PHASE] == PH_PLAY)
            seats = vec.state.s[playing, TO_ACT].astype(np.int64)
            places = place_classes(spec, vec.state.hands[playing], seats)
            places[~unseen_cards(spec, vec.state, playing, seats)] = -1
            xs.append(obs[playing].copy())
            ys.append(places)
            total += len(playing)
        obs, mask, *_ = vec.step(act_rows(agent, obs, mask, vec.state, rows))
        step += 1
    return np.concatenate(xs)[:samples], np.concatenate(ys)[:samples]


def fit(x: np.ndarray, y: np.ndarray, places: int, epochs: int = 4, batch: int = 2048, lr: float = 3e-3,
        seed: int = 0) -> tuple[np.ndarray, np.ndarray, float]:
    """Weights ``W [obs, deck * places]``, ``b`` and the last epoch's mean cross-entropy per unseen card."""
    import torch

    torch.manual_seed(seed)
    n, d = x.shape
    deck = y.shape[1]
    layer = torch.nn.Linear(d, deck * places)
    torch.nn.init.zeros_(layer.weight)
    torch.nn.init.zeros_(layer.bias)
    opt = torch.optim.Adam(layer.parameters(), lr=lr)
    xt = torch.from_numpy(x.astype(np.float32))
    yt = torch.from_numpy(y.astype(np.int64))
    gen = torch.Generator().manual_seed(seed)
    loss_value = float("nan")
    for _ in range(epochs):
        order = torch.randperm(n, generator=gen)
        seen = total = 0.0
        for start in range(0, n, batch):
            idx = order[start:start + batch]
            logits = layer(xt[idx]).view(len(idx), deck, places)
            target = yt[idx]
            loss = torch.nn.functional.cross_entropy(logits.reshape(-1, places), target.reshape(-1),
                                                     ignore_index=-1, reduction="sum")
            count = (target >= 0).sum()
            opt.zero_grad()
            (loss / count.clamp(min=1)).backward()
            opt.step()
            total += float(loss.detach())
            seen += float(count)
        loss_value = total / max(seen, 1.0)
    return layer.weight.detach().numpy().T.copy(), layer.bias.detach().numpy().copy(), loss_value


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("game", choices=sorted(GAMES))
    ap.add_argument("--samples", type=int, default=300_000, help="decisions to learn from")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=None, help="default: the file shipped in trickenv/agents/models")
    args = ap.parse_args(argv)
    if args.samples < 1000 or args.epochs < 1:
        raise SystemExit("card_model: --samples must be at least 1000 and --epochs at least 1")
    spec = make_spec(args.game)
    x, y = card_data(args.game, args.samples, seed=args.seed)
    freq = np.bincount(y[y >= 0].ravel(), minlength=spec.num_players) / max(int((y >= 0).sum()), 1)
    baseline = float(-(freq[freq > 0] * np.log(freq[freq > 0])).sum())  # knowing only how often each place is
    w, b, loss = fit(x, y, spec.num_players, epochs=args.epochs, seed=args.seed)
    out = args.out or shipped_card_model_path(args.game)
    meta = {"game": args.game, "options": json.loads(json.dumps(spec.options)), "samples": int(len(x)),
            "epochs": args.epochs, "seed": args.seed, "cross_entropy": round(loss, 4),
            "baseline_cross_entropy": round(baseline, 4),
            "command": f"python -m trickenv.training.card_model {args.game} --samples {args.samples} "
                       f"--epochs {args.epochs} --seed {args.seed}"}
    np.savez_compressed(out, meta=np.array(json.dumps(meta)), W=w.astype(np.float16), b=b.astype(np.float32))
    print(f"{args.game}: {len(x)} decisions, cross-entropy {loss:.4f} nats per unseen card "
          f"(knowing only how often each place is: {baseline:.4f}); wrote {out}")


if __name__ == "__main__":
    main()
