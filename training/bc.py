"""Warm start: clone a teacher (the rule-based player by default) before self-play (behaviour cloning).

PPO from a random network spends most of a short budget learning the rules
of good play that the rule-based agent already knows. So training starts by
imitating it: the batched engine plays ``samples`` decisions with the
rule-based agent in every seat (a few seconds), and the policy is fitted to its
moves (cross-entropy over the legal actions) while the value head is fitted to
the deal score each decision led to. Self-play PPO then improves on that
player. Set ``bc_samples=0`` to train from scratch. ``bc_teacher="pimc"`` clones the
search agent instead (about 3,000 decisions a second with 8 worlds, against
millions for the rule-based agent): a stronger teacher where self-play alone does
not get past the rule-based agent in the time (King Calling).
"""

from __future__ import annotations

import threading
import warnings
from typing import Any, Callable, TypeVar

import numpy as np

from trickenv.agents import make_agent
from trickenv.agents.base import act_rows
from trickenv.agents.features import Features
from trickenv.games.base import GameSpec
from trickenv.rewards import reward_scale
from trickenv.training.augment import SuitRelabelling
from trickenv.vector import VecEnv

T = TypeVar("T")


def demonstrations(spec: GameSpec, samples: int, seed: int = 0, teacher: str = "rules",
                   batch: int = 1024, progress: bool = False, mix: float = 0.0, privileged: bool = False,
                   mix_random: float = 0.0, **teacher_options: Any) -> dict[str, np.ndarray]:
    """``samples`` decisions of ``teacher`` in every seat: obs, mask, action, and the scaled deal score that followed.

    ``mix`` > 0 seats the rule-based agent at some tables: each deal, every seat is
    played by it with probability ``mix`` (drawn per game from ``seed``). The
    teacher still labels every decision, its own and the rule-based agent's
    (``action`` is the teacher's choice): the student then also learns what to do
    in the positions a rule-based opponent or partner leads to. ``mix_random`` > 0
    seats the random agent the same way, in a share ``mix_random`` of the seats
    (the two shares drawn from one number per seat, so they add up to at most 1):
    the student sees the positions a weak player's declarations and throw-aways lead to.

    A search teacher (one with ``search_batch``, PIMC) also gives ``values``: its
    searched value of every action (NaN where it did not search). ``privileged``
    adds each decision's privileged observation (every hand, int8:
    :mod:`trickenv.privileged`) as ``privileged``, for a critic that sees it.

    ``teacher`` is an agent name (``rules``, ``pimc``, ...) made with ``teacher_options``
    (``worlds=8`` for PIMC); a search teacher gets the engine state of the games it plays.
    ``progress`` shows a bar of the decisions made.
    """
    if not 0.0 <= mix <= 1.0:
        raise ValueError(f"mix must be a share of seats in [0, 1], got {mix!r}")
    if not 0.0 <= mix_random <= 1.0 - mix:
        raise ValueError(f"mix_random must be a share of seats in [0, 1 - mix] = [0, {1.0 - mix:g}], got {mix_random!r}")
    vec = VecEnv(spec, batch, seed=seed)
    agent = make_agent(teacher, spec, seed=seed, **teacher_options)
    rows = np.arange(batch)  # every game is to act at every step
    others = [(make_agent(name, spec, seed=seed), share) for name, share in (("rules", mix), ("random", mix_random))
              if share > 0]
    seat_rng = np.random.default_rng([seed, 29])
    # One number per seat and deal says who plays it: below mix the rule-based agent, then the random one.
    seat_draw = seat_rng.random((batch, spec.num_players))
    per_deal = spec.num_tricks * spec.num_players + 2 * spec.num_players  # at most the decisions of one deal
    max_deals = samples // (batch * spec.num_tricks * spec.num_players) + 3
    scores = np.zeros((batch, max_deals + 1, spec.num_players), np.float32)
    deal = np.zeros(batch, np.int64)
    obs_l, mask_l, act_l, seat_l, deal_l, val_l, priv_l = [], [], [], [], [], [], []
    searched = hasattr(agent, "search_batch")
    obs, mask, player = vec.reset()
    steps = 0
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=samples, desc=f"demonstrations ({teacher})", unit="decision", dynamic_ncols=True)
    while steps * batch < samples or steps < per_deal:
        if searched:
            a, values = agent.search_batch(obs, mask, state=vec.state, games=rows)
            val_l.append(values)
        else:
            a = np.array(act_rows(agent, obs, mask, vec.state, rows), np.int64)
        played = a
        draw, low = seat_draw[np.arange(batch), player], 0.0
        for other, share in others:
            played = np.where((low <= draw) & (draw < low + share), other.act_batch(obs, mask), played)
            low += share
        obs_l.append(obs.copy())
        if privileged:
            priv_l.append(vec.privileged())
        mask_l.append(mask.copy())
        act_l.append(a)
        seat_l.append(player.astype(np.int64))
        deal_l.append(deal.copy())
        obs, mask, player, rewards, _ = vec.step(played)
        ended = np.flatnonzero(vec.deal_end)
        if others:
            seat_draw[ended] = seat_rng.random((len(ended), spec.num_players))
        scores[ended, np.minimum(deal[ended], max_deals)] = rewards[ended]
        deal[ended] += 1
        steps += 1
        if bar is not None:
            bar.update(min(batch, max(samples - bar.n, 0)))
    if bar is not None:
        bar.close()
    games = np.tile(np.arange(batch), steps)
    deals = np.concatenate(deal_l)
    finished = deals < np.minimum(deal[games], max_deals)  # drop decisions of deals still in play
    seat = np.concatenate(seat_l)
    ret = scores[games, np.minimum(deals, max_deals), seat] * np.float32(reward_scale(spec))
    data = {
        "obs": np.concatenate(obs_l)[finished],
        "mask": np.concatenate(mask_l)[finished],
        "action": np.concatenate(act_l)[finished],
        "return": ret[finished],
    }
    if searched:
        data["values"] = np.concatenate(val_l)[finished]
    if privileged:
        data["privileged"] = np.concatenate(priv_l)[finished]
    return data


