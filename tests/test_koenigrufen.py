"""King Calling (Königrufen): scripted hand-checked deals, properties, hidden information, bad inputs.

Card ids: suit*8 + rank, suits C S H D, ranks 7 8 9 10 J(U) Q(O) K A; deals are
given as text, first 4 cards of a seat = its first batch. With dealer 3 the
caller (forehand) is seat 0, who leads the first trick.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trickenv
from trickenv import cards
from trickenv.engine.layout import DEALS_DONE
from trickenv.games import koenigrufen as kr
from trickenv.koenigrufen_v0 import raw_env
from tests.helpers import plain

HUNDRED = 68
ALL_TRICKS = 69
BIG = {HUNDRED, ALL_TRICKS}  # the two big declarations, legal together until one is made
STRENGTH_ORDER = ["7", "8", "9", "J", "Q", "K", "10", "A"]  # docs/rules.md: A > 10 > K > O > U > 9 > 8 > 7


def c(text: str) -> int:
    """Card id of a text form."""
    return cards.parse_card(text, 32)


def cs(text: str) -> list[int]:
    """Card ids of a space separated text."""
    return cards.parse_cards(text, 32)


def call(text: str) -> int:
    """Action calling a card."""
    return 32 + c(text)


def marriage(suit: str) -> int:
    """Action declaring the marriage in a suit (C, S, H, D)."""
    return 64 + "CSHD".index(suit)


def legal(env) -> set[int]:
    """Legal actions of the seat to act."""
    return set(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist())


def seat_to_act(env) -> int:
    return env.agent_name_mapping[env.agent_selection]


def new_env(deal, dealer=3, **options):
    env = raw_env(**options)
    env.reset(options={"deal": deal, "dealer": dealer})
    return env


def run(env, actions) -> None:
    """Step a fixed action sequence (an illegal one raises ValueError)."""
    for a in actions:
        env.step(int(a))


def finish_lowest(env) -> None:
    """Play the current deal to its end, each seat playing its lowest legal card (never declaring)."""
    start = env.game.s[0, DEALS_DONE]
    while env.game.s[0, DEALS_DONE] == start:
        env.step(min(a for a in legal(env) if a < 32))


def readable(info: dict) -> dict:
    """A deal record / infos dict in readable Python values (seats lists, card texts, names)."""
    r = plain(info)
    partner = r["partner"]
    calling = [q for q in range(4) if r["calling_side"][q]]
    trump = r["trump"]
    r.update({
        "partner": partner if partner >= 0 else None,
        "alone": partner < 0,
        "alone_kind": kr.ALONE_NAMES[r["alone_kind"]],
        "called_card_id": r["called_card"],
        "called_card": cards.card_str(r["called_card"], 32),
        "called_card_holder": r["holder"],
        "trump": "CSHD"[trump],
        "calling_side": calling,
        "defenders": [q for q in range(4) if q not in calling],
        "declarations": [{"seat": q, "suit": "CSHD"[su], "value": 40 if su == trump else 20,
                          "counted": r["marriages_counted"][q][su]}
                         for q in range(4) for su in range(4) if r["marriages"][q][su]],
        "big_declaration": kr.BIG_NAMES[r["big_declaration"]],
        "big_declared_by": r["big_declared_by"] if r["big_declared_by"] >= 0 else None,
        "team_totals": {"calling": r["team_totals"][0], "defenders": r["team_totals"][1]},
        "team_tricks": {"calling": r["team_tricks"][0], "defenders": r["team_tricks"][1]},
        "winner": "calling" if r["calling_wins"] else "defenders",
        "payments": r["scores"],
    })
    return r


def result(env) -> tuple[list[float], dict]:
    """Rewards (payments) of the step that ended the deal, and the infos (readable)."""
    return [env.rewards[a] for a in env.possible_agents], readable(env.infos["player_0"])


def first_trick_script(called: str, trick1: str, decls: dict[int, list[int]] | None = None, leader: int = 0) -> list[int]:
    """The call, then the first trick with each seat's declarations just before its card."""
    decls = decls or {}
    out = [call(called)]
    for j, card in enumerate(cs(trick1)):
        out += decls.get((leader + j) % 4, [])
        out.append(card)
    return out


# ---------------------------------------------------------------- deal "B"
# Every seat holds 2 cards of each suit, so every trick is followed and trumps
# never decide a trick; every seat also holds one marriage (seat 0 H, 1 D, 2 C, 3 S).
DEAL_B = [
    "AC 7C KH QH 9S JS 10D 8D",
    "AS 9H 10C 8C 7S JH KD QD",
    "KC QC 10S 8S AH 7H 9D JD",
    "9C JC KS QS 10H 8H AD 7D",
]
# Play B (leader of trick 1 = seat 0; winners by hand: 0, 1, 1, 2, 2, 3, 3, 0):
#  T1 0:AC 1:8C 2:QC 3:JC -> 0 (10)   T2 0:7C 1:10C 2:KC 3:9C -> 1 (10)
#  T3 1:AS 2:8S 3:QS 0:JS -> 1 (10)   T4 1:7S 2:10S 3:KS 0:9S -> 2 (10)
#  T5 2:AH 3:8H 0:QH 1:9H -> 2 (10)   T6 2:7H 3:10H 0:KH 1:JH -> 3 (10)
#  T7 3:AD 0:8D 1:QD 2:JD -> 3 (10)   T8 3:7D 0:10D 1:KD 2:9D -> 0 (10 + 10 last)
# Points 30 20 20 20, tricks 2 2 2 2.
PLAY_B = ["AC 8C QC JC", "7C 10C KC 9C", "AS 8S QS JS", "7S 10S KS 9S",
          "AH 8H QH 9H", "7H 10H KH JH", "AD 8D QD JD", "7D 10D KD 9D"]
# Play V: seat 0 gives its 10D to seat 3's ace in T7, so seat 1's KD takes T8:
#  T7 3:AD 0:10D 1:QD 2:JD -> 3 (20)  T8 3:7D 0:8D 1:KD 2:9D -> 1 (0 + 10 last)
# Points 10 30 20 30, tricks 1 3 2 2.
PLAY_V = PLAY_B[:6] + ["AD 10D QD JD", "7D 8D KD 9D"]


def play_b(called: str, play=PLAY_B, decls=None, **options):
    env = new_env(DEAL_B, **options)
    run(env, first_trick_script(called, play[0], decls))
    for t in play[1:]:
        run(env, cs(t))
    return env


