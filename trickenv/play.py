"""A game in the terminal: a person against the agents, or agents watched (``trickenv play``).

::

    trickenv play farbwechsel --seat 1 --opponents rules,pimc --deals 3
    trickenv play koenigrufen --agents rules,pimc,random,rules      # watch: no input

:class:`Table` plays with any input and output streams, so a test can feed it
a list of lines (:func:`play`, :func:`watch` are the two entry points). The
person sees only what their seat may know: their own hand, the cards played,
trump and its changes, scores, and each game's public facts (the table is the
game's ``text.render`` at the person's turn, where the hand shown is theirs).
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Iterable, Iterator, Sequence, TextIO, Union

import numpy as np

import trickenv
from trickenv import cards
from trickenv.decode import decode
from trickenv.engine.layout import (
    DEALER, LEADER, PH_PLAY, PHASE, POINTS, TAB_POINTS, TRICK, TRICK_LEN, TRICK_NO,
    TRICKS, TRUMP,
)
from trickenv.games.options import MATCH_OPTIONS  # noqa: F401  (re-exported)
from trickenv.games.table_text import hand_text

QUIT = ("quit", "exit", "q")
HELP = ("help", "?", "h", "moves")
HINT = ("Type a move's number, a card such as QH or 10S, a name such as 'clubs', 'bid 4' or 'call AH', "
        "'help' or 'quit'.")
InputSource = Union[Callable[[str], str], TextIO, Iterable[str], None]


class Quit(Exception):
    """The person typed ``quit`` (or the input ended)."""


def agent_names() -> list[str]:
    """The agent names ``make_agent`` knows: the bundled ones (``random``, ``rules``, ``pimc``, ``model``, ...)
    and installed packages' (entry points of ``trickenv.agents``)."""
    from trickenv.agents import AGENTS
    from trickenv.agents.external import entry_points

    return sorted(AGENTS) + sorted(entry_points())


def split_names(names: str | Sequence[str], what: str) -> list[str]:
    """``"rules,pimc"`` -> ``["rules", "pimc"]``, every name checked against the known agents."""
    from trickenv.agents.external import could_be_external

    out = [x.strip() for x in names.split(",")] if isinstance(names, str) else [str(x).strip() for x in names]
    out = [x for x in out if x]
    if not out:
        raise ValueError(f"{what} needs at least one agent name; agents are {', '.join(agent_names())}")
    for name in out:
        base = name.partition(":")[0]
        if base not in agent_names() and not could_be_external(base):
            raise ValueError(f"unknown agent {name!r} in {what}; choose from {', '.join(agent_names())} "
                             "(or model:PATH for a saved player, module.path:Agent for your own)")
    return out


def seat_names(num_players: int, seat: int, opponents: Sequence[str]) -> list[str | None]:
    """Agent name per seat: None at the person's ``seat``, ``opponents`` clockwise from their left (repeated)."""
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < num_players:
        raise ValueError(f"--seat must be a seat 0..{num_players - 1} (the game has {num_players} players), "
                         f"got {seat!r}")
    if len(opponents) > num_players - 1:
        raise ValueError(f"the game has {num_players - 1} opponent seats, got {len(opponents)} opponents "
                         f"({','.join(opponents)})")
    names: list[str | None] = [None] * num_players
    for k in range(1, num_players):
        names[(seat + k) % num_players] = opponents[(k - 1) % len(opponents)]
    return names


def make_players(spec: Any, names: Sequence[str | None], seed: int | None) -> list[Any]:
    """One agent per seat (None for the person); a ValueError names an agent that cannot play the game."""
    from trickenv.agents import make_agent

    players = []
    for p, name in enumerate(names):
        if name is None:
            players.append(None)
            continue
        try:
            players.append(make_agent(name, spec, seed=None if seed is None else seed + 1009 * (p + 1)))
        except (ValueError, OSError, KeyError) as e:
            hint = "; play against rules or pimc instead" if name.partition(":")[0] == "model" else ""
            raise ValueError(f"{name} (seat P{p}) cannot play {spec.name}: {e}{hint}") from None
    return players