def demonstrations_in_parallel(game: str, options: dict[str, Any], samples: int, workers: int, seed: int = 0,
                               teacher: str = "rules", progress: bool = False, mix: float = 0.0,
                               privileged: bool = False, ray: str | None = None, mix_random: float = 0.0,
                               **teacher_options: Any) -> dict[str, np.ndarray]:
    """:func:`demonstrations` split over ``workers`` processes, one core each (a search teacher is slow).

    Worker ``i`` plays ``ceil(samples / workers)`` decisions with seed ``seed + i`` (so
    worker 0's part is ``demonstrations(..., seed=seed)``); the parts are concatenated in
    worker order. The first worker shows the progress bar. ``ray``: the parts run as Ray tasks
    on the cluster at that address instead (``"local"``: this machine; :mod:`trickenv.cluster`),
    the same parts with the same seeds, so the same demonstrations.
    """
    per = -(-samples // workers)
    jobs = [(game, options, per, seed + i, teacher, progress and i == 0 and not ray, mix, privileged, teacher_options,
             mix_random) for i in range(workers)]
    if ray:
        from trickenv.cluster import run_tasks

        found: dict[int, dict[str, np.ndarray]] = {}
        run_tasks(_demonstrations_part, jobs, found.__setitem__, address=ray)
        parts = [found[i] for i in range(workers)]
    else:
        import multiprocessing

        # "spawn": a fresh interpreter per worker (the trainer's torch and numba threads do not fork safely).
        with multiprocessing.get_context("spawn").Pool(workers, initializer=exit_with_parent) as pool:
            parts = pool.starmap(_demonstrations_part, jobs)
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def exit_with_parent(poll_seconds: float = 1.0) -> None:
    """Make this (worker) process exit once the process that started it is gone.

    A trainer stopped with ``kill`` (SIGTERM or SIGKILL) gets no chance to stop its pool, and its
    workers would search on for many minutes, taking the cores a ``--resume`` needs. A daemon
    thread polls the parent's pid: an orphan is handed to another parent.
    """
    import os
    import threading
    import time

    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll_seconds)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def _demonstrations_part(game: str, options: dict[str, Any], samples: int, seed: int, teacher: str, progress: bool,
                         mix: float, privileged: bool, teacher_options: dict[str, Any],
                         mix_random: float = 0.0) -> dict[str, np.ndarray]:
    from trickenv.games import make_spec

    return demonstrations(make_spec(game, **options), samples, seed=seed, teacher=teacher, progress=progress,
                          mix=mix, privileged=privileged, mix_random=mix_random, **teacher_options)


