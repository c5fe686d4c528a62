"""Four Tricks (docs/rules.md, Four Tricks): scripted deals checked by hand, properties, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trickenv
from trickenv import four_tricks_v0
from trickenv.games import four_tricks as ft
from tests.helpers import info_of, plain, play_aec

# 48-card ids: suit * 12 + rank, rank 0 = "3" ... 11 = "A"; C 0-11, S 12-23, H 24-35, D 36-47.
CLUBS, SPADES, HEARTS = list(range(0, 12)), list(range(12, 24)), list(range(24, 36))
# Deal A: each seat holds one whole suit and four diamonds (seat 0 the lowest four).
DEAL_A = [CLUBS + [36, 37, 38, 39], SPADES + [40, 41, 42, 43], HEARTS + [44, 45, 46, 47]]
TRUMP_ACTION = 48  # + suit
BID_ACTION = 52  # + number of tricks


def play_lowest(env, overrides=None, stop=None):
    """Play the lowest legal action for every decision; ``overrides[k]`` replaces decision k."""
    overrides = overrides or {}
    k = 0
    while not all(env.terminations.values()):
        if stop is not None and stop(env, k):
            return k
        obs = env.observe(env.agent_selection)
        action = overrides.get(k, int(np.flatnonzero(obs["action_mask"])[0]))
        env.step(action)
        k += 1
    return k


def rewards(env):
    return [env.rewards[a] for a in env.possible_agents]


def deal_a_env(**options):
    env = four_tricks_v0.env(**options)
    env.reset(options={"deal": DEAL_A, "dealer": 2})
    return env


def test_trump_beats_the_led_suit_and_follow_suit_decides_the_rest():
    # Dealer 2 makes hearts trump. Seat 0 leads C3, seat 2 (void in clubs) trumps with H3,
    # then leads its 11 other hearts and the four top diamonds: 16 tricks for seat 2.
    env = deal_a_env()
    assert env.agent_selection == "player_2"
    env.step(TRUMP_ACTION + 2)
    assert env.agent_selection == "player_0"  # left of the dealer leads
    env.step(0)  # C3
    env.step(12)  # S3
    env.step(24)  # H3, a trump
    assert list(env.unwrapped.game.s[0, ft.TRICKS:ft.TRICKS + 3]) == [0, 0, 1]
    assert env.agent_selection == "player_2"  # the winner leads
    play_lowest(env)
    assert rewards(env) == [-4, -4, -12]
    info = info_of(env, "player_0")
    assert info["tricks"] == [0, 0, 16]
    assert info["scores"] == [-4, -4, -12] and info["trump"] == 2 and info["target"] == 4


def test_no_trump_the_led_suit_wins():
    # Without trump seat 0 wins its 12 club leads; seat 2 wins the four diamond tricks.
    env = deal_a_env(trump="none")
    assert env.agent_selection == "player_0"  # no trump decision
    play_lowest(env)
    assert info_of(env, "player_0")["tricks"] == [12, 0, 4]
    assert rewards(env) == [-8, -4, 4]
    assert info_of(env, "player_0")["trump"] == -1


def test_follow_suit_mask_is_exactly_the_suit_led():
    deal = [list(range(0, 6)) + list(range(36, 46)), list(range(6, 22)), [22, 23] + HEARTS + [46, 47]]
    env = four_tricks_v0.env(trump="none", illegal_action="raise")
    env.reset(options={"deal": deal, "dealer": 2})
    env.step(0)  # seat 0 leads C3
    mask1 = env.observe("player_1")["action_mask"]
    assert np.flatnonzero(mask1).tolist() == list(range(6, 12))  # its clubs only
    env.step(6)
    mask2 = env.observe("player_2")["action_mask"]
    assert np.flatnonzero(mask2).tolist() == sorted(deal[2])  # void: any card
    with pytest.raises(ValueError, match=r"illegal action 48 \(trump clubs\) for player_2 in phase play"):
        env.step(48)  # a trump choice during play is illegal
    assert np.flatnonzero(env.observe("player_1")["action_mask"]).tolist() == []


def test_turned_up_card_sets_trump_in_the_52_card_deck():
    # 52-card ids: suit * 13 + rank (rank 0 = "2"). The undealt DA (51) is turned up: diamonds trump.
    deal = [list(range(0, 13)) + [39, 40, 41, 42], list(range(13, 26)) + [43, 44, 45, 46],
            list(range(26, 39)) + [47, 48, 49, 50]]
    env = four_tricks_v0.env(deck=52)
    env.reset(options={"deal": deal, "dealer": 2})
    assert env.agent_selection == "player_0"  # no trump decision with a turned-up card
    obs = env.observe("player_1")["observation"]
    off, size = env.unwrapped.spec.extra["obs_offsets"]["turned_up"]
    assert np.flatnonzero(obs[off:off + size]).tolist() == [51]
    toff, _ = env.unwrapped.spec.extra["obs_offsets"]["trump"]
    assert obs[toff + 3] == 1
    # Trick 1: C2, D6 (seat 1 trumps), H2 -> seat 1. Seat 1 then leads 13 spades; in the
    # 13th spade trick seat 2 trumps with D10 and seat 0 under-trumps with D2 -> seat 2,
    # who wins the last three diamond tricks.
    play_lowest(env, overrides={1: 43})
    assert info_of(env, "player_0")["tricks"] == [0, 13, 4]
    assert rewards(env) == [-4, -9, 4]
    assert info_of(env, "player_0")["trump"] == 3


def test_bidding_dealer_may_not_make_the_bids_add_up():
    env = deal_a_env(bidding=True)
    env.step(TRUMP_ACTION + 2)
    assert env.agent_selection == "player_0"  # bidding starts left of the dealer
    mask0 = np.flatnonzero(env.observe("player_0")["action_mask"]).tolist()
    assert mask0 == list(range(BID_ACTION, BID_ACTION + 17))  # 0..16 tricks
    env.step(BID_ACTION + 0)
    env.step(BID_ACTION + 0)
    mask2 = np.flatnonzero(env.observe("player_2")["action_mask"]).tolist()
    assert mask2 == list(range(BID_ACTION, BID_ACTION + 16))  # 16 would make the sum 16
    env.step(BID_ACTION + 15)
    assert env.agent_selection == "player_0"
    play_lowest(env)
    assert info_of(env, "player_0")["bids"] == [0, 0, 15]
    assert rewards(env) == [10, 10, -1]  # bids made score bid + 10


def test_bidding_restriction_with_nonzero_bids():
    env = deal_a_env(bidding=True)
    env.step(TRUMP_ACTION + 0)
    env.step(BID_ACTION + 5)
    env.step(BID_ACTION + 6)
    mask2 = np.flatnonzero(env.observe("player_2")["action_mask"]).tolist()
    assert BID_ACTION + 5 not in mask2 and len(mask2) == 16


def test_rounds_rotate_the_dealer_and_add_up():
    env = deal_a_env(trump="none", rounds=2)
    play_lowest(env, stop=lambda e, k: k == 48)
    assert rewards(env) == [-8, -4, 4]
    assert not any(env.terminations.values())
    assert info_of(env, "player_1")["round"] == 0 and info_of(env, "player_1")["totals"] == [-8, -4, 4]
    assert not info_of(env, "player_1")["match_over"] and info_of(env, "player_1")["winners"] == [False] * 3
    assert env.unwrapped.game.s[0, ft.DEALER] == 0 and env.agent_selection == "player_1"
    play_lowest(env)
    info = info_of(env, "player_0")
    assert info["round"] == 1 and info["match_over"]
    assert info["totals"] == [-8 + info["scores"][0], -4 + info["scores"][1], 4 + info["scores"][2]]


def test_win_at_ends_the_match_when_a_total_reaches_it():
    env = deal_a_env(trump="none", win_at=4)
    play_lowest(env)  # seat 2 scores +4 in the first deal
    assert info_of(env, "player_0")["round"] == 0 and all(env.terminations.values())
    assert info_of(env, "player_0")["match_over"] and info_of(env, "player_0")["winners"] == [False, False, True]
    env = deal_a_env(trump="none", win_at=5)
    play_lowest(env, stop=lambda e, k: k == 48)
    assert not any(env.terminations.values())


def test_target_and_target_schedule():
    env = deal_a_env(trump="none", target=0)
    play_lowest(env)
    assert rewards(env) == [-12, 4, -4]
    env = deal_a_env(trump="none", target_schedule=[2, 3])
    obs = env.observe("player_0")["observation"]
    off, _ = env.unwrapped.spec.extra["obs_offsets"]["target"]
    assert obs[off + 2] == 1
    play_lowest(env, stop=lambda e, k: k == 48)
    assert rewards(env) == [-10, -2, -2]  # target 2 with tricks 12, 0, 4
    assert info_of(env, "player_0")["target"] == 2
    play_lowest(env)
    info = info_of(env, "player_0")
    assert info["target"] == 3 and info["round"] == 1
    assert info["scores"] == [4 if t == 3 else -abs(t - 3) for t in info["tricks"]]
    assert ft.make_spec(target_schedule="default").options["rounds"] == 9


def test_observation_blocks_after_the_first_trick():
    env = deal_a_env()
    env.step(TRUMP_ACTION + 2)
    for a in (0, 12, 24):
        env.step(a)
    offs = env.unwrapped.spec.extra["obs_offsets"]
    obs = env.observe("player_0")["observation"]
    o, d = offs["played"][0], 48
    assert obs[o + 0] == 1 and obs[o + d + 12] == 1 and obs[o + 2 * d + 24] == 1  # by relative seat
    assert obs[o:o + 3 * d].sum() == 3
    o = offs["tricks"][0]
    assert obs[o + 2 * 17 + 1] == 1  # seat 2 (relative 2) has one trick
    assert obs[offs["trick"][0]:offs["trick"][0] + 3 * d].sum() == 0  # the trick was collected
    assert obs[offs["hand"][0]:offs["hand"][0] + d].sum() == 15
    assert obs[offs["leader"][0] + 2] == 1
    assert obs.shape == (env.unwrapped.spec.obs_size,)


def test_text_forms_in_render_and_errors():
    env = four_tricks_v0.env(render_mode="ansi")
    env.reset(options={"deal": DEAL_A, "dealer": 2})
    text = env.render()
    assert "hand of P2" in text and "♥ A K Q J 10 9 8 7 6 5 4 3" in text
    assert "phase trump" in text


# ------------------------------------------------------------------ properties


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), variant=st.sampled_from([{}, {"deck": 52}, {"bidding": True},
                                                                 {"trump": "none", "target": 3}]))
def test_random_deals_score_by_the_formula(seed, variant):
    env = four_tricks_v0.env(**variant)
    totals, infos = play_aec(env, np.random.default_rng(seed), seed=seed)
    info = plain(infos["player_0"])
    hand = 17 if variant.get("deck") == 52 else 16
    assert sum(info["tricks"]) == hand
    goals = info["bids"] if variant.get("bidding") else [info["target"]] * 3
    if variant.get("bidding"):
        assert sum(goals) != hand
    expected = [(g + 10 if variant.get("bidding") else 4) if t == g else -abs(t - g)
                for t, g in zip(info["tricks"], goals, strict=True)]
    assert info["scores"] == expected
    assert [totals[a] for a in env.possible_agents] == expected


# ------------------------------------------------------------------- bad input


@pytest.mark.parametrize("options,message", [
    ({"deck": 32}, "deck must be one of"),
    ({"trump": "random"}, "trump must be one of"),
    ({"trump": "turn_up"}, "needs deck=52"),
    ({"bidding": "yes"}, "bidding must be True or False"),
    ({"bidding": True, "target": 3}, "cannot be combined"),
    ({"target": 3, "target_schedule": [1]}, "either target or target_schedule"),
    ({"target": 17}, "target must be in 0..16"),
    ({"target_schedule": []}, "non-empty list"),
    ({"target_schedule": "fancy"}, "target_schedule must be one of"),
    ({"target_schedule": [1, 20]}, "target_schedule entry must be in 0..16"),
    ({"rounds": 0}, "rounds must be >= 1"),
    ({"win_at": 0}, "win_at must be >= 1"),
    ({"players": 4}, "has no option 'players'"),
])
def test_bad_options(options, message):
    with pytest.raises(ValueError, match=message):
        four_tricks_v0.env(**options)
    with pytest.raises(ValueError, match=message):
        trickenv.make_vec("four_tricks", 4, **options)


@pytest.mark.parametrize("deal,dealer,message", [
    (DEAL_A[:2], 0, "cards of each of the 3 seats"),
    ([DEAL_A[0][:15], DEAL_A[1], DEAL_A[2]], 0, "seat 0 is dealt 15 cards"),
    ([DEAL_A[0], DEAL_A[1][:-1] + [0], DEAL_A[2]], 0, "dealt twice"),
    ([DEAL_A[0], DEAL_A[1][:-1] + [48], DEAL_A[2]], 0, "out of range"),
    ([DEAL_A[0], DEAL_A[1][:-1] + ["ZZ"], DEAL_A[2]], 0, "must be an integer"),
    (DEAL_A, 3, r"dealers?(\[0\])? must be a seat 0..2"),
])
def test_malformed_deals(deal, dealer, message):
    env = four_tricks_v0.env()
    with pytest.raises(ValueError, match=message):
        env.reset(options={"deal": deal, "dealer": dealer})
    v = trickenv.make_vec("four_tricks", 1)
    with pytest.raises(ValueError, match=message):
        v.reset(deals=[deal], dealers=dealer)


def test_deal_without_dealer_draws_it_alike_in_both_envs():
    """A fixed deal with no dealer (or None) gets a random dealer from the game's generator,
    the same one in the AEC env and in game 0 of the batched env with the same seed."""
    dealers = set()
    for seed in range(12):
        env = four_tricks_v0.env()
        env.reset(seed=seed, options={"deal": DEAL_A})
        v = trickenv.make_vec("four_tricks", 4, seed=seed)
        v.reset(deals=[DEAL_A, None, DEAL_A, None], dealers=[None, 1, None, None])
        deals, dealer = v.current_deals()
        d = env.unwrapped.current_deal()
        assert d["dealer"] == dealer[0] and (d["deal"] == np.sort(DEAL_A, axis=1)).all()
        assert (deals[0] == deals[2]).all() and dealer[1] == 1
        dealers.add(int(dealer[0]))
        env.reset(seed=seed, options={"deal": DEAL_A, "dealer": None})
        assert env.unwrapped.current_deal()["dealer"] == dealer[0]
    assert dealers == {0, 1, 2}


def test_dealers_with_none_entries():
    v = trickenv.make_vec("four_tricks", 4, seed=0)
    v.reset(deals=[DEAL_A] * 4, dealers=[0, None, None, None])  # crashed before: int has no .item()
    assert v.current_deals()[1][0] == 0
    with pytest.raises(ValueError, match=r"dealers\[1\] must be a seat 0..2 or None, got 'x'"):
        v.reset(dealers=[0, "x", None, None])
    with pytest.raises(ValueError, match=r"dealers\[2\] must be a seat 0..2 or None, got 5"):
        v.reset(dealers=[0, 1, 5, None])


def test_integer_deal_arrays_are_validated_at_once():
    good = np.array([DEAL_A] * 4, np.int16)
    v = trickenv.make_vec("four_tricks", 4)
    v.reset(deals=good, dealers=2)
    assert (v.current_deals()[0] == good).all()
    bad = good.copy()
    bad[2, 1, 3] = 48
    with pytest.raises(ValueError, match=r"deals\[2\]: seat 1: card id 48 is out of range for a 48-card deck"):
        v.reset(deals=bad, dealers=2)
    bad = good.copy()
    bad[3, 2, 0] = bad[3, 0, 5]
    with pytest.raises(ValueError, match=r"deals\[3\]: card 8C \(id 5\) is dealt twice \(seats 0 and 2\)"):
        v.reset(deals=bad, dealers=2)
    with pytest.raises(ValueError, match="deals give 15 cards to each seat; four_tricks deals 16"):
        v.reset(deals=good[:, :, :15])
    with pytest.raises(ValueError, match="cards of each of the 3 seats"):
        v.reset(deals=good[:, :2])
    with pytest.raises(ValueError, match="card id must be an integer"):
        v.reset(deals=good.astype(float))
    with pytest.raises(ValueError, match="deals must list 4 deals"):
        v.reset(deals=good[:3])


def test_text_cards_are_accepted():
    env = four_tricks_v0.env()
    from trickenv import cards
    text = [cards.cards_str(h, 48) for h in DEAL_A]
    env.reset(options={"deal": text, "dealer": 2})
    assert env.unwrapped.game.hands[0, 0] == sum(1 << c for c in DEAL_A[0])


def test_bad_actions_in_the_aec_env():
    env = deal_a_env(illegal_action="raise")
    with pytest.raises(ValueError, match=r"illegal action 0 \(3C\) for player_2 in phase trump; legal: 48"):
        env.step(0)
    with pytest.raises(ValueError, match="out of range"):
        env.step(69)
    with pytest.raises(ValueError, match="must be an integer"):
        env.step(1.5)
    with pytest.raises(ValueError, match="must be an integer"):
        env.step(None)
    env.step(np.int64(TRUMP_ACTION + 1))  # NumPy integers are fine
    play_lowest(env)
    with pytest.raises(ValueError, match="only valid action is None"):
        env.step(0)  # PettingZoo dead-step rule: a finished agent may only step None


def test_illegal_action_penalize_mode():
    env = four_tricks_v0.env(illegal_action="penalize")
    env.reset(options={"deal": DEAL_A, "dealer": 2})
    with pytest.warns(UserWarning, match="illegal action"):
        env.step(0)
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env._cumulative_rewards == {"player_0": 0, "player_1": 0, "player_2": -12.0}  # the worst deal score
    assert info_of(env, "player_2")["illegal_action"] is True
    assert info_of(env, "player_0")["illegal_action"] is False
    with pytest.raises(ValueError, match="illegal_action must be one of"):
        four_tricks_v0.env(illegal_action="ignore")


def test_vector_env_errors_and_atomic_step():
    v = trickenv.make_vec("four_tricks", 8, seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        v.step(np.zeros(8, int))
    obs, mask, player = v.reset()
    before = v.state.copy()
    actions = np.full(8, TRUMP_ACTION)  # every game starts with the dealer choosing trump
    actions[3] = 0
    with pytest.raises(ValueError, match=r"1 illegal .* game 3: action 0 \(3C\) is illegal for player_\d in phase trump"):
        v.step(actions)
    assert np.array_equal(v.state.s, before.s) and np.array_equal(v.state.hands, before.hands)
    with pytest.raises(ValueError, match="out of range 0..68"):
        v.step(np.full(8, 99))
    with pytest.raises(ValueError, match="shape"):
        v.step(np.zeros(3, int))
    with pytest.raises(ValueError, match="integers"):
        v.step(np.zeros(8, float))
    with pytest.raises(ValueError, match="num_envs"):
        trickenv.make_vec("four_tricks", 0)
    with pytest.raises(ValueError, match="unknown game"):
        trickenv.make_vec("skat", 2)
    with pytest.raises(ValueError, match="read-only"):
        obs[0, 0] = 1


def test_vector_reset_with_fixed_deals_and_dealers():
    v = trickenv.make_vec("four_tricks", 3, seed=0, trump="none")
    obs, mask, player = v.reset(deals=[DEAL_A, None, DEAL_A], dealers=[2, 0, 1])
    assert player.tolist() == [0, 1, 2]
    assert v.state.hands[0, 2] == v.state.hands[2, 2] == sum(1 << c for c in DEAL_A[2])
    assert v.state.hands[1, 2] != v.state.hands[0, 2]
    assert np.array_equal(obs[0, :48], v.observe(0)[2, :48])


def test_order_enforcing_before_reset():
    env = four_tricks_v0.env()
    with pytest.raises(AttributeError, match="before reset"):
        env.last()
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.agent_selection


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), variant=st.sampled_from([{}, {"deck": 52}, {"bidding": True},
                                                                 {"deck": 52, "trump": "dealer"}]))
def test_batched_invariants_on_random_play(seed, variant):
    """the guarantees of docs/rules.md on 16 batched games: each card in one place, masks never empty,
    tricks of a finished deal add up to the hand size, rewards are the deal scores."""
    from tests.helpers import conservation_ok, random_legal

    v = trickenv.make_vec("four_tricks", 16, seed=seed, **variant)
    obs, mask, player = v.reset()
    rng = np.random.default_rng(seed)
    hand = v.spec.hand_size
    for _ in range(130):
        assert mask.any(axis=1).all()
        obs, mask, player, rew, done = v.step(random_legal(mask, rng))
        rec = v.deal_records()
        assert (rec["game"] == np.flatnonzero(done)).all()  # one deal per episode here
        assert (rec["tricks"].sum(axis=1) == hand).all()
        assert (rew[rec["game"]] == rec["scores"]).all() and not rew[~done].any()
        assert all(conservation_ok(v.state, g, 3, v.spec.deck) for g in range(0, 16, 5))


def test_human_render_prints_the_table(capsys):
    env = four_tricks_v0.env(render_mode="human")
    env.reset(options={"deal": DEAL_A, "dealer": 2})
    env.step(TRUMP_ACTION + 2)
    out = capsys.readouterr().out
    assert "trump ♥ hearts" in out and "hand of P0" in out
    with pytest.raises(ValueError, match="render_mode must be None or one of"):
        four_tricks_v0.env(render_mode="rgb_array")


def test_thread_counts_give_identical_games():
    runs = []
    for threads in (None, 1, 2):
        v = trickenv.make_vec("four_tricks", 200, seed=4, threads=threads)
        obs, mask, _ = v.reset()
        rng = np.random.default_rng(0)
        for _ in range(60):
            obs, mask, _, _, _ = v.step(mask.argmax(axis=1) if rng.random() < 0.5 else (mask * rng.random(mask.shape)).argmax(axis=1))
        runs.append((obs.copy(), v.state.s.copy()))
    for obs, s in runs[1:]:
        assert np.array_equal(obs, runs[0][0]) and np.array_equal(s, runs[0][1])
    # The default is one thread, whatever the batch (a busy core would stall a 2-thread step).
    assert trickenv.make_vec("four_tricks", 10).threads == 1
    assert trickenv.make_vec("four_tricks", 4096).threads == 1
    assert trickenv.make_vec("four_tricks", 4096, threads=None).threads == 1
    assert not trickenv.make_vec("four_tricks", 10)._parallel  # small batch: the plain kernel
    with pytest.raises(ValueError, match="threads must be a positive integer"):
        trickenv.make_vec("four_tricks", 10, threads=0)


def test_card_locations_derive_from_the_state():
    env = deal_a_env()
    env.step(TRUMP_ACTION + 2)
    for a in (0, 12, 24, 25):  # trick 1 (taken by seat 2), then seat 2 leads H4
        env.step(a)
    loc = env.unwrapped.game.card_locations(0)
    assert loc[0] == 8 + 0 and loc[12] == 8 + 1 and loc[24] == 8 + 2  # taken, by who played them
    assert loc[25] == 4 + 2  # in the current trick
    assert loc[1] == 0 and loc[13] == 1 and loc[47] == 2  # in hands
    assert sorted(set(loc.tolist())) == [0, 1, 2, 6, 8, 9, 10]
