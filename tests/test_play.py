"""``trickenv play``: a person against the agents, driven by scripted input (trickenv/play.py)."""

from __future__ import annotations

import io
import re

import pytest

import trickenv
from trickenv.agents import AGENTS
from trickenv import cards
from trickenv.agents.policy import shipped_model_path
from trickenv.cli import main
from trickenv.engine.layout import DEALER, PH_BID, PH_PLAY, PHASE, TRICK_LEN
from trickenv.play import Table, play, seat_names, watch


def first_dealer(game: str, seed: int, **options) -> int:
    """The dealer of the first deal a Table with ``seed`` plays (a fresh env reset with the same seed)."""
    env = trickenv.make(game, **options).unwrapped
    env.reset(seed=seed)
    return int(env.game.s[0, DEALER])


class Script:
    """Input for a Table: answers each prompt with ``answer(table, obs)``; records the prompts."""

    def __init__(self, answer, limit: int = 500) -> None:
        self.answer, self.limit, self.table, self.prompts = answer, limit, None, []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if len(self.prompts) > self.limit:
            raise EOFError
        env = self.table.env
        line = self.answer(self.table, env.observe(env.agent_selection))
        self.table.output.write(f"{prompt}{line}\n")
        return line


def run_script(game: str, seat: int, opponents, answer, seed: int = 0, **kw):
    out = io.StringIO()
    script = Script(answer)
    table = Table(game, seat_names(trickenv.make_spec(game, **kw.get("options", {})).num_players, seat, opponents),
                  seed=seed, input=script, output=out, **kw)
    script.table = table
    return table.run(), out.getvalue(), script


def test_a_full_deal_ends_with_a_summary():
    out = io.StringIO()
    result = play("farbwechsel", seat=0, opponents="rules", seed=3, input=["1"] * 30, output=out)
    text = out.getvalue()
    assert result["deals"] == 1 and not result["quit"]
    assert result["totals"].tolist() == result["scores"][0].tolist()
    for expected in ("you are P0; opponents P1 rules, P2 rules", "your hand: ♣", "--- your turn (P0) ---",
                     "hand of P0:", "legal moves:", "trump", "trick 1:", "wins trick 10", "--- deal 1 over ---",
                     "=== summary: 1 deal of farbwechsel ===", "You finished"):
        assert expected in text, expected
    assert "You play" in text and re.search(r"P[12] plays [0-9JQKA]+[♣♠♥♦]", text)
    # Only the person's own hand is ever shown.
    assert "hand of P1" not in text and "hand of P2" not in text and "hands:" not in text


def test_card_codes_numbers_and_stream_input():
    """A StringIO works as input; moves typed as card codes (with or without a symbol, 10 as T) are played."""
    def answer(table, obs):
        moves = table.moves(obs["action_mask"])
        c = moves[-1]
        if c >= 32:  # the dealer declares trump
            return "1"
        return cards.card_str(c, 32).lower().replace("10", "t") if c % 2 else cards.card_symbol(c, 32)

    result, text, _ = run_script("farbwechsel", 1, ["random"], answer, seed=5, options={"num_players": 4})
    assert result["deals"] == 1 and text.count("You play") == 8 and "! " not in text
    out = io.StringIO()
    play("four_tricks", opponents="random", seed=1, options={"trump": "none"},
         input=io.StringIO("\n".join(["1"] * 16) + "\n"), output=out)
    assert "=== summary: 1 deal of four_tricks ===" in out.getvalue()


def test_bad_input_re_asks_with_the_reason():
    said = {"follow": False}

    def answer(table, obs):
        env = table.env
        s, p = env.game.s[0], env.agent_name_mapping[env.agent_selection]
        moves = table.moves(obs["action_mask"])
        hand = int(env.game.hands[0, p])
        n = len(script.prompts)
        if n == 1:
            return ""
        if n == 2:
            return "99"
        if n == 3:
            return "xyz"
        if n == 4:
            return next(cards.card_str(c, 32) for c in range(32) if not (hand >> c) & 1)
        wrong = [c for c in range(32) if (hand >> c) & 1 and c not in moves]
        if not said["follow"] and s[PHASE] == PH_PLAY and s[TRICK_LEN] and wrong:
            said["follow"] = True
            return cards.card_str(wrong[0], 32)
        return "1"

    out = io.StringIO()
    script = Script(answer)
    table = Table("farbwechsel", [None, "rules", "rules"], seed=11, input=script, output=out)
    script.table = table
    table.run()
    text = out.getvalue()
    assert "! type a move's number" in text
    assert "! there is no move 99: choose 1.." in text
    assert "! cannot read 'xyz'" in text
    assert re.search(r"! you do not hold [0-9JQKA]+[♣♠♥♦]; try again", text)
    assert said["follow"] and re.search(r"! you must follow suit: [♣♠♥♦] was led", text)
    # each bad line re-asks: more prompts than decisions
    assert len(script.prompts) == text.count("You play") + text.count("You declare") + 5


