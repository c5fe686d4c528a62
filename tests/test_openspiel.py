"""trickenv's games as OpenSpiel games (trickenv.openspiel) and OpenSpiel's bots as agents, tested with OpenSpiel's
own machinery: random_sim_test on every variant, move-by-move agreement with the AEC env, the resampler, Shimmy's
PettingZoo wrapper under PettingZoo's api_test, and full games of ISMCTS and MCTS."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra (pip install 'trickenv[openspiel]')")

import trickenv  # noqa: E402
from trickenv import openspiel as tos  # noqa: E402
from trickenv.games.variants import VARIANTS  # noqa: E402

IDS = [f"{g}-{o}" for g, o in VARIANTS]


def load(game: str, options: dict) -> "tos.TrickGame":
    return pyspiel.load_game(tos.short_name(game), tos.parameters_from_options(game, options))


def random_deal(spec, rng):
    perm = rng.permutation(spec.deck)
    h = spec.hand_size
    return [perm[s * h:(s + 1) * h].tolist() for s in range(spec.num_players)], int(rng.integers(spec.num_players))


@pytest.mark.parametrize(("game", "options"), VARIANTS, ids=IDS)
def test_every_variant_loads_and_passes_random_sim_test(game, options):
    g = load(game, options)
    assert g.spec.options == trickenv.make_spec(game, **options).options
    assert g.num_distinct_actions() == g.spec.num_actions and g.num_players() == g.spec.num_players
    pyspiel.random_sim_test(g, num_sims=2, serialize=True, verbose=False)


def test_parameters_are_the_options_with_their_defaults():
    assert tos.parameter_specification("farbwechsel") == {
        "num_players": 3, "partnership": False, "ranking": "skat", "switch_ranks": "Q", "switch_mode": "last_suit",
        "rounds": 1}
    spec = tos.parameter_specification("four_tricks")
    assert spec["deck"] == 48 and spec["trump"] == "default" and spec["target"] == -1
    assert spec["target_schedule"] == "none" and spec["bidding"] is False
    g = pyspiel.load_game("trickenv_four_tricks", {"deck": 52, "bidding": True})
    assert g.spec.options["trump"] == "turn_up" and g.num_distinct_actions() == 74
    g = pyspiel.load_game("trickenv_farbwechsel", {"switch_ranks": "Q J", "num_players": 4})
    assert g.spec.options["switch_ranks"] == ("Q", "J") and g.num_players() == 4
    g = pyspiel.load_game("trickenv_four_tricks", {"target_schedule": "1 2 3", "rounds": 3})
    assert g.spec.options["target_schedule"] == (1, 2, 3) or list(g.spec.options["target_schedule"]) == [1, 2, 3]


@pytest.mark.parametrize(("name", "params", "message"), [
    ("trickenv_farbwechsel", {"num_players": 5}, "num_players"),
    ("trickenv_four_tricks", {"deck": 32}, "deck"),
    ("trickenv_farbwechsel", {"partnership": True}, "partnership"),
    ("trickenv_farbwechsel", {"switch_ranks": "K"}, "switch_ranks"),
])
def test_bad_parameters_get_the_games_own_message(name, params, message):
    with pytest.raises(Exception, match=message):
        pyspiel.load_game(name, params)


def test_an_unknown_parameter_is_refused():
    with pytest.raises(Exception, match="decks"):
        pyspiel.load_game("trickenv_four_tricks", {"decks": 52})


@pytest.mark.parametrize(("game", "options"), VARIANTS, ids=IDS)
def test_move_by_move_agreement_with_the_aec_env(game, options):
    """For the same deal and dealer: the seat to act, legal actions, observation, rewards and returns agree at
    every step, to the end of the episode (in a match, chance deals each later deal as the env dealt it)."""
    g = load(game, options)
    spec = g.spec
    for seed in range(3):
        rng = np.random.default_rng(seed)
        deal, dealer = random_deal(spec, rng)
        env = trickenv.make(game, **options)
        env.reset(seed=0, options={"deal": deal, "dealer": dealer})
        state = tos.state_from_deal(g, deal, dealer)
        totals = np.zeros(spec.num_players)
        steps = deals = 0
        while env.agents:
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                assert state.is_terminal()
                env.step(None)
                continue
            seat = int(env.agent_selection.split("_")[1])
            assert state.current_player() == seat
            legal = np.flatnonzero(obs["action_mask"]).tolist()
            assert state.legal_actions() == legal
            assert np.array_equal(np.asarray(state.observation_tensor(seat), np.int8), obs["observation"])
            action = legal[int(rng.integers(len(legal)))]
            env.step(action)
            state.apply_action(action)
            totals += [env.rewards[a] for a in env.possible_agents]
            assert np.allclose(state.returns(), totals), (steps, state.returns(), totals)
            steps += 1
            if state.is_chance_node():  # a match's next deal: chance deals what the env dealt
                for card in env_deal(env.unwrapped.game, spec):
                    assert any(c == card for c, _ in state.chance_outcomes())
                    state.apply_action(card)
                deals += 1
        assert state.is_terminal() and steps > spec.num_tricks
        assert deals == 0 or deals >= 1 and steps > 2 * spec.num_tricks


def env_deal(engine, spec):
    """The cards of the deal an engine state dealt last, as chance deals them: seat 0's first (a seat's first
    batch before its second)."""
    bits = np.arange(spec.deck, dtype=np.uint64)
    out = []
    for p in range(spec.num_players):
        hand = np.flatnonzero((engine.dealt[0, 0, p] >> bits) & np.uint64(1)).tolist()
        second = np.flatnonzero((engine.dealt[0, 0, 4 + p] >> bits) & np.uint64(1)).tolist()
        out += [c for c in hand if c not in second] + second
    return out


def test_a_deal_given_as_text_starts_a_state():
    g = pyspiel.load_game("trickenv_farbwechsel")
    deal = ["7C 8C 9C 10C JC QC KC AC 7S 8S", "9S 10S JS QS KS AS 7H 8H 9H 10H", "JH QH KH AH 7D 8D 9D 10D JD QD"]
    state = tos.state_from_deal(g, deal, 2)
    assert not state.is_chance_node() and state.current_player() == 2  # the dealer declares trump
    assert "hand: 7C 8C 9C 10C JC QC KC AC 7S 8S" in state.observation_string(0)
    with pytest.raises(ValueError, match="dealt twice"):
        tos.state_from_deal(g, [deal[0], deal[0], deal[2]], 0)


def test_chance_outcomes_are_exact():
    g = pyspiel.load_game("trickenv_four_tricks", {"deck": 52})
    state = g.new_initial_state()
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 52 and abs(sum(p for _, p in outcomes) - 1) < 1e-12
    for _ in range(51):
        state.apply_action(state.chance_outcomes()[0][0])
    assert [p for _, p in state.chance_outcomes()] == [1 / 3] * 3  # the dealer
    with pytest.raises(Exception, match="dealer"):
        state.apply_action(7)


def played_state(game, options, seed, moves):
    g = load(game, options)
    rng = np.random.default_rng(seed)
    deal, dealer = random_deal(g.spec, rng)
    state = tos.state_from_deal(g, deal, dealer)
    for _ in range(moves):
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.integers(len(legal)))])
    return state


@pytest.mark.parametrize("game", ["four_tricks", "farbwechsel", "koenigrufen"])
def test_resampled_worlds_are_what_the_player_saw(game):
    """Every world keeps the player's information state, hand and legal actions; the other hands vary."""
    state = played_state(game, {}, 1, 9)
    player = state.current_player()
    rng = np.random.default_rng(0)
    others = set()
    for _ in range(20):
        world = state.resample_from_infostate(player, lambda: float(rng.random()))
        assert world.information_state_string(player) == state.information_state_string(player)
        assert world.legal_actions() == state.legal_actions()
        assert world.observation_tensor(player) == state.observation_tensor(player)
        others.add(world.engine.hands.tobytes())
        # the world plays on to its end
        while not world.is_terminal():
            world.apply_action(world.legal_actions()[0])
    assert len(others) > 1


