"""Farbwechsel: scripted, hand-checked deals for every rule and option, property
tests of the guarantees of docs/rules.md, hidden information, trump events and bad inputs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import trickenv
from trickenv import cards
from trickenv.engine.layout import DEALS_DONE, PHASE, PH_PLAY, PH_TRUMP, TRICK_NO, TRUMP
from trickenv.games import farbwechsel as fw
from tests.helpers import conservation_ok, finish_randomly, plain

C, S, H, D = 0, 1, 2, 3
TRUMP_ACTION = {"C": 32, "S": 33, "H": 34, "D": 35}


def cid(text: str) -> int:
    """Card id of a text such as 'QH'."""
    return cards.parse_card(text, 32)


def act(x) -> int:
    """Action id of a card text, a trump letter ('trump H') or an int."""
    if isinstance(x, int):
        return x
    if x.startswith("trump "):
        return TRUMP_ACTION[x[-1]]
    return cid(x)


def play(env, actions, expect_seats=None):
    """Play ``actions`` (texts or ids); optionally check who acts at each step; return per-step events."""
    events = []
    for k, a in enumerate(actions):
        if expect_seats is not None:
            assert env.agent_selection == f"player_{expect_seats[k]}", (k, a)
        env.step(act(a))
        events.append(list(env.unwrapped.last_events))
    return events


def state(env):
    return env.unwrapped.game


def suit_letter(x: int) -> str | None:
    return "CSHD"[x] if x >= 0 else None


def readable(info: dict) -> dict:
    """A deal record / infos dict as plain values, suits as letters, the change records as dicts."""
    info = plain(info)
    for k in ("trump", "first_trump"):
        info[k] = suit_letter(info[k])
    info["trick_trumps"] = [suit_letter(x) for x in info["trick_trump"]]
    info["changes"] = [
        {"trick": info["change_trick"][j], "seat": info["change_seat"][j], "card": info["change_card"][j],
         "card_str": cards.card_str(info["change_card"][j], 32),
         "old_trump": suit_letter(info["change_old_trump"][j]), "new_trump": suit_letter(info["change_new_trump"][j]),
         "points": info["change_points"][j], "winner": info["change_winner"][j],
         "switch_cards": info["change_switch_cards"][j]}
        for j in range(info["trump_changes"])
    ]
    return info


def info_of(env, agent="player_0") -> dict:
    return readable(env.infos[agent])


def trump_now(env) -> int:
    return int(state(env).s[0, TRUMP])


# ---------------------------------------------------------------------------
# Deal A (3 players, dealer 2, 2 cards aside: 7S JS = 2 points). Hand-checked:
#   trump H declared by seat 2; seat 0 leads.
#   T0 (H)  s0 QS  s1 8S  s2 7H   -> s2 trumps (7H), 3 pts; QS makes spades trump for T1 only
#   T1 (S)  s2 9H  s0 AH  s1 QH   -> s0 (AH), 14 pts; QH -> hearts
#   T2 (H)  s0 AD  s1 7D  s2 9D   -> s0, 11
#   T3 (H)  s0 10D s1 8D  s2 JD   -> s0, 12
#   T4 (H)  s0 KD  s1 9S  s2 QD   -> s0 (K > Q), 7; QD -> diamonds
#   T5 (D)  s0 KC  s1 AC  s2 7C   -> s1, 15
#   T6 (D)  s1 AS  s2 8H  s0 8C   -> s1, 11
#   T7 (D)  s1 KS  s2 QC  s0 9C   -> s1, 7; QC -> clubs
#   T8 (C)  s1 10S s2 KH  s0 10C  -> s0 trumps with 10C, 24
#   T9 (C)  s0 10H s1 JC  s2 JH   -> s1 trumps with JC, 14
#   points 68 / 47 / 3 (+2 aside = 120); tricks 5 / 4 / 1
#   scores: 68 + 2*28 = 124 (bonus), 47, 3 - 2*37 = -71 (penalty)
DEAL_A = [
    "KC 10C 9C 8C QS AH 10H AD 10D KD",
    "AC JC KS 10S AS 9S 8S QH 7D 8D",
    "7C QC 7H 8H 9H JH KH QD JD 9D",
]
PLAY_A = [
    "trump H",
    "QS", "8S", "7H",
    "9H", "AH", "QH",
    "AD", "7D", "9D",
    "10D", "8D", "JD",
    "KD", "9S", "QD",
    "KC", "AC", "7C",
    "AS", "8H", "8C",
    "KS", "QC", "9C",
    "10S", "KH", "10C",
    "10H", "JC", "JH",
]
SEATS_A = [2, 0, 1, 2, 2, 0, 1, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 1, 2, 0, 1, 2, 0, 1, 2, 0, 0, 1, 2]
CHANGES_A = [
    {"trick": 0, "seat": 0, "card": cid("QS"), "card_str": "QS", "old_trump": "H", "new_trump": "S",
     "points": 3, "winner": 2, "switch_cards": 1},
    {"trick": 1, "seat": 1, "card": cid("QH"), "card_str": "QH", "old_trump": "S", "new_trump": "H",
     "points": 14, "winner": 0, "switch_cards": 1},
    {"trick": 4, "seat": 2, "card": cid("QD"), "card_str": "QD", "old_trump": "H", "new_trump": "D",
     "points": 7, "winner": 0, "switch_cards": 1},
    {"trick": 7, "seat": 2, "card": cid("QC"), "card_str": "QC", "old_trump": "D", "new_trump": "C",
     "points": 7, "winner": 1, "switch_cards": 1},
]

# Deal B (3 players, aside 8D 9D) for single tricks with several switching cards.
DEAL_B = [
    "QC QS 7C 8C 9C 10C AH 10H KH 7H",
    "QH QD 7S 8S 9S 10S AD 10D KD 7D",
    "JC JS JH JD AC KC AS KS 8H 9H",
]

# Deal F (4 players, dealer 3: the example deal of docs/rules.md). Hand-checked:
#   trump D declared by seat 3; seat 0 leads.
#   T0 (D) s0 AC  s1 7C  s2 QH  s3 7D  -> s3 trumps, 14; QH -> hearts
#   T1 (H) s3 7H  s0 KS  s1 7S  s2 AH  -> s2, 15
#   T2 (H) s2 AD  s3 8D  s0 QS  s1 8S  -> s2, 14; QS -> spades
#   T3 (S) s2 10H s3 8H  s0 10S s1 9S  -> s0 trumps (10S > 9S), 20
#   T4 (S) s0 AS  s1 JS  s2 QD  s3 9D  -> s0, 16; QD -> diamonds
#   T5 (D) s0 10C s1 8C  s2 10D s3 JD  -> s2 trumps (10D > JD), 22
#   T6 (D) s2 KD  s3 9H  s0 KC  s1 9C  -> s2, 8
#   T7 (D) s2 KH  s3 JH  s0 QC  s1 JC  -> s2, 11; QC in the last trick changes nothing
#   points 36 / 0 / 70 / 14; tricks 2 / 0 / 5 / 1
DEAL_F = [
    "AC 10C KC QC AS 10S KS QS",
    "JC 9C 8C 7C JS 9S 8S 7S",
    "AH 10H KH QH AD 10D KD QD",
    "JH 9H 8H 7H JD 9D 8D 7D",
]
PLAY_F = [
    "trump D",
    "AC", "7C", "QH", "7D",
    "7H", "KS", "7S", "AH",
    "AD", "8D", "QS", "8S",
    "10H", "8H", "10S", "9S",
    "AS", "JS", "QD", "9D",
    "10C", "8C", "10D", "JD",
    "KD", "9H", "KC", "9C",
    "KH", "JH", "QC", "JC",
]


def reset(options=None, deal=DEAL_A, dealer=2):
    env = trickenv.make("farbwechsel", **(options or {}))
    env.reset(options={"deal": deal, "dealer": dealer})
    return env


# ------------------------------------------------------------ full deals


def test_full_deal_a_bonus_plain_penalty_and_changes():
    env = reset()
    assert env.agent_selection == "player_2"  # the dealer declares
    assert state(env).s[0, PHASE] == PH_TRUMP
    play(env, PLAY_A, SEATS_A)
    info = info_of(env, "player_0")
    assert info["points"] == [68, 47, 3]
    assert info["tricks"] == [5, 4, 1]
    assert info["scores"] == [124, 47, -71]
    assert info["totals"] == [124, 47, -71]
    assert info["set_aside_points"] == 2
    assert info["first_trump"] == "H"
    assert info["trump"] == "C"
    assert info["trick_trumps"] == ["H", "S", "H", "H", "H", "D", "D", "D", "C", "C"]
    assert info["changes"] == CHANGES_A
    assert info["round"] == 0 and info["match_over"] and info["dealer"] == 2
    assert info["deal"] == [sorted(cards.parse_cards(h, 32)) for h in DEAL_A]
    assert info["undealt"] == cards.parse_cards("7S JS", 32)
    assert info["trump_changes"] == 4 and info["switch_cards"] == 4
    assert env.rewards == {"player_0": 124.0, "player_1": 47.0, "player_2": -71.0}
    assert all(env.terminations.values())
    assert list(state(env).trick_trump[0]) == [H, S, H, H, H, D, D, D, C, C]


def test_queen_changes_trump_for_next_trick_not_current():
    env = reset()
    play(env, ["trump H", "QS", "8S"])
    assert trump_now(env) == H
    play(env, ["7H"])
    st_ = state(env).s[0]
    # 7H trumps the queen of spades: the trick is judged with hearts as trump ...
    assert list(st_[fw.POINTS:fw.POINTS + 3]) == [0, 0, 3]
    assert env.agent_selection == "player_2"
    # ... and spades are trump only from the next trick on.
    assert trump_now(env) == S
    assert state(env).trick_trump[0, 0] == H
    obs = env.observe("player_2")["observation"]
    off = fw.obs_offsets(3, 10)
    o, _ = off["trump"]
    assert list(obs[o:o + 5]) == [0, 1, 0, 0, 0]
    o, _ = off["trick_trump"]
    assert list(obs[o:o + 8]) == [0, 0, 1, 0, 0, 0, 0, 0]  # trick 0 hearts, trick 1 not played yet


def test_two_queens_in_a_trick_last_decides():
    # Trump D; QC led, QH discarded by seat 1, seat 2 follows with AC and wins (no trump in the trick).
    env = reset(deal=DEAL_B)
    events = play(env, ["trump D", "QC", "QH", "AC"])
    assert trump_now(env) == H
    assert state(env).s[0, fw.POINTS + 2] == 17
    assert events[-1] == [{"trick": 0, "seat": 1, "card": cid("QH"), "card_str": "QH", "old_trump": "D",
                           "new_trump": "H", "points": 17, "winner": 2, "switch_cards": 2,
                           "event": "trump_change", "round": 0}]


def test_trump_queen_last_keeps_trump():
    # Trump H; QC led, then the trump queen QH (last queen): it wins the trick as a trump and trump stays H.
    env = reset(deal=DEAL_B)
    events = play(env, ["trump H", "QC", "QH", "AC"])
    assert trump_now(env) == H
    assert state(env).s[0, fw.POINTS + 1] == 17
    assert env.agent_selection == "player_1"
    assert events[-1] == []
    assert state(env).s[0, fw.CHANGES] == 0
    assert state(env).s[0, fw.SWITCH_CARDS] == 2


def test_double_farbwechsel_jacks_switch():
    opts = {"switch_ranks": ("Q", "J")}
    # Same trick as above but seat 2 follows with JC: the jack is the last switching card.
    env = reset(opts, deal=DEAL_B)
    events = play(env, ["trump D", "QC", "QH", "JC"])
    assert trump_now(env) == C
    assert state(env).s[0, fw.POINTS + 0] == 8  # QC beats JC: Q > J
    assert events[-1][0]["card_str"] == "JC" and events[-1][0]["seat"] == 2
    assert events[-1][0]["switch_cards"] == 3
    # Without the variant the queen of hearts decides.
    env = reset(deal=DEAL_B)
    play(env, ["trump D", "QC", "QH", "JC"])
    assert trump_now(env) == H
    # A jack alone changes trump in the variant, not in the base game.
    env = reset(opts, deal=DEAL_B)
    play(env, ["trump D", "8C", "7S", "JC"])
    assert trump_now(env) == C
    env = reset(deal=DEAL_B)
    play(env, ["trump D", "8C", "7S", "JC"])
    assert trump_now(env) == D
    # Double variant accepts the ranks in either order and as a list.
    assert fw.make_spec(switch_ranks=["J", "Q"]).options["switch_ranks"] == ("Q", "J")


def test_no_switching_control_variant():
    """switch_ranks=(): queens are plain cards; the dealer's trump holds for the whole deal."""
    opts = {"switch_ranks": ()}
    env = reset(opts, deal=DEAL_B)
    events = play(env, ["trump D", "QC", "QH", "JC"])
    assert trump_now(env) == D and events[-1] == []
    assert state(env).s[0, fw.CHANGES] == 0 and state(env).s[0, fw.SWITCH_CARDS] == 0
    assert fw.make_spec(switch_ranks=[]).options["switch_ranks"] == ()
    # Whole deals on the batched engine: no change, every trick under the declared trump.
    vec = trickenv.VecEnv(trickenv.make_spec("farbwechsel", switch_ranks=()), 64, seed=5)
    obs, mask, _ = vec.reset()
    rng = np.random.default_rng(0)
    seen = 0
    while seen < 64:
        obs, mask, _, _, _ = vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in mask]))
        if not vec.deal_end.any():
            continue
        rec = vec.deal_records()
        seen += len(rec["game"])
        assert (rec["trump_changes"] == 0).all()
        assert (rec["trick_trump"] == rec["trick_trump"][:, :1]).all()