def test_quit_and_end_of_input_stop_with_a_summary():
    out = io.StringIO()
    result = play("koenigrufen", seat=2, opponents="rules", seed=0, input=["quit"], output=out)
    text = out.getvalue()
    assert result["quit"] and result["deals"] == 0
    assert "You quit." in text and "no deal was finished" in text
    out = io.StringIO()
    result = play("four_tricks", opponents="random", seed=2, input=io.StringIO(""), output=out)
    assert result["quit"] and "You quit." in out.getvalue()


def test_king_calling_call_by_card_code_and_declarations():
    seed = 4
    caller = (first_dealer("koenigrufen", seed) + 1) % 4
    typed = []

    def answer(table, obs):
        moves = table.moves(obs["action_mask"])
        names = [table.spec.action_str(a) for a in moves]
        if "call AH" in names:
            line = "AH"
        elif "hundred" in names and "hundred" not in typed:
            line = "hundred"
        elif "hundred" in typed and "all tricks" not in typed:
            line = "all tricks"  # not legal any more: one big declaration per deal
        else:
            line = "1"
        typed.append(line)
        return line

    result, text, _ = run_script("koenigrufen", caller, ["pimc", "rules"], answer, seed=seed)
    assert typed[0] == "AH" and "You call A♥" in text and "trump is ♥ hearts" in text
    assert "You declare the hundred" in text and f"P{caller} hundred" in text
    assert "! all tricks is not possible: only one hundred or all tricks may be declared in a deal" in text
    assert "You called A♥" in text and "You declared the hundred" in text
    assert re.search(r"calling side \d+ \(needed \d+\), defenders \d+: the calling side (won|lost), stake \d", text)
    assert result["deals"] == 1 and result["scores"][0].sum() == 0  # payments are zero-sum


def test_king_calling_private_status_and_sides_announced():
    seen = []
    for seed in range(8):
        _, text, _ = run_script("koenigrufen", 0, ["rules"], lambda t, o: "1", seed=seed)
        seen.append(text)
    joined = "\n".join(seen)
    assert "is out:" in joined
    assert re.search(r"you are the caller's secret partner|the caller is alone|you called your own card", joined)


def test_four_tricks_dealer_may_not_make_the_bids_add_up():
    for seed in range(30):
        dealer = first_dealer("four_tricks", seed, bidding=True)
        hits = []

        def answer(table, obs, hits=hits):
            moves = table.moves(obs["action_mask"])
            s, spec = table.env.game.s[0], table.spec
            if s[PHASE] == PH_BID and not hits:
                bids = trickenv.decode(spec, obs["observation"])["bids"]
                k = spec.num_tricks - int(bids[bids >= 0].sum())
                if 0 <= k <= spec.hand_size and spec.deck + 4 + k not in moves:
                    hits.append(k)
                    return f"bid {k}"
            return "1" if s[PHASE] != PH_BID else table.spec.action_str(moves[0])

        result, text, _ = run_script("four_tricks", dealer, ["random"], answer, seed=seed, options={"bidding": True})
        if hits:
            assert f"! the dealer may not bid {hits[0]}: the bids would add up to the 16 tricks" in text
            assert "bids: " in text and result["deals"] == 1
            return
    pytest.fail("no deal where the dealer's forbidden bid came up")