@pytest.mark.parametrize("game", ["four_tricks", "farbwechsel", "koenigrufen"])
def test_worlds_for_a_seat_not_to_act_give_that_worlds_legal_actions(game):
    """A world drawn for another seat than the one to act holds another hand for the seat to act: its legal
    actions are that hand's, and the world plays on to its end at random."""
    state = played_state(game, {}, 2, 9)
    to_act = state.current_player()
    player = (to_act + 1) % state.num_players()
    rng = np.random.default_rng(1)
    differed = False
    for world in state.resample_worlds(player, 12, 7):
        assert world.information_state_string(player) == state.information_state_string(player)
        legal = world.legal_actions()
        held = np.flatnonzero((world.engine.hands[0, to_act] >> np.arange(64, dtype=np.uint64)) & np.uint64(1))
        assert legal and all(a in held for a in legal if a < world.spec.deck)
        differed |= legal != state.legal_actions()
        while not world.is_terminal():
            choices = world.legal_actions()
            world.apply_action(choices[int(rng.integers(len(choices)))])
    assert differed


@pytest.mark.parametrize("game", ["four_tricks", "farbwechsel", "koenigrufen"])
def test_the_mask_kernel_writes_the_step_kernels_masks(game):
    vec = trickenv.make_vec(game, 16, seed=4)
    obs, mask, _ = vec.reset()
    from trickenv.agents import RandomAgent

    agent = RandomAgent(seed=1)
    spec = vec.spec
    for _ in range(30):
        obs, mask, _, _, _ = vec.step(agent.act_batch(obs, mask))
        again = np.zeros_like(mask)
        spec.mask_kernel(*vec.state.arrays()[:-1], spec.cfg, spec.tab, again)
        assert (again == mask).all()


