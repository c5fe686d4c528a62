"""The research API on every variant: stackable infos, the observation decoder, deal records,
replay, fast fixed deals and stepping a subset of games (``where``)."""

from __future__ import annotations

import numpy as np
import pytest

import trickenv
from trickenv.decode import card_sets, decode, encode
from trickenv.engine.layout import DEALER, LEADER, PHASE, POINTS, TRICK, TRICK_LEN, TRICKS, TRUMP
from tests.helpers import random_legal
from tests.variants import IDS, VARIANTS

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.mark.parametrize("game,options", VARIANTS, ids=IDS)
def test_infos_are_stackable_at_every_step(game, options):
    """Every key at every step, fixed shape, numeric dtype: NumPy stacks the infos of all steps."""
    env = trickenv.make(game, **options)
    rng = np.random.default_rng(0)
    seen: list[dict] = []
    for ep in range(3):
        env.reset(seed=ep)
        for _ in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            seen.append(info)
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    keys = set(seen[0])
    assert {"deal", "dealer", "scores", "deal_end", "illegal_action"} <= keys
    for info in seen:
        assert set(info) == keys
    for k in keys:
        stacked = np.stack([np.asarray(info[k]) for info in seen])
        assert stacked.dtype.kind in "biuf", (k, stacked.dtype)
        assert stacked.shape[0] == len(seen)
    ends = np.stack([info["deal_end"] for info in seen])
    assert ends.any() and not ends.all()


@pytest.mark.parametrize("game,options", VARIANTS, ids=IDS)
def test_decoder_is_the_exact_inverse_and_reads_the_state(game, options):
    v = trickenv.make_vec(game, 64, seed=5, **options)
    obs, mask, player = v.reset()
    rng = np.random.default_rng(1)
    n = v.num_players
    for step in range(90):
        seats = (player + step) % n  # the seat to act, then others
        o = obs if step % 2 == 0 else v.observe(seats := (player + 1 + step % (n - 1)) % n)
        if step % 2 == 0:
            seats = player
        view = decode(v.spec, o)
        assert np.array_equal(encode(v.spec, view), o)
        one = decode(v.spec, o[3])  # a single row decodes alike
        assert all(np.array_equal(one[k], view[k][3]) for k in view)
        s = v.state.s
        bits = (v.state.hands[np.arange(64), seats][:, None] >> np.arange(v.spec.deck, dtype=np.uint64)) & np.uint64(1)
        assert np.array_equal(view["hand"], bits.astype(bool))
        assert np.array_equal(view["trump"], s[:, TRUMP])
        assert np.array_equal(view["phase"], s[:, PHASE])
        assert np.array_equal(view["dealer"], (s[:, DEALER] - seats) % n)
        assert np.array_equal(view["leader"], (s[:, LEADER] - seats) % n)
        rel = (seats[:, None] + np.arange(n)) % n  # absolute seat of each relative seat
        assert np.array_equal(view["tricks"], np.take_along_axis(s[:, TRICKS:TRICKS + 4], rel, axis=1))
        if "points" in view:
            assert np.array_equal(view["points"], np.take_along_axis(s[:, POINTS:POINTS + 4], rel, axis=1))
        for g in range(64):
            played = {int((s[g, LEADER] + j) % n): int(s[g, TRICK + j]) for j in range(s[g, TRICK_LEN])}
            want = [played.get(int(q), -1) for q in rel[g]]
            assert view["trick"][g].tolist() == want
        obs, mask, player, _, _ = v.step(random_legal(mask, rng))


def test_card_sets():
    fw = card_sets("farbwechsel")
    assert fw["points"].sum() == 120 and fw["queens"].sum() == 4 and fw["switch"].sum() == 4
    assert fw["suit_mask"].sum(axis=1).tolist() == [8, 8, 8, 8] and fw["suit"][21] == 2
    assert card_sets("farbwechsel", switch_ranks=("Q", "J"))["switch"].sum() == 8
    kr = card_sets("koenigrufen")
    assert kr["points"].sum() == 80 and kr["tens"].sum() == 4
    ft = card_sets("four_tricks", deck=52)
    assert ft["rank"][0] == 0 and ft["aces"].sum() == 4 and len(ft["suit"]) == 52
    assert card_sets("farbwechsel", ranking="trump_ten")["trump_strength"][3] == 6  # 10C in trump: second


def test_decode_errors():
    with pytest.raises(ValueError, match=r"obs must have shape \(519,\) or \(B, 519\)"):
        decode("four_tricks", np.zeros(10, np.int8))
    with pytest.raises(ValueError, match="only accepted with a game name"):
        decode(trickenv.make_spec("four_tricks"), np.zeros(519, np.int8), deck=52)


@pytest.mark.parametrize("game,options", VARIANTS, ids=IDS)
def test_a_deal_replays_from_its_record(game, options):
    """Reset with the ``deal`` and ``dealer`` of a deal-end info, replay the actions: the same deal."""
    env = trickenv.make(game, **options)
    env.reset(seed=11)
    rng = np.random.default_rng(11)
    actions = []
    while True:
        a = int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])))
        actions.append(a)
        env.step(a)
        if env.infos["player_0"]["deal_end"]:
            break
    first = {k: np.asarray(v).copy() for k, v in env.infos["player_0"].items()}
    again = trickenv.make(game, **options)
    again.reset(seed=999, options={"deal": first["deal"], "dealer": int(first["dealer"])})
    for a in actions:
        again.step(a)
    for k, val in again.infos["player_0"].items():
        assert np.array_equal(val, first[k]), k