def test_cycle_two_queens_move_two_steps():
    opts = {"switch_mode": "cycle"}
    env = reset(opts, deal=DEAL_B)
    events = play(env, ["trump S", "QC", "QH", "AC"])
    assert trump_now(env) == D  # S -> H -> D, whatever the queens' suits
    e = events[-1][0]
    assert (e["old_trump"], e["new_trump"], e["switch_cards"], e["card_str"]) == ("S", "D", 2, "QH")
    # One queen: one step, even a queen of the trump suit (C -> S).
    env = reset(opts, deal=DEAL_B)
    play(env, ["trump C", "QC", "7S", "AC"])
    assert trump_now(env) == S
    # Wrapping around: D -> C.
    env = reset(opts, deal=DEAL_B)
    play(env, ["trump D", "QC", "7S", "AC"])
    assert trump_now(env) == C


def test_cycle_four_queens_in_four_player_trick_is_no_change():
    # 4 players, cycle: four queens in one trick move trump four steps, back to where it was.
    deal = [
        "QC 7C 8C 9C 10C JC KC AC",
        "QS 7S 8S 9S 10S JS KS AS",
        "QH 7H 8H 9H 10H JH KH AH",
        "QD 7D 8D 9D 10D JD KD AD",
    ]
    env = reset({"num_players": 4, "switch_mode": "cycle"}, deal=deal, dealer=3)
    events = play(env, ["trump H", "QC", "QS", "QH", "QD"])
    assert trump_now(env) == H
    assert events[-1] == []
    assert state(env).s[0, fw.SWITCH_CARDS] == 4
    assert state(env).s[0, fw.POINTS + 2] == 12  # QH is the only trump