# ---------------------------------------------------------------- deal "A"
# Seat 1 holds all 8 spades: when spades are trump it wins every trick (it must
# trump any other suit led and everyone else is void in spades).
DEAL_A = [
    "KC QC KH QH KD QD 7C 8C",
    "AS 10S KS QS JS 9S 8S 7S",
    "AC 10C 9C JC AH 10H 9H JH",
    "AD 10D 9D JD 7H 8H 7D 8D",
]
# One suit per seat; hearts are split between seat 2's batches (AH in the second batch).
DEAL_SUITS = [
    "AC 10C KC QC JC 9C 8C 7C",
    "AS 10S KS QS JS 9S 8S 7S",
    "10H KH QH JH AH 9H 8H 7H",
    "AD 10D KD QD JD 9D 8D 7D",
]
# Seat 0 holds all spades (AS in the first batch) and seat 1 the clubs.
DEAL_CALLER_SPADES = [
    "AS 10S KS QS JS 9S 8S 7S",
    "AC 10C KC QC JC 9C 8C 7C",
    "AH 10H KH QH JH 9H 8H 7H",
    "AD 10D KD QD JD 9D 8D 7D",
]
# The same with AS in seat 0's second batch.
DEAL_CALLER_SPADES_LATE = ["10S KS QS JS AS 9S 8S 7S"] + DEAL_CALLER_SPADES[1:]


def play_a(deal, called: str, decls=None, **options):
    """Call, declare in trick 1 as given, then everyone plays its lowest legal card."""
    env = new_env(deal, **options)
    run(env, [call(called)])
    for j in range(4):
        run(env, (decls or {}).get(j, []))
        if j == 0:
            assert seat_to_act(env) == 0
        env.step(min(a for a in legal(env) if a < 32))
    finish_lowest(env)
    return env


# =================================================================== options


def test_spec_defaults():
    spec = kr.make_spec()
    assert spec.num_actions == 70 and spec.num_players == 4 and spec.deck == 32
    assert spec.options == {"partner_from": "first_batch", "rounds": 1}
    assert spec.obs_size == sum(size for _, size in spec.extra["obs_offsets"].values()) == 450
    # strength A > 10 > K > O > U > 9 > 8 > 7 and points: aces and tens 10 each
    order = sorted(range(8), key=lambda r: spec.tab[1, r])
    assert [cards.card_str(r, 32)[:-1] for r in order] == STRENGTH_ORDER
    assert spec.tab[2].sum() == 80 and spec.tab[2, c("AH")] == 10 and spec.tab[2, c("10D")] == 10
    assert spec.tab[2, c("KH")] == 0
    assert spec.action_str(call("AH")) == "call AH" and spec.action_str(marriage("D")) == "marriage diamonds"
    assert spec.action_str(HUNDRED) == "hundred" and spec.action_str(ALL_TRICKS) == "all tricks"


@pytest.mark.parametrize(
    "options, match",
    [
        ({"partner_from": "x"}, "partner_from must be one of"),
        ({"partner_from": True}, "partner_from"),
        ({"rounds": 0}, "rounds must be >= 1"),
        ({"rounds": 1.5}, "rounds must be an integer"),
        ({"num_players": 3}, "koenigrufen has no option 'num_players'"),
        ({"bidding": True}, "no option 'bidding'"),
    ],
)
def test_bad_options(options, match):
    with pytest.raises(ValueError, match=match):
        kr.make_spec(**options)
    with pytest.raises(ValueError, match=match):
        trickenv.make("koenigrufen", **options)


@pytest.mark.parametrize(
    "deal, match",
    [
        (DEAL_B[:3], "deal must list the cards of each of the 4 seats"),
        ([DEAL_B[0][:-3]] + DEAL_B[1:], "seat 0 is dealt 7 cards"),
        ([DEAL_B[0], DEAL_B[0]] + DEAL_B[2:], "dealt twice"),
        ([list(range(8)), list(range(8, 16)), list(range(16, 24)), list(range(24, 31)) + [32]], "out of range"),
        ("AC 7C", "deal must list"),
    ],
)
def test_malformed_deals(deal, match):
    env = raw_env()
    with pytest.raises(ValueError, match=match):
        env.reset(options={"deal": deal, "dealer": 0})


def test_deal_without_dealer_is_dealt_by_a_random_dealer_and_dealer_is_checked():
    env = raw_env()
    env.reset(seed=1, options={"deal": DEAL_B})
    d = env.current_deal()
    assert d["dealer"] in range(4) and d["deal"].tolist() == [sorted(cs(h)[:4]) + sorted(cs(h)[4:]) for h in DEAL_B]
    with pytest.raises(ValueError, match="dealer must be a seat 0..3"):
        env.reset(options={"deal": DEAL_B, "dealer": 4})


# ===================================================================== call


def test_call_phase_hides_second_batch_and_allows_any_call():
    env = new_env(DEAL_B)
    off = kr.obs_offsets()
    assert seat_to_act(env) == 0  # forehand = left of dealer 3
    assert legal(env) == set(range(32, 64))
    for seat in range(4):
        o = env.observe(f"player_{seat}")["observation"]
        hand = set(np.flatnonzero(o[:32]).tolist())
        assert hand == set(cs(DEAL_B[seat])[:4])  # only the first batch
        assert o[off["phase"][0] + 2] == 1  # phase: call
        assert o[off["trump"][0] + 4] == 1  # no trump yet
        assert o[off["called"][0]:off["called"][0] + 32].sum() == 0
        assert o[off["caller"][0] + (0 - seat) % 4] == 1
    # the second batch is in no hand but kept aside in aux[1 + seat] (conservation)
    for p in range(4):
        assert int(env.game.hands[0, p]) == sum(1 << x for x in cs(DEAL_B[p])[:4])
        assert int(env.game.aux[0, 1 + p]) == sum(1 << x for x in cs(DEAL_B[p])[4:])
    with pytest.raises(ValueError, match="illegal action 64"):
        env.step(64)  # a marriage during the call
    with pytest.raises(ValueError, match="illegal action 0"):
        env.step(0)  # a card during the call
    with pytest.raises(ValueError, match="illegal action 69"):
        env.step(ALL_TRICKS)
    with pytest.raises(ValueError, match="out of range"):
        env.step(70)
    env.step(call("AS"))
    assert env.game.s[0, kr.TRUMP] == 1  # spades
    for seat in range(4):
        o = env.observe(f"player_{seat}")["observation"]
        assert set(np.flatnonzero(o[:32]).tolist()) == set(cs(DEAL_B[seat]))
        assert o[off["trump"][0] + 1] == 1 and o[off["called"][0] + c("AS")] == 1
        assert o[off["phase"][0] + 3] == 1
    assert seat_to_act(env) == 0


