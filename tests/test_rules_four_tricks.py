"""The rule-based Four Tricks agent: legal and repeatable play, act == act_batch, hand-made positions, strength."""

from __future__ import annotations

from typing import Callable

import numpy as np
import pytest

import trickenv
from trickenv.agents.random_agent import RandomAgent
from trickenv.agents.rules_four_tricks import FourTricksRules
from trickenv.games.base import GameSpec

VARIANTS = [
    {},
    {"deck": 52},
    {"trump": "none"},
    {"deck": 52, "trump": "dealer"},
    {"deck": 52, "trump": "none"},
    {"bidding": True},
    {"deck": 52, "bidding": True},
    {"target_schedule": "default"},
    {"rounds": 3, "target": 2},
    {"target": 0},
    {"win_at": 12, "bidding": True, "rounds": 4},
]
IDS = ["-".join(f"{k}={v}" for k, v in o.items()) or "default" for o in VARIANTS]
SEATINGS = ("AAB", "ABA", "BAA", "ABB", "BAB", "BBA")  # every way to seat two agents at three seats


def duplicate(options: dict, make_a: Callable[[GameSpec], object], make_b: Callable[[GameSpec], object],
              deals: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Duplicate play: every deal under all 6 seatings; per deal, each agent's mean deal score per seat.

    Later deals of a match are the same in every seating too (the env is re-seeded), so a
    deal here is a whole episode. Returns ``(score_a, score_b)``, one value per deal.
    """
    vec = trickenv.make_vec("four_tricks", deals, seed=seed, **options)
    vec.reset()
    fixed, dealers = (x.copy() for x in vec.current_deals())
    total = np.zeros((2, deals))
    count = np.zeros((2, deals))
    for seating in SEATINGS:
        is_a = np.array([ch == "A" for ch in seating])
        agent_a, agent_b = make_a(vec.spec), make_b(vec.spec)
        obs, mask, player = vec.reset(deals=fixed, dealers=dealers, seed=seed + 1)
        live = np.ones(deals, bool)
        while live.any():
            actions = np.where(is_a[player], agent_a.act_batch(obs, mask).copy(), agent_b.act_batch(obs, mask))
            assert mask[np.arange(deals), actions][live].all(), "an agent chose an illegal action"
            obs, mask, player, rewards, done = vec.step(actions, where=live)
            ended = np.flatnonzero(vec.deal_end)
            for seat in range(3):
                side = 0 if is_a[seat] else 1
                total[side, ended] += rewards[ended, seat]
                count[side, ended] += 1
            live &= ~done
    mean = total / count
    return mean[0], mean[1]


def paired_ci(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """Mean of ``a - b`` over deals and its 95% confidence interval."""
    d = a - b
    half = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
    return float(d.mean()), float(d.mean() - half), float(d.mean() + half)


def make_rules(seed: int) -> Callable[[GameSpec], FourTricksRules]:
    """Factory of rule-based agents for :func:`duplicate`."""
    return lambda spec: FourTricksRules(spec, seed=seed)


def make_random(seed: int) -> Callable[[GameSpec], RandomAgent]:
    """Factory of random agents for :func:`duplicate`."""
    return lambda spec: RandomAgent(seed=seed, spec=spec)


# ---------------------------------------------------------------- legality and determinism


@pytest.mark.parametrize("options", VARIANTS, ids=IDS)
def test_only_legal_actions_in_every_variant(options):
    vec = trickenv.make_vec("four_tricks", 512, seed=7, **options)
    agent = FourTricksRules(vec.spec, seed=1)
    obs, mask, _ = vec.reset()
    deals = 0
    rows = np.arange(512)
    for _ in range(400):  # vec.step raises on any illegal action; check it here too
        actions = agent.act_batch(obs, mask)
        assert mask[rows, actions].all()
        obs, mask, _, _, _ = vec.step(actions)
        deals += int(vec.deal_end.sum())
    assert deals >= 512 * 5


def test_same_seed_same_actions():
    vec = trickenv.make_vec("four_tricks", 256, seed=3, bidding=True)
    a, b = FourTricksRules(vec.spec, seed=5), FourTricksRules(vec.spec, seed=5)
    obs, mask, _ = vec.reset()
    for _ in range(60):
        x = a.act_batch(obs, mask).copy()
        assert np.array_equal(x, b.act_batch(obs, mask))
        obs, mask, _, _, _ = vec.step(x)


@pytest.mark.parametrize("options", [{}, {"deck": 52, "bidding": True}, {"trump": "none", "target": 1, "rounds": 2}])
def test_act_in_the_aec_env_agrees_with_act_batch_on_the_same_row(options):
    # Game 0 of a batched env deals like the AEC env reset with the same seed: play both in step.
    env = trickenv.make("four_tricks", **options)
    env.reset(seed=11)
    vec = trickenv.make_vec("four_tricks", 64, seed=11, **options)
    obs, mask, _ = vec.reset()
    single, batch = FourTricksRules(vec.spec, seed=2), FourTricksRules(vec.spec, seed=2)
    decisions = 0
    for _ in env.agent_iter():
        ob, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        actions = batch.act_batch(obs, mask)
        assert single.act(ob) == actions[0]
        env.step(int(actions[0]))
        obs, mask, _, _, _ = vec.step(actions)
        decisions += 1
    assert decisions >= 48


# ---------------------------------------------------------------- hand-made positions

DECK = 48
C, S, H, D = range(4)  # suits; trump is given as one of them


def cards_of(text: str) -> list[int]:
    """Card ids of a text such as ``"AS 10S 3D"`` (48-card deck)."""
    return trickenv.cards.parse_cards(text, DECK) if text else []


def position(spec: GameSpec, hand: str, trick: str = "", out: str | None = None, trump: int = H, tricks=(0, 0, 0),
             target: int = 4, bids=(-1, -1, -1), phase: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Observation and mask of relative seat 0 to act: ``hand`` in hand, ``trick`` played to the current trick
    (in order from its leader), ``out`` still held by the others (None: all other cards, nothing played yet);
    every other card was played earlier."""
    mine, now = cards_of(hand), cards_of(trick)
    held = sorted(set(range(DECK)) - set(mine) - set(now)) if out is None else cards_of(out)
    leader = (3 - len(now)) % 3
    played = np.zeros((3, DECK), bool)
    earlier = sorted(set(range(DECK)) - set(mine) - set(now) - set(held))
    for k, c in enumerate(earlier):
        played[k % 3, c] = True
    trick_row = np.full(3, -1)
    for j, c in enumerate(now):
        trick_row[(leader + j) % 3] = c
        played[(leader + j) % 3, c] = True
    view = {
        "hand": np.isin(np.arange(DECK), mine), "trick": trick_row, "played": played, "trump": trump,
        "turned_up": -1, "tricks": np.array(tricks), "target": target, "bids": np.array(bids), "phase": phase,
        "dealer": 2, "leader": leader,
    }
    obs = trickenv.encode(spec, view)
    mask = np.zeros(spec.num_actions, bool)
    if phase == 3:
        legal = [c for c in mine if now and c // 12 == now[0] // 12] or mine  # follow suit
        mask[legal] = True
    elif phase == 0:
        mask[DECK:DECK + 4] = True
    return obs, mask


def rules_play(spec: GameSpec, **kw) -> str:
    """The card (text) the agent plays in ``position(**kw)``."""
    obs, mask = position(spec, **kw)
    action = FourTricksRules(spec, seed=0).act({"observation": obs, "action_mask": mask.astype(np.int8)})
    return trickenv.cards.card_str(action, DECK)


SPEC = trickenv.make_spec("four_tricks")
# Late in a deal (hearts trump): a few cards each, the cards not named were played in earlier tricks.


def test_at_target_it_plays_the_highest_card_that_still_loses():
    # 4 of 4 taken, last to play: 9S and QS lie in the trick. 10S loses to QS; KS would win.
    assert rules_play(SPEC, hand="KS 10S 4S 3C", trick="9S QS", out="AS JS 5D 6D 4C 5C", tricks=(4, 5, 3)) == "10S"


def test_at_target_and_void_it_discards_its_most_dangerous_card_rather_than_trump():
    # Void in spades with a trump (3H) that would win the trick: throw the master AC instead.
    assert rules_play(SPEC, hand="3H AC 4D", trick="5S 7S", out="9S 10S 3C 5D", tricks=(4, 5, 4)) == "AC"


def test_below_target_last_to_play_it_wins_with_the_cheapest_winning_card():
    # 2 of 4 taken with 4 cards left: win with 10S, keep the master AS for a later trick.
    assert rules_play(SPEC, hand="AS 10S 8S 3D", trick="9S 6S", out="JS QS KS 3C 4D 5D", tricks=(2, 6, 4)) == "10S"


def test_one_trick_short_it_takes_the_trick_with_its_master_not_a_small_card():
    # 3 of 4 taken: winning with 10S would leave the master AS to take a fifth trick.
    assert rules_play(SPEC, hand="AS 10S 3D", trick="9S 6S", out="JS KS 3C 4D", tricks=(3, 6, 4)) == "AS"


def test_below_target_and_void_it_trumps_to_win():
    # Needs both of the last two tricks: ruff the spade lead with the only trump.
    assert rules_play(SPEC, hand="3H 4D", trick="5S 7S", out="9S 5D", tricks=(2, 6, 6)) == "3H"


def test_at_target_it_leads_a_low_card_the_others_will_take():
    # Leading at the target: 4S (four spades are out above it), not the master AC or AD.
    assert rules_play(SPEC, hand="AC 4S AD", out="5S 6S 7S 8S 3C 5D", tricks=(4, 6, 3)) == "4S"


def test_the_dealer_makes_trump_the_suit_that_fits_the_target():
    # Eleven clubs with the top four, four low spades, one diamond. Aiming at 8 tricks, make
    # clubs trump: eleven trumps take them. Aiming at none, anything but clubs.
    hand = "4C 5C 6C 7C 8C 9C 10C JC QC KC AC 3S 5S 7S 9S 3D"
    for target in (8, 0):
        spec = trickenv.make_spec("four_tricks", target=target)
        obs, mask = position(spec, hand=hand, trump=-1, target=target, phase=0)
        action = FourTricksRules(spec, seed=0).act({"observation": obs, "action_mask": mask})
        assert (action == DECK + C) == (target == 8), (target, action - DECK)


def test_bids_follow_hand_strength_and_the_dealer_takes_the_nearest_legal_bid():
    spec = trickenv.make_spec("four_tricks", bidding=True)
    agent = FourTricksRules(spec, seed=0)
    strong = "AC KC QC JC AS KS QS AH KH QH JH 10H 9H 8H AD KD"  # hearts trump: a trick with nearly every card
    weak = "3C 4C 5C 6C 3S 4S 5S 6S 7S 3H 4H 5H 3D 4D 5D 6D"
    bids = []
    for hand in (strong, weak):
        obs, _ = position(spec, hand=hand, trump=H, target=-1, phase=1)
        mask = np.zeros(spec.num_actions, bool)
        mask[DECK + 4:] = True
        bids.append(agent.act({"observation": obs, "action_mask": mask}) - DECK - 4)
        mask[DECK + 4 + bids[-1]] = False  # the dealer may not bid that: the next nearest
        assert abs(agent.act({"observation": obs, "action_mask": mask}) - DECK - 4 - bids[-1]) == 1
    assert bids[0] >= 12 and bids[1] <= 1, bids


# ---------------------------------------------------------------- strength


@pytest.mark.parametrize("options, deals", [({}, 400), ({"deck": 52}, 400), ({"trump": "none"}, 400),
                                            ({"bidding": True}, 400), ({"target_schedule": "default"}, 60)],
                         ids=["default", "deck=52", "trump=none", "bidding", "schedule"])
def test_duplicate_play_beats_random_clearly(options, deals):
    rules_score, random_score = duplicate(options, make_rules(1), make_random(2), deals, seed=10)
    mean, low, high = paired_ci(rules_score, random_score)
    assert low > 0.5, (mean, low, high)
    # The helper itself is fair: the same agent on both sides shows no gap beyond chance.
    a, b = duplicate(options, make_random(3), make_random(4), deals, seed=10)
    mean, low, high = paired_ci(a, b)
    assert low < 0 < high or abs(mean) < 0.2, (mean, low, high)