def _reader(source: InputSource, output: TextIO) -> Callable[[str], str]:
    """``read(prompt) -> line`` over a callable like ``input``, a text stream, a list of lines or stdin."""
    if source is None:
        if output is sys.stdout:
            return input
        source = sys.stdin
    if callable(source):
        return source
    if hasattr(source, "readline"):
        stream = source

        def read_stream(prompt: str) -> str:
            output.write(prompt)
            line = stream.readline()
            if not line:
                output.write("\n")
                raise EOFError
            output.write(line if line.endswith("\n") else line + "\n")
            return line.rstrip("\n")

        return read_stream
    lines: Iterator[str] = iter(source)

    def read_list(prompt: str) -> str:
        output.write(prompt)
        try:
            line = next(lines)
        except StopIteration:
            output.write("\n")
            raise EOFError from None
        output.write(line + "\n")
        return line

    return read_list


def _suit(s: int) -> str:
    return f"{cards.SUIT_SYMBOLS[s]} {cards.SUIT_NAMES[s]}"


class Table:
    """Deals of one game at a terminal table: each seat is a person (``None``) or an agent name.

    ``deals`` deals are played one after the other, the dealer moving one seat
    clockwise, and their scores totalled. ``input`` is a callable like ``input``,
    a text stream or a list of lines (``None``: the keyboard); ``output`` a text
    stream (``None``: stdout). ``players`` replaces the agents the names would make
    (one agent or None per seat), ``first_deal`` fixes the first deal
    (``{"deal": ..., "dealer": ...}`` as ``reset`` takes it).

    :meth:`run` plays at the terminal. A caller that owns the loop (the web page,
    :mod:`trickenv.web`; a replay, :mod:`trickenv.replay`) uses :meth:`start`, then
    :meth:`apply` for the person's move or :meth:`bot_action` for an agent's until
    :attr:`finished`, and draws :meth:`view`: the same narration, rules and checks.
    """

    def __init__(self, game: str, seats: Sequence[str | None], deals: int = 1, seed: int | None = None,
                 options: dict[str, Any] | None = None, input: InputSource = None,
                 output: TextIO | None = None, players: Sequence[Any] | None = None,
                 first_deal: dict[str, Any] | None = None) -> None:
        options = dict(options or {})
        self.spec = trickenv.make_spec(game, **options)  # ValueError on wrong options
        n = self.spec.num_players
        if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) or deals < 1:
            raise ValueError(f"--deals must be a positive number of deals, got {deals!r}")
        match = [k for k in MATCH_OPTIONS if options.get(k) is not None and not (k == "rounds" and options[k] == 1)]
        if deals > 1 and match:
            raise ValueError(f"the option {match[0]} already makes a match of several deals: "
                             f"leave out --deals or {match[0]}")
        if len(seats) != n:
            raise ValueError(f"{game} has {n} seats, got {len(seats)} players")
        people = [p for p, name in enumerate(seats) if name is None]
        if len(people) > 1:
            raise ValueError("at most one seat can be played at the keyboard")
        self.human = people[0] if people else None
        self.names = list(seats)
        # ``players`` (one agent or None per seat) replaces the agents the names would make: a replay
        # (trickenv.replay) steps recorded actions itself and needs none.
        self.players = make_players(self.spec, seats, seed) if players is None else list(players)
        self.env = trickenv.make(game, illegal_action="raise", **options).unwrapped
        self.deals, self.seed = int(deals), seed
        self.output = sys.stdout if output is None else output
        self.read = _reader(input, self.output)
        self.scores: list[np.ndarray] = []  # per finished deal
        self.records: list[dict[str, np.ndarray]] = []  # per finished deal: its record (docs/records.md)
        self.quit = False
        self.deal_no = 0
        self.finished = False  # every deal played (or quit)
        self._first_deal = first_deal  # reset options of the first deal ({"deal": ..., "dealer": ...}), or None
        self._episode = -1  # episodes (deals, or matches with rounds/win_at) started
        self.last_trick: dict[str, Any] | None = None  # the last finished trick, for a table drawn on a page
        self._shown_trick: tuple[int, int] | None = None
        self._has_points = bool(self.spec.tab[TAB_POINTS, :self.spec.deck].any())
        # deals to be played, if known (a match with win_at ends when someone reaches it)
        self._planned = self.deals if not match else (
            None if self.spec.options.get("win_at") else self.spec.options.get("rounds"))

    # ------------------------------------------------------------- text helpers
    def say(self, text: str = "") -> None:
        """Write a line to the output."""
        self.output.write(text + "\n")

    def label(self, p: int, start: bool = False) -> str:
        """``P2``, or ``you`` / ``You`` for the person's seat."""
        if p == self.human:
            return "You" if start else "you"
        return f"P{p}"

    def verb(self, p: int, third: str) -> str:
        """``plays`` for a bot, ``play`` for the person."""
        return {"plays": "play", "wins": "win", "bids": "bid", "calls": "call", "declares": "declare"}.get(
            third, third) if p == self.human else third

    def card(self, c: int) -> str:
        """A card with its suit symbol, e.g. ``Q♥``."""
        return cards.card_symbol(int(c), self.spec.deck)

    def suit(self, s: int) -> str:
        """A suit's symbol and name, e.g. ``♥ hearts``."""
        return _suit(s)

    def action_text(self, a: int) -> str:
        """A card with its suit symbol, or the game's name for the action with cards and suits shown as symbols."""
        if a < self.spec.deck:
            return self.card(a)
        words = []
        for w in self.spec.action_str(int(a)).split():
            if w in cards.SUIT_NAMES:
                w = _suit(cards.SUIT_NAMES.index(w))
            else:
                try:
                    w = self.card(cards.parse_card(w, self.spec.deck))
                except ValueError:
                    pass
            words.append(w)
        return " ".join(words)

    def _seat_line(self) -> str:
        return ", ".join(f"P{p} {'you' if name is None else name}" for p, name in enumerate(self.names))

    # -------------------------------------------------------------------- play
    def run(self) -> dict[str, Any]:
        """Play the deals (until ``quit``); print and return the summary."""
        self._say_seats()
        try:
            self._next_episode()
            while not self.finished:
                p, obs = self.to_act, self.observation()
                if self.human is None:
                    self._show_hands()
                self.apply(self.ask(p, obs) if self.players[p] is None else self.bot_action())
        except (Quit, KeyboardInterrupt):
            self.quit = True
            self.say("You quit." if self.human is not None else "Stopped.")
        return self._summary()

    # The same table one step at a time, for a caller that owns the loop (the web page, trickenv.web):
    # start(), then apply(action) for the person or bot_action() for an agent until finished.
    def start(self) -> None:
        """Say who sits where and deal the first deal (what :meth:`run` does before the first move)."""
        self._say_seats()
        self._next_episode()

    @property
    def to_act(self) -> int | None:
        """The seat to act, ``None`` once every deal is played."""
        return None if self.finished else self.env.agent_name_mapping[self.env.agent_selection]

    def observation(self) -> dict[str, np.ndarray]:
        """The observation of the seat to act (``observation``, ``action_mask``)."""
        return self.env.observe(self.env.agent_selection)

    def bot_action(self) -> int:
        """The action the agent in the seat to act chooses."""
        from trickenv.agents.base import act_one  # here, not at import: the agents import trickenv

        p = self.to_act
        if p is None or self.players[p] is None:
            raise ValueError("no agent is to act: " + ("the deals are over" if p is None else f"P{p} is a person"))
        return int(act_one(self.players[p], self.observation(), self.env.game))

    def apply(self, action: int) -> dict[str, Any]:
        """Play ``action`` for the seat to act and say what happened; returns the step's info.

        An action that is not legal raises ValueError with the reason (:meth:`reason`) and changes nothing.
        """
        env = self.env
        if self.finished:
            raise ValueError("the deals are over: start a new table")
        agent = env.agent_selection
        p = env.agent_name_mapping[agent]
        mask = env.observe(agent)["action_mask"]
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not (
                0 <= action < self.spec.num_actions and mask[action]):
            raise ValueError(self.reason(action))
        action = int(action)
        before = env.game.s[0].copy()
        env.step(action)
        info = env.infos[agent]
        self._narrate(p, action, before, info)
        if info["deal_end"]:
            self._deal_over(info)
            over = env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
            if not over:
                self._deal_start()
            elif self._episode + 1 < self.deals:
                self._next_episode()
            else:
                self.finished = True
        return info

    def reason(self, action: Any) -> str:
        """Why ``action`` is not a legal move for the seat to act now (the person's words: 'you must follow suit')."""
        spec = self.spec
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < spec.num_actions:
            return f"{action!r} is not an action of {spec.name}: actions are 0..{spec.num_actions - 1}"
        p, obs = self.to_act, self.observation()
        moves = self.moves(obs["action_mask"])
        if action in moves:
            return f"{self.action_text(int(action))} is legal"
        return self._why_not(int(action), moves, p)

    def view(self, reveal: bool = False) -> dict[str, Any]:
        """The table now as plain data (JSON-ready), for a page that draws it (trickenv.web).

        Without ``reveal`` it holds only what the person's seat may know, as the terminal shows it: their
        hand, the cards played, trump, tricks, points and scores, and the game's public facts (the first
        line of its ``text.render``: the call, the partner once revealed, declarations, bids); at their turn
        also the legal moves and their private notes. ``reveal`` adds every hand (a replay, a spectator).
        """
        spec, game = self.spec, self.env.game
        s, n, deck = game.s[0], spec.num_players, spec.deck
        p = self.to_act
        trump = int(s[TRUMP])
        totals = np.sum(self.scores, axis=0) if self.scores else np.zeros(n, np.int64)
        your_turn = p is not None and p == self.human
        leader = int(s[LEADER])
        badges = spec.text.seat_badges(spec, game, 0)  # public facts per seat (a bid, the caller, the partner)
        out: dict[str, Any] = {
            "game": spec.name,
            "deal": self.deal_no,
            "deals": self._planned,
            "dealer": int(s[DEALER]),
            "phase": spec.phase_name(int(s[PHASE])),
            "trump": None if trump < 0 else {"suit": trump, "symbol": cards.SUIT_SYMBOLS[trump],
                                              "name": cards.SUIT_NAMES[trump]},
            "trick_no": int(s[TRICK_NO]),
            "trick": [self._card_view(c, (leader + j) % n) for j, c in enumerate(s[TRICK:TRICK + int(s[TRICK_LEN])])],
            "last_trick": None if self.last_trick is None else {
                **self.last_trick, "cards": [self._card_view(c, q) for q, c in self.last_trick["cards"]]},
            "seats": [{"seat": q, "name": "you" if self.names[q] is None else self.names[q],
                       "tricks": int(s[TRICKS + q]), "points": int(s[POINTS + q]), "total": int(totals[q]),
                       "badges": badges[q]}
                      for q in range(n)],
            "has_points": self._has_points,
            "to_act": p,
            "you": self.human,
            "your_turn": your_turn,
            "facts": spec.text.render(spec, game, 0).splitlines()[0].split("  |  ")[1:],
            "scores": [[int(x) for x in row] for row in self.scores],
            "finished": self.finished,
            "quit": self.quit,
        }
        obs = self.observation() if p is not None else None
        mask = obs["action_mask"] if obs is not None else np.zeros(spec.num_actions, bool)
        if self.human is not None:
            legal = mask if your_turn else np.zeros_like(mask)
            out["hand"] = [{**self._card_view(c), "legal": bool(legal[c])} for c in self._hand(self.human)]
            out["moves"] = [{"action": a, "text": self.action_text(a)} for a in self.moves(legal) if a >= deck]
            out["notes"] = list(spec.text.turn_notes(spec, decode(spec, obs["observation"]))) if your_turn else []
        if reveal:
            out["hands"] = [[self._card_view(c) for c in self._hand(q)] for q in range(n)]
        return out

    def _hand(self, p: int) -> list[int]:
        """Seat p's cards in display order (by suit, high first)."""
        bits = int(self.env.game.hands[0, p])
        return self.moves(np.array([(bits >> c) & 1 for c in range(self.spec.deck)], bool))

    def _card_view(self, c: Any, seat: int | None = None) -> dict[str, Any]:
        c = int(c)
        out: dict[str, Any] = {"card": c, "text": self.card(c), "suit": cards.suit_of(c, self.spec.deck)}
        if seat is not None:
            out["seat"] = int(seat)
        return out

    def _say_seats(self) -> None:
        spec = self.spec
        if self.human is None:
            self.say(f"{spec.name}: {self._seat_line()}")
        else:
            others = ", ".join(f"P{p} {name}" for p, name in enumerate(self.names) if name is not None)
            self.say(f"{spec.name}: you are P{self.human}; opponents {others}.")
            self.say(HINT)

    def _next_episode(self) -> None:
        """Reset the env for the next episode (the dealer one seat on from the last) and start its deal."""
        self._episode += 1
        opts = self._first_deal if self._episode == 0 else None
        if self._episode:
            opts = {"dealer": (int(self.env.game.s[0, DEALER]) + 1) % self.spec.num_players}
        self.env.reset(seed=self.seed if self._episode == 0 else None, options=opts)
        self._deal_start()

    def _deal_start(self) -> None:
        spec, s = self.spec, self.env.game.s[0]
        self.deal_no += 1
        of = f" of {self._planned}" if self._planned else ""
        self.say(f"\n=== {spec.name} · deal {self.deal_no}{of} · dealer {self.label(int(s[DEALER]))} ===")
        if s[TRUMP] >= 0:
            self.say(f"trump: {_suit(int(s[TRUMP]))}")
        if self.human is not None:
            self.say(f"your hand: {hand_text(int(self.env.game.hands[0, self.human]), spec.deck)}")

    def _show_hands(self) -> None:
        """Watching: every hand at the start of each trick (the spectator sees all)."""
        s = self.env.game.s[0]
        key = (self.deal_no, int(s[TRICK_NO]))
        if s[PHASE] != PH_PLAY or s[TRICK_LEN] or key == self._shown_trick:
            return
        self._shown_trick = key
        trump = f" (trump {cards.SUIT_SYMBOLS[int(s[TRUMP])]})" if s[TRUMP] >= 0 else ""
        self.say(f"-- trick {key[1] + 1}{trump}, hands:")
        for p in range(self.spec.num_players):
            self.say(f"   P{p}: {hand_text(int(self.env.game.hands[0, p]), self.spec.deck)}")

    def _narrate(self, p: int, a: int, before: np.ndarray, info: dict[str, Any]) -> None:
        """Say what the action did: the card or announcement, a finished trick, trump changes, sides."""
        spec, env = self.spec, self.env
        s, n = env.game.s[0], spec.num_players
        deal_end = bool(info["deal_end"])
        who = self.label(p, start=True)
        if a < spec.deck:
            self.say(f"{who} {self.verb(p, 'plays')} {self.card(a)}")
            if int(before[TRICK_LEN]) + 1 == n:  # this card closed the trick
                leader = int(before[LEADER])
                played = [int(before[TRICK + j]) for j in range(n - 1)] + [a]
                tricks = np.asarray(info["tricks"] if deal_end else s[TRICKS:TRICKS + n], np.int64)
                points = np.asarray(info["points"] if deal_end else s[POINTS:POINTS + n], np.int64)
                w = int(np.argmax(tricks - before[TRICKS:TRICKS + n]))
                gained = int(points[w] - before[POINTS + w])
                cards_ = "  ".join(f"{self.label((leader + j) % n)} {self.card(c)}" for j, c in enumerate(played))
                pts = f" ({gained} points)" if self._has_points else ""
                self.last_trick = {"trick": int(before[TRICK_NO]), "winner": w, "points": gained,
                                   "cards": [((leader + j) % n, c) for j, c in enumerate(played)]}
                self.say(f"   -> {self.label(w, True)} {self.verb(w, 'wins')} trick {int(before[TRICK_NO]) + 1}: "
                         f"{cards_}{pts}")
        else:
            name = spec.action_str(a)
            word, _, rest = name.partition(" ")
            if word == "bid":
                self.say(f"{who} {self.verb(p, 'bids')} {rest}")
            elif word == "call":
                self.say(f"{who} {self.verb(p, 'calls')} {self.action_text(a).partition(' ')[2]}")
            else:
                the = "the " if name == "hundred" else ""
                self.say(f"{who} {self.verb(p, 'declares')} {the}{self.action_text(a)}")
        events = [e for e in env.last_events if e.get("event") == "trump_change"]
        for e in events:
            old, new = cards.SUITS.index(e["old_trump"]), cards.SUITS.index(e["new_trump"])
            self.say(f"   *** TRUMP CHANGES: {_suit(old)} -> {_suit(new)} ({self.label(e['seat'])} played "
                     f"{self.card(e['card'])}); {_suit(new)} is trump from trick {e['trick'] + 2} ***")
        if not deal_end and not events and s[TRUMP] != before[TRUMP] and s[TRUMP] >= 0:
            self.say(f"   trump is {_suit(int(s[TRUMP]))}")
        if not deal_end:  # the game's public news (King Calling: the sides)
            for text in spec.text.play_news(spec, env.game, 0, before, self):
                self.say(f"   {text}")

    # --------------------------------------------------------------- the person
    def moves(self, mask: np.ndarray) -> list[int]:
        """Legal actions in display order: cards by suit, high first (as the hand), then the others."""
        legal = [int(a) for a in np.flatnonzero(mask)]
        deck = self.spec.deck
        r = cards.num_ranks(deck)
        played = sorted((a for a in legal if a < deck), key=lambda c: (c // r, -(c % r)))
        return played + [a for a in legal if a >= deck]

    def show_turn(self, p: int, obs: dict[str, np.ndarray], moves: list[int]) -> None:
        """The table from the person's seat, their private status, and the numbered legal moves."""
        spec = self.spec
        self.say(f"\n--- your turn (P{p}) ---")
        self.say(spec.text.render(spec, self.env.game, 0))
        for text in spec.text.turn_notes(spec, decode(spec, obs["observation"])):  # what they know privately
            self.say(text)
        if self._planned != 1 and self.scores:
            total = np.sum(self.scores, axis=0)
            self.say(f"match after {len(self.scores)} deal{'' if len(self.scores) == 1 else 's'}: "
                     + ", ".join(f"{self._who(q)} {int(x):+d}" for q, x in enumerate(total)))
        self.show_moves(moves)

    def show_moves(self, moves: list[int]) -> None:
        """The numbered moves, a few per line."""
        items = [f"{i + 1:>2}) {self.action_text(a)}" for i, a in enumerate(moves)]
        self.say("legal moves:")
        line = ""
        for it in items:
            if line and len(line) + len(it) > 72:
                self.say(line)
                line = ""
            line += ("   " if line else " ") + it
        self.say(line)

    def ask(self, p: int, obs: dict[str, np.ndarray]) -> int:
        """Read the person's move until it is a legal one; ``quit`` raises :class:`Quit`."""
        moves = self.moves(obs["action_mask"])
        self.show_turn(p, obs, moves)
        while True:
            try:
                text = self.read(f"your move [1-{len(moves)}, card, name, help, quit]: ")
            except (EOFError, KeyboardInterrupt):
                raise Quit from None
            key = " ".join(text.strip().lower().split())
            if key in QUIT:
                raise Quit
            if key in HELP:
                self.show_turn(p, obs, moves)
                self.say(HINT)
                continue
            try:
                return self.parse(key, moves, p, obs)
            except ValueError as e:
                self.say(f"  ! {e}; try again.")

    def parse(self, key: str, moves: list[int], p: int, obs: dict[str, np.ndarray]) -> int:
        """The action a typed line means; ValueError with the reason when it is not a legal move."""
        spec = self.spec
        if not key:
            raise ValueError("type a move's number, a card such as QH, a name, or quit")
        if key.isdigit():
            k = int(key)
            if not 1 <= k <= len(moves):
                raise ValueError(f"there is no move {k}: choose 1..{len(moves)}")
            return moves[k - 1]
        legal_names = self._aliases(moves)
        if key in legal_names:
            found = legal_names[key]
            if len(found) > 1:
                raise ValueError(f"{key!r} could mean {' or '.join(self.action_text(a) for a in found)}")
            return found[0]
        try:
            c = cards.parse_card(key, spec.deck)
        except ValueError:
            c = None
        if c is not None:
            if c in moves:
                return c
            for a in legal_names.get(f"card:{c}", []):
                return a
            raise ValueError(self._why_not(c, moves, p))
        other = self._aliases(range(spec.deck, spec.num_actions))
        if key in other:
            raise ValueError(self._why_not(other[key][0], moves, p))
        named = [a for a in moves if a >= spec.deck]
        example = f", a name such as {spec.action_str(named[0])!r}" if named else ""
        raise ValueError(f"cannot read {key!r}: type a number 1..{len(moves)}, a card such as QH or 10S"
                         f"{example}, help or quit")

    def _aliases(self, actions: Iterable[int]) -> dict[str, list[int]]:
        """Typed names of non-card actions: the full name ('trump clubs'), the part after the first word
        ('clubs', 'ah'), a suit's letter and symbol; ``card:<id>`` for actions that name a card (calls)."""
        out: dict[str, list[int]] = {}
        deck = self.spec.deck
        for a in actions:
            if a < deck:
                continue
            name = self.spec.action_str(a).lower()
            keys = {name}
            rest = name.partition(" ")[2]
            if rest and not rest.isdigit():
                keys.add(rest)
            if name == "all tricks":
                keys.add("all")
            if rest in cards.SUIT_NAMES:
                s = cards.SUIT_NAMES.index(rest)
                keys.update({cards.SUITS[s].lower(), cards.SUIT_SYMBOLS[s]})
            try:
                keys.add(f"card:{cards.parse_card(rest, deck)}")
            except ValueError:
                pass
            for k in keys:
                out.setdefault(k, []).append(a)
        return out

    def _legal_text(self, moves: list[int]) -> str:
        shown = [self.action_text(a) for a in moves[:12]]
        return " ".join(shown) + (" ..." if len(moves) > 12 else "")

    def _why_not(self, a: int, moves: list[int], p: int) -> str:
        """Why action ``a`` is not legal for seat ``p`` now: the game's own rules say it (``GameText.illegal_reason``)."""
        legal = f"; legal: {self._legal_text(moves)}"
        return self.spec.text.illegal_reason(self.spec, self.env.game, 0, p, int(a), moves, self, legal)

    # ----------------------------------------------------------------- results
    def _deal_over(self, info: dict[str, Any]) -> None:
        """The finished deal: tricks, points and scores per seat, the game's facts, the running total."""
        n = self.spec.num_players
        scores = np.asarray(info["scores"], np.int64)
        self.scores.append(scores)
        self.records.append({k: np.array(v) for k, v in info.items() if k not in ("deal_end", "illegal_action")})
        total = np.sum(self.scores, axis=0)
        self.say(f"\n--- deal {self.deal_no} over ---")
        head = f"{'seat':<14}{'tricks':>7}" + (f"{'points':>8}" if self._has_points else "") + f"{'score':>7}"
        head += f"{'total':>7}" if self._planned != 1 else ""
        self.say(head)
        for p in range(n):
            line = f"{self._who(p):<14}{int(info['tricks'][p]):>7}"
            line += f"{int(info['points'][p]):>8}" if self._has_points else ""
            line += f"{int(scores[p]):>+7}"
            line += f"{int(total[p]):>+7}" if self._planned != 1 else ""
            self.say(line)
        for text in self._facts(info):
            self.say(text)

    def _who(self, p: int) -> str:
        return f"P{p} " + ("you" if self.names[p] is None else self.names[p])

    def _facts(self, info: dict[str, Any]) -> list[str]:
        """The game's own facts of a finished deal (from its record, docs/records.md)."""
        return self.spec.text.deal_facts(self.spec, info, self)

    def _summary(self) -> dict[str, Any]:
        """Print the deals' scores and totals and who leads; return them."""
        n = self.spec.num_players
        scores = np.array(self.scores, np.int64).reshape(-1, n)
        totals = scores.sum(axis=0)
        self.say(f"\n=== summary: {len(scores)} deal{'' if len(scores) == 1 else 's'} of {self.spec.name} ===")
        if len(scores):
            width = max(10, *(len(self._who(p)) + 2 for p in range(n)))
            self.say(f"{'deal':<7}" + "".join(f"{self._who(p):>{width}}" for p in range(n)))
            for k, row in enumerate(scores):
                self.say(f"{k + 1:<7}" + "".join(f"{int(x):>+{width}}" for x in row))
            self.say(f"{'total':<7}" + "".join(f"{int(x):>+{width}}" for x in totals))
            best = np.flatnonzero(totals == totals.max())
            if self.human is not None:
                place = 1 + int((totals > totals[self.human]).sum())
                tie = " (tied)" if (totals == totals[self.human]).sum() > 1 else ""
                nth = {1: "1st", 2: "2nd", 3: "3rd"}.get(place, f"{place}th")
                self.say(f"You finished {nth} of {n}{tie} with {int(totals[self.human]):+d}.")
            else:
                self.say("Leader: " + ", ".join(self._who(int(p)) for p in best) + f" with {int(totals.max()):+d}.")
        else:
            self.say("no deal was finished")
        return {"deals": len(scores), "scores": scores, "totals": totals, "quit": self.quit, "seats": self.names}


def play(game: str, seat: int = 0, opponents: str | Sequence[str] = ("rules",), deals: int = 1,
         seed: int | None = None, options: dict[str, Any] | None = None, input: InputSource = None,
         output: TextIO | None = None) -> dict[str, Any]:
    """A person at ``seat`` against ``opponents`` (clockwise from their left, repeated); returns the summary."""
    spec = trickenv.make_spec(game, **(options or {}))
    names = seat_names(spec.num_players, seat, split_names(opponents, "--opponents"))
    return Table(game, names, deals=deals, seed=seed, options=options, input=input, output=output).run()


def watch(game: str, agents: str | Sequence[str], deals: int = 1, seed: int | None = None,
          options: dict[str, Any] | None = None, output: TextIO | None = None) -> dict[str, Any]:
    """Agents in every seat (one name for all, or one per seat), no input; returns the summary."""
    spec = trickenv.make_spec(game, **(options or {}))
    names = split_names(agents, "--agents")
    n = spec.num_players
    if len(names) == 1:
        names = names * n
    if len(names) != n:
        raise ValueError(f"--agents needs one agent name for all seats or one per seat ({n} for {game}), "
                         f"got {len(names)}")
    return Table(game, names, deals=deals, seed=seed, options=options, output=output).run()
