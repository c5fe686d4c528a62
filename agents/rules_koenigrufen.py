"""A rule-based King Calling (Königrufen) agent: common-practice play in one numba kernel over the batch.

The strategy, in the order a deal asks for it:

- **Call** (4 cards seen): make trump the suit that is longest and strongest in
  the first batch, and call the highest card of it that we do not hold (the ace,
  else the ten, else the king...), so that a partner, if any, holds a top trump
  (calling the lowest missing card instead measured 0.10 per seat and deal
  worse). Call an own card (alone on purpose, 3x the stake) only with four
  trumps headed by the ace and the ten.
- **Declarations** (first trick): every seat knows its own side (only the
  caller does not know whether it has a partner). Defenders declare every
  marriage: it only adds to their total. The calling side declares a marriage
  only when the declarer very likely wins a trick, since a declared marriage
  raises the side's threshold and only counts for a declarer who wins a trick.
  All tricks is declared only when it is certain (all trumps, or, leading,
  enough top trumps to draw every trump and only top cards besides); the
  hundred never (short of all tricks, no hand makes it sure).
- **Play**: each seat estimates how likely every other seat is on its side:
  exact once the called card is out or from its own status; the caller weighs
  where the called card can still be; a defender trusts the other two
  non-callers (measured better than weighing the odds). Following, every legal
  card is scored by the expected point swing of the trick (its points plus the
  card's own, won with the estimated chance that our side ends up taking it,
  given that each later seat must beat the winner when it can) minus what the
  card is worth kept for later. This smears aces and tens onto a partner's safe trick, beats an
  opponent cheaply when the trick is worth it, and saves trumps, masters and
  points otherwise. Leading: cash a plain ace (or a ten whose ace is gone)
  while it likely survives, else lead low from the longest plain suit. Trumps
  are not pulled with a master trump (it is worth more capturing points later;
  pulling measured 0.07 per seat and deal worse), except to make all tricks.

The agent reads only the observation and the mask. Ties are broken by a
splitmix hash of the seed and the visible cards, so the same observation gives
the same action whether it comes alone (``act``) or in a batch (``act_batch``).
The measurements quoted are duplicate play against the agent without the rule.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from trickenv.agents.base import BatchAgent, byte_rows
from trickenv.agents.rules_common import mix, one_hot
from trickenv.decode import card_sets
from trickenv.engine.kernels import beats, get_bits, popcount, seed_states
from trickenv.games.base import GameSpec
from trickenv.games.koenigrufen import A_ALL_TRICKS, A_CALL, A_HUNDRED, A_MARRIAGE

COMPILE_LABEL = "the King Calling rule-based agent"  # trickenv.engine.first_run

# Observation blocks the kernel reads, in the order of the offsets tuple it gets.
BLOCKS = ("hand", "trick", "played", "trump", "own_status", "sides", "marriages", "big_declaration", "caller", "leader")
K_HAND, K_TRICK, K_PLAYED, K_TRUMP, K_OWN, K_SIDES, K_MARR, K_BIG, K_CALLER, K_LEADER = range(len(BLOCKS))

DECK = 32
RANKS = 8
SEATS = 4
HAND = 8
FULL = (1 << DECK) - 1
RANK_TEN, RANK_O, RANK_K, RANK_A = 3, 5, 6, 7

# Call: how much a first-batch card adds to its suit as trump (length first, then honours).
CALL_LENGTH = 2.0
CALL_HONOUR = np.array([0.0, 0.0, 0.1, 1.0, 0.3, 0.4, 0.6, 1.5])  # by rank: 7 8 9 10 U O K A

# Declarations: the chance of winning at least one trick that a calling-side marriage needs.
P_TRICK_FIRST_PLAIN = 0.6  # first marriage of the side, 20: +10 if it counts, -10 if not
P_TRICK_FIRST_TRUMP = 0.8  # first marriage, 40: +10 if it counts, -30 if not
P_TRICK_MORE = 0.92  # further marriages only help reach 100 (stake 2) and cost their value if they miss
# Chance that a card wins a trick on its own, by rank, as trump / in a plain suit (7 8 9 10 U O K A).
TRICK_CHANCE_TRUMP = np.array([0.15, 0.15, 0.15, 0.75, 0.25, 0.35, 0.5, 0.99])
TRICK_CHANCE_PLAIN = np.array([0.0, 0.0, 0.0, 0.1, 0.0, 0.0, 0.05, 0.55])

# Play: what keeping a card is worth, in points of swing (see _keep).
TRUMP_POWER = 3.0  # a trump wins a trick later (capturing points) ...
TRUMP_STEP = 0.5  # ... the more surely the higher it is
PLAIN_MASTER = 2.0  # the top card left in a plain suit
MASTER_SHARE = 0.5  # a plain master's points are ours 75% of the time: 2 * 0.75 - 1
LOOSE_SHARE = -0.3  # a beatable point card's points are mostly lost: 2 * 0.35 - 1
SINGLETON = 0.2  # discarding a singleton makes a void (trumping later)
LEAD_CASH = 0.5  # lead a plain master point card when our side keeps the trick this surely


# ----------------------------------------------------------------- small helpers


@njit(inline="always")
def _jitter(h, a):
    """A deterministic tie-break in [0, 1e-3) for action ``a`` under hash ``h``."""
    return float(mix(h + np.uint64(a)) >> np.uint64(11)) * (1e-3 / 9007199254740992.0)


@njit(inline="always")
def _bits(obs, g, off):
    """The 32 bits of an observation block as a card bitset."""
    return np.int64(get_bits(obs, g, off, DECK))


@njit(inline="always")
def _suit_bits(s):
    """Bitset of suit ``s``."""
    return ((1 << RANKS) - 1) << (s * RANKS)


def _none_table() -> np.ndarray:
    """NONE[m, h, k]: the chance that h cards drawn from m unseen miss k given ones (the product of
    (m - j - h) / (m - j) over j < k, rounded step by step: the numbers a computation on the spot gives).

    A table because _odds asks for up to 54 of these per trick, and computed on the spot each
    step waited on a division: it was most of the agent's time inside PIMC's playouts.
    """
    table = np.zeros((DECK + 1, HAND + 1, RANKS + 1), np.float64)
    for m in range(DECK + 1):
        for h in range(HAND + 1):
            p = 1.0
            for k in range(RANKS + 1):
                table[m, h, k] = p
                p = p * (m - k - h) / (m - k) if m - k > h else 0.0
    return table


NONE = _none_table()


@njit
def _odds(led, trump, unseen, hs, n_after, none, ruff):
    """Per later seat r, from its ``hs[r]`` unseen cards: ``none[r, 0, k]``, the chance it holds none of k given
    unseen cards; ``none[r, 1, k]`` the same given that it is void in the suit led; ``ruff[r]``, the chance it
    is void in the suit led and holds a trump."""
    n = popcount(unseen)
    u_led = popcount(_suit_bits(led) & unseen)
    u_trump = popcount(_suit_bits(trump) & unseen)
    top = max(u_led, u_trump)  # no count of given cards asked for exceeds this
    for r in range(1, n_after + 1):
        h = hs[r]
        for v in range(1 if led == trump else 2):
            m = n - u_led if v else n
            for k in range(top + 1):
                none[r, v, k] = NONE[m, h, k]
        ruff[r] = 0.0 if led == trump else none[r, 0, u_led] * (1.0 - none[r, 1, u_trump])


@njit
def _p_ours(w, friend_w, led, n_after, trump, unseen, pf, none, ruff, suit, above):
    """Chance that our side takes the trick now won by ``w`` (ours with chance ``friend_w``).

    Each later seat in turn beats the winner with the chance it can (it must: the
    duty to beat), and the trick then belongs to that seat's side. ``none`` and
    ``ruff`` come from :func:`_odds` for this trick.
    """
    higher = popcount(above[w] & unseen)
    x = friend_w
    for r in range(1, n_after + 1):
        if suit[w] != trump:
            b = min(1.0, 1.0 - none[r, 0, higher] + ruff[r])  # a higher card of the suit, or a void with a trump
        elif led == trump:
            b = 1.0 - none[r, 0, higher]
        else:
            # A plain suit was led and trumped: only a seat void in it may overtrump.
            b = none[r, 0, popcount(_suit_bits(led) & unseen)] * (1.0 - none[r, 1, higher])
        x = x * (1.0 - b) + b * pf[r]
    return x


@njit
def _keep(c, hand, trump, unseen, suit, rank, strength, points, above):
    """What card ``c`` is worth kept for later, in points of swing (higher = play it later)."""
    master = (above[c] & unseen) == 0
    pts = points[c]
    if suit[c] == trump:
        # Trumps win tricks later; a master trump's own points are surely ours.
        return TRUMP_POWER + TRUMP_STEP * strength[c] + (pts if master else 0.0)
    if master and pts > 0:
        return PLAIN_MASTER + MASTER_SHARE * pts
    v = LOOSE_SHARE * pts + 0.1 * strength[c] + (PLAIN_MASTER if master and rank[c] > RANK_TEN else 0.0)
    if popcount(hand & _suit_bits(suit[c])) == 1:
        v -= SINGLETON
    return v


# ------------------------------------------------------------------------- call


@njit
def _call(hand, h, rank):
    """The call: trump the longest, strongest suit of the first batch; call its highest card we lack."""
    best_s = 0
    best_v = -1.0
    for s in range(4):
        v = 0.0
        for c in range(s * RANKS, s * RANKS + RANKS):
            if (hand >> c) & 1:
                v += CALL_LENGTH + CALL_HONOUR[rank[c]]
        v += _jitter(h, s)
        if v > best_v:
            best_v = v
            best_s = s
    mine = hand & _suit_bits(best_s)
    ace = best_s * RANKS + RANK_A
    ten = best_s * RANKS + RANK_TEN
    if popcount(mine) == 4 and (mine >> ace) & 1 and (mine >> ten) & 1:
        return A_CALL + ace  # four trumps headed by ace and ten: alone on purpose pays 3x
    # Highest card of the suit (by strength: A 10 K O U 9 8 7) that someone else holds.
    for r in (RANK_A, RANK_TEN, RANK_K, RANK_O, 4, 2, 1, 0):
        c = best_s * RANKS + r
        if not (mine >> c) & 1:
            return A_CALL + c
    return A_CALL + ace  # unreachable: four cards cannot fill a suit of eight


# ----------------------------------------------------------------- declarations


@njit
def _p_some_trick(hand, trump, suit, rank):
    """Rough chance that a hand of 8 wins at least one trick (cards taken as independent chances)."""
    miss = 1.0
    for c in range(DECK):
        if (hand >> c) & 1:
            miss *= 1.0 - (TRICK_CHANCE_TRUMP[rank[c]] if suit[c] == trump else TRICK_CHANCE_PLAIN[rank[c]])
    return 1.0 - miss


@njit
def _sure_all_tricks(hand, trump, leading, above):
    """Whether this hand alone surely takes all 8 tricks."""
    trumps = hand & _suit_bits(trump)
    if trumps == FULL & _suit_bits(trump):
        return True  # every trump: a void in the suit led must trump, and nobody can overtrump
    if not leading:
        return False
    others = FULL & ~hand
    if popcount(trumps) < 8 - popcount(trumps):
        return False  # not enough leads to draw the missing trumps from one seat holding them all
    for c in range(DECK):
        if (hand >> c) & 1 and (above[c] & others) != 0:
            return False  # a card someone else can beat (trumps first, then each plain suit from the top)
    return True


@njit
def _declaration(obs, g, o, mask, hand, trump, caller, own, leading, suit, rank, above):
    """A declaration to make now (marriage, all tricks), or -1 to go on and play a card."""
    if mask[g, A_ALL_TRICKS] and _sure_all_tricks(hand, trump, leading, above):
        return A_ALL_TRICKS
    calling = caller == 0 or own[0]
    p_trick = _p_some_trick(hand, trump, suit, rank)
    side_declared = False  # a marriage of our side is already declared (by us, or the caller if we are partner)
    for s in range(4):
        if obs[g, o[K_MARR] + s] or (own[0] and obs[g, o[K_MARR] + caller * 4 + s]):
            side_declared = True
    for s in range(4):
        if not mask[g, A_MARRIAGE + s]:
            continue
        if not calling:
            return A_MARRIAGE + s  # a defender's marriage only adds to the defenders' total
        if side_declared:
            need = P_TRICK_MORE
        elif s == trump:
            need = P_TRICK_FIRST_TRUMP
        else:
            need = P_TRICK_FIRST_PLAIN
        if p_trick >= need:
            return A_MARRIAGE + s
    return -1


# ------------------------------------------------------------------------ play


@njit
def _friends(obs, g, o, caller, own, hs, full_hand, pf):
    """Fill ``pf[r]``: the chance that relative seat ``r`` is on our side (pf[0] = 1)."""
    pf[0] = 1.0
    sides = one_hot(obs, g, o[K_SIDES], 5)
    if sides >= 0:
        partner = sides if sides < 4 else -1
        we_call = caller == 0 or partner == 0
        for r in range(1, SEATS):
            pf[r] = 1.0 if (r == caller or r == partner) == we_call else 0.0
        return
    if own[0]:  # we are the partner: only the caller is with us
        for r in range(1, SEATS):
            pf[r] = 1.0 if r == caller else 0.0
        return
    if caller == 0:
        # The caller does not know its partner: each seat is it with the chance that it holds the called card
        # (from its first batch in first_batch mode, about half of its cards); none if we hold the card ourselves.
        tot = hs[1] + hs[2] + hs[3]
        for r in range(1, SEATS):
            if own[2] or tot == 0:
                pf[r] = 0.0
            elif full_hand:
                pf[r] = hs[r] / tot
            else:
                pf[r] = 0.5 * hs[r] / tot  # the partner must hold it from its first batch
        return
    # A defender: the caller is against us. The other two non-callers are treated as fellow defenders until
    # the called card shows, although one of them may be the partner: trusting them (smearing on their tricks,
    # not overtaking them) measured 0.02 (first_batch) to 0.03 (full_hand) per seat and deal better than
    # weighing the odds that each holds the called card.
    for r in range(1, SEATS):
        pf[r] = 0.0 if r == caller else 1.0


@njit
def _lead(hand, legal, trump, all_tricks, unseen, pf, hs, h, none, ruff, suit, rank, strength, points, above):
    """The card to lead."""
    my_trumps = legal & _suit_bits(trump)
    out_trumps = popcount(unseen & _suit_bits(trump))
    # Having declared all tricks, pull the trumps first with master trumps, so that no plain master gets trumped.
    # Otherwise a master trump is worth more kept: it captures the aces and tens of a later trick
    # (pulling trumps with it measured 0.07 per seat and deal worse in duplicate play).
    if all_tricks and out_trumps > 0 and my_trumps:
        top = -1
        for c in range(DECK):
            if (my_trumps >> c) & 1 and (top < 0 or strength[c] > strength[top]):
                top = c
        if (above[top] & unseen) == 0:
            return top
    # Cash a plain ace (or a ten whose ace is gone) while the others still follow suit.
    ready = 0  # suits whose odds are computed
    best = -1
    best_v = LEAD_CASH
    for c in range(DECK):
        if (legal >> c) & 1 and suit[c] != trump and points[c] > 0 and (above[c] & unseen) == 0:
            if not (ready >> suit[c]) & 1:
                _odds(suit[c], trump, unseen, hs, SEATS - 1, none[suit[c]], ruff[suit[c]])
                ready |= 1 << suit[c]
            v = _p_ours(c, 1.0, suit[c], SEATS - 1, trump, unseen, pf, none[suit[c]], ruff[suit[c]], suit, above)
            v += _jitter(h, c)
            if v > best_v:
                best_v = v
                best = c
    if best >= 0:
        return best
    # Otherwise a low card from the longest plain suit: the others must follow and beat it, so it draws
    # their high cards, and our short suits stay short for trumping (measured better than the shortest suit).
    best_v = 1e9
    for c in range(DECK):
        if (legal >> c) & 1 and suit[c] != trump and points[c] == 0:
            v = strength[c] - 10.0 * popcount(hand & _suit_bits(suit[c])) + _jitter(h, c)
            if v < best_v:
                best_v = v
                best = c
    if best >= 0:
        return best
    # Only trumps and point cards left: the card whose lead costs least (a lead is a trick with no points yet).
    best_v = -1e9
    for c in range(DECK):
        if (legal >> c) & 1:
            if not (ready >> suit[c]) & 1:
                _odds(suit[c], trump, unseen, hs, SEATS - 1, none[suit[c]], ruff[suit[c]])
                ready |= 1 << suit[c]
            p = _p_ours(c, 1.0, suit[c], SEATS - 1, trump, unseen, pf, none[suit[c]], ruff[suit[c]], suit, above)
            v = (2.0 * p - 1.0) * points[c] - _keep(c, hand, trump, unseen, suit, rank, strength, points, above)
            v += _jitter(h, c)
            if v > best_v:
                best_v = v
                best = c
    return best


@njit
def _follow(hand, legal, trump, trick, lead_seat, n_played, unseen, pf, hs, h, none, ruff, suit, rank,
            strength, points, above, tab):
    """The card to play to a trick already led: the best expected point swing, net of what the card is worth kept."""
    led = suit[trick[lead_seat]]
    w = trick[lead_seat]
    w_seat = lead_seat
    pts = 0
    for j in range(n_played):
        r = (lead_seat + j) % SEATS
        c = trick[r]
        pts += points[c]
        if beats(tab, c, w, trump):
            w = c
            w_seat = r
    n_after = SEATS - 1 - n_played
    _odds(led, trump, unseen, hs, n_after, none[led], ruff[led])
    p_under = _p_ours(w, pf[w_seat], led, n_after, trump, unseen, pf, none[led], ruff[led], suit, above)
    best = -1
    best_v = -1e9
    for c in range(DECK):
        if not (legal >> c) & 1:
            continue
        p = p_under
        if beats(tab, c, w, trump):
            p = _p_ours(c, 1.0, led, n_after, trump, unseen, pf, none[led], ruff[led], suit, above)
        v = (2.0 * p - 1.0) * (pts + points[c]) - _keep(c, hand, trump, unseen, suit, rank, strength, points, above)
        v += _jitter(h, c)
        if v > best_v:
            best_v = v
            best = c
    return best


@njit(cache=True)
def _act_kernel(obs, mask, o, full_hand, seed, suit, rank, strength, points, above, pf, hs, trick, none, ruff,
                tab, out):
    """out[g] = the rule-based action for observation row g (see the module docstring)."""
    for g in range(obs.shape[0]):
        hand = _bits(obs, g, o[K_HAND])
        played = 0
        for r in range(SEATS):
            by_r = _bits(obs, g, o[K_PLAYED] + r * DECK)
            hs[r] = HAND - popcount(by_r)
            played |= by_r
        h = mix(seed ^ np.uint64(hand) ^ (np.uint64(played) << np.uint64(32)))
        if mask[g, A_CALL]:  # the call phase: every call is legal
            out[g] = _call(hand, h, rank)
            continue
        legal = _bits(mask, g, 0)
        trump = one_hot(obs, g, o[K_TRUMP], 4)
        caller = one_hot(obs, g, o[K_CALLER], SEATS)
        own = (obs[g, o[K_OWN]] == 1, obs[g, o[K_OWN] + 1] == 1, obs[g, o[K_OWN] + 2] == 1)
        n_played = 0
        for r in range(SEATS):
            in_trick = _bits(obs, g, o[K_TRICK] + r * DECK)  # one card or none
            trick[r] = popcount(in_trick - 1 & ~in_trick) if in_trick else -1
            n_played += in_trick != 0
        if mask[g, A_HUNDRED] or mask[g, A_ALL_TRICKS] or mask[g, A_MARRIAGE] or mask[g, A_MARRIAGE + 1] \
                or mask[g, A_MARRIAGE + 2] or mask[g, A_MARRIAGE + 3]:
            d = _declaration(obs, g, o, mask, hand, trump, caller, own, n_played == 0, suit, rank, above)
            if d >= 0:
                out[g] = d
                continue
        if popcount(legal) == 1:
            for c in range(DECK):
                if (legal >> c) & 1:
                    out[g] = c
            continue
        _friends(obs, g, o, caller, own, hs, full_hand, pf)
        unseen = FULL & ~hand & ~played
        if n_played == 0:
            all_tricks = obs[g, o[K_BIG] + 1] == 1  # we declared all tricks
            out[g] = _lead(hand, legal, trump, all_tricks, unseen, pf, hs, h, none, ruff, suit, rank, strength, points,
                           above)
        else:
            lead_seat = one_hot(obs, g, o[K_LEADER], SEATS)
            out[g] = _follow(hand, legal, trump, trick, lead_seat, n_played, unseen, pf, hs, h, none, ruff,
                             suit, rank, strength, points, above, tab)


class KoenigrufenRules(BatchAgent):
    """Common-practice King Calling: call a long suit's top card, cash aces, smear on partners, save trumps."""

    name = "rules"

    def __init__(self, spec: GameSpec, seed: int | None = None) -> None:
        super().__init__(spec)
        if spec.name != "koenigrufen":
            raise ValueError(f"KoenigrufenRules plays koenigrufen, not {spec.name}")
        self.seed = seed
        offsets = spec.obs_offsets
        self._o = tuple(int(offsets[b][0]) for b in BLOCKS)
        self._full_hand = spec.options.get("partner_from", "first_batch") == "full_hand"
        self._seed = np.uint64(seed_states(seed, 1)[0])
        sets = card_sets(spec)
        if not np.array_equal(sets["strength"], sets["trump_strength"]):
            raise ValueError("KoenigrufenRules assumes the same card order in trump and plain suits")
        self._suit = sets["suit"].astype(np.int64)
        self._rank = sets["rank"].astype(np.int64)
        self._strength = sets["strength"].astype(np.int64)
        self._tab = np.ascontiguousarray(spec.tab)  # the engine's card table: who beats whom
        self._points = sets["points"].astype(np.int64)
        # above[c]: the cards of c's suit that beat it (trump and plain order are the same in this game).
        same = self._suit[:, None] == self._suit[None, :]
        stronger = self._strength[None, :] > self._strength[:, None]
        self._above = ((same & stronger) * (1 << np.arange(DECK, dtype=np.int64))[None, :]).sum(axis=1)
        self._pf = np.zeros(SEATS, np.float64)
        self._hs = np.zeros(SEATS, np.int64)
        self._trick = np.zeros(SEATS, np.int64)
        self._none = np.zeros((4, SEATS, 2, HAND + 1), np.float64)  # scratch of _odds, per suit led
        self._ruff = np.zeros((4, SEATS), np.float64)
        self._out = np.zeros(0, np.int64)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One legal action per row of ``obs`` [B, 450] and boolean ``mask`` [B, 70]; the returned array is reused."""
        obs, mask = byte_rows(obs, mask)
        if self._out.shape[0] != obs.shape[0]:
            self._out = np.zeros(obs.shape[0], np.int64)
        _act_kernel(obs, mask, self._o, self._full_hand, self._seed, self._suit, self._rank,
                    self._strength, self._points, self._above, self._pf, self._hs, self._trick, self._none,
                    self._ruff, self._tab, self._out)
        return self._out