@pytest.mark.parametrize(
    "deal, called, mode, partner, alone_kind, holder",
    [
        (DEAL_B, "AS", "first_batch", 1, None, 1),  # AS in seat 1's first batch
        (DEAL_B, "AS", "full_hand", 1, None, 1),
        (DEAL_B, "KH", "first_batch", None, "on_purpose", 0),  # the caller's own card
        (DEAL_B, "KH", "full_hand", None, "on_purpose", 0),
        (DEAL_B, "AH", "first_batch", None, "by_chance", 2),  # AH comes in seat 2's second batch
        (DEAL_B, "AH", "full_hand", 2, None, 2),  # ... which makes seat 2 the partner with full_hand
        (DEAL_B, "10D", "first_batch", None, "by_chance", 0),  # the caller's own second batch
        (DEAL_B, "10D", "full_hand", None, "by_chance", 0),
    ],
)
def test_partner_determination(deal, called, mode, partner, alone_kind, holder):
    env = new_env(deal, partner_from=mode)
    env.step(call(called))
    s = env.game.s[0]
    assert s[kr.PARTNER] == (-1 if partner is None else partner)
    assert s[kr.HOLDER] == holder
    off = kr.obs_offsets()["own_status"][0]
    for seat in range(4):
        own = env.observe(f"player_{seat}")["observation"][off:off + 3].tolist()
        expect = [0, 0, 0]
        if seat == partner:
            expect[0] = 1
        elif seat == holder and seat != 0:
            expect[1] = 1  # holds it without being the partner: knows the caller is alone
        elif seat == holder:
            expect[2] = 1  # the caller holds it: knows it is alone
        assert own == expect, seat
    finish_lowest(env)
    _, info = result(env)
    assert info["partner"] == partner and info["alone"] == (partner is None)
    assert info["alone_kind"] == alone_kind and info["called_card"] == called
    assert info["called_card_holder"] == holder and info["trump"] == called[-1]
    assert info["calling_side"] == [0] + ([partner] if partner is not None else [])


# =================================================================== duties

# Trump hearts (AH called: held by seat 1 -> partner 1). Hand-checked masks below.
DEAL_DUTY = [
    "KS 7C 8C 9C 10S QS 9D JC",
    "AS 7S AH 10C 8S 9S JS QC",
    "9H KH AC KC 10D JD QD KD",
    "8H 10H 7H JH QH AD 7D 8D",
]


def test_duties_exact_masks():
    env = new_env(DEAL_DUTY)
    run(env, [call("AH")])
    # seat 0 leads: anything, the spade marriage (KS QS), the hundred or all tricks
    assert legal(env) == set(cs(DEAL_DUTY[0])) | {marriage("S")} | BIG
    env.step(c("KS"))
    # must beat in suit: KS led, seat 1 holds AS 7S 8S 9S JS -> only AS beats the king
    assert legal(env) == {c("AS")} | BIG
    with pytest.raises(ValueError, match="illegal action"):
        env.step(c("7S"))
    with pytest.raises(ValueError, match="illegal action"):
        env.step(c("AH"))
    env.step(c("AS"))
    # must trump: seat 2 void in spades, a spade wins -> any trump (9H KH); diamond marriage possible
    assert legal(env) == {c("9H"), c("KH"), marriage("D")} | BIG
    env.step(c("9H"))
    # must overtrump: 9H wins; seat 3 holds 7H 8H 10H JH QH -> higher: 10H JH(U) QH(O)
    assert legal(env) == {c("10H"), c("JH"), c("QH")} | BIG
    with pytest.raises(ValueError, match="illegal action"):
        env.step(c("8H"))
    env.step(c("JH"))  # seat 3 wins trick 1
    assert seat_to_act(env) == 3 and env.game.s[0, kr.POINTS + 3] == 10
    # trick 2: no declarations any more
    assert legal(env) == set(cs("8H 10H 7H QH AD 7D 8D"))
    env.step(c("7H"))
    # trump led, seat 0 void in hearts (trump): free discard of any card
    assert legal(env) == set(cs("7C 8C 9C 10S QS 9D JC"))
    with pytest.raises(ValueError, match="illegal action 66"):
        env.step(marriage("H"))  # declaring after the first trick
    env.step(c("7C"))
    assert legal(env) == {c("AH")}  # follow trump and beat 7H
    env.step(c("AH"))
    assert legal(env) == {c("KH")}  # cannot beat AH: any trump, only KH
    env.step(c("KH"))  # seat 1 wins trick 2 (AH)
    assert seat_to_act(env) == 1
    env.step(c("7S"))
    # seat 2 void in spades and in trump: free discard
    assert legal(env) == set(cs("AC KC 10D JD QD KD"))
    env.step(c("10D"))
    # seat 3 void in spades: a spade wins -> any trump
    assert legal(env) == set(cs("8H 10H QH"))
    env.step(c("8H"))
    # seat 0 holds spades, but a trump wins the trick -> any spade (docs/rules.md example)
    assert legal(env) == set(cs("10S QS"))
    env.step(c("QS"))
    assert seat_to_act(env) == 3  # 8H trumped


def test_must_overtrump_falls_back_to_any_trump():
    # Trump clubs (caller holds AC: alone on purpose). Seat 0 leads AS; seat 1 void in spades
    # trumps with 10C; seat 2 void in spades holds only 7C 8C < 10C -> any trump.
    deal = [
        "AC AS 7S 8S 9S 10S JS QS",
        "10C 7H 8H 9H 10H JH QH KH",
        "7C 8C AH 7D 8D 9D 10D JD",
        "KS 9C JC QC KC QD KD AD",
    ]
    env = new_env(deal)
    run(env, [call("AC"), c("AS"), c("10C")])
    assert legal(env) == {c("7C"), c("8C")} | BIG
    env.step(c("8C"))
    assert legal(env) == {c("KS"), marriage("C"), marriage("D")} | BIG  # follows spades
    env.step(c("KS"))
    assert seat_to_act(env) == 1  # 10C won


# ================================================================== scoring


H, A = kr.BIG_HUNDRED, kr.BIG_ALL_TRICKS


