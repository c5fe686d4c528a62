"""A rule-based Farbwechsel agent: one numba kernel prices every legal card of every game in a batch.

Strategy (all variants: 3 or 4 players, partnerships, the three rankings,
Double Farbwechsel, Fixed Farbwechsel):

- **Declaring.** The dealer names the suit in which its hand would earn most
  as trumps: length and the cards that rank high in trump under the ranking
  (ace and ten), plus a bonus for that suit's queen, which can later put the
  trump back after an opponent's switch.
- **Every card has a price:** what it wins now minus what it would still earn
  if kept. *Now* is the chance that our side (the player, or the partnership)
  takes the trick, judged under the trump in force, times the points on the
  table, the card's own points and what the players still to come are likely
  to add. That chance counts, for each player still to play, the unseen cards
  that beat the winning card, and whether that player may be void in the suit
  led and so free to ruff (voids are read from the history of the deal).
  *Kept* is the chance the card wins a later trick (a master of its suit, a
  high trump, a low trump that can ruff), times what such a trick brings,
  valued under the trump that follows this trick. So the agent takes
  point-rich tricks cheaply, gives its cheapest card to tricks it cannot win,
  does not overtake a partner who holds the trick, and smears a ten or king
  that would otherwise be lost onto the partner's trick.
- **Trump is volatile.** Each unseen switching card that could move trump away
  makes a trump worth less as a card to keep, so trump tens (second only to
  the ace in the skat and trump_ten rankings) and aces are cashed while their
  suit is trump; masters of plain suits, which stay masters whatever the
  trump, are kept for later tricks unless the trick pays for them.
- **Switching cards** (queens; jacks too in Double Farbwechsel) add the change
  in the kept value of the rest of the hand under the trump they would make,
  against the trump the trick would leave otherwise: switch to a suit the hand
  is strong in, or back from a suit an opponent declared or switched to (it
  counts against them as a trump), and never hand the trump to a suit the
  opponents are long in. The effect is discounted by the chance that a later
  card of the trick overrules it, weighed low (a switch rarely lasts while
  other queens are out, and the queen's own points may be lost), and it is
  nothing in the last trick. In Fixed Farbwechsel the new trump is the next
  suit of the cycle.

The agent reads only the observation and the mask. Ties are broken by a
splitmix hash of the seed and the visible cards, so a row gets the same
action whatever batch it sits in (``act`` equals ``act_batch``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from trickenv.agents.base import BatchAgent, byte_rows
from trickenv.agents.rules_common import one_hot
from trickenv.decode import card_sets
from trickenv.engine.kernels import beats, bit, get_bits, lowest_card, popcount, seed_states, splitmix
from trickenv.games.base import GameSpec

COMPILE_LABEL = "the Farbwechsel rule-based agent"  # trickenv.engine.first_run

DECK = 32
U0 = np.uint64(0)
U1 = np.uint64(1)
FULL = np.uint64((1 << DECK) - 1)

# Tunable weights of the card prices (index -> meaning); the defaults were chosen by duplicate play.
P_FOLLOW = 0  # share of the average unseen card's points a later player is expected to add to a trick
P_TRICK = 1  # share of the unseen average points the other cards of a future won trick bring
P_TRUMP_TOP = 2  # chance a trump with no unseen higher trump wins a later trick
P_TRUMP_DECAY = 3  # factor per unseen higher trump
P_TRUMP_FLOOR = 4  # a low trump can still ruff
P_PLAIN_TOP = 5  # chance a plain-suit master wins a later trick
P_PLAIN_DECAY = 6  # factor per unseen higher card of its suit
P_RUFF = 7  # weight of the risk that a plain card is ruffed
P_VOLATILE = 8  # chance per unseen switching card that trump moves away before a trump is used
P_SWITCH = 9  # weight of a switch's effect on the hand's kept value
P_QUEEN = 10  # declaring: bonus for holding the queen (switching card) of the suit
P_ENEMY = 11  # a suit an opponent declared or switched to is worth this much less as trump
P_DECLARE_VOLATILE = 12  # P_VOLATILE when the dealer weighs the hand under each trump
DEFAULT_PARAMS = np.array([0.6, 0.8, 0.8, 0.7, 0.25, 0.85, 0.6, 0.4, 0.4, 0.35, 3.0, 3.0, 0.1])
# Rows of the power table: powers[row, k] = base ** k for the factors the prices raise to a card count.
POW_PLAIN, POW_TRUMP, POW_STAY, POW_DECLARE_STAY = range(4)


def power_table(prm: np.ndarray) -> np.ndarray:
    """powers[row, k] for k = 0..32: the decays per unseen higher card and the chances that trump stays."""
    base = np.array([prm[P_PLAIN_DECAY], prm[P_TRUMP_DECAY], 1.0 - prm[P_VOLATILE], 1.0 - prm[P_DECLARE_VOLATILE]])
    return base[:, None] ** np.arange(DECK + 1)[None, :]


@njit(inline="always")
def _read_bits(obs, g, off):
    """The 32 entries obs[g, off:off+32] as a bitset."""
    return get_bits(obs, g, off, DECK)


@njit(inline="always")
def _keep_value(x, s, unseen, u_count, sw_unseen, cycle, suit, higher, suit_mask, prm, powers, volatile):
    """Chance that card x wins a later trick if trump is s (before the trick's value is applied)."""
    sx = suit[x]
    # The same card as a plain card: a master wins unless ruffed; ruffs get likelier as its suit runs out.
    plain_t = (sx + 1) % 4 if sx == s else s
    hi_plain = popcount(higher[plain_t, x] & unseen)
    trumps_out = u_count[s] if sx != s else (u_count[0] + u_count[1] + u_count[2] + u_count[3] - u_count[sx]) / 3.0
    ruff = prm[P_RUFF] * trumps_out / (trumps_out + u_count[sx] + 1.0)
    plain = prm[P_PLAIN_TOP] * powers[POW_PLAIN, hi_plain] * (1.0 - ruff)
    if sx != s:
        return plain
    hi = popcount(higher[s, x] & unseen)
    as_trump = max(prm[P_TRUMP_TOP] * powers[POW_TRUMP, hi], prm[P_TRUMP_FLOOR])
    # Unseen switching cards may move trump away before this card is played: cash trumps early.
    away = sw_unseen if cycle else sw_unseen & ~suit_mask[s]
    vol = 1.0 - powers[volatile, popcount(away)]
    return (1.0 - vol) * as_trump + vol * plain


@njit(inline="always")
def _hand_value(hand, s, unseen, u_count, sw_unseen, cycle, value, suit, points, higher, suit_mask, enemy, prm,
                powers, volatile):
    """Points the hand may still win if trump is s: each card's keep chance times a won trick's worth.

    A suit an opponent chose as trump (``enemy`` bit s) counts against it.
    """
    w = 0.0
    rest = hand
    while rest != U0:
        x = lowest_card(rest)
        rest &= rest - U1
        w += _keep_value(x, s, unseen, u_count, sw_unseen, cycle, suit, higher, suit_mask, prm, powers,
                         volatile) * (value + points[x])
    if (enemy >> s) & 1:
        w -= prm[P_ENEMY]
    return w


@njit(inline="always")
def _beat_chance(best, led, trump, pool, above, q, suit, suit_mask):
    """Chance that a player holding each card of ``pool`` with chance p can beat ``best`` (suit ``led`` led).

    ``above`` is the bitset of the cards of best's suit that beat it; ``q[k]`` is (1 - p) ** k, the
    chance of holding none of k cards.
    """
    hi = popcount(pool & above)
    void = q[popcount(pool & suit_mask[led])]
    if suit[best] == led:
        b = 1.0 - q[hi]
        if trump != led:
            b += void * (1.0 - q[popcount(pool & suit_mask[trump])])
        return min(b, 1.0)
    return void * (1.0 - q[hi])  # best is a ruff: only a player void in the led suit can overruff


@njit(inline="always")
def _declare(g, hand, mask, n, cycle, suit, points, higher, suit_mask, switch, prm, powers, key):
    """Dealer: the suit whose cards would earn most as trumps (plus its queen, which can restore it)."""
    unseen = FULL & ~hand
    u_count = np.zeros(4, np.int64)
    for s in range(4):
        u_count[s] = popcount(unseen & suit_mask[s])
    sw_unseen = U0
    tot = 0.0
    for c in range(DECK):
        if (unseen >> np.uint64(c)) & U1:
            tot += points[c]
            if switch[c]:
                sw_unseen |= bit(c)
    value = prm[P_TRICK] * (n - 1) * tot / popcount(unseen)
    best_a, best_v = -1, -1e18
    for s in range(4):
        if not mask[g, DECK + s]:
            continue
        v = _hand_value(hand, s, unseen, u_count, sw_unseen, cycle, value, suit, points, higher, suit_mask, 0, prm,
                        powers, POW_DECLARE_STAY)
        if not cycle:
            for c in range(DECK):
                if suit[c] == s and switch[c] and (hand >> np.uint64(c)) & U1:
                    v += prm[P_QUEEN]
        v += 1e-6 * np.float64(splitmix(key + np.uint64(s)) >> np.uint64(11)) / 9007199254740992.0
        if v > best_v:
            best_a, best_v = DECK + s, v
    return best_a


@njit(cache=True)
def _act_kernel(obs, mask, out, n, tricks, partnership, cycle, o_played, o_in, o_trump, o_tt, o_dealer, o_leader,
                suit, points, tab, higher, suit_mask, switch, prm, powers, seed_key, prices):
    """out[g] = the rule agent's action for row g of obs / mask (-1 if the mask is empty).

    ``prices`` ([B, 32], or empty) receives every legal card's price, for inspecting the rules.
    """
    cur_cards = np.empty(4, np.int64)
    trick_trump = np.empty(16, np.int64)
    seat_bits = np.empty(4, np.uint64)
    void = np.zeros(4, np.int64)
    pool = np.empty(4, np.uint64)
    p_hold = np.empty(4, np.float64)
    none_of = np.empty((4, DECK + 1), np.float64)
    u_count = np.zeros(4, np.int64)
    u_points = np.zeros(4, np.float64)
    for g in range(obs.shape[0]):
        legal = get_bits(mask, g, 0, DECK)
        hand = _read_bits(obs, g, 0)
        key = splitmix(seed_key ^ splitmix(hand))
        if legal == U0:
            out[g] = -1
            for s in range(4):
                if mask[g, DECK + s]:
                    out[g] = _declare(g, hand, mask, n, cycle, suit, points, higher, suit_mask, switch, prm, powers,
                                      key)
                    break
            continue
        if legal & (legal - U1) == U0:  # one legal card: nothing to decide
            out[g] = lowest_card(legal)
            continue

        # ---- what is public: who played what, in which trick, under which trump
        played = U0
        for r in range(n):
            seat_bits[r] = _read_bits(obs, g, o_played + r * DECK)
            played |= seat_bits[r]
        done = 0
        tts = get_bits(obs, g, o_tt, 4 * tricks)  # each trick's one-hot trump, 4 bits (10 tricks at most)
        for t in range(tricks):
            nib = (tts >> np.uint64(4 * t)) & np.uint64(15)
            trick_trump[t] = lowest_card(nib) if nib != U0 else -1
            if nib != U0:
                done += 1
        trump = one_hot(obs, g, o_trump, 4)
        dealer = one_hot(obs, g, o_dealer, n)
        leader = one_hot(obs, g, o_leader, n)
        key = splitmix(key ^ played)

        # ---- replay the finished tricks: voids, and the suits opponents chose as trump
        for r in range(n):
            void[r] = 0
        enemy = 0  # bit s: an opponent declared s or switched trump to it
        first = trick_trump[0] if done > 0 else trump
        if dealer != 0 and not (partnership and dealer == 2):
            enemy |= 1 << first
        lead = (dealer + 1) % n
        for t in range(done):
            tb = _read_bits(obs, g, o_in + t * DECK)
            for r in range(n):
                cur_cards[r] = lowest_card(tb & seat_bits[r])
            tt = trick_trump[t]
            led = suit[cur_cards[lead]]
            win = lead
            last_sw = -1
            r = lead
            for j in range(n):
                c = cur_cards[r]
                if suit[c] != led:
                    void[r] |= 1 << led
                if j > 0 and beats(tab, c, cur_cards[win], tt):
                    win = r
                if switch[c]:
                    last_sw = r
                r = r + 1 if r + 1 < n else 0
            after = trick_trump[t + 1] if t + 1 < done else trump
            # In Fixed Farbwechsel the suit a queen leads to is no choice, so it tells nothing.
            if not cycle and last_sw > 0 and after != tt and not (partnership and last_sw == 2):
                enemy |= 1 << after
            lead = win

        # ---- the trick in progress
        tb = _read_bits(obs, g, o_in + done * DECK)
        on_table = popcount(tb)
        best_card = -1
        best_seat = -1
        table_pts = 0.0
        sw_on_table = 0
        last_sw_suit = -1
        led = -1
        r = leader
        for j in range(on_table):
            c = lowest_card(tb & seat_bits[r])
            table_pts += points[c]
            if switch[c]:
                sw_on_table += 1
                last_sw_suit = suit[c]
            if j == 0:
                led = suit[c]
                best_card, best_seat = c, r
            elif beats(tab, c, best_card, trump):
                best_card, best_seat = c, r
            r = r + 1 if r + 1 < n else 0

        # ---- the unseen cards and who may hold them
        unseen = FULL & ~hand & ~played
        sw_unseen = U0
        n_unseen = popcount(unseen)
        tot = 0.0
        for s in range(4):
            u_count[s] = popcount(unseen & suit_mask[s])
            u_points[s] = 0.0
        for c in range(DECK):
            if (unseen >> np.uint64(c)) & U1:
                u_points[suit[c]] += points[c]
                tot += points[c]
                if switch[c]:
                    sw_unseen |= bit(c)
        avg = tot / n_unseen if n_unseen > 0 else 0.0
        value = prm[P_TRICK] * (n - 1) * avg
        left = tricks - done
        for r in range(1, n):
            vm = U0
            for s in range(4):
                if (void[r] >> s) & 1:
                    vm |= suit_mask[s]
            pool[r] = unseen & ~vm
            held = left - (1 if (tb & seat_bits[r]) != U0 else 0)
            size = popcount(pool[r])
            p_hold[r] = min(1.0, held / size) if size > 0 else 0.0
            # none_of[r, k]: chance that seat r holds none of k given cards of its pool.
            none_of[r, 0] = 1.0
            for k in range(1, size + 1):  # no count asked for exceeds the pool
                none_of[r, k] = none_of[r, k - 1] * (1.0 - p_hold[r])
        later = n - 1 - on_table  # players after me: relative seats 1 .. later
        # Kept cards are valued under the trump that follows this trick (a switching card on the table
        # already decides it), not the one the trick is judged under.
        if cycle:
            after = (trump + sw_on_table) % 4
        else:
            after = last_sw_suit if sw_on_table > 0 else trump

        # ---- price every legal card
        best_a = -1
        best_v = -1e18
        rest = legal
        while rest != U0:
            c = lowest_card(rest)
            rest &= rest - U1
            lead_suit = suit[c] if on_table == 0 else led
            if on_table == 0 or beats(tab, c, best_card, trump):
                win_card, win_seat = c, 0
            else:
                win_card, win_seat = best_card, best_seat
            ours = 1.0 if win_seat == 0 or (partnership and win_seat == 2) else 0.0
            above = higher[trump, win_card]
            expect = table_pts + points[c]
            no_switch_after = 1.0
            for r in range(1, later + 1):
                q = none_of[r]
                b = _beat_chance(win_card, lead_suit, trump, pool[r], above, q, suit, suit_mask)
                if partnership and r == 2:
                    ours = ours + (1.0 - ours) * b  # the partner may still win it for us
                else:
                    ours = ours * (1.0 - b)
                # What the later player adds: a card of the led suit if it has one, else any card.
                nl = popcount(pool[r] & suit_mask[lead_suit])
                void_p = q[nl]
                follow = u_points[lead_suit] / nl if nl > 0 else 0.0
                expect += prm[P_FOLLOW] * ((1.0 - void_p) * follow + void_p * avg)
                n_sw = popcount(pool[r] & sw_unseen & suit_mask[lead_suit])
                n_sw_any = popcount(pool[r] & sw_unseen)
                held_sw = (1.0 - void_p) * (1.0 - q[n_sw]) + void_p * (1.0 - q[n_sw_any])
                no_switch_after *= 1.0 - 0.5 * held_sw
            rest_hand = hand & ~bit(c)
            v = ours * expect
            v -= _keep_value(c, after, unseen, u_count, sw_unseen, cycle, suit, higher, suit_mask, prm, powers,
                             POW_STAY) * (
                value + points[c])
            if switch[c] and done < tricks - 1:
                # Trump after this trick with this card as the deciding switching card, against ``after``.
                old = after
                new = (after + 1) % 4 if cycle else suit[c]
                if new != old:
                    w_new = _hand_value(rest_hand, new, unseen, u_count, sw_unseen, cycle, value, suit, points,
                                        higher, suit_mask, enemy, prm, powers, POW_STAY)
                    w_old = _hand_value(rest_hand, old, unseen, u_count, sw_unseen, cycle, value, suit, points,
                                        higher, suit_mask, enemy, prm, powers, POW_STAY)
                    v += prm[P_SWITCH] * no_switch_after * (w_new - w_old)
            v += 1e-6 * np.float64(splitmix(key + np.uint64(c)) >> np.uint64(11)) / 9007199254740992.0
            if prices.shape[0] > 0:
                prices[g, c] = v
            if v > best_v:
                best_a, best_v = c, v
        out[g] = best_a


def _readonly(a: np.ndarray) -> np.ndarray:
    """A read-only view of a (numba compiles one kernel per writability)."""
    if not a.flags.writeable:
        return a
    v = a.view()
    v.flags.writeable = False
    return v


class FarbwechselRules(BatchAgent):
    """Rule-based Farbwechsel player for every variant (see the module docstring for its strategy).

    ``seed`` only breaks exact ties (None counts as 0, so play always repeats); ``params`` overrides
    ``DEFAULT_PARAMS`` (indices ``P_*``).
    """

    name = "rules"

    def __init__(self, spec: GameSpec, seed: int | None = None, params: np.ndarray | None = None) -> None:
        if spec.name != "farbwechsel":
            raise ValueError(f"FarbwechselRules plays farbwechsel, not {spec.name}")
        super().__init__(spec)
        self.seed = seed
        n, opt = spec.num_players, spec.options
        off = spec.obs_offsets
        sets = card_sets(spec)
        suit = sets["suit"].astype(np.int64)
        self._suit = suit
        self._tab = np.ascontiguousarray(spec.tab)  # the engine's card table: who beats whom
        self._points = sets["points"].astype(np.float64)
        # strength[t, c]: strength of card c within its suit while suit t is trump (trump_ten differs by t).
        self._strength = np.where(suit[None, :] == np.arange(4)[:, None], sets["trump_strength"][None, :],
                                  sets["strength"][None, :]).astype(np.int64)
        # higher[t, c]: bitset of the cards of c's suit that beat c while t is trump.
        self._higher = np.zeros((4, DECK), np.uint64)
        for t in range(4):
            for c in range(DECK):
                above = (suit == suit[c]) & (self._strength[t] > self._strength[t, c])
                self._higher[t, c] = np.uint64(int((above * (1 << np.arange(DECK, dtype=np.int64))).sum()))
        self._suit_mask = np.array([int(((suit == s) * (1 << np.arange(DECK, dtype=np.int64))).sum())
                                    for s in range(4)], np.uint64)
        self._switch = sets["switch"].astype(np.bool_)
        self.params = np.array(DEFAULT_PARAMS if params is None else params, np.float64)  # fixed from here on
        self._powers = power_table(self.params)
        self._ints = (n, spec.num_tricks, bool(opt["partnership"]), opt["switch_mode"] == "cycle",
                      off["played"][0], off["played_in"][0], off["trump"][0], off["trick_trump"][0],
                      off["dealer"][0], off["leader"][0])
        self._seed_key = np.uint64(seed_states(0 if seed is None else seed, 1)[0])
        self._out = np.zeros(0, np.int64)
        self._no_prices = np.zeros((0, DECK), np.float64)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One legal action per row of ``obs`` / boolean ``mask``; the returned array is reused."""
        return self._run(obs, mask, self._no_prices)

    def prices(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The price of every legal card per row (NaN elsewhere): what the rules weigh, for inspection."""
        obs, mask = np.atleast_2d(obs), np.atleast_2d(mask).astype(np.bool_)
        out = np.full((obs.shape[0], DECK), np.nan)
        self._run(obs, mask, out)
        return out

    def _run(self, obs: np.ndarray, mask: np.ndarray, prices: np.ndarray) -> np.ndarray:
        """Run the kernel; inputs go in as read-only views, the batched env's type, so it compiles once."""
        obs, mask = byte_rows(obs, mask)
        obs, mask = _readonly(obs), _readonly(mask)
        b = obs.shape[0]
        if self._out.shape[0] != b:
            self._out = np.zeros(b, np.int64)
        _act_kernel(obs, mask, self._out, *self._ints, self._suit, self._points, self._tab, self._higher,
                    self._suit_mask, self._switch, self.params, self._powers, self._seed_key, prices)
        return self._out