def test_ten_above_king_and_natural_ranking():
    # Trump D; 10C led, 7S discarded, KC follows: Skat order 10 > K, natural order K > 10.
    env = reset(deal=DEAL_B)
    play(env, ["trump D", "10C", "7S", "KC"])
    assert list(state(env).s[0, fw.POINTS:fw.POINTS + 3]) == [14, 0, 0]
    assert env.agent_selection == "player_0"
    env = reset({"ranking": "natural"}, deal=DEAL_B)
    play(env, ["trump D", "10C", "7S", "KC"])
    assert list(state(env).s[0, fw.POINTS:fw.POINTS + 3]) == [0, 0, 14]
    assert env.agent_selection == "player_2"
    # A trump 10 beats the trump king too (Skat order): trump S, 10S led, KS follows.
    env = reset(deal=DEAL_B, dealer=0)  # seat 1 leads
    play(env, ["trump S", "10S", "KS", "QS"])  # s1 10S, s2 KS, s0 QS
    assert list(state(env).s[0, fw.POINTS:fw.POINTS + 3]) == [0, 17, 0]


def test_trump_ten_ten_beats_king_only_in_trump():
    # ranking="trump_ten": 10C led, seat 1 (void in clubs) discards 7S, seat 2 follows with KC.
    # Clubs trump: A > 10 > K in trump, seat 0 wins 14; diamonds trump: natural K > 10, seat 2 wins.
    env = reset({"ranking": "trump_ten"}, deal=DEAL_B)
    play(env, ["trump C", "10C", "7S", "KC"])
    assert list(state(env).s[0, fw.POINTS:fw.POINTS + 3]) == [14, 0, 0]
    env = reset({"ranking": "trump_ten"}, deal=DEAL_B)
    play(env, ["trump D", "10C", "7S", "KC"])
    assert list(state(env).s[0, fw.POINTS:fw.POINTS + 3]) == [0, 0, 14]
    assert env.agent_selection == "player_2"
    # Outside trump the 10 ranks below the jack too: 10C led, JC follows, trump D -> JC wins.
    env = reset({"ranking": "trump_ten"}, deal=DEAL_B)
    play(env, ["trump D", "10C", "7S", "JC"])
    assert list(state(env).s[0, fw.POINTS:fw.POINTS + 3]) == [0, 0, 12]