@pytest.mark.parametrize("game,options", VARIANTS, ids=IDS)
def test_deal_records_agree_with_the_deals_and_the_play(game, options):
    """Every record's deal is the deal that was in play (current_deals at its start), its undealt cards
    are the rest of the deck, and every card was played by the seat that held it, in a trick of the deal."""
    v = trickenv.make_vec(game, 64, seed=21, **options)
    obs, mask, _ = v.reset()
    n, deck, tricks = v.num_players, v.spec.deck, v.spec.num_tricks
    deals, dealers = v.current_deals()
    rng = np.random.default_rng(21)
    checked = 0
    for _ in range(300):
        obs, mask, *_ = v.step(random_legal(mask, rng))
        rec = v.deal_records()
        for i, g in enumerate(rec["game"]):
            assert np.array_equal(rec["deal"][i], deals[g]) and rec["dealer"][i] == dealers[g]
            held = set(deals[g].ravel().tolist()) - {-1}
            assert rec["undealt"][i].tolist() == sorted(set(range(deck)) - held)
            holder = {c: seat for seat in range(n) for c in deals[g][seat].tolist()}
            played = np.flatnonzero(rec["played_by"][i] >= 0)
            assert all(rec["played_by"][i, c] == holder[c] for c in played)
            assert ((rec["played_in"][i, played] >= 0) & (rec["played_in"][i, played] < tricks)).all()
            assert (rec["played_in"][i] < 0).sum() == deck - len(played)
            assert rec["tricks"][i].sum() == len(played) // n
            checked += 1
        if rec["game"].size:
            new_deals, new_dealers = v.current_deals(rec["game"])
            deals[rec["game"]], dealers[rec["game"]] = new_deals, new_dealers
    assert checked >= 64


@pytest.mark.parametrize("game,options", VARIANTS, ids=IDS)
def test_fixed_deal_arrays_and_current_deals_round_trip(game, options):
    v = trickenv.make_vec(game, 50, seed=3, **options)
    obs, mask, player = v.reset()
    deals, dealers = v.current_deals()
    assert deals.shape == (50, v.num_players, v.spec.cards_per_seat) and deals.dtype == np.int8
    w = trickenv.make_vec(game, 50, seed=4, **options)
    obs2, mask2, player2 = w.reset(deals=deals, dealers=dealers)  # integer array: the fast path
    assert np.array_equal(obs, obs2) and np.array_equal(mask, mask2) and np.array_equal(player, player2)
    listed = [[list(map(int, h)) for h in d] for d in deals[:3]] + [None] * 47
    x = trickenv.make_vec(game, 50, seed=5, **options)
    obs3, _, _ = x.reset(deals=listed, dealers=dealers)  # lists, with None for random deals
    assert np.array_equal(obs3[:3], obs[:3]) and np.array_equal(x.current_deals()[0][:3], deals[:3])


@pytest.mark.parametrize("game,options", VARIANTS[::3], ids=IDS[::3])
def test_where_steps_only_the_chosen_games_like_stepping_them_one_by_one(game, options):
    b = 40
    v = trickenv.make_vec(game, b, seed=8, **options)
    singles = []
    for g in range(b):
        e = trickenv.make_vec(game, 1, **options)
        e.state.rng[:] = v.state.rng[g]
        singles.append(e)
    obs, mask, _ = v.reset()
    for e in singles:
        e.reset(seed=None)
    rng = np.random.default_rng(2)
    for _ in range(150):
        where = rng.random(b) < 0.6
        actions = random_legal(mask, rng)
        actions[~where] = 10_000  # ignored outside where (illegal if it were stepped)
        before = obs.copy(), mask.copy()
        obs, mask, player, rew, done = v.step(actions, where=where)
        assert np.array_equal(obs[~where], before[0][~where]) and np.array_equal(mask[~where], before[1][~where])
        assert not rew[~where].any() and not done[~where].any() and not v.deal_end[~where].any()
        for g in np.flatnonzero(where):
            o, m, p, r, d = singles[g].step(actions[g:g + 1])
            assert np.array_equal(o[0], obs[g]) and np.array_equal(m[0], mask[g]) and np.array_equal(r[0], rew[g])
            assert d[0] == done[g] and p[0] == player[g]
    for g in range(b):
        assert np.array_equal(singles[g].state.s[0], v.state.s[g])
    with pytest.raises(ValueError, match="where must be a bool array"):
        v.step(actions, where=np.ones(b, int))


def test_deal_end_flag_with_rounds_and_win_at():
    v = trickenv.make_vec("four_tricks", 64, seed=1, trump="none", win_at=6, rounds=5)
    obs, mask, _ = v.reset()
    rng = np.random.default_rng(0)
    deals = matches = 0
    for _ in range(600):
        obs, mask, _, rew, done = v.step(random_legal(mask, rng))
        rec = v.deal_records()
        assert np.array_equal(rec["game"], np.flatnonzero(v.deal_end))
        assert np.array_equal(rec["match_over"], done[v.deal_end]) and not (done & ~v.deal_end).any()
        over = rec["match_over"]
        assert ((rec["totals"].max(axis=1) >= 6) | (rec["round"] == 4))[over].all()
        assert ((rec["totals"].max(axis=1) < 6) & (rec["round"] < 4))[~over].all()
        assert (rec["winners"].any(axis=1) == over).all()
        deals += len(rec["game"])
        matches += int(over.sum())
    assert deals > matches > 0
