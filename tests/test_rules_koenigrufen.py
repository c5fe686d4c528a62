"""The rule-based King Calling agent: legal play, AEC == batch, hand-made positions, strength against random.

``python -m tests.test_rules_koenigrufen --deals 20000`` prints the duplicate-play
strength tables (rules vs random, rules vs rules) that the tests check on fewer deals.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np
import pytest

import trickenv
from trickenv.agents.random_agent import RandomAgent
from trickenv.agents.rules_koenigrufen import KoenigrufenRules
from trickenv.cards import parse_cards
from trickenv.games.koenigrufen import A_ALL_TRICKS, A_CALL, A_MARRIAGE

GAME = "koenigrufen"
VARIANTS = [{}, {"partner_from": "full_hand"}, {"rounds": 3}]


# ------------------------------------------------------------ duplicate play


def duplicate(make_a: Any, make_b: Any, deals: int, seed: int = 0, **options: Any) -> dict[str, Any]:
    """Duplicate play of agent A against agent B over ``deals`` seeded deals.

    Each deal is played in the 4 rotations of the seating A A B B (dealer fixed),
    so each agent sits every seat and calls equally often. ``make_a(spec)`` and
    ``make_b(spec)`` build the agents. Returns per-deal mean payments per
    seat-occurrence (``a``, ``b``), their paired difference's mean and 95% CI,
    and the deal records' win rates by the caller's agent and by defending agent.
    """
    spec = trickenv.make_spec(GAME, **options)
    source = trickenv.make_vec(GAME, deals, seed=seed, **options)
    source.reset()
    dealt, dealers = source.current_deals()
    vec = trickenv.make_vec(GAME, 4 * deals, seed=seed, **options)
    obs, mask, player = vec.reset(deals=np.tile(dealt, (4, 1, 1)), dealers=np.tile(dealers, 4))
    rotation = np.repeat(np.arange(4), deals)
    a_seat = ((np.arange(4)[None, :] - rotation[:, None]) % 4) < 2  # [games, seat]: seat played by A
    agent_a, agent_b = make_a(spec), make_b(spec)
    active = np.ones(4 * deals, bool)
    pay = np.zeros((4 * deals, 4))
    calling_wins = np.zeros(4 * deals, bool)
    caller = np.zeros(4 * deals, np.int64)
    calling_side = np.zeros((4 * deals, 4), bool)
    while active.any():
        act_a = agent_a.act_batch(obs, mask).copy()
        act_b = agent_b.act_batch(obs, mask)
        actions = np.where(a_seat[np.arange(4 * deals), player], act_a, act_b)
        obs, mask, player, rewards, done = vec.step(actions, where=active)
        if vec.deal_end.any():
            rec = vec.deal_records()
            k = rec["game"]
            pay[k] = rec["scores"]
            calling_wins[k] = rec["calling_wins"]
            caller[k] = rec["caller"]
            calling_side[k] = rec["calling_side"]
            active[k] = False
    a = (pay * a_seat).reshape(4, deals, 4).sum(axis=(0, 2)) / 8
    b = (pay * ~a_seat).reshape(4, deals, 4).sum(axis=(0, 2)) / 8
    diff = a - b
    half = 1.96 * diff.std(ddof=1) / np.sqrt(deals)
    caller_is_a = a_seat[np.arange(4 * deals), caller]
    defending = ~calling_side
    return {
        "a": a, "b": b, "diff": diff.mean(), "ci": (diff.mean() - half, diff.mean() + half),
        "caller_win_a": calling_wins[caller_is_a].mean(), "caller_win_b": calling_wins[~caller_is_a].mean(),
        "defender_win_a": (~calling_wins[:, None] & defending & a_seat).sum() / (defending & a_seat).sum(),
        "defender_win_b": (~calling_wins[:, None] & defending & ~a_seat).sum() / (defending & ~a_seat).sum(),
    }


def rules(spec, seed=1):
    return KoenigrufenRules(spec, seed=seed)


def rand(spec, seed=2):
    return RandomAgent(seed=seed, spec=spec)


class RandomCards(RandomAgent):
    """Random legal calls and cards, never a declaration: the random agent declares a hundred or all tricks
    in most deals (68 and 69 are legal for everyone in the first trick), which makes it very weak."""

    def act_batch(self, obs: np.ndarray | None, mask: np.ndarray) -> np.ndarray:
        """A random legal action other than a declaration, per row."""
        mask = mask.copy()
        mask[:, A_MARRIAGE:] = False
        return super().act_batch(obs, mask)


def rand_cards(spec, seed=2):
    return RandomCards(seed=seed, spec=spec)


# ------------------------------------------------------------------ legality


@pytest.mark.parametrize("options", VARIANTS, ids=[str(v) for v in VARIANTS])
def test_only_legal_actions_in_every_variant(options):
    """Rules in every seat for many steps of 512 games: the env raises on any illegal action."""
    vec = trickenv.make_vec(GAME, 512, seed=7, **options)
    agent = KoenigrufenRules(vec.spec, seed=3)
    obs, mask, player = vec.reset()
    deals = 0
    for _ in range(400):
        actions = agent.act_batch(obs, mask)
        assert mask[np.arange(len(actions)), actions].all()
        obs, mask, player, rewards, done = vec.step(actions)
        deals += int(vec.deal_end.sum())
    assert deals > 4 * 512


def test_legal_against_random_players():
    """Positions that rules players never reach (random calls, odd declarations) stay legal too."""
    vec = trickenv.make_vec(GAME, 512, seed=8)
    agent, other = KoenigrufenRules(vec.spec, seed=3), RandomAgent(seed=4)
    obs, mask, player = vec.reset()
    for _ in range(400):
        actions = np.where(player % 2 == 0, agent.act_batch(obs, mask), other.act_batch(obs, mask))
        assert mask[np.arange(len(actions)), actions].all()
        obs, mask, player, rewards, done = vec.step(actions)


# ------------------------------------------------------------- AEC == batch


def test_act_on_the_aec_env_equals_act_batch_on_the_same_row():
    """Whole games: every AEC decision equals the batch decision of the same game's row in a batch of 32."""
    spec = trickenv.make_spec(GAME)
    single, batch = KoenigrufenRules(spec, seed=5), KoenigrufenRules(spec, seed=5)
    vec = trickenv.make_vec(GAME, 32, seed=11)
    vec.reset()
    deals, dealers = vec.current_deals()
    obs, mask, player = vec.reset(deals=deals, dealers=dealers)
    envs = []
    for g in range(32):
        env = trickenv.make(GAME)
        env.reset(options={"deal": deals[g].tolist(), "dealer": int(dealers[g])})
        envs.append(env)
    for _ in range(40):  # a deal takes 33 decisions plus declarations
        acts = batch.act_batch(obs, mask).copy()
        live = [g for g in range(32) if not envs[g].terminations[envs[g].agent_selection]]
        for g in live:
            env = envs[g]
            o = env.observe(env.agent_selection)
            assert np.array_equal(o["observation"], obs[g])
            assert single.act(o) == acts[g]
            env.step(int(acts[g]))
        if not live:
            break
        where = np.zeros(32, bool)
        where[live] = True
        obs, mask, player, rewards, done = vec.step(acts, where=where)
    assert not live