@pytest.mark.parametrize(
    "call_total, call_tricks, declared, def_total, big_side, kind, wins, stake",
    [
        (50, 4, 0, 40, -1, 0, True, 1),  # threshold 50 reached exactly: plain win
        (49, 4, 0, 41, -1, 0, False, 1),
        (40, 4, 0, 50, -1, 0, False, 1),
        (60, 4, 20, 50, -1, 0, True, 1),  # one plain marriage: 60
        (59, 4, 20, 51, -1, 0, False, 1),
        (80, 4, 40, 50, -1, 0, True, 1),  # trump marriage: 80
        (79, 4, 40, 50, -1, 0, False, 1),
        (100, 4, 60, 50, -1, 0, True, 2),  # 60 declared: 100; 100+ undeclared: tier 2
        (99, 4, 60, 50, -1, 0, False, 1),
        (120, 5, 80, 30, -1, 0, True, 2),  # 40 + declared beyond the table
        (119, 5, 80, 30, -1, 0, False, 1),  # defenders win plainly with 30 points
        (100, 6, 0, 0, -1, 0, True, 2),  # 100 without marriages: stake 2
        (99, 7, 0, 20, -1, 0, True, 1),
        (90, 8, 0, 0, -1, 0, True, 4),  # all 8 tricks undeclared: 2 + 2
        (130, 8, 40, 0, -1, 0, True, 4),  # all 8 and 100+, undeclared: still 2 + 2
        (90, 8, 60, 0, -1, 0, False, 1),  # all 8 tricks, uncounted marriages lift the threshold: defenders win
        (30, 0, 0, 110, -1, 0, False, 4),  # defenders take all 8
        (40, 3, 0, 100, -1, 0, False, 2),  # defenders reach 100 (with marriages)
        (100, 5, 0, 0, 0, H, True, 3),  # hundred declared and made: tier 3
        (99, 7, 0, 0, 0, H, False, 3),  # hundred missed: the declaring team loses 3
        (90, 8, 0, 0, 0, H, False, 3),  # hundred missed although all 8 tricks were taken
        (130, 8, 40, 0, 0, H, True, 5),  # hundred made with undeclared all tricks: 3 + 2
        (49, 4, 0, 41, 0, H, False, 3),  # a missed hundred ignores the threshold of 50 too
        (30, 2, 0, 100, 1, H, False, 3),  # defenders' hundred made
        (0, 0, 40, 130, 1, H, False, 5),  # defenders' hundred with all 8 tricks: 3 + 2
        (60, 4, 0, 30, 1, H, True, 3),  # defenders' hundred missed: they lose 3
        (10, 0, 0, 90, 0, H, False, 3),  # calling side's hundred missed, defenders took all 8: still 3
        (90, 8, 0, 0, 0, A, True, 5),  # all tricks declared and made: 2 + 3
        (130, 8, 40, 0, 0, A, True, 5),  # ... with 100+ as well: tier 2 (no hundred declared) + 3
        (80, 7, 0, 10, 0, A, False, 5),  # all tricks missed by one trick: the declaring team loses 5
        (30, 0, 0, 90, 1, A, False, 5),  # defenders' all tricks made
        (70, 1, 0, 20, 1, A, True, 5),  # defenders' all tricks missed: they lose 5
        (20, 0, 60, 90, 0, A, False, 5),  # calling side's all tricks missed: lose 5 whatever the threshold
    ],
)
def test_score_deal(call_total, call_tricks, declared, def_total, big_side, kind, wins, stake):
    got = kr.score_deal(call_total, call_tricks, declared, def_total, big_side, kind)
    assert (bool(got[0]), int(got[1])) == (wins, stake)


@pytest.mark.parametrize(
    "wins, stake, partner, expect",
    [
        (True, 1, 2, [1, -1, 1, -1]),
        (False, 3, 2, [-3, 3, -3, 3]),
        (True, 2, -1, [6, -2, -2, -2]),  # 1 v 3, lone caller reaches 100
        (False, 1, -1, [-3, 1, 1, 1]),
        (True, 6, -1, [18, -6, -6, -6]),
    ],
)
def test_pay(wins, stake, partner, expect):
    out = np.zeros((1, 4), np.float32)
    kr.pay(out, 0, wins, stake, 0, partner)
    assert out[0].tolist() == expect and out.sum() == 0


# ============================================================ scripted deals


def test_b_partner_found_plain_win_at_50():
    env = play_b("AS")  # partner seat 1 (AS in its first batch), trump spades
    pay, info = result(env)
    assert info["points"] == [30, 20, 20, 20] and info["tricks"] == [2, 2, 2, 2]
    assert info["partner"] == 1 and info["threshold"] == 50
    assert info["team_totals"] == {"calling": 50, "defenders": 40}
    assert info["winner"] == "calling" and info["stake"] == 1
    assert pay == [1, 1, -1, -1] == info["payments"]
    assert info["totals"] == [1, 1, -1, -1]
    assert env.terminations["player_0"]


def test_v_calling_side_misses_50():
    env = play_b("AS", PLAY_V)
    pay, info = result(env)
    assert info["points"] == [10, 30, 20, 30] and info["tricks"] == [1, 3, 2, 2]
    assert info["team_totals"] == {"calling": 40, "defenders": 50}
    assert info["winner"] == "defenders" and info["stake"] == 1
    assert pay == [-1, -1, 1, 1]


def test_alone_on_purpose_loses_1v3():
    env = play_b("KH")  # caller's own card: alone, trump hearts; caller takes 30
    pay, info = result(env)
    assert info["alone"] and info["alone_kind"] == "on_purpose" and info["partner"] is None
    assert info["team_totals"] == {"calling": 30, "defenders": 60}
    assert info["winner"] == "defenders" and info["stake"] == 1
    assert pay == [-3, 1, 1, 1]


def test_marriage_threshold_60_reached_exactly():
    # Play V with trump spades: seat 0 declares the hearts marriage (20, counted: it wins T1).
    env = play_b("AS", PLAY_V, {0: [marriage("H")]})
    pay, info = result(env)
    assert info["declarations"] == [{"seat": 0, "suit": "H", "value": 20, "counted": True}]
    assert info["threshold"] == 60 and info["team_totals"]["calling"] == 60
    assert info["winner"] == "calling" and info["stake"] == 1 and pay == [1, 1, -1, -1]


def test_trump_marriage_threshold_80_reached_exactly():
    # Call 9H (seat 1's first batch): trump hearts, seat 0's hearts marriage is worth 40.
    env = play_b("9H", PLAY_V, {0: [marriage("H")]})
    pay, info = result(env)
    assert info["partner"] == 1 and info["threshold"] == 80
    assert info["team_totals"]["calling"] == 80 and info["winner"] == "calling" and pay == [1, 1, -1, -1]


