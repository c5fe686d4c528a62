"""trickenv.research.where_it_loses: a player plays part of each deal, a reference the rest."""

import numpy as np
import pytest

import trickenv
from trickenv.agents import make_agent
from trickenv.research import where_it_loses as where


class Lowest:
    """The lowest legal action id."""

    def act_batch(self, obs, mask):
        return np.asarray(mask).argmax(axis=1)


class Highest:
    """The highest legal action id (in King Calling's first trick: a declaration while one is legal)."""

    def act_batch(self, obs, mask):
        mask = np.asarray(mask)
        return mask.shape[1] - 1 - mask[:, ::-1].argmax(axis=1)


def test_each_decision_goes_to_the_agent_its_trick_and_kind_say():
    """Real King Calling positions from every point of the deal: calls and declarations to the bids agent, a
    card to the early agent before the split trick and to the late one from it on, with the cards alone legal."""
    game = "koenigrufen"
    spec = trickenv.make_spec(game)
    deck, k = spec.deck, 3
    rules = make_agent("rules", spec, seed=0)
    vec = trickenv.make_vec(game, 64, seed=11)
    obs, mask, _ = vec.reset()
    seen = {"bid": 0, "declined": 0, "early": 0, "late": 0}
    for _ in range(spec.num_tricks * spec.num_players + 8):
        rows = np.arange(len(mask))
        trick = vec.state.s[rows, where.TRICK_NO]
        for bids, kind in ((Highest(), "bid"), (Lowest(), "declined")):
            got = where.Split(spec, Lowest(), Highest(), bids, k).act_batch(obs, mask, state=vec.state, games=rows)
            bid = mask[:, deck:].any(axis=1)
            cards = mask.copy()
            cards[:, deck:] = False
            want_card = np.where(trick < k, cards.argmax(axis=1), deck - 1 - cards[:, deck - 1::-1].argmax(axis=1))
            if kind == "bid":  # the bids agent picks the highest action: never a card where a bid is legal
                assert np.array_equal(got[bid], Highest().act_batch(obs[bid], mask[bid]))
                seen["bid"] += int(bid.sum())
            else:  # it picks the lowest, a card where one is legal: the card agents choose which
                declined = bid & mask[:, :deck].any(axis=1)
                assert np.array_equal(got[declined], want_card[declined])
                seen["declined"] += int(declined.sum())
            assert np.array_equal(got[~bid], want_card[~bid])
            assert mask[np.arange(len(mask)), got].all()
        seen["early"] += int((~mask[:, deck:].any(axis=1) & (trick < k)).sum())
        seen["late"] += int((~mask[:, deck:].any(axis=1) & (trick >= k)).sum())
        obs, mask, *_ = vec.step(rules.act_batch(obs, mask))
    assert min(seen.values()) > 0, seen


def test_rows_are_zero_when_the_player_is_the_reference_and_not_otherwise():
    """The shipped King Calling player is deterministic: split against itself every row is exactly level (declining
    to declare then asking it for a card among the cards alone gives the card it would have played). The random
    player in its place loses, and by a different amount with fewer of its decisions."""
    rows = where.measure("koenigrufen", player="model", reference="model", at=[4], deals=40, seed=3)
    assert [r["split"] for r in rows] == ["all", "bids only", "cards only", "tricks 1-4", "tricks 5-8"]
    assert all(r["diff"] == 0.0 and r["ci95"] == [0.0, 0.0] for r in rows)
    rows = where.measure("four_tricks", player="random", reference="rules", at=[4], deals=40, seed=3)
    assert [r["split"] for r in rows][-2:] == ["tricks 1-4", "tricks 5-16"]
    by = {r["split"]: r["diff"] for r in rows}
    assert by["all"] < 0 and by["cards only"] < 0 and by["all"] != by["tricks 1-4"]


def test_a_split_outside_the_deal_is_refused():
    spec = trickenv.make_spec("koenigrufen")
    with pytest.raises(ValueError, match="between 1 and 7"):
        where.splits(spec, Lowest(), Highest(), [8])
    with pytest.raises(ValueError, match="state"):
        where.Split(spec, Lowest(), Highest(), Lowest(), 2).act_batch(np.zeros((1, spec.obs_size)),
                                                                       np.ones((1, spec.num_actions), bool))


def test_the_command_line_names_a_bad_split_or_agent(capsys):
    for argv, message in ((["koenigrufen", "--split", "9"], "between 1 and 7"),
                          (["koenigrufen", "--player", "nobody"], "unknown agent 'nobody'")):
        with pytest.raises(SystemExit) as exit_:
            where.main(argv + ["--deals", "4"])
        assert exit_.value.code == 2 and message in capsys.readouterr().err
