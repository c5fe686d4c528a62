"""The rule-based Farbwechsel agent: legal play, AEC = batch, hand-made positions, strength against random."""

from __future__ import annotations

import numpy as np
import pytest

import trickenv
from trickenv import cards
from trickenv.agents.random_agent import RandomAgent
from trickenv.agents.rules_farbwechsel import FarbwechselRules

VARIANTS = [
    {},
    {"ranking": "natural"},
    {"ranking": "trump_ten"},
    {"switch_ranks": ("Q", "J")},
    {"switch_mode": "cycle"},
    {"num_players": 4},
    {"num_players": 4, "partnership": True},
    {"num_players": 4, "partnership": True, "ranking": "trump_ten", "switch_ranks": ("Q", "J"),
     "switch_mode": "cycle"},
    {"rounds": 3},
]
IDS = ["-".join(f"{k}={v}" for k, v in o.items()) or "default" for o in VARIANTS]


@pytest.mark.parametrize("options", VARIANTS, ids=IDS)
def test_only_legal_actions_batched(options):
    vec = trickenv.make_vec("farbwechsel", 512, seed=7, **options)
    agent = FarbwechselRules(vec.spec, seed=1)
    obs, mask, _ = vec.reset()
    deals = 0
    for _ in range(2 * (1 + vec.num_players * vec.spec.num_tricks)):  # every game plays two whole deals
        actions = agent.act_batch(obs, mask)
        assert (actions >= 0).all() and mask[np.arange(len(actions)), actions].all()
        obs, mask, _, _, _ = vec.step(actions)  # would also raise on an illegal action
        deals += int(vec.deal_end.sum())
    assert deals == 2 * 512


@pytest.mark.parametrize("options", [VARIANTS[0], VARIANTS[5], VARIANTS[7]], ids=[IDS[0], IDS[5], IDS[7]])
def test_act_on_the_aec_env_equals_act_batch_on_the_same_row(options):
    for seed in range(4):
        env = trickenv.make("farbwechsel", **options)
        env.reset(seed=seed)
        vec = trickenv.make_vec("farbwechsel", 16, seed=seed, **options)  # game 0 deals like env.reset(seed)
        obs, mask, _ = vec.reset()
        agent = FarbwechselRules(vec.spec, seed=5)
        steps = 0
        for _ in env.agent_iter():
            o, _, term, trunc, _ = env.last()
            if term or trunc:
                break
            assert np.array_equal(o["observation"], obs[0])
            a = agent.act(o)
            actions = agent.act_batch(obs, mask)
            assert a == actions[0]
            env.step(a)
            obs, mask, _, _, _ = vec.step(actions)
            steps += 1
        assert steps == 1 + vec.num_players * vec.spec.num_tricks


def test_seeded_and_deterministic():
    vec = trickenv.make_vec("farbwechsel", 256, seed=3)
    obs, mask, _ = vec.reset()
    for _ in range(12):
        obs, mask, _, _, _ = vec.step(FarbwechselRules(vec.spec, seed=0).act_batch(obs, mask))
    first = FarbwechselRules(vec.spec, seed=9).act_batch(obs, mask).copy()
    assert np.array_equal(first, FarbwechselRules(vec.spec, seed=9).act_batch(obs, mask))
    # Seeds only break exact ties, so most rows agree whatever the seed.
    other = FarbwechselRules(vec.spec, seed=10).act_batch(obs, mask)
    assert (first == other).mean() > 0.8


def test_rejects_other_games():
    with pytest.raises(ValueError, match="farbwechsel"):
        FarbwechselRules(trickenv.make_spec("four_tricks"))


# ------------------------------------------------------------------ hand-made positions


def _choice(deal: list[str], dealer: int, moves: str, **options) -> str:
    """The agent's choice after ``moves`` ("!H" declares hearts, else a card) from a fixed deal."""
    env = trickenv.make("farbwechsel", **options)
    env.reset(options={"deal": deal, "dealer": dealer})
    for m in moves.split():
        env.step(32 + "CSHD".index(m[1]) if m.startswith("!") else cards.parse_cards(m, 32)[0])
    agent = FarbwechselRules(env.unwrapped.spec, seed=0)
    a = agent.act(env.observe(env.agent_selection))
    return f"!{'CSHD'[a - 32]}" if a >= 32 else cards.card_str(a, 32)


THREE = ["AH 10H KH 9H 7C 8S 9D JC QS 7D", "AC 10C KC QC AS 10S KS 7S 8C 9C", "QH JH 8H 7H AD 10D KD QD JD 8D"]
FOUR = ["7C 9C JC KC AH 10H KH 9S", "AC 10C QC AS KS 9H 8H AD", "8C QS JS QH JH 10D QD JD", "10S KD 7H 9D 8D 7S 8S 7D"]


def test_declare_the_suit_with_ace_ten_and_length():
    assert _choice(THREE, 0, "") == "!H"
    # The same hand dealt to seat 1: still hearts.
    assert _choice([THREE[2], THREE[0], THREE[1]], 1, "") == "!H"


def test_smear_the_ten_onto_the_partners_sure_trick():
    # Seat 3 plays last; its partner (seat 1) holds the trick with AC; void in clubs, it gives the
    # unprotected 10S (AS is unseen) rather than ruffing with a trump or keeping it.
    assert _choice(FOUR, 3, "!H 7C AC 8C", num_players=4, partnership=True) == "10S"


def test_without_a_partner_ruff_the_ace_instead():
    # Same cards, no partnership: the AC trick belongs to an opponent, so the cheapest trump takes it.
    assert _choice(FOUR, 3, "!H 7C AC 8C", num_players=4) == "7H"