# ------------------------------------------------------- hand-made positions
# Dealer 3, so seat 0 calls and leads the first trick; the first 4 cards listed are a seat's first batch.


def position(deal: list[str], actions: list[str | int] = (), **options: Any):
    """An AEC env after ``actions`` (card text or action ids) from a fixed deal dealt by seat 3."""
    env = trickenv.make(GAME, **options)
    env.reset(options={"deal": deal, "dealer": 3})
    for a in actions:
        env.step(card(a) if isinstance(a, str) else a)
    return env


def card(text: str) -> int:
    """Card id of a text such as ``"10H"``."""
    return parse_cards(text, 32)[0]


def decide(env) -> int:
    """The rules agent's action for the seat to act."""
    return KoenigrufenRules(env.unwrapped.spec, seed=0).act(env.observe(env.agent_selection))


# Trick 1 reveals the partner: the caller leads the trump ace, the partner must follow with the called ten.
# Trick 2: the caller leads 7C, the partner follows JC, defender seat 2 wins with AC; defender seat 3,
# last to play, void in clubs and without trumps, may discard anything.
REVEAL = [
    "AH 9H 8H 7C  8C 9C 7S 8S",  # seat 0, caller: hearts, holding the ace -> calls 10H
    "10H 7D 8D AD  JC 10D JD 10S",  # seat 1, partner: 10H in its first batch
    "AC 10C KC QC  7H JH QH KH",  # seat 2, defender
    "AS 9S JS QS  KS QD KD 9D",  # seat 3, defender: no hearts at all
]