def behaviour_clone(model, data: dict[str, np.ndarray], features: Features, epochs: int = 3,
                    batch_size: int = 512, learning_rate: float = 1e-3, value_coef: float = 0.5,
                    seed: int = 0, temperature: float = 0.0, augment: SuitRelabelling | None = None,
                    card_head=None) -> dict[str, float]:
    """Fit ``model.policy`` (MaskablePPO) to the demonstrations; returns the last epoch's loss and accuracy.

    ``temperature`` > 0 with a search teacher's ``values``: the policy is fitted to
    ``softmax(values / temperature)`` over the searched actions (values in reward
    units, the deal score times the game's reward scale) instead of the chosen
    move alone, so it learns which moves the search found nearly as good and which
    it found costly; rows the teacher did not search keep the chosen move.

    ``augment`` (a :class:`~trickenv.training.augment.SuitRelabelling`): each epoch fits every row under a
    renaming of the suits drawn at random (from ``seed`` and the epoch), the accuracy counted on those rows.

    ``card_head`` (a :class:`~trickenv.training.card_head.CardHead`): fitted with the policy, its card scores
    added to the card actions' logits (its inputs computed from each batch's observations, as the player does).

    ``value_coef``: the weight of the critic's loss (its value of the deal score that followed); 0 leaves the
    critic as it is and skips it (the actor's fit is the same, as the two share no weight).

    Its own Adam optimizer with small batches and a larger step than PPO's: imitation
    needs many gradient steps (with PPO's 4096-row batches at 3e-4 the clone stayed
    near random play).
    """
    import torch

    policy = model.policy
    policy.set_training_mode(True)
    # A head inside the policy (CardHeadPolicy) is among its parameters already: each weight once.
    params = list(dict.fromkeys([*policy.parameters(), *(card_head.parameters() if card_head is not None else ())]))
    optimizer = torch.optim.Adam(params, lr=learning_rate)
    generator = torch.Generator().manual_seed(seed)
    critic_sees_all = getattr(policy, "actor_inputs", None) is not None  # a privileged critic: it reads every hand
    if critic_sees_all and "privileged" not in data:
        raise ValueError("the policy's critic reads the privileged observation: the demonstrations need it "
                         "(demonstrations(..., privileged=True))")
    rows = {"obs": data["obs"], "mask": data["mask"], "action": data["action"]}
    if critic_sees_all:
        rows["privileged"] = data["privileged"]
    if temperature > 0 and "values" in data:
        rows["targets"] = soft_targets(data["values"], data["action"], score_temperature(features.spec, temperature))
    r_all = torch.as_tensor(data["return"], dtype=torch.float32)
    n = len(data["action"])

    def fit_epochs(stop: threading.Event) -> dict[str, float]:
        stats: dict[str, float] = {}
        for epoch in range(epochs):
            if epoch == 0 or augment is not None:  # relabelled rows are built anew each epoch
                x_all = None  # the previous epoch's inputs go before the next are built
                fit = rows if augment is None else \
                    augment.apply(augment.draw(n, np.random.default_rng([seed, epoch, 41])), **rows)
                x = features.many(fit["obs"])  # in slices: the whole batch at once needs twice the memory
                if critic_sees_all:
                    x = np.concatenate([x, fit["privileged"].astype(np.float32)], axis=1)
                x_all = torch.as_tensor(x)
                del x
                a_all = torch.as_tensor(fit["action"], dtype=torch.int64)
                m_all = torch.as_tensor(fit["mask"])
                t_all = torch.as_tensor(fit["targets"]) if "targets" in fit else None
            order = torch.randperm(n, generator=generator)
            loss_sum = hits = 0.0
            for start in range(0, n, batch_size):
                if stop.is_set():  # the caller was interrupted (in_flushing_thread)
                    return stats
                idx = order[start:start + batch_size]
                # The actor's inputs (the critic's below: the same unless the critic is privileged).
                # (Box observations of floats: the extractors take them as they are.)
                latent_pi = policy.mlp_extractor.forward_actor(policy.pi_features_extractor(x_all[idx]))
                logits = policy.action_net(latent_pi)
                if card_head is not None:
                    logits = card_head.add_to(logits, latent_pi, card_head.inputs(fit["obs"][idx.numpy()]))
                logits = logits.masked_fill(~m_all[idx], -1e9)
                if t_all is None:
                    loss = torch.nn.functional.cross_entropy(logits, a_all[idx])
                else:
                    loss = -(t_all[idx] * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
                if value_coef > 0:  # the critic shares no weight with the actor: skipping it leaves the actor as it is
                    latent_vf = policy.mlp_extractor.forward_critic(policy.vf_features_extractor(x_all[idx]))
                    values = policy.value_net(latent_vf).flatten()
                    loss = loss + value_coef * torch.nn.functional.mse_loss(values, r_all[idx])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                loss_sum += float(loss.detach()) * len(idx)
                hits += float((logits.detach().argmax(1) == a_all[idx]).sum())
            stats = {"bc_loss": loss_sum / n, "bc_accuracy": hits / n, "bc_samples": float(n)}
        return stats

    # Where few rows use a weight, its gradients and Adam's moment estimates sink into subnormal floats, on which
    # the CPU's arithmetic is many times slower: King Calling's fit took twice as long. Flushed to zero they change
    # nothing measured (docs/results/training.md, "Throughput").
    stats = in_flushing_thread(fit_epochs)
    policy.set_training_mode(False)
    return stats


def in_flushing_thread(fit: Callable[[threading.Event], T]) -> T:
    """``fit(stop)`` run on a new thread on which torch flushes subnormal floats to zero, as do the worker threads
    torch starts from it; returns what it returns or raises what it raises. If the caller is interrupted (Ctrl-C)
    while it waits, ``stop`` is set, and the caller waits for ``fit`` to return before it raises: a fit that
    looks at ``stop`` between its steps leaves nothing running.

    Why a thread: the flag is each thread's own, and a worker thread takes it from the thread that starts it; the
    workers of a thread that has run torch's operations before exist already and would go on without it.
    """
    import torch

    stop, done = threading.Event(), threading.Event()
    result: dict[str, Any] = {}

    def run() -> None:
        try:
            if not torch.set_flush_denormal(True):
                warnings.warn("this CPU cannot flush subnormal floats: the fit runs slower", stacklevel=1)
            result["value"] = fit(stop)
        except BaseException as e:  # noqa: BLE001 - raised again on the caller's thread
            result["error"] = e
        finally:
            done.set()

    worker = threading.Thread(target=run, name="trickenv-fit", daemon=True)
    worker.start()
    try:
        done.wait()
    except BaseException:
        stop.set()
        done.wait()  # (not worker.join(): an interrupted join marks the thread finished while it runs)
        raise
    worker.join()
    if "error" in result:
        raise result["error"]
    return result["value"]


def score_temperature(spec: GameSpec, temperature: float) -> float:
    """A temperature in reward units (``--bc-temperature``) in the deal-score units of searched values.

    A search agent's values are deal scores; the reward is the score times ``reward_scale``
    (Four Tricks 1/4, Farbwechsel 1/120, King Calling 1), so ``softmax(reward / T)`` is
    ``softmax(score / (T / reward_scale))``.
    """
    return temperature / reward_scale(spec)


def soft_targets(values: np.ndarray, actions: np.ndarray, temperature: float) -> np.ndarray:
    """Target distributions ``[N, A]``: softmax(values / temperature) over each row's searched
    actions (the finite values); a row without any searched value puts all on its action."""
    finite = np.isfinite(values)
    z = np.where(finite, values / np.float32(temperature), -np.inf).astype(np.float32)
    searched = finite.any(axis=1)
    z[~searched] = -np.inf
    z[~searched, actions[~searched]] = 0.0
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    return p.astype(np.float32)