def test_match_of_several_deals_totals_the_scores():
    out = io.StringIO()
    result = play("four_tricks", opponents="rules", deals=3, seed=7, options={"trump": "none"},
                  input=["1"] * 200, output=out)
    text = out.getvalue()
    assert result["deals"] == 3 and result["scores"].shape == (3, 3)
    assert result["totals"].tolist() == result["scores"].sum(axis=0).tolist()
    assert "deal 1 of 3" in text and "deal 3 of 3" in text and "=== summary: 3 deals of four_tricks ===" in text
    assert "match after 2 deals:" in text
    dealers = [int(d) for d in re.findall(r"deal \d of 3 · dealer (?:P)?(\d|you)", text.replace("you", "0"))]
    assert [(d - dealers[0]) % 3 for d in dealers] == [0, 1, 2]  # the dealer moves clockwise
    total_line = next(line for line in text.splitlines() if line.startswith("total"))
    assert [int(x) for x in total_line.split()[1:]] == result["totals"].tolist()


def test_trump_changes_are_announced_as_they_happen():
    changes = 0
    for seed in range(4):
        out = io.StringIO()
        watch("farbwechsel", "random", seed=seed, output=out)
        text = out.getvalue()
        announced = text.count("*** TRUMP CHANGES:")
        made = int(re.search(r"trump changed (\d+) time", text).group(1))
        assert announced == made
        changes += made
    assert changes > 0


def test_watch_mode_plays_without_input(monkeypatch):
    monkeypatch.setattr("builtins.input", lambda *a: pytest.fail("watch mode read input"))
    out = io.StringIO()
    result = watch("koenigrufen", ["rules", "pimc", "random", "rules"], seed=1, output=out)
    text = out.getvalue()
    assert result["deals"] == 1 and "P0 rules, P1 pimc, P2 random, P3 rules" in text
    assert "hands:" in text and "=== summary: 1 deal of koenigrufen ===" in text and "Leader:" in text


def test_cli_play_and_its_errors(capsys, monkeypatch):
    main(["play", "farbwechsel", "--agents", "rules,random,pimc", "--seed", "1", "ranking=natural"])
    out = capsys.readouterr().out
    assert "P0 rules, P1 random, P2 pimc" in out and "summary" in out
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    main(["play", "farbwechsel", "--seat", "2", "--opponents", "random", "--seed", "1"])
    assert "You quit." in capsys.readouterr().out
    errors = [
        (["--seat", "3"], "--seat must be a seat 0..2"),
        (["--opponents", "rules,alphago"],
         # every registered agent is listed (other test modules may register their own)
         f"unknown agent 'alphago' in --opponents; choose from {', '.join(sorted(AGENTS))}"),
        (["--opponents", "rules,rules,rules"], "the game has 2 opponent seats"),
        (["--agents", "rules,rules"], "one agent name for all seats or one per seat (3 for farbwechsel)"),
        (["--agents", "rules", "--seat", "1"], "leave out --seat and --opponents"),
        (["num_players=5"], "num_players must be one of [3, 4]"),
        (["colour=red"], "farbwechsel has no option 'colour'"),
        (["--deals", "0"], "--deals must be a positive number"),
        (["--deals", "2", "rounds=3"], "the option rounds already makes a match"),
    ]
    for extra, message in errors:
        with pytest.raises(SystemExit) as e:
            main(["play", "farbwechsel", *extra])
        assert str(e.value).startswith("trickenv play: ") and message in str(e.value), (extra, str(e.value))
    if not shipped_model_path("farbwechsel").exists():
        with pytest.raises(SystemExit, match="no trained player .* play against rules or pimc instead"):
            main(["play", "farbwechsel", "--opponents", "model"])
    with pytest.raises(SystemExit):
        main(["play", "farbwechsel", "--help"])
    assert "Type a move's number" in capsys.readouterr().out


# ------------------------------------------------------------------ the table one step at a time (trickenv.web)

@pytest.mark.parametrize("game, options", [("farbwechsel", {}), ("koenigrufen", {}), ("four_tricks", {"bidding": True}),
                                           ("koenigrufen", {"rounds": 2})])
def test_stepping_the_table_says_exactly_what_run_says(game, options):
    """start/apply/bot_action is the loop of run(): the same words, the same deals and scores."""
    n = trickenv.make_spec(game, **options).num_players
    out = io.StringIO()
    watched = Table(game, ["rules"] * n, deals=1 if options else 2, seed=7, options=options, output=out).run()
    stepped_out = io.StringIO()
    table = Table(game, ["rules"] * n, deals=1 if options else 2, seed=7, options=options, output=stepped_out)
    table.start()
    while not table.finished:
        table._show_hands()
        table.apply(table.bot_action())
    table._summary()
    assert stepped_out.getvalue() == out.getvalue()
    assert table.to_act is None and len(table.scores) == len(watched["scores"])