def test_both_partners_marriages_threshold_100_and_stake_2():
    # Seat 0 hearts (trump, 40) + partner seat 1 diamonds (20): threshold 100; play V: 40 + 60 = 100.
    env = play_b("9H", PLAY_V, {0: [marriage("H")], 1: [marriage("D")]})
    pay, info = result(env)
    assert info["threshold"] == 100 and info["team_totals"]["calling"] == 100
    assert info["winner"] == "calling" and info["stake"] == 2 and pay == [2, 2, -2, -2]
    # play B instead: 50 + 60 = 110
    env = play_b("9H", PLAY_B, {0: [marriage("H")], 1: [marriage("D")]})
    pay, info = result(env)
    assert info["team_totals"]["calling"] == 110 and pay == [2, 2, -2, -2]


def test_defenders_marriages_count_for_their_stake():
    # Trump spades; defenders seat 2 (clubs, 20) and seat 3 (spades = trump, 40) declare.
    # Play V: calling 40 < 50; defenders 50 + 60 = 110 >= 100 -> stake 2.
    env = play_b("AS", PLAY_V, {2: [marriage("C")], 3: [marriage("S")]})
    pay, info = result(env)
    assert info["threshold"] == 50
    assert info["team_totals"] == {"calling": 40, "defenders": 110}
    assert info["winner"] == "defenders" and info["stake"] == 2 and pay == [-2, -2, 2, 2]
    obs = env.observe("player_1")["observation"]  # marriages are public, seat-relative
    off = kr.obs_offsets()["marriages"][0]
    assert obs[off + 1 * 4 + 0] == 1 and obs[off + 2 * 4 + 1] == 1 and obs[off:off + 16].sum() == 2


def test_defender_hundred_made_by_points():
    env = play_b("AS", PLAY_V, {2: [marriage("C")], 3: [marriage("S"), HUNDRED]})
    pay, info = result(env)
    assert info["big_declaration"] == "hundred" and info["big_declared_by"] == 3
    assert info["team_totals"]["defenders"] == 110 and info["winner"] == "defenders" and info["stake"] == 3
    assert pay == [-3, -3, 3, 3]


def test_hundred_made_by_points_with_marriages():
    env = play_b("9H", PLAY_B, {0: [marriage("H"), HUNDRED], 1: [marriage("D")]})
    pay, info = result(env)
    assert info["big_declaration"] == "hundred" and info["big_declared_by"] == 0
    assert info["team_totals"]["calling"] == 110
    assert info["winner"] == "calling" and info["stake"] == 3 and pay == [3, 3, -3, -3]


def test_hundred_missed():
    env = play_b("AS", PLAY_B, {0: [HUNDRED]})  # calling side only reaches 50
    pay, info = result(env)
    assert info["big_declared_by"] == 0 and info["winner"] == "defenders" and info["stake"] == 3
    assert pay == [-3, -3, 3, 3]


def test_a_all_tricks_without_hundred():
    env = play_a(DEAL_A, "AS")  # partner seat 1 holds every trump
    pay, info = result(env)
    assert info["tricks"] == [0, 8, 0, 0] and info["points"] == [0, 90, 0, 0]
    assert info["winner"] == "calling" and info["stake"] == 4 and pay == [4, 4, -4, -4]


def test_a_hundred_missed_despite_all_tricks():
    # The calling side takes all 8 tricks but only 90 points: a declared hundred is missed (lose 3).
    env = play_a(DEAL_A, "AS", {0: [HUNDRED]})
    pay, info = result(env)
    assert info["tricks"] == [0, 8, 0, 0] and info["team_totals"]["calling"] == 90
    assert info["winner"] == "defenders" and info["stake"] == 3 and pay == [-3, -3, 3, 3]


def test_a_hundred_made_with_all_tricks():
    # Seat 1's trump marriage (40, counted: it wins every trick) lifts the calling side to 130:
    # the hundred is made (tier 3) and all 8 tricks undeclared add 2.
    env = play_a(DEAL_A, "AS", {0: [HUNDRED], 1: [marriage("S")]})
    pay, info = result(env)
    assert info["team_totals"]["calling"] == 130 and info["tricks"] == [0, 8, 0, 0]
    assert info["winner"] == "calling" and info["stake"] == 5 and pay == [5, 5, -5, -5]


def test_a_all_tricks_declared_and_made():
    env = play_a(DEAL_A, "AS", {0: [ALL_TRICKS]})
    pay, info = result(env)
    assert info["big_declaration"] == "all_tricks" and info["big_declared_by"] == 0
    assert info["tricks"] == [0, 8, 0, 0] and info["team_totals"]["calling"] == 90
    assert info["winner"] == "calling" and info["stake"] == 5 and pay == [5, 5, -5, -5]


def test_all_tricks_declared_and_missed():
    # Play B: the calling side (seats 0 and 1) takes 4 tricks and 50 points, enough for the
    # threshold, but its declared all tricks decides: it loses 5.
    env = play_b("AS", PLAY_B, {0: [ALL_TRICKS]})
    pay, info = result(env)
    assert info["team_totals"]["calling"] == 50 and info["team_tricks"]["calling"] == 4
    assert info["big_declaration"] == "all_tricks" and info["winner"] == "defenders"
    assert info["stake"] == 5 and pay == [-5, -5, 5, 5]


def test_a_defender_hundred_missed():
    env = play_a(DEAL_A, "AS", {2: [HUNDRED]})
    pay, info = result(env)
    assert info["big_declared_by"] == 2 and info["winner"] == "calling" and info["stake"] == 3
    assert pay == [3, 3, -3, -3]


def test_a_uncounted_marriages_lose_despite_all_tricks():
    # Seat 0 declares C, H, D (20 each, trump spades) = 60 -> threshold 100, but wins no trick.
    env = play_a(DEAL_A, "AS", {0: [marriage("C"), marriage("H"), marriage("D")]})
    pay, info = result(env)
    assert [d["counted"] for d in info["declarations"]] == [False, False, False]
    assert info["threshold"] == 100 and info["team_totals"] == {"calling": 90, "defenders": 0}
    assert info["winner"] == "defenders" and info["stake"] == 1 and pay == [-1, -1, 1, 1]


def test_a_counted_and_uncounted_marriages():
    # Seat 1 (wins every trick) declares the trump marriage: counted 40; seat 0's 20 is not.
    env = play_a(DEAL_A, "AS", {0: [marriage("C")], 1: [marriage("S")]})
    pay, info = result(env)
    assert info["declarations"] == [
        {"seat": 0, "suit": "C", "value": 20, "counted": False},
        {"seat": 1, "suit": "S", "value": 40, "counted": True},
    ]
    assert info["threshold"] == 100 and info["team_totals"]["calling"] == 130
    assert info["stake"] == 4 and pay == [4, 4, -4, -4]