def test_trump_ten_change_of_trump_flips_the_same_trick():
    # Trump D declared; trick 0 makes clubs (QC) or spades (QS) trump; trick 1 is the same
    # three cards either way: 10C, 7D (seat 1 is void in clubs), KC.
    #   clubs trump:  10C beats KC (trump order)   -> seat 0 takes 10 + 0 + 4 = 14
    #   spades trump: KC beats 10C (natural order) -> seat 2 takes 14
    for first, expect_winner in (("C", 0), ("S", 2)):
        env = reset({"ranking": "trump_ten"}, deal=DEAL_B)
        play(env, ["trump D", "Q" + first, "7S", "J" + first])  # seat 0 wins trick 0 (Q > J)
        assert trump_now(env) == "CSHD".index(first)
        before = list(state(env).s[0, fw.POINTS:fw.POINTS + 3])
        play(env, ["10C", "7D", "KC"], expect_seats=[0, 1, 2])
        gained = [a - b for a, b in zip(state(env).s[0, fw.POINTS:fw.POINTS + 3], before, strict=True)]
        assert gained == [14 if p == expect_winner else 0 for p in range(3)], first
        assert env.agent_selection == f"player_{expect_winner}"
    # The same two tricks under "skat" (10 > K in every suit): seat 0 wins trick 1 both times.
    for first in "CS":
        env = reset(deal=DEAL_B)
        play(env, ["trump D", "Q" + first, "7S", "J" + first, "10C", "7D", "KC"])
        assert env.agent_selection == "player_0"


def test_trump_ten_card_table():
    spec = fw.make_spec(ranking="trump_ten")
    from trickenv.engine.layout import TAB_STRENGTH, TAB_TRUMP_STRENGTH
    faces = ["7", "8", "9", "10", "J", "Q", "K", "A"]
    plain = sorted(range(8), key=lambda r: spec.tab[TAB_STRENGTH, r])
    trump = sorted(range(8), key=lambda r: spec.tab[TAB_TRUMP_STRENGTH, r])
    assert [faces[r] for r in plain] == ["7", "8", "9", "10", "J", "Q", "K", "A"]
    assert [faces[r] for r in trump] == ["7", "8", "9", "J", "Q", "K", "10", "A"]
    assert spec.options["ranking"] == "trump_ten"


# ---------------------------------------------------------------- scoring


@pytest.mark.parametrize(
    "p,par,score",
    [
        (15, 40, -35), (19, 40, -23), (20, 40, 20), (40, 40, 40), (59, 40, 59), (60, 40, 100), (65, 40, 115),
        (0, 40, -80), (120, 40, 280),
        (14, 30, -18), (15, 30, 15), (44, 30, 44), (45, 30, 75),
        (29, 60, -33), (30, 60, 30), (89, 60, 89), (90, 60, 150), (95, 60, 165), (25, 60, -45),
    ],
)
def test_score_function_boundaries(p, par, score):
    assert fw.deal_score(p, par) == score


def reference_score(p: int, par: int) -> int:
    if p >= 1.5 * par:
        return p + 2 * (p - par)
    if p < 0.5 * par:
        return p - 2 * (par - p)
    return p


@given(st.integers(0, 120), st.sampled_from([30, 40, 60]))
def test_score_function_matches_rule(p, par):
    assert fw.deal_score(p, par) == reference_score(p, par)


def test_four_players_individual_scoring():
    env = reset({"num_players": 4}, deal=DEAL_F, dealer=3)
    assert env.agent_selection == "player_3"
    events = play(env, PLAY_F)
    info = info_of(env, "player_0")
    assert info["points"] == [36, 0, 70, 14]
    assert info["tricks"] == [2, 0, 5, 1]
    # par 30: 36 plain, 0 -> -60, 70 -> 70 + 80, 14 -> 14 - 32
    assert info["scores"] == [36, -60, 150, -18]
    assert env.rewards == {"player_0": 36.0, "player_1": -60.0, "player_2": 150.0, "player_3": -18.0}
    assert info["set_aside_points"] == 0
    assert info["trick_trumps"] == ["D", "H", "H", "S", "S", "D", "D", "D"]
    assert info["trump"] == "D"  # QC in the last trick changes nothing
    assert [(c["trick"], c["seat"], c["card_str"], c["old_trump"], c["new_trump"], c["points"], c["winner"])
            for c in info["changes"]] == [
        (0, 2, "QH", "D", "H", 14, 3), (2, 0, "QS", "H", "S", 14, 2), (4, 2, "QD", "S", "D", 16, 0)]
    assert [len(e) for e in events].count(1) == 3
    # the queen of the last trick counts as a switching card but changes nothing
    assert state(env).s[0, fw.SWITCH_CARDS] == 4 and state(env).s[0, fw.CHANGES] == 3
    assert "team_points" not in info