def test_an_illegal_move_is_refused_with_its_reason_and_changes_nothing():
    table = Table("farbwechsel", [None, "rules", "rules"], seed=11, output=io.StringIO())
    table.start()
    while True:  # until the person must follow suit and holds a card that does not
        while table.to_act != 0:
            table.apply(table.bot_action())
        mask = table.observation()["action_mask"]
        hand = int(table.env.game.hands[0, 0])
        illegal = [c for c in range(table.spec.deck) if (hand >> c) & 1 and not mask[c]]
        if table.env.game.s[0, TRICK_LEN] and illegal:
            break
        table.apply(int(mask.nonzero()[0][0]))
    before = table.env.game.s.copy(), table.env.game.hands.copy(), table.output.getvalue()
    with pytest.raises(ValueError, match="you must follow suit"):
        table.apply(illegal[0])
    with pytest.raises(ValueError, match="not an action of farbwechsel"):
        table.apply(999)
    not_held = next(c for c in range(table.spec.deck) if not (hand >> c) & 1)
    with pytest.raises(ValueError, match="you do not hold"):
        table.apply(not_held)
    assert (table.env.game.s == before[0]).all() and (table.env.game.hands == before[1]).all()
    assert table.output.getvalue() == before[2]
    with pytest.raises(ValueError, match="P0 is a person"):
        table.bot_action()


def test_the_persons_view_does_not_depend_on_the_other_hands():
    """Two deals that differ only in the opponents' cards give the person the same view (no hands but theirs)."""
    game = "farbwechsel"
    env = trickenv.make(game).unwrapped
    env.reset(seed=5, options={"dealer": 0})
    deal = [list(map(int, hand)) for hand in env.current_deal()["deal"]]
    swapped = [list(h) for h in deal]
    swapped[1][0], swapped[2][0] = deal[2][0], deal[1][0]
    views = []
    for d in (deal, swapped):
        table = Table(game, [None, "rules", "rules"], output=io.StringIO(), first_deal={"deal": d, "dealer": 0})
        table.start()  # the person deals: the first decision (trump) is theirs
        assert table.to_act == 0
        views.append(table.view())
    assert views[0] == views[1]
    assert "hands" not in views[0] and [c["card"] for c in views[0]["hand"]] == sorted(deal[0], key=lambda c: (
        c // cards.num_ranks(32), -(c % cards.num_ranks(32))))
    assert [m["text"] for m in views[0]["moves"]][0].startswith("trump")


def _held(table, p, held=True):
    hand = int(table.env.game.hands[0, p])
    return next(c for c in range(table.spec.deck) if bool(hand >> c & 1) == held)


def test_each_game_says_why_from_its_own_rules():
    """GameText.illegal_reason: the phase's decision comes before the cards, and each game's own actions."""
    fw = Table("farbwechsel", ["rules"] * 3, seed=2, output=io.StringIO())
    fw.start()
    p = fw.to_act
    assert fw.reason(_held(fw, p, False)).startswith("you do not hold")
    assert fw.reason(_held(fw, p)).startswith("choose trump first, before any card is played; legal: ")
    fw.apply(fw.bot_action())  # the dealer's trump
    assert fw.reason(fw.spec.deck).startswith("trump is chosen by the dealer before play; legal: ")

    ft = Table("four_tricks", ["rules"] * 3, seed=2, options={"bidding": True}, output=io.StringIO())
    ft.start()
    assert ft.reason(_held(ft, ft.to_act)).startswith("choose trump first")
    assert ft.reason(ft.spec.deck + 4).startswith("bids are made after trump is fixed and before play")
    ft.apply(ft.bot_action())
    assert ft.reason(_held(ft, ft.to_act)).startswith("bid first (e.g. 'bid 4'), cards are played after the bidding")

    kc = Table("koenigrufen", ["rules"] * 4, seed=2, output=io.StringIO())
    kc.start()
    assert kc.reason(_held(kc, kc.to_act)).startswith("call a card first; legal: ")
    kc.apply(kc.bot_action())  # the call
    assert kc.reason(kc.spec.deck).startswith("only the caller calls a card, before play")