def test_alone_on_purpose_big_declarations_1v3():
    env = play_a(DEAL_CALLER_SPADES, "AS", {0: [ALL_TRICKS]})
    pay, info = result(env)
    assert info["alone_kind"] == "on_purpose" and info["tricks"] == [8, 0, 0, 0]
    assert info["stake"] == 5 and pay == [15, -5, -5, -5]
    env = play_a(DEAL_CALLER_SPADES, "AS")  # all 8 undeclared: 4
    assert result(env)[0] == [12, -4, -4, -4]
    env = play_a(DEAL_CALLER_SPADES, "AS", {0: [HUNDRED]})  # 90 points: the hundred is missed
    assert result(env)[0] == [-9, 3, 3, 3]
    env = play_a(DEAL_CALLER_SPADES, "AS", {0: [marriage("S"), HUNDRED]})  # 90 + 40: made, 3 + 2
    assert result(env)[0] == [15, -5, -5, -5]


@pytest.mark.parametrize("mode", ["first_batch", "full_hand"])
def test_alone_by_chance_in_callers_second_batch(mode):
    env = play_a(DEAL_CALLER_SPADES_LATE, "AS", partner_from=mode)
    pay, info = result(env)
    assert info["alone_kind"] == "by_chance" and pay == [12, -4, -4, -4]


def test_alone_by_chance_vs_full_hand():
    # AH is in seat 2's second batch and seat 2 holds every heart (trump).
    env = play_a(DEAL_SUITS, "AH")
    pay, info = result(env)
    assert info["alone_kind"] == "by_chance" and info["tricks"] == [0, 0, 8, 0]
    assert info["winner"] == "defenders" and info["stake"] == 4 and pay == [-12, 4, 4, 4]
    env = play_a(DEAL_SUITS, "AH", partner_from="full_hand")
    pay, info = result(env)
    assert info["partner"] == 2 and info["winner"] == "calling" and pay == [4, -4, 4, -4]
    # seat 2 declares all tricks in trick 1: a defender's (1 v 3) or the partner's (2 v 2)
    env = play_a(DEAL_SUITS, "AH", {2: [ALL_TRICKS]})
    assert result(env)[0] == [-15, 5, 5, 5]
    env = play_a(DEAL_SUITS, "AH", {2: [ALL_TRICKS]}, partner_from="full_hand")
    assert result(env)[0] == [5, -5, 5, -5]
    # ... or the hundred, missed with 90 points: the declaring team loses 3
    env = play_a(DEAL_SUITS, "AH", {2: [HUNDRED]})
    assert result(env)[0] == [9, -3, -3, -3]
    env = play_a(DEAL_SUITS, "AH", {2: [HUNDRED]}, partner_from="full_hand")
    assert result(env)[0] == [-3, 3, -3, 3]


# ============================================================== declarations


def test_declaration_rules():
    env = new_env(DEAL_B)
    run(env, [call("AS")])
    assert legal(env) == set(cs(DEAL_B[0])) | {marriage("H")} | BIG
    with pytest.raises(ValueError, match="illegal action 64"):
        env.step(marriage("C"))  # seat 0 holds no clubs marriage
    env.step(marriage("H"))
    assert seat_to_act(env) == 0  # a declaration keeps the turn
    assert marriage("H") not in legal(env)  # not twice
    env.step(HUNDRED)
    assert seat_to_act(env) == 0 and not BIG & legal(env)  # at most one big declaration per deal
    env.step(c("AC"))
    assert legal(env) == {c("8C"), c("10C"), marriage("D")}  # none for anybody else either
    with pytest.raises(ValueError, match="illegal action 68"):
        env.step(HUNDRED)
    with pytest.raises(ValueError, match="illegal action 69"):
        env.step(ALL_TRICKS)
    off = kr.obs_offsets()
    o_big = off["big_declaration"][0]
    for seat in range(4):  # declarations are public, seat-relative
        o = env.observe(f"player_{seat}")["observation"]
        rel = (0 - seat) % 4
        assert o[o_big + rel * 2 + 0] == 1 and o[o_big:o_big + 8].sum() == 1  # kind 0: the hundred
        assert o[off["marriages"][0] + rel * 4 + 2] == 1
    run(env, cs("8C QC JC"))
    assert seat_to_act(env) == 0
    assert legal(env) == {c("7C"), c("KH"), c("QH"), c("9S"), c("JS"), c("10D"), c("8D")}
    with pytest.raises(ValueError, match="illegal action 66"):
        env.step(marriage("H"))


# ================================================================ match play


def test_match_rounds_rotate_dealer_and_total():
    env = raw_env(rounds=2)
    env.reset(seed=5, options={"deal": DEAL_B, "dealer": 3})
    run(env, first_trick_script("AS", PLAY_B[0]))
    for t in PLAY_B[1:]:
        run(env, cs(t))
    pay, info = result(env)
    assert pay == [1, 1, -1, -1] and info["totals"] == [1, 1, -1, -1] and info["round"] == 0
    assert not env.terminations["player_0"]
    # the second deal: dealer 0, caller 1, in the call phase with 4 cards each
    assert env.game.s[0, kr.DEALER] == 0 and seat_to_act(env) == 1
    assert legal(env) == set(range(32, 64))
    assert all(bin(int(h)).count("1") == 4 for h in env.game.hands[0])
    finish_lowest_after_call(env)
    pay2, info2 = result(env)
    assert info2["round"] == 1 and info2["caller"] == 1 and info2["dealer"] == 0
    assert info2["totals"] == [a + b for a, b in zip([1, 1, -1, -1], pay2, strict=True)]
    assert env.terminations["player_0"]


def finish_lowest_after_call(env):
    env.step(min(legal(env)))
    finish_lowest(env)


# ======================================================= hidden information


def obs_all(env) -> list[np.ndarray]:
    return [env.observe(f"player_{p}")["observation"].copy() for p in range(4)]


def swap(deal: list[str], a: tuple[int, int], b: tuple[int, int]) -> list[str]:
    """Swap the card at (seat, index) a with the one at b."""
    d = [cs(h) for h in deal]
    d[a[0]][a[1]], d[b[0]][b[1]] = d[b[0]][b[1]], d[a[0]][a[1]]
    return d