def test_four_players_partnership_scoring():
    env = reset({"num_players": 4, "partnership": True}, deal=DEAL_F, dealer=3)
    play(env, PLAY_F)
    info = info_of(env, "player_1")
    assert info["points"] == [36, 0, 70, 14]
    assert info["team_points"] == [106, 14]
    # par 60: 106 -> 106 + 92 = 198, 14 -> 14 - 92 = -78; both partners get the team score
    assert info["scores"] == [198, -78, 198, -78]
    assert env.rewards == {"player_0": 198.0, "player_1": -78.0, "player_2": 198.0, "player_3": -78.0}


def test_set_aside_cards_scored_by_nobody():
    # Deal A with its set-aside 7S JS swapped for AC 10C: the 21 points in them go to nobody.
    deal = [
        "KC JC 9C 8C QS AH 10H AD 10D KD",
        "7S 10S KS AS 9S 8S JS QH 7D 8D",
        "7C QC 7H 8H 9H JH KH QD JD 9D",
    ]
    env = reset(deal=deal, dealer=2)
    finish_randomly(env, np.random.default_rng(3))
    info = info_of(env, "player_0")
    assert sum(info["points"]) == 120 - 21
    assert info["set_aside_points"] == 21
    assert state(env).aux[0, 0] == (1 << cid("AC")) | (1 << cid("10C"))
    for c in ("AC", "10C"):
        assert state(env).played_by[0, cid(c)] == -1


def test_rounds_rotate_dealer_and_add_totals():
    env = reset({"rounds": 2}, deal=DEAL_A, dealer=2)
    play(env, PLAY_A)
    info = info_of(env, "player_2")
    assert info["scores"] == [124, 47, -71] and info["totals"] == [124, 47, -71] and info["round"] == 0
    assert not any(env.terminations.values())
    # The next deal: dealer moves clockwise to seat 0, who declares; seat 1 leads.
    assert env.agent_selection == "player_0"
    assert state(env).s[0, PHASE] == PH_TRUMP
    assert state(env).s[0, fw.CHANGES] == 0 and state(env).s[0, fw.LAST_CHANGES] == 4
    env.step(TRUMP_ACTION["S"])
    assert env.agent_selection == "player_1"
    finish_randomly(env, np.random.default_rng(0))
    info = info_of(env, "player_0")
    assert info["round"] == 1
    assert info["first_trump"] == "S"
    assert info["totals"] == [a + b for a, b in zip([124, 47, -71], info["scores"], strict=True)]


# ------------------------------------------------------------ trump events


def test_step_events_of_deal_a():
    env = reset()
    events = play(env, PLAY_A)
    closing = {3: 0, 6: 1, 15: 2, 24: 3}  # step index (in PLAY_A) closing T0, T1, T4, T7
    for k, ev in enumerate(events):
        if k in closing:
            assert ev == [dict(CHANGES_A[closing[k]], event="trump_change", round=0)]
        else:
            assert ev == []
    assert env.unwrapped.events == [dict(c, event="trump_change", round=0) for c in CHANGES_A]
    env.reset(options={"deal": DEAL_A, "dealer": 2})
    assert env.unwrapped.events == [] and env.unwrapped.last_events == []


def test_vec_counters_and_batched_deal_a():
    vec = trickenv.make_vec("farbwechsel", 2, seed=0)
    obs, mask, player = vec.reset(deals=[DEAL_A, DEAL_A], dealers=2)
    assert list(player) == [2, 2]
    seen = []
    for k, a in enumerate(PLAY_A):
        obs, mask, player, rew, done = vec.step(np.array([act(a)] * 2))
        seen.append(int(vec.counter("trump_changes")[0]))
        if k < len(PLAY_A) - 1:
            assert not done.any()
    # changes closing T0, T1, T4, T7 (steps 3, 6, 15, 24)
    assert seen[:25] == [0] * 3 + [1] * 3 + [2] * 9 + [3] * 9 + [4]
    assert done.all()
    assert rew.tolist() == [[124, 47, -71]] * 2
    # the episode auto-reset: this deal's counter restarts, the others keep the result
    assert vec.counter("trump_changes").tolist() == [0, 0]
    assert vec.counter("last_deal_trump_changes").tolist() == [4, 4]
    assert vec.counter("trump_changes_total").tolist() == [4, 4]
    assert vec.counter("switch_cards_total").tolist() == [4, 4]
    with pytest.raises(ValueError, match="no counter"):
        vec.counter("nope")


def test_counter_totals_match_infos_over_random_matches():
    env = trickenv.make("farbwechsel", rounds=3, switch_ranks=("Q", "J"))
    rng = np.random.default_rng(11)
    total = 0
    for ep in range(3):
        env.reset(seed=ep)
        for _ in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            before = state(env).s[0, DEALS_DONE]
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            info = env.infos[env.possible_agents[0]]
            assert bool(info["deal_end"]) == (state(env).s[0, DEALS_DONE] != before)
            if info["deal_end"]:
                total += len(readable(info)["changes"])
        assert all(e["event"] == "trump_change" for e in env.unwrapped.events)
        assert sorted({e["round"] for e in env.unwrapped.events}) <= [0, 1, 2]
    assert state(env).s[0, fw.CHANGES_TOTAL] == total


# ------------------------------------------------------- hidden information


def test_hidden_set_aside_card_swap_keeps_observations():
    # Deal A's set-aside JS swapped with seat 1's 10S (not played in the history below).
    other = [DEAL_A[0], DEAL_A[1].replace("10S", "JS"), DEAL_A[2]]
    history = PLAY_A[:8]  # trump, T0, T1, first card of T2
    e1, e2 = reset(), reset(deal=other)
    for a in [None] + history:
        if a is not None:
            e1.step(act(a))
            e2.step(act(a))
        for agent in ("player_0", "player_2"):
            o1, o2 = e1.observe(agent), e2.observe(agent)
            assert np.array_equal(o1["observation"], o2["observation"]), (a, agent)
            assert np.array_equal(o1["action_mask"], o2["action_mask"])
        assert e1.agent_selection == e2.agent_selection
    # seat 1's own observation does differ (its hand changed), so the test can fail
    assert not np.array_equal(e1.observe("player_1")["observation"], e2.observe("player_1")["observation"])