def test_do_not_overtake_the_partner():
    # Seat 3 plays last, void in clubs; partner seat 1 holds the trick with AC. Ruffing with AH or 7H
    # would only spend a trump on a trick the team already has: smear KD (AD and 10D are out) instead.
    deal = ["7C 9C JC KC 10H KH 10S 7D", "AC 10C QC AS KS 9H 8H AD", "8C QS JS QH JH 10D QD JD",
            "KD 7H AH 9D 8D 7S 8S 9S"]
    assert _choice(deal, 3, "!H 7C AC 8C", num_players=4, partnership=True) == "KD"


def test_do_not_throw_points_onto_an_opponents_trick():
    # An opponent leads AH (clubs trump); following hearts, give the 7, keep the 10.
    deal = ["10H 7H 7C 8C 7S 8S 9D 7D 8D 9S", "AH KH QH AC 10C KC AS 10S KS JS", "8H JH 9H QC JC QS AD 10D KD QD"]
    assert _choice(deal, 0, "!C AH 8H") == "7H"


def test_cash_the_trump_ten_while_it_is_trump():
    # trump_ten ranking: 10H is the master trump now (AH is gone) but a plain 10 is weak; queens are
    # still out, so take the trick with it while hearts is trump.
    deal = ["AH 10H 7C 8C 7S 8S 9D 7D 8D 9S", "9H KH QH AC 10C KC AS 10S KS JS", "8H JH 7H QC JC QS AD 10D KD QD"]
    assert _choice(deal, 2, "!H AH 9H 8H", ranking="trump_ten") == "10H"


STRONG_HEARTS = ["QH KH JH 9H 7H JC 8S 10S JD 9C", "AH AC 10C KC QC AS KS QS 9S 7S", "8H 10H AD 10D KD QD 8D 7D 7C 8C"]
WEAK_HEARTS = ["QH 7H KC 9S 7S JC 8S 10S JD 9C", "AH KH JH 9H AC 10C QC AS KS QS", "8H 10H AD 10D KD QD 8D 7D 7C 8C"]
# Seat 0 deals and names diamonds; QC makes clubs trump after trick 1, QD puts diamonds back after
# trick 2, so QH is the last queen out when seat 1 leads AH and seat 0 follows last.
SWITCH_MOVES = "!D QC 7C JC QS QD 8S AH 8H"


def test_switch_trump_to_the_strong_suit_with_its_queen():
    # The hand is long in hearts and QH is the last queen out: giving it to the lost trick makes
    # hearts trump for good (seat 2's six diamonds stop being trumps).
    assert _choice(STRONG_HEARTS, 0, SWITCH_MOVES) == "QH"
    # With only QH and 7H, hearts as trump would serve seat 1 (K J 9 of hearts): keep the queen.
    assert _choice(WEAK_HEARTS, 0, SWITCH_MOVES) == "7H"


# ------------------------------------------------------------------ strength


def _patterns(n: int, partnership: bool) -> list[str]:
    """Every seating of agents A and B in duplicate play."""
    if n == 3:
        return ["AAB", "ABA", "BAA", "ABB", "BAB", "BBA"]
    rotations = ["AABB", "ABBA", "BBAA", "BAAB"]
    return rotations + ["ABAB", "BABA"] if partnership else rotations


def duplicate(options: dict, make_a, make_b, deals: int, seed: int) -> np.ndarray:
    """Per deal: A's mean score per seat-occurrence minus B's, every deal played with every seating."""
    vec = trickenv.make_vec("farbwechsel", deals, seed=seed, **options)
    vec.reset()
    fixed, dealers = (x.copy() for x in vec.current_deals())
    a, b = make_a(vec.spec), make_b(vec.spec)
    n = vec.num_players
    score_a, score_b = np.zeros(deals), np.zeros(deals)
    count_a = count_b = 0
    for pattern in _patterns(n, vec.spec.options["partnership"]):
        is_a = np.array([ch == "A" for ch in pattern])
        obs, mask, player = vec.reset(deals=fixed, dealers=dealers, seed=seed + 1)  # same later deals too
        total = np.zeros((deals, n))
        over = np.zeros(deals, bool)
        while not over.all():
            act_a = a.act_batch(obs, mask).copy()
            actions = np.where(is_a[player], act_a, b.act_batch(obs, mask))
            obs, mask, player, rewards, done = vec.step(actions, where=~over)
            total += rewards
            over |= done
        score_a += total[:, is_a].sum(axis=1)
        score_b += total[:, ~is_a].sum(axis=1)
        count_a += is_a.sum()
        count_b += (~is_a).sum()
    return score_a / count_a - score_b / count_b


@pytest.mark.parametrize("options", VARIANTS, ids=IDS)
def test_beats_random_in_duplicate_play(options):
    diff = duplicate(options, lambda s: FarbwechselRules(s, seed=1), lambda s: RandomAgent(seed=2, spec=s),
                     deals=300, seed=11)
    low = diff.mean() - 1.96 * diff.std(ddof=1) / np.sqrt(len(diff))
    assert low > 10, f"rules - random = {diff.mean():.1f}, 95% CI lower bound {low:.1f}"


def test_duplicate_play_is_fair_between_equals():
    # The harness itself: the same agent against itself scores the same in every seat arrangement.
    diff = duplicate({}, lambda s: FarbwechselRules(s, seed=1), lambda s: FarbwechselRules(s, seed=1),
                     deals=200, seed=5)
    assert np.abs(diff).max() < 1e-9