def test_call_the_ace_of_the_longest_suit():
    deal = ["9H 8H 7H KC  AS 10S 7S 8S", "10H 7D 8D AD  JC 10D JD 9S", "AC 10C QC 7C  AH JH QH KH",
            "KS QS JS 9C  8C QD KD 9D"]
    assert decide(position(deal)) == A_CALL + card("AH")


def test_call_the_ten_when_holding_the_ace():
    assert decide(position(REVEAL)) == A_CALL + card("10H")


def test_alone_on_purpose_only_with_four_trumps_headed_by_ace_and_ten():
    deal = ["AS 10S KS QS  JH 9H 8H 7H", "10H 7D 8D AD  JC 10D JD 9S", "AC 10C KC QC  7C AH QH KH",
            "8C 9C 7S 8S  JS 9D QD KD"]
    env = position(deal)
    assert decide(env) == A_CALL + card("AS")  # an own card: the caller plays alone
    env = position(["AS 10S KS 7C  JH 9H 8H 7H", deal[1], "AC 10C KC QC  QS AH QH KH", deal[3]])
    assert decide(env) == A_CALL + card("QS")  # three trumps are not enough: call the highest one missing


def test_all_tricks_with_every_trump():
    deal = ["AH 10H KH QH  JH 9H 8H 7H", "10S 7D 8D AD  JC 10D JD 9S", "AC 10C KC QC  7C AS QS KS",
            "8C 9C 7S 8S  JS QD KD 9D"]
    env = position(deal, [A_CALL + card("AH")])  # alone on purpose, then dealt the other four trumps
    assert decide(env) == A_ALL_TRICKS


def test_caller_declares_the_trump_marriage_that_surely_counts_and_keeps_the_trump_ace():
    deal = ["AH KH QH 7C  8C 9C 7S 8S", "10H 7D 8D AD  JC 10D JD 10S", "AC 10C KC QC  7H JH 9H 8H",
            "AS 9S JS QS  KS QD KD 9D"]
    env = position(deal)
    assert decide(env) == A_CALL + card("10H")
    env.step(A_CALL + card("10H"))
    assert decide(env) == A_MARRIAGE + 2  # hearts, 40: the trump ace wins a trick for sure
    env.step(A_MARRIAGE + 2)
    # No trump pulling with the ace (it captures points later): a low card from the longest plain suit.
    assert decide(env) == card("7C")


def test_caller_keeps_a_marriage_that_would_likely_not_count():
    deal = ["9H 8H 7H KC  QC 7S 8S 7D", "10H 7C 8D AD  JC 10D JD 10S", "AC 10C 9C 8C  AH JH QH KH",
            "AS 9S JS QS  KS QD KD 9D"]
    env = position(deal, [A_CALL + card("AH")])
    assert env.observe("player_0")["action_mask"][A_MARRIAGE + 0]  # clubs K + O: legal ...
    assert decide(env) < 32  # ... but with no sure trick it would raise the bar to 60: play on


def test_defender_declares_every_marriage():
    env = position(REVEAL, [A_CALL + card("10H"), "AH", "10H"])
    assert env.agent_selection == "player_2"
    # Defender seat 2 holds K + O of clubs and hearts: each only adds to the defenders' total.
    first = decide(env)
    assert first in (A_MARRIAGE + 0, A_MARRIAGE + 2)
    env.step(first)
    assert decide(env) == (A_MARRIAGE + 0) + (A_MARRIAGE + 2) - first