def test_set_aside_cards_never_observed():
    env = reset()
    off = fw.obs_offsets(3, 10)
    aside = [cid("7S"), cid("JS")]
    for a in PLAY_A[:-1]:
        env.step(act(a))
        for agent in env.possible_agents:
            obs = env.observe(agent)["observation"]
            for blk in ("hand", "trick", "played", "played_in"):
                o, size = off[blk]
                for k in range(size // 32):
                    assert not any(obs[o + k * 32 + c] for c in aside)


def test_observation_blocks_after_two_tricks():
    env = reset()
    play(env, PLAY_A[:8])  # T0, T1 done; s0 led AD in T2
    obs = env.observe("player_1")["observation"]
    off = fw.obs_offsets(3, 10)
    assert sum(size for _, size in off.values()) == env.unwrapped.spec.obs_size == obs.shape[0]

    def block(name):
        o, size = off[name]
        return obs[o:o + size]

    hand = np.flatnonzero(block("hand")).tolist()
    assert hand == sorted(cid(c) for c in DEAL_A[1].split() if c not in ("8S", "QH"))
    trick = block("trick").reshape(3, 32)
    assert np.flatnonzero(trick[2]).tolist() == [cid("AD")]  # seat 0 is relative seat 2 of seat 1
    assert trick[0].sum() == 0 and trick[1].sum() == 0
    played = block("played").reshape(3, 32)
    assert np.flatnonzero(played[0]).tolist() == sorted([cid("8S"), cid("QH")])
    assert np.flatnonzero(played[1]).tolist() == sorted([cid("7H"), cid("9H")])
    assert np.flatnonzero(played[2]).tolist() == sorted([cid("QS"), cid("AH"), cid("AD")])
    played_in = block("played_in").reshape(10, 32)
    assert np.flatnonzero(played_in[0]).tolist() == sorted(cid(c) for c in ("QS", "8S", "7H"))
    assert np.flatnonzero(played_in[1]).tolist() == sorted(cid(c) for c in ("9H", "AH", "QH"))
    assert np.flatnonzero(played_in[2]).tolist() == [cid("AD")]
    assert block("trump").tolist() == [0, 0, 1, 0, 0]
    tt = block("trick_trump").reshape(10, 4)
    assert tt[0].tolist() == [0, 0, 1, 0] and tt[1].tolist() == [0, 1, 0, 0] and tt[2:].sum() == 0
    tricks = block("tricks").reshape(3, 11)
    assert [int(np.argmax(r)) for r in tricks] == [0, 1, 1]  # seat 1: 0, seat 2: 1, seat 0: 1
    points = block("points").reshape(3, 121)
    assert [int(np.argmax(r)) for r in points] == [0, 3, 14]
    assert block("phase").tolist() == [0, 0, 0, 1, 0]
    assert block("dealer").tolist() == [0, 1, 0]  # dealer 2 is relative seat 1
    assert block("leader").tolist() == [0, 0, 1]  # leader 0 is relative seat 2


# ----------------------------------------------------- property tests (RULES 4)


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**31 - 1),
       variant=st.sampled_from([{}, {"num_players": 4}, {"num_players": 4, "partnership": True},
                                {"switch_ranks": ("Q", "J")}, {"switch_mode": "cycle"},
                                {"ranking": "natural", "switch_mode": "cycle", "switch_ranks": ("Q", "J")},
                                {"ranking": "trump_ten"}, {"ranking": "trump_ten", "num_players": 4}]))
def test_random_deals_keep_the_invariants(seed, variant):
    env = trickenv.make("farbwechsel", **variant)
    spec = env.unwrapped.spec
    n = spec.num_players
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    aside = int(state(env).aux[0, 0])
    aside_pts = sum(int(spec.tab[2, c]) for c in range(32) if (aside >> c) & 1)
    assert bin(aside).count("1") == (2 if n == 3 else 0)
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0
        if state(env).s[0, PHASE] == PH_TRUMP:
            assert legal.tolist() == [32, 33, 34, 35]
        else:
            assert legal.max() < 32
        assert conservation_ok(state(env), 0, n, 32)
        env.step(int(rng.choice(legal)))
    info = info_of(env, "player_0")
    assert sum(info["points"]) + aside_pts == 120
    assert info["set_aside_points"] == aside_pts
    assert sum(info["tricks"]) == spec.num_tricks
    par = 120 // (2 if variant.get("partnership") else n)
    for p in range(n):
        pts = info["points"][p] + (info["points"][(p + 2) % 4] if variant.get("partnership") else 0)
        assert info["scores"][p] == reference_score(pts, par) == env.rewards[f"player_{p}"]
    # the change records agree with the trump of every trick
    tt = info["trick_trumps"]
    changed = [t for t in range(len(tt) - 1) if tt[t] != tt[t + 1]]
    assert [c["trick"] for c in info["changes"]] == changed
    for c in info["changes"]:
        assert (c["old_trump"], c["new_trump"]) == (tt[c["trick"]], tt[c["trick"] + 1])
        assert c["card_str"][:-1] in ("Q", "J") if variant.get("switch_ranks") else c["card_str"][0] == "Q"
        if variant.get("switch_mode") != "cycle":
            assert c["new_trump"] == c["card_str"][-1]
    assert info["trump"] == tt[-1]
    assert env.unwrapped.events == [dict(c, event="trump_change", round=0) for c in info["changes"]]