def test_caller_cannot_see_who_is_partner():
    # X: AS in seat 1's first batch (partner 1). Y: AS and 8S swapped (partner 2).
    x = DEAL_B
    y = swap(DEAL_B, (1, 0), (2, 3))
    ex, ey = new_env(x), new_env(y)
    for env in (ex, ey):
        run(env, [call("AS"), c("AC")])
    assert ex.game.s[0, kr.PARTNER] == 1 and ey.game.s[0, kr.PARTNER] == 2
    ox, oy = obs_all(ex), obs_all(ey)
    for seat in (0, 3):
        assert np.array_equal(ox[seat], oy[seat]), seat
    off = kr.obs_offsets()["own_status"][0]
    assert ox[1][off] == 1 and oy[1][off] == 0 and oy[2][off] == 1 and ox[2][off] == 0


def test_second_batch_holder_knows_caller_alone_nobody_else_does():
    # X: AH in seat 2's second batch (first_batch mode: caller alone by chance).
    # Y: AH moved into seat 2's first batch (seat 2 partner); seat 2's full hand is the same.
    x = DEAL_B
    y = swap(DEAL_B, (2, 4), (2, 0))
    ex, ey = new_env(x), new_env(y)
    # during the call only seat 2's own first batch differs
    ox, oy = obs_all(ex), obs_all(ey)
    for seat in (0, 1, 3):
        assert np.array_equal(ox[seat], oy[seat])
    assert not np.array_equal(ox[2], oy[2])
    for env in (ex, ey):
        run(env, [call("AH"), c("AC"), c("8C")])
    assert ex.game.s[0, kr.PARTNER] == -1 and ey.game.s[0, kr.PARTNER] == 2
    ox, oy = obs_all(ex), obs_all(ey)
    for seat in (0, 1, 3):
        assert np.array_equal(ox[seat], oy[seat]), seat
    off = kr.obs_offsets()["own_status"][0]
    assert ox[2][off:off + 3].tolist() == [0, 1, 0] and oy[2][off:off + 3].tolist() == [1, 0, 0]
    # in full_hand mode seat 2 is the partner in both deals: everyone's view is the same
    ex, ey = new_env(x, partner_from="full_hand"), new_env(y, partner_from="full_hand")
    for env in (ex, ey):
        run(env, [call("AH"), c("AC")])
    assert all(np.array_equal(a, b) for a, b in zip(obs_all(ex), obs_all(ey), strict=True))


def test_call_phase_hides_everyones_second_batch():
    # Swap a card of the caller's second batch with one of seat 3's second batch.
    x = DEAL_B
    y = swap(DEAL_B, (0, 4), (3, 4))
    ex, ey = new_env(x), new_env(y)
    assert all(np.array_equal(a, b) for a, b in zip(obs_all(ex), obs_all(ey), strict=True))
    for env in (ex, ey):
        env.step(call("AS"))
    ox, oy = obs_all(ex), obs_all(ey)
    assert np.array_equal(ox[1], oy[1]) and np.array_equal(ox[2], oy[2])
    assert not np.array_equal(ox[0], oy[0])


def test_sides_public_when_called_card_played():
    env = new_env(DEAL_B)
    run(env, first_trick_script("AS", PLAY_B[0]))
    run(env, cs(PLAY_B[1]))
    off = kr.obs_offsets()["sides"][0]
    assert all(o[off:off + 5].sum() == 0 for o in obs_all(env))
    env.step(c("AS"))  # seat 1 plays the called card
    for seat, o in enumerate(obs_all(env)):
        assert o[off:off + 5].tolist() == [int(k == (1 - seat) % 4) for k in range(5)]
    # alone: revealed as "caller alone" when the lone caller plays the called card
    env = new_env(DEAL_B)
    run(env, first_trick_script("AC", PLAY_B[0]))
    for o in obs_all(env):
        assert o[off:off + 5].tolist() == [0, 0, 0, 0, 1]


def test_observation_blocks_are_seat_relative():
    env = new_env(DEAL_B)
    run(env, first_trick_script("AS", PLAY_B[0]))
    run(env, [c("7C")])  # trick 2 under way: seat 0 led 7C
    off = kr.obs_offsets()
    o = env.observe("player_1")["observation"]
    assert o[off["trick"][0] + 3 * 32 + c("7C")] == 1  # seat 0 is relative seat 3 of seat 1
    assert o[off["played"][0] + 0 * 32 + c("8C")] == 1  # seat 1 itself played 8C
    assert o[off["tricks"][0] + 3 * 9 + 1] == 1 and o[off["points"][0] + 3 * 10 + 1] == 1
    assert o[off["dealer"][0] + 2] == 1 and o[off["leader"][0] + 3] == 1 and o[off["caller"][0] + 3] == 1


# ====================================================== reference & properties


def _suit(card: int) -> int:
    return card // 8


def _strength(card: int) -> int:
    return STRENGTH_ORDER.index(cards.card_str(card, 32)[:-1])