def test_smear_the_ace_on_a_partners_sure_trick():
    env = position(REVEAL, [A_CALL + card("10H"), "AH", "10H", "7H", "QD", "7C", "JC", "AC"])
    assert env.agent_selection == "player_3"
    assert decide(env) == card("AS")  # sides are public: seat 2's AC cannot be beaten any more


def test_no_smear_when_the_opponents_win():
    # Same trick, but the caller's partner wins it: seat 3 throws its lowest card instead of the ace.
    deal = [REVEAL[0], "10H 7D 8D AD  AC 10D JD 10S", "JC 10C KC QC  7H JH QH KH", REVEAL[3]]
    env = position(deal, [A_CALL + card("10H"), "AH", "10H", "7H", "QD", "7C", "AC", "10C"])
    assert env.agent_selection == "player_3"
    assert decide(env) in (card("9S"), card("9D"))


def test_trump_an_opponents_trick_with_the_lowest_trump():
    # Trick 2: the caller leads 7S, its partner must beat with 10S; defender seat 2, void in spades, must trump,
    # and only its fellow defender plays after it: any trump wins, so the cheapest one does it.
    env = position(REVEAL, [A_CALL + card("10H"), "AH", "10H", "7H", "QD", "7S", "10S"])
    assert env.agent_selection == "player_2"
    assert decide(env) == card("JH")


# ---------------------------------------------------------------- strength


@pytest.mark.parametrize("options", [{}, {"partner_from": "full_hand"}], ids=["first_batch", "full_hand"])
def test_beats_random_in_duplicate_play(options):
    r = duplicate(rules, rand, 400, seed=3, **options)
    assert r["ci"][0] > 1.0, r  # about +2.5 per seat and deal: the random agent declares a hundred or all tricks
    assert r["caller_win_a"] > r["caller_win_b"] + 0.15
    r = duplicate(rules, rand_cards, 400, seed=3, **options)
    assert r["ci"][0] > 0.2, r  # random cards without declarations: still far behind


def test_duplicate_play_is_fair_between_equal_agents():
    r = duplicate(rules, lambda spec: rules(spec, seed=9), 300, seed=4)
    assert abs(r["diff"]) < 0.05 and r["ci"][0] < 0 < r["ci"][1], r


def main() -> None:
    """Print duplicate-play strength and win rates of rules vs random and rules vs rules."""
    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("--deals", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print(f"duplicate play, {args.deals} deals x 4 rotations of A A B B; payment per seat and deal, paired 95% CI")
    print()
    print("| variant | A | B | A - B | 95% CI | caller wins (A calls) | (B calls) | defenders win (A) | (B) |")
    print("|---|---|---|---:|---|---:|---:|---:|---:|")
    for options in ({}, {"partner_from": "full_hand"}):
        for name_b, make_b in (("random", rand), ("random cards, no declarations", rand_cards),
                               ("rules (other seed)", lambda spec: rules(spec, seed=9))):
            r = duplicate(rules, make_b, args.deals, seed=args.seed, **options)
            lo, hi = r["ci"]
            print(f"| {options.get('partner_from', 'first_batch')} | rules | {name_b} | {r['diff']:+.3f} | "
                  f"[{lo:+.3f}, {hi:+.3f}] | {r['caller_win_a']:.3f} | {r['caller_win_b']:.3f} | "
                  f"{r['defender_win_a']:.3f} | {r['defender_win_b']:.3f} |", flush=True)


if __name__ == "__main__":
    main()


def test_none_table_is_the_chance_that_a_hand_misses_given_cards():
    """NONE[m, h, k]: h cards drawn from m unseen hold none of k given ones, C(m - k, h) / C(m, h)."""
    from math import comb

    from trickenv.agents.rules_koenigrufen import NONE

    for m, h, k in [(24, 8, 0), (24, 8, 1), (24, 8, 5), (12, 4, 3), (9, 8, 2), (5, 5, 1), (3, 0, 2)]:
        assert NONE[m, h, k] == pytest.approx(comb(m - k, h) / comb(m, h), abs=1e-12), (m, h, k)
    assert NONE[6, 3, 4] == 0.0  # 3 cards from 6 cannot miss 4 of them