class Referee:
    """An independent, plain-Python Farbwechsel (docs/rules.md section 1) to replay games against."""

    ORDERS = {  # faces from weakest to strongest: (outside trump, in trump)
        "skat": ("7 8 9 J Q K 10 A", "7 8 9 J Q K 10 A"),
        "natural": ("7 8 9 10 J Q K A", "7 8 9 10 J Q K A"),
        "trump_ten": ("7 8 9 10 J Q K A", "7 8 9 J Q K 10 A"),
    }

    def __init__(self, hands, dealer, n, ranking, switch_ranks, cycle):
        self.hands = [set(h) for h in hands]
        self.n, self.dealer, self.cycle = n, dealer, cycle
        self.order = [o.split() for o in self.ORDERS[ranking]]
        self.switch = set(switch_ranks)
        self.trump = None
        self.leader = (dealer + 1) % n
        self.trick: list[tuple[int, int]] = []
        self.points = [0] * n
        self.trick_trumps: list[int] = []

    @staticmethod
    def face(c):
        return ["7", "8", "9", "10", "J", "Q", "K", "A"][c % 8]

    def power(self, c, led):
        s = c // 8
        if s == self.trump:
            return 100 + self.order[1].index(self.face(c))
        if s == led:
            return self.order[0].index(self.face(c))
        return -1

    def legal(self, seat):
        if self.trump is None:
            return {32, 33, 34, 35}
        hand = self.hands[seat]
        if self.trick:
            same = {c for c in hand if c // 8 == self.trick[0][1] // 8}
            if same:
                return same
        return set(hand)

    def to_act(self):
        if self.trump is None:
            return self.dealer
        return (self.leader + len(self.trick)) % self.n

    def step(self, a):
        if self.trump is None:
            self.trump = a - 32
            return
        seat = self.to_act()
        self.hands[seat].remove(a)
        self.trick.append((seat, a))
        if len(self.trick) < self.n:
            return
        led = self.trick[0][1] // 8
        winner = max(self.trick, key=lambda sc: self.power(sc[1], led))[0]
        pts = {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2}
        self.points[winner] += sum(pts.get(self.face(c), 0) for _, c in self.trick)
        self.trick_trumps.append(self.trump)
        switching = [c for _, c in self.trick if self.face(c) in self.switch]
        if switching and any(self.hands):  # no change after the last trick
            self.trump = (self.trump + len(switching)) % 4 if self.cycle else switching[-1] // 8
        self.trick = []
        self.leader = winner


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1),
       variant=st.sampled_from([{}, {"ranking": "natural"}, {"ranking": "trump_ten"},
                                {"ranking": "trump_ten", "num_players": 4},
                                {"ranking": "trump_ten", "switch_ranks": ("Q", "J")},
                                {"switch_ranks": ()},
                                {"ranking": "trump_ten", "switch_mode": "cycle"},
                                {"num_players": 4, "switch_ranks": ("Q", "J"), "switch_mode": "cycle"}]))