@pytest.mark.parametrize("game", ["four_tricks", "farbwechsel", "koenigrufen"])
def test_the_information_state_key_partitions_states_as_the_string_does(game):
    """Two states share information_state_key exactly when they share information_state_string: over states
    of several deals and their worlds, for every seat."""
    states = []
    for seed in range(3):
        for moves in (0, 5, 13):
            state = played_state(game, {}, seed, moves)
            states.append(state)
            states += state.resample_worlds((state.current_player() + 1) % state.num_players(), 3, seed)
    for player in range(states[0].num_players()):
        keys = [s.information_state_key(player) for s in states]
        texts = [s.information_state_string(player) for s in states]
        assert len(set(keys)) == len(set(texts)) > 1
        assert len(set(zip(keys, texts, strict=True))) == len(set(keys))


def test_ismcts_keyed_by_bytes_chooses_as_keyed_by_text():
    from open_spiel.python.algorithms import ismcts

    from trickenv.agents import make_agent

    positions = [played_state("koenigrufen", {}, s, 6) for s in range(3)]
    ours = make_agent("ismcts:40", "koenigrufen", seed=5)
    text = make_agent("ismcts:40", "koenigrufen", seed=5)
    text.bot.get_state_key = lambda state: ismcts.ISMCTSBot.get_state_key(text.bot, state)  # OpenSpiel's own
    assert [ours.choose(p.clone()) for p in positions] == [text.choose(p.clone()) for p in positions]


def test_resampling_does_not_depend_on_the_hidden_cards():
    """Two states that differ only in cards the player cannot see give the same worlds for the same draws."""
    g = pyspiel.load_game("trickenv_four_tricks")
    spec = g.spec
    deal, dealer = random_deal(spec, np.random.default_rng(5))
    a = tos.state_from_deal(g, deal, dealer)
    player = a.current_player()
    other = [s for s in range(3) if s != player]
    # swap one card of the same suit between the two other seats (voids and counts unchanged)
    swapped = None
    for x in deal[other[0]]:
        for y in deal[other[1]]:
            if x // (spec.deck // 4) == y // (spec.deck // 4):
                swapped = (x, y)
                break
        if swapped:
            break
    assert swapped is not None
    deal_b = [list(h) for h in deal]
    deal_b[other[0]][deal_b[other[0]].index(swapped[0])] = swapped[1]
    deal_b[other[1]][deal_b[other[1]].index(swapped[1])] = swapped[0]
    b = tos.state_from_deal(g, deal_b, dealer)
    assert a.information_state_string(player) == b.information_state_string(player)
    assert a.engine.hands.tobytes() != b.engine.hands.tobytes()
    for k in range(5):
        wa = a.resample_from_infostate(player, lambda k=k: 0.1 + 0.15 * k)
        wb = b.resample_from_infostate(player, lambda k=k: 0.1 + 0.15 * k)
        assert wa.engine.hands.tobytes() == wb.engine.hands.tobytes()


def test_from_engine_is_the_batched_envs_position():
    vec = trickenv.make_vec("koenigrufen", 4, seed=3)
    obs, mask, player = vec.reset()
    from trickenv.agents import RandomAgent

    agent = RandomAgent(seed=0)
    for _ in range(7):
        obs, mask, player, _, _ = vec.step(agent.act_batch(obs, mask))
    g = tos.game_for_spec(vec.spec)
    for i in range(4):
        state = tos.from_engine(g, vec.state, i, mask[i])
        assert state.current_player() == player[i]
        assert state.legal_actions() == np.flatnonzero(mask[i]).tolist()
        assert np.array_equal(np.asarray(state.observation_tensor(), np.int8), obs[i])


def test_shimmy_wraps_a_registered_game_for_pettingzoo():
    shimmy = pytest.importorskip("shimmy", reason="the openspiel extra installs shimmy")
    from pettingzoo.test import api_test

    env = shimmy.OpenSpielCompatibilityV0(env=pyspiel.load_game("trickenv_four_tricks"))
    api_test(env, num_cycles=100)