class Reference:
    """An independent, plain-Python reading of docs/rules.md, King Calling for one deal."""

    def __init__(self, first, second, dealer, mode):
        self.hands = [set(h) for h in first]
        self.second = [set(h) for h in second]
        self.caller = (dealer + 1) % 4
        self.to_act = self.leader = self.caller
        self.mode = mode
        self.phase = "call"
        self.trick: list[tuple[int, int]] = []
        self.trick_no = 0
        self.trump = -1
        self.partner = -1
        self.marr = [set() for _ in range(4)]
        self.big_by = -1  # seat of the big declaration
        self.big = None  # "hundred" or "all"
        self.tricks = [0] * 4
        self.points = [0] * 4
        self.payments = None

    def winner_card(self):
        best = self.trick[0][1]
        for _, x in self.trick[1:]:
            if (_suit(x) == _suit(best) and _strength(x) > _strength(best)) or (
                _suit(x) == self.trump and _suit(best) != self.trump
            ):
                best = x
        return best

    def legal(self) -> set[int]:
        if self.phase == "call":
            return set(range(32, 64))
        if self.phase != "play":
            return set()
        hand = self.hands[self.to_act]
        out = set(hand)
        if self.trick:
            led = _suit(self.trick[0][1])
            win = self.winner_card()
            for suit in (led, self.trump):
                group = {x for x in hand if _suit(x) == suit}
                if group:
                    out = group
                    if _suit(win) == suit:
                        out = {x for x in group if _strength(x) > _strength(win)} or group
                    break
        if self.trick_no == 0:
            for s in range(4):
                if {8 * s + 5, 8 * s + 6} <= hand and s not in self.marr[self.to_act]:
                    out.add(64 + s)
            if self.big_by < 0:
                out |= {68, 69}
        return out

    def step(self, a: int) -> None:
        p = self.to_act
        if self.phase == "call":
            card = a - 32
            self.trump = _suit(card)
            first = [q for q in range(4) if card in self.hands[q]]
            for q in range(4):
                self.hands[q] |= self.second[q]
            holder = [q for q in range(4) if card in self.hands[q]][0]
            if self.mode == "full_hand":
                self.partner = holder if holder != self.caller else -1
            else:
                self.partner = first[0] if first and first[0] != self.caller else -1
            self.phase = "play"
            return
        if a >= 64:
            if a in (68, 69):
                self.big_by, self.big = p, ("hundred" if a == 68 else "all")
            else:
                self.marr[p].add(a - 64)
            return
        self.hands[p].remove(a)
        self.trick.append((p, a))
        if len(self.trick) < 4:
            self.to_act = (p + 1) % 4
            return
        win_card = self.winner_card()
        w = [q for q, x in self.trick if x == win_card][0]
        self.tricks[w] += 1
        self.points[w] += sum(10 for _, x in self.trick if x % 8 in (3, 7))
        self.trick = []
        self.trick_no += 1
        self.to_act = self.leader = w
        if self.trick_no == 8:
            self.points[w] += 10
            self.phase = "done"
            self.payments = self.score()

    def score(self) -> list[int]:
        side = {self.caller, self.partner} - {-1}
        val = [sum(40 if s == self.trump else 20 for s in self.marr[q]) for q in range(4)]
        declared = sum(val[q] for q in side)
        total = {True: 0, False: 0}
        tricks = {True: 0, False: 0}
        for q in range(4):
            total[q in side] += self.points[q] + (val[q] if self.tricks[q] else 0)
            tricks[q in side] += self.tricks[q]
        if self.big_by >= 0:
            team = self.big_by in side
            made = total[team] >= 100 if self.big == "hundred" else tricks[team] == 8
            call_wins = team if made else not team
        else:
            made = False
            need = 50 if declared == 0 else 40 + declared
            call_wins = total[True] >= need
        if self.big_by >= 0 and not made:
            stake = 3 if self.big == "hundred" else 5
        else:
            all8 = tricks[call_wins] == 8
            tier = 3 if made and self.big == "hundred" else 2 if total[call_wins] >= 100 or all8 else 1
            stake = tier + (3 if made and self.big == "all" else 2 if all8 else 0)
        sign = 1 if call_wins else -1
        if len(side) == 1:
            return [sign * stake * 3 if q == self.caller else -sign * stake for q in range(4)]
        return [sign * stake if q in side else -sign * stake for q in range(4)]


def _bits(x) -> set[int]:
    return {k for k in range(32) if (int(x) >> k) & 1}


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), mode=st.sampled_from(["first_batch", "full_hand"]),
       declare=st.floats(0.0, 1.0))
def test_random_games_match_reference(seed, mode, declare):
    """Masks, winners and payments agree with an independent reference; invariants hold."""
    env = raw_env(partner_from=mode)
    env.reset(seed=seed)
    st_ = env.game
    dealer = int(st_.s[0, kr.DEALER])
    ref = Reference([_bits(h) for h in st_.hands[0]], [_bits(st_.aux[0, 1 + p]) for p in range(4)], dealer, mode)
    rng = np.random.default_rng(seed)
    while True:
        mask = legal(env)
        assert mask, "empty mask"
        assert mask == ref.legal()
        assert seat_to_act(env) == ref.to_act
        decl = [a for a in mask if a >= 64]
        cards_ = sorted(a for a in mask if a < 64)
        a = int(rng.choice(decl)) if decl and rng.random() < declare else int(rng.choice(cards_))
        ref.step(a)
        env.step(a)
        if ref.phase == "done":
            break
    pay, info = result(env)
    assert pay == ref.payments == info["payments"]
    assert sum(pay) == 0
    assert sum(info["points"]) == 90 and sum(info["tricks"]) == 8
    assert info["points"] == ref.points and info["partner"] == (ref.partner if ref.partner >= 0 else None)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rounds=st.integers(1, 3))
def test_vec_invariants(seed, rounds):
    """Batched random play: masks never empty, payments zero-sum, 90 card points a deal, cards conserved."""
    b = 256
    env = trickenv.make_vec("koenigrufen", b, seed=seed, rounds=rounds)
    obs, mask, _ = env.reset()
    rng = np.random.default_rng(seed)
    deals = 0
    for _ in range(60 * rounds + 40):
        assert mask.any(axis=1).all()
        acts = (rng.random(mask.shape) * mask).argmax(axis=1)
        before = env.state.s[:, DEALS_DONE].copy()
        obs, mask, _, rewards, done = env.step(acts)
        assert np.all(rewards.sum(axis=1) == 0)
        ended = env.state.s[:, DEALS_DONE] != before
        assert (env.deal_end == ended).all() and not (done & ~ended).any()
        deals += int(ended.sum())
        rec = env.deal_records()
        assert (rec["game"] == np.flatnonzero(ended)).all()
        assert (rec["points"].sum(axis=1) == 90).all() and (rec["scores"].sum(axis=1) == 0).all()
        assert (rec["scores"] == rewards[ended]).all() and (np.abs(rec["scores"]).sum(axis=1) > 0).all()
        assert (rec["match_over"] == done[ended]).all() and (rec["round"] < rounds).all()
        assert np.all(rewards[~ended] == 0)
    assert deals > 0
    for g in range(0, b, 37):  # every card in exactly one place: a hand, played, or an aux stock
        count = np.zeros(32, int)
        for x in list(env.state.hands[g]) + list(env.state.aux[g]):
            count += [(int(x) >> k) & 1 for k in range(32)]
        count += env.state.played_by[g] >= 0
        assert (count == 1).all()


def test_vec_illegal_action_raises():
    env = trickenv.make_vec("koenigrufen", 4, seed=1)
    env.reset()
    with pytest.raises(ValueError, match="illegal"):
        env.step(np.zeros(4, np.int64))  # card 0 during the call
    with pytest.raises(ValueError, match="out of range"):
        env.step(np.full(4, 70))


def test_vec_fixed_deal_matches_aec():
    env = trickenv.make_vec("koenigrufen", 2, seed=0)
    obs, mask, player = env.reset(deals=[DEAL_B, None], dealers=3)
    aec = new_env(DEAL_B)
    assert np.array_equal(obs[0], aec.observe("player_0")["observation"])
    assert player[0] == 0 and set(np.flatnonzero(mask[0])) == set(range(32, 64))