def test_random_games_match_referee(seed, variant):
    """Masks, seat to act, trick winners, trumps and points agree with the plain-Python referee."""
    env = trickenv.make("farbwechsel", **variant).unwrapped
    spec = env.spec
    n = spec.num_players
    env.reset(seed=seed)
    hands = [{c for c in range(32) if (int(env.game.hands[0, p]) >> c) & 1} for p in range(n)]
    ref = Referee(hands, int(env.game.s[0, fw.DEALER]), n, spec.options["ranking"],
                  spec.options["switch_ranks"], spec.options["switch_mode"] == "cycle")
    rng = np.random.default_rng(seed)
    while not env.terminations["player_0"]:
        seat = ref.to_act()
        assert env.agent_selection == f"player_{seat}"
        legal = set(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist())
        assert legal == ref.legal(seat)
        a = int(rng.choice(sorted(legal)))
        ref.step(a)
        env.step(a)
    info = info_of(env, "player_0")
    assert info["points"] == ref.points
    assert info["trick_trumps"] == ["CSHD"[x] for x in ref.trick_trumps]


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.sampled_from([3, 4]))
def test_batched_random_play_invariants(seed, n):
    vec = trickenv.make_vec("farbwechsel", 64, seed=seed, num_players=n, rounds=2)
    obs, mask, player = vec.reset()
    rng = np.random.default_rng(seed)
    finished = 0
    for _ in range(2 * (n * (32 // n if n == 4 else 10) + 1) + 5):
        assert mask.any(axis=1).all()
        a = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        obs, mask, player, rew, done = vec.step(a)
        finished += int(done.sum())
        st_ = vec.state
        for g in range(0, 64, 7):
            assert conservation_ok(st_, g, n, 32)
            aside = int(st_.aux[g, 0])
            aside_pts = sum(int(vec.spec.tab[2, c]) for c in range(32) if (aside >> c) & 1)
            played_pts = sum(int(vec.spec.tab[2, c]) for c in range(32)
                             if st_.played_by[g, c] >= 0 and st_.played_in[g, c] < st_.s[g, TRICK_NO])
            assert sum(st_.s[g, fw.POINTS:fw.POINTS + n]) == played_pts
            held = sum(int(vec.spec.tab[2, c]) for c in range(32) if st_.played_by[g, c] < 0 and not (aside >> c) & 1)
            in_trick = sum(int(vec.spec.tab[2, c]) for c in range(32)
                           if st_.played_by[g, c] >= 0 and st_.played_in[g, c] == st_.s[g, TRICK_NO])
            assert played_pts + aside_pts + held + in_trick == 120
    assert finished == 64  # every game played both deals (2 * (30 + 1) steps with 3 players)


# --------------------------------------------------------------- bad inputs


@pytest.mark.parametrize(
    "options,match",
    [
        ({"num_players": 5}, "num_players"),
        ({"num_players": 2}, "num_players"),
        ({"partnership": True}, "partnership"),
        ({"num_players": 3, "partnership": True}, "partnership"),
        ({"num_players": 4, "partnership": "yes"}, "partnership"),
        ({"ranking": "x"}, "ranking"),
        ({"switch_ranks": ("K",)}, "switch_ranks"),
        ({"switch_ranks": "Q"}, "switch_ranks"),
        ({"switch_ranks": ("Q", "Q")}, "switch_ranks"),
        ({"switch_ranks": ("J",)}, "switch_ranks"),
        ({"switch_mode": "y"}, "switch_mode"),
        ({"rounds": 0}, "rounds"),
        ({"rounds": 1.5}, "rounds"),
        ({"trump": "dealer"}, "no option 'trump'"),
    ],
)
def test_bad_options(options, match):
    with pytest.raises(ValueError, match=match):
        trickenv.make("farbwechsel", **options)
    with pytest.raises(ValueError, match=match):
        trickenv.make_vec("farbwechsel", 2, **options)


def _ids(deal):
    return [[cid(c) for c in hand.split()] for hand in deal]


@pytest.mark.parametrize(
    "deal,options,match",
    [
        (_ids(DEAL_A)[:2], {}, "each of the 3 seats"),
        ([_ids(DEAL_A)[0][:9], _ids(DEAL_A)[1], _ids(DEAL_A)[2]], {}, "seat 0 is dealt 9 cards"),
        ([_ids(DEAL_A)[0] + [cid("7S")], _ids(DEAL_A)[1], _ids(DEAL_A)[2]], {}, "dealt 11 cards"),
        ([_ids(DEAL_A)[0], _ids(DEAL_A)[1][:9] + [cid("KC")], _ids(DEAL_A)[2]], {}, "dealt twice"),
        ([_ids(DEAL_A)[0], _ids(DEAL_A)[1][:9] + [32], _ids(DEAL_A)[2]], {}, "out of range"),
        ([_ids(DEAL_A)[0], _ids(DEAL_A)[1][:9] + [-1], _ids(DEAL_A)[2]], {}, "out of range"),
        (DEAL_A, {"num_players": 4}, "each of the 4 seats"),
        (DEAL_F[:3] + [DEAL_F[3] + " 7D"], {"num_players": 4}, "8 cards"),
        ("not a deal", {}, "deal must list"),
    ],
)
def test_malformed_deals(deal, options, match):
    env = trickenv.make("farbwechsel", **options)
    with pytest.raises(ValueError, match=match):
        env.reset(options={"deal": deal, "dealer": 0})
    vec = trickenv.make_vec("farbwechsel", 1, **options)
    with pytest.raises(ValueError, match=match):
        vec.reset(deals=[deal], dealers=0)


def test_bad_dealer():
    env = trickenv.make("farbwechsel")
    with pytest.raises(ValueError, match="dealer"):
        env.reset(options={"deal": DEAL_A, "dealer": 3})
    with pytest.raises(ValueError, match="dealer must be a seat 0..2"):
        env.reset(options={"deal": DEAL_A, "dealer": -1})
    env.reset(options={"deal": DEAL_A})  # no dealer: drawn at random (docs/rules.md)
    assert env.unwrapped.current_deal()["dealer"] in (0, 1, 2)


def test_illegal_actions():
    env = reset({"illegal_action": "raise"})
    with pytest.raises(ValueError, match="illegal action 21"):
        env.step(cid("QH"))  # a card before trump is declared (and not the dealer's)
    with pytest.raises(ValueError, match="out of range"):
        env.step(36)
    with pytest.raises(ValueError, match="out of range"):
        env.step(-1)
    play(env, ["trump H", "QS"])
    with pytest.raises(ValueError, match=r"illegal action 24 \(7D\).*legal: .*\(8S\)"):
        env.step(cid("7D"))  # seat 1 holds spades and must follow
    with pytest.raises(ValueError, match="illegal action 33"):
        env.step(TRUMP_ACTION["S"])  # declaring trump during play
    with pytest.raises(ValueError, match="illegal action"):
        env.step(cid("AH"))  # a card seat 1 does not hold
    # nothing changed: the legal card is still accepted
    assert state(env).s[0, PHASE] == PH_PLAY
    env.step(cid("8S"))
    vec = trickenv.make_vec("farbwechsel", 1)
    vec.reset(deals=[DEAL_A], dealers=2)
    vec.step(np.array([TRUMP_ACTION["H"]]))
    with pytest.raises(ValueError, match="illegal"):
        vec.step(np.array([TRUMP_ACTION["S"]]))
    with pytest.raises(ValueError, match="out of range"):
        vec.step(np.array([40]))


def test_illegal_penalize_mode():
    from trickenv.farbwechsel_v0 import raw_env

    env = raw_env(illegal_action="penalize")
    env.reset(options={"deal": DEAL_A, "dealer": 2})
    with pytest.warns(UserWarning):
        env.step(cid("AC"))
    assert env.rewards["player_2"] == -80.0  # the worst deal score with 3 players
    assert all(env.terminations.values())


def test_render_and_action_names():
    env = trickenv.make("farbwechsel", render_mode="ansi")
    env.reset(options={"deal": DEAL_A, "dealer": 2})
    env.step(TRUMP_ACTION["H"])
    text = env.render()
    assert "declared ♥" in text and "hand of P0" in text
    spec = env.unwrapped.spec
    assert spec.action_str(34) == "trump hearts" and spec.action_str(21) == "QH"
    assert trickenv.farbwechsel_v0.env().metadata["name"] == "farbwechsel_v0"
    assert spec.num_actions == 36