@pytest.mark.parametrize("game", ["four_tricks", "farbwechsel", "koenigrufen"])
def test_openspiel_bots_play_whole_deals_as_agents(game):
    from trickenv.agents.evaluation import evaluate

    res = evaluate(game, ["ismcts:10", "mcts:10", "openspiel-random"], deals=1, seed=2, progress=False,
                   ratings=False)
    again = evaluate(game, ["ismcts:10", "mcts:10", "openspiel-random"], deals=1, seed=2, progress=False,
                     ratings=False)
    assert res.to_dict()["agents"] == again.to_dict()["agents"]  # seeded: the same games again
    assert set(res.to_dict()["agents"]) == {"ismcts:10", "mcts:10", "openspiel-random"}


def test_the_bots_play_the_aec_env_and_the_terminal_table():
    """act(observation, state=env.unwrapped.game), as trickenv play and serve call agents."""
    from trickenv.agents import make_agent
    from trickenv.agents.base import act_one
    from trickenv.play import Table

    env = trickenv.make("koenigrufen")
    env.reset(seed=4)
    bots = [make_agent(n, "koenigrufen", seed=s) for s, n in enumerate(["ismcts:5", "mcts:5", "openspiel-random",
                                                                           "ismcts:3"])]
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = act_one(bots[int(name.split("_")[1])], obs, env.unwrapped.game)
        assert obs["action_mask"][action]
        env.step(action)
    with pytest.raises(ValueError, match="engine state"):
        bots[0].act(obs)
    import io

    out = io.StringIO()
    Table("koenigrufen", ["ismcts:3", "rules", "mcts:3", "openspiel-random"], seed=1, output=out).run()
    assert "ismcts:3" in out.getvalue() and "total" in out.getvalue().lower()


def test_ismcts_is_a_named_agent_with_its_simulations():
    from trickenv.agents import make_agent

    agent = make_agent("ismcts:64", "four_tricks", seed=0)
    assert agent.sims == 64 and agent.needs_state
    with pytest.raises(ValueError, match="sims"):
        make_agent("ismcts:0", "four_tricks")


def test_engine_playouts_are_openspiels_random_rollouts():
    """EnginePlayouts and OpenSpiel's RandomRolloutEvaluator value a position alike: the mean returns of 1,500
    playouts each agree within 4 standard errors for every seat (seeded, so the test is repeatable), and the
    prior is OpenSpiel's uniform one."""
    from open_spiel.python.algorithms import mcts

    from trickenv.agents.openspiel_bots import EnginePlayouts

    state = played_state("four_tricks", {}, 3, 6)
    ours, theirs = EnginePlayouts(seed=1), mcts.RandomRolloutEvaluator(1, np.random.RandomState(1))
    a = np.array([ours.evaluate(state) for _ in range(1500)])
    b = np.array([theirs.evaluate(state) for _ in range(1500)])
    se = np.sqrt(a.var(axis=0) / len(a) + b.var(axis=0) / len(b))
    assert (np.abs(a.mean(axis=0) - b.mean(axis=0)) < 4 * se + 1e-9).all()
    assert a.std(axis=0).max() > 0  # the playouts vary
    assert ours.prior(state) == theirs.prior(state)
    assert state.legal_actions() == played_state("four_tricks", {}, 3, 6).legal_actions()  # the state is untouched
    with pytest.raises(ValueError, match="decision nodes"):
        ours.evaluate(load("four_tricks", {}).new_initial_state())


def test_the_bots_take_openspiels_own_evaluator_by_name():
    from trickenv.agents import make_agent
    from trickenv.agents.evaluation import evaluate

    res = evaluate("koenigrufen", ["ismcts:8:playouts=openspiel", "mcts:8:playouts=openspiel"], deals=1, seed=3,
                   progress=False, ratings=False)
    assert set(res.to_dict()["agents"]) == {"ismcts:8:playouts=openspiel", "mcts:8:playouts=openspiel"}
    with pytest.raises(ValueError, match="playouts must be one of"):
        make_agent("ismcts:8:playouts=fast", "koenigrufen")


def test_the_ismcts_benchmark_times_both_evaluators(capsys):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_ismcts.py"
    module = importlib.util.spec_from_file_location("bench_ismcts", path)
    bench = importlib.util.module_from_spec(module)
    module.loader.exec_module(bench)
    assert bench.main(["--games", "koenigrufen", "--sims", "4", "--positions", "1"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| koenigrufen")]
    assert [r.split("|")[2].strip() for r in rows] == ["openspiel", "engine"]
    assert all(float(r.split("|")[4]) > 0 for r in rows)


def test_trickenv_does_not_import_openspiel():
    code = ("import sys, trickenv, trickenv.agents, trickenv.agents.evaluation; "
            "trickenv.make('four_tricks'); print('pyspiel' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
