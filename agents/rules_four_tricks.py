"""A rule-based Four Tricks player: take exactly the target number of tricks, then not one more.

It reads only the observation and the mask; one numba kernel decides for every
row of a batch. The strategy, decision by decision:

**What is still out.** Every card that is not in my hand, not played and not
the turned-up card lies with an opponent. A card is a *master* when no out
card of its suit beats it. The observation keeps no trick order, so who is
void in a suit is guessed from how many of its cards are still out.

**Two numbers per card.** ``keep``: the chance that the card takes a trick
later if I hold on to it. A master counts 1, a side-suit master less the chance
that a void opponent trumps it; every out card above a card halves its chance,
and my own lower cards of the suit soften that (they can be played first while
the higher ones fall); a long trump suit wins its last cards once the others
have no trump left. The sum of ``keep`` is the number of tricks my hand will
still take. ``now``: the chance that the card wins the current trick. Certain
when I play last; when a card still follows, that opponent must not beat it or
trump it; a lead must survive both opponents. An opponent who already has its
tricks beats my card less willingly (it wants to lose, too).

**The choice.** Play the card that leaves me closest to my goal (the target,
or with bidding my own bid): the smallest mean square of the *miss*, ``ALPHA *
(tricks my hand still takes without this card) - (tricks I still need after
this trick)``, counting its variance as well (``SPREAD``: sure tricks beat
hopeful ones) and a shortfall a little heavier than a surplus (``SHORT``:
spare winners can still be thrown away on a void suit, missing tricks rarely
come back). This one rule gives the classic play:

- below the target with a weak hand: win the trick with the cheapest card that wins it, and
  keep the masters for later;
- below the target with a strong hand: lose tricks, and shed high cards while that is free;
- one trick short with a sure winner in hand: never win with a small card (the winner would
  then take a trick too many); the sure winner takes the last trick needed;
- when void: trump if I need the trick, otherwise discard;
- at the target (or past it): play the highest card that still loses, when void discard the
  most dangerous card (the likeliest future winner) rather than trump, and lead low cards
  the others will take. Future winners then count only at ``ALPHA_DUCK``: a master is not
  led just to be rid of it, because it may still be shed on a void suit.

**Trump** (the dealer, ``trump="dealer"``): the suit under which the hand's
expected tricks come closest to the target (so a weak hand tends to make a long
suit trump, a strong one a shorter suit); with bidding the suit that makes the hand
strongest (a long trump suit gives control, and a higher bid scores more).

**Bids** (``bidding=True``): the expected tricks, rounded a little upwards (a
made bid scores bid + 10), or the nearest bid the mask allows (the dealer may
not make the bids add up to the number of tricks).

Ties between equally good cards are broken by a splitmix hash of the seed and
the observation, so the same seed gives the same actions, and ``act`` and
``act_batch`` agree on the same position. The knobs in ``PARAMS`` were tuned by
duplicate play against the random agent and against earlier settings.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from trickenv.agents.base import BatchAgent, byte_rows
from trickenv.agents.rules_common import mix, one_hot
from trickenv.engine.kernels import lowest_card, popcount, seed_states, suit_bits
from trickenv.engine.layout import PH_BID, PH_PLAY, PH_TRUMP
from trickenv.games.base import GameSpec

COMPILE_LABEL = "the Four Tricks rule-based agent"  # trickenv.engine.first_run

U0 = np.uint64(0)
U1 = np.uint64(1)

# Tuning knobs (module docstring); FourTricksRules(spec, seed, **overrides) changes them.
PARAMS = {
    "alpha": 1.05,  # weight of my future tricks against the tricks I still need, below the target
    "alpha_duck": 0.15,  # the same at or past the target: a future winner may still be shed
    "short": 1.25,  # a shortfall of tricks weighs this much more than a surplus (tricks can be shed)
    "spread": 1.5,  # weight of the uncertainty of my future tricks against their expected miss
    "honour": 0.8,  # chance that an honour with out cards above it survives, on top of the halving per card
    "guard": 0.5,  # how much one low card of the suit protects an honour from an out card above it
    "length": 0.55,  # an opponent's longest holding of a suit, as a share of the suit's out cards
    "ruff": 0.8,  # chance that a void opponent holding trumps does trump a side-suit winner
    "lead_keep": 0.4,  # per higher out card: chance that the opponents let my lead win anyway
    "ducker": 0.6,  # chance that an opponent at its target beats my card when it could
    "bid_scale": 1.0,  # bid = round(bid_scale * expected tricks + bid_shift), or the nearest legal bid
    "bid_shift": 0.4,  # bid a little high: a made bid scores bid + 10
}
_KNOBS = tuple(PARAMS)
(ALPHA, ALPHA_DUCK, SHORT, SPREAD, HONOUR, GUARD, LENGTH, RUFF, LEAD_KEEP, DUCKER,
 BID_SCALE, BID_SHIFT) = range(len(_KNOBS))
# Rows of the odds table, each indexed by a count of cards (kernel speed: no powers in the loop).
HALF, LEAD, VOID, LONG = range(4)
N = 3  # players

LAYOUT_BLOCKS = ("hand", "trick", "played", "trump", "turned_up", "tricks", "target", "bids", "phase", "leader")


def odds_tables(params: np.ndarray, ranks: int) -> tuple[np.ndarray, np.ndarray]:
    """``(honour, odds)``: the chances the kernel looks up by card counts (module docstring)."""
    k = np.arange(ranks + 1, dtype=np.float64)
    higher, guards = np.meshgrid(k, k, indexing="ij")
    # A card with `higher` out cards above it, guarded by `guards` low cards of its own suit.
    honour = 0.5 ** (higher - params[GUARD] * np.minimum(higher, guards))
    honour[1:] *= params[HONOUR]
    odds = np.empty((4, ranks + 1))
    odds[HALF] = 0.5 ** k  # one opponent holds none of k cards
    odds[LEAD] = params[LEAD_KEEP] ** k  # both opponents let a lead with k out cards above it win
    odds[VOID] = np.minimum(1.0, 2.0 * 0.5 ** k)  # some opponent holds none of a suit's k out cards
    odds[LONG] = np.ceil(params[LENGTH] * k)  # an opponent's longest holding of k out cards
    return honour, odds


# ---------------------------------------------------------------- reading the observation
# The helpers that run for every card decision are inlined into the kernel (inline="always"): a
# real call per row would count references to every array it is passed, several times slower.


@njit(cache=True, inline="always")
def _bits(obs, g, off, n, blocks):
    """Bitset of the cards set in any of ``blocks`` consecutive 0/1 blocks of ``n`` at ``obs[g, off:]``."""
    x = U0
    for c in range(n):
        b = obs[g, off + c]
        for k in range(1, blocks):
            b |= obs[g, off + k * n + c]
        x |= np.uint64(b) << np.uint64(c)
    return x


@njit(cache=True, inline="always")
def _index(obs, g, off, n):
    """Index of the one in the short one-hot block ``obs[g, off:off+n]``, -1 if empty."""
    k = 0
    ones = 0
    for j in range(n):  # no early exit: the loop vectorizes
        k += j * obs[g, off + j]
        ones += obs[g, off + j]
    return k if ones else -1


# ---------------------------------------------------------------- card values


@njit(cache=True, inline="always")
def _card_values(mine, out, out_n, trump, ranks, p, honour, odds, keep, higher):
    """``keep[c]`` (module docstring) and ``higher[c]`` (out cards above c) for my cards; their sum and variance."""
    e = 0.0
    var = 0.0
    trumps_out = trump >= 0 and out_n[trump] > 0
    for s in range(4):
        suit = suit_bits(s, ranks)
        # A side-suit winner is lost to a ruff when an opponent runs out of the suit first.
        safe = 1.0 - p[RUFF] * odds[VOID, out_n[s]] if s != trump and trumps_out else 1.0
        x = mine & suit
        guards = 0  # my cards of the suit below c: walked from the lowest up
        while x != U0:
            c = lowest_card(x)
            x &= x - U1
            h = popcount(out & suit & ~((U1 << np.uint64(c + 1)) - U1))
            v = 1.0 if h == 0 else honour[h, guards]
            # Length: once no opponent has a trump left, my last trumps win whenever played.
            if s == trump and popcount(x) >= odds[LONG, out_n[s]]:
                v = 1.0
            v *= safe
            keep[c] = v
            higher[c] = h
            e += v
            var += v * (1.0 - v)
            guards += 1
    return e, var


@njit(cache=True, inline="always")
def _now(c, s, higher, out_n, trump, best, best_suit, led, to_come, beat_will, p, odds):
    """Chance that card ``c`` of suit ``s`` (``higher`` out cards above it) wins the current trick.

    ``best`` (of ``best_suit``) wins it so far (-1: I lead), ``to_come`` cards follow mine, and an
    opponent who could beat my card does so with chance ``beat_will`` (less when it is at its target).
    """
    trumps_out = trump >= 0 and out_n[trump] > 0
    if best < 0:
        # My lead: both opponents must fail to beat it (they may duck), and not trump it.
        v = 1.0 - beat_will * (1.0 - odds[LEAD, higher])
        if s != trump and trumps_out:
            v *= 1.0 - beat_will * p[RUFF] * odds[VOID, out_n[s]]
        return v
    if not ((s == best_suit and c > best) or (s == trump and best_suit != trump)):
        return 0.0
    if to_come == 0:
        return 1.0
    # One opponent still plays: each higher card is in their hand half the time.
    void_led = odds[HALF, out_n[led]]
    if s == led:
        v = 1.0 - beat_will * (1.0 - odds[HALF, higher])
        if s != trump and trumps_out:
            v *= 1.0 - beat_will * p[RUFF] * void_led
        return v
    # I trump a side suit: only an opponent void in it too can overtrump.
    return 1.0 - beat_will * void_led * (1.0 - odds[HALF, higher])


@njit(cache=True, inline="always")
def _suit_counts(out, ranks, out_n):
    """out_n[s] = out cards of suit s."""
    for s in range(4):
        out_n[s] = popcount(out & suit_bits(s, ranks))


# ---------------------------------------------------------------- the three decisions


@njit(cache=True)  # once per deal: not inlined, which keeps the kernel's compile time down
def _choose_trump(mine, out, out_n, goal, ranks, p, honour, odds, keep, higher):
    """The dealer's trump suit: expected tricks closest to the goal (bidding, goal < 0: the strongest)."""
    best_s = 0
    best = np.inf
    for s in range(4):
        e, _ = _card_values(mine, out, out_n, s, ranks, p, honour, odds, keep, higher)
        # Among equal fits prefer more trumps: they win or lose at will when a side suit runs out.
        length = popcount(mine & suit_bits(s, ranks))
        cost = -e - 0.01 * length if goal < 0 else abs(p[ALPHA] * e - goal) - 0.01 * length
        if cost < best:
            best, best_s = cost, s
    return best_s


@njit(cache=True)
def _choose_bid(mask, g, first_bid, hand_size, expected, p):
    """The legal bid nearest to the expected tricks."""
    want = p[BID_SCALE] * expected + p[BID_SHIFT]
    best_k = -1
    best = np.inf
    for k in range(hand_size + 1):
        if mask[g, first_bid + k] and abs(k - want) < best:
            best, best_k = abs(k - want), k
    return first_bid + best_k


@njit(cache=True, inline="always")
def _choose_card(mine, out, out_n, trump, ranks, best, led, to_come, need, beat_will, salt, p, honour, odds,
                 keep, higher):
    """The legal card that leaves me closest to my goal (module docstring, *The choice*)."""
    e, var = _card_values(mine, out, out_n, trump, ranks, p, honour, odds, keep, higher)
    alpha = p[ALPHA] if need > 0 else p[ALPHA_DUCK]
    best_suit = best // ranks if best >= 0 else -1
    pick = -1
    lowest = np.inf
    for s in range(4):
        x = mine & suit_bits(s, ranks)
        if led >= 0 and s != led and mine & suit_bits(led, ranks) != U0:
            continue  # follow suit
        while x != U0:
            c = lowest_card(x)
            x &= x - U1
            now = _now(c, s, higher[c], out_n, trump, best, best_suit, led, to_come, beat_will, p, odds)
            # Expected miss of the goal after this card, a shortfall weighing more than a surplus.
            miss = alpha * (e - keep[c]) - (need - now)
            if miss < 0:
                miss *= p[SHORT]
            spread = alpha * alpha * (var - keep[c] * (1.0 - keep[c])) + now * (1.0 - now)
            salt = mix(salt)
            # The mean square of the miss (its expected value squared plus its variance).
            cost = miss * miss + p[SPREAD] * spread + 1e-10 * np.float64(salt >> np.uint64(44))  # jitter: ties only
            if cost < lowest:
                lowest, pick = cost, c
    return pick


@njit(cache=True, error_model="numpy")  # numpy error model: no zero check on `// ranks`
def rules_kernel(obs, mask, out, seed, layout, p, honour, odds):
    """One action per row of ``obs`` / ``mask`` into ``out`` (the whole strategy; module docstring)."""
    (deck, ranks, hand_size, has_up, o_hand, o_trick, o_played, o_trump, o_up, o_tricks, o_target, o_bids, o_phase,
     o_leader) = layout
    keep = np.zeros(deck)
    higher = np.zeros(deck, np.int64)
    out_n = np.zeros(4, np.int64)
    goals = np.zeros(N, np.int64)
    everything = (U1 << np.uint64(deck)) - U1
    for g in range(obs.shape[0]):
        action = -1
        phase = _index(obs, g, o_phase, 5)
        mine = _bits(obs, g, o_hand, deck, 1)
        gone = _bits(obs, g, o_played, deck, N)  # played by anyone this deal
        if has_up:
            gone |= U1 << np.uint64(one_hot(obs, g, o_up, deck))
        out_cards = everything & ~(mine | gone)
        _suit_counts(out_cards, ranks, out_n)
        trump = _index(obs, g, o_trump, 5)
        if trump == 4:
            trump = -1
        # Every seat's goal: the deal's target, or with bidding the seat's own bid.
        target = _index(obs, g, o_target, hand_size + 1)
        for r in range(N):
            goals[r] = target if target >= 0 else _index(obs, g, o_bids + r * (hand_size + 1), hand_size + 1)
        if phase == PH_TRUMP:
            action = deck + _choose_trump(mine, out_cards, out_n, goals[0], ranks, p, honour, odds, keep, higher)
        elif phase == PH_BID:
            e, _ = _card_values(mine, out_cards, out_n, trump, ranks, p, honour, odds, keep, higher)
            action = _choose_bid(mask, g, deck + 4, hand_size, e, p)
        elif phase == PH_PLAY:
            # The trick so far: led by `leader`, it goes round clockwise to me (relative seat 0).
            leader = _index(obs, g, o_leader, N)
            played = (N - leader) % N
            best = -1
            led = -1
            for j in range(played):
                c = one_hot(obs, g, o_trick + ((leader + j) % N) * deck, deck)
                if j == 0:
                    best, led = c, c // ranks
                elif (c // ranks == best // ranks and c > best) or (c // ranks == trump and best // ranks != trump):
                    best = c
            # Opponents still to play this trick (relative seats 1 .. N-1-played) beat my card less
            # willingly once they have their tricks.
            beat_will = 0.0
            for r in range(1, N - played):
                done = _index(obs, g, o_tricks + r * (hand_size + 1), hand_size + 1) >= goals[r]
                beat_will += p[DUCKER] if done else 1.0
            beat_will = beat_will / (N - 1 - played) if played < N - 1 else 1.0
            need = goals[0] - _index(obs, g, o_tricks, hand_size + 1)
            salt = seed ^ mix(mine) ^ mix(gone + np.uint64(phase))
            action = _choose_card(mine, out_cards, out_n, trump, ranks, best, led, N - 1 - played, need,
                                  beat_will, salt, p, honour, odds, keep, higher)
        if action < 0 or not mask[g, action]:
            # Never reached in a legal position; guarantees a legal action all the same.
            for a in range(mask.shape[1]):
                if mask[g, a]:
                    action = a
                    break
        out[g] = action


# ---------------------------------------------------------------- the agent


class FourTricksRules(BatchAgent):
    """Rule-based Four Tricks agent (module docstring): every variant, observation and mask only."""

    name = "rules"

    def __init__(self, spec: GameSpec, seed: int | None = None, **params: float) -> None:
        super().__init__(spec)
        if spec.name != "four_tricks":
            raise ValueError(f"FourTricksRules plays four_tricks, not {spec.name}")
        unknown = set(params) - set(PARAMS)
        if unknown:
            raise ValueError(f"unknown parameters {sorted(unknown)}; parameters are {list(PARAMS)}")
        self.seed = seed
        self.params = np.array([params.get(k, PARAMS[k]) for k in _KNOBS], np.float64)
        offsets = spec.obs_offsets
        ranks = spec.deck // 4
        has_up = int(spec.options["trump"] == "turn_up")
        self._layout = (spec.deck, ranks, spec.hand_size, has_up, *(int(offsets[b][0]) for b in LAYOUT_BLOCKS))
        self._honour, self._odds = odds_tables(self.params, ranks)
        self._seed = np.uint64(seed_states(seed, 1)[0])
        self._out = np.zeros(0, np.int64)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One legal action per row of ``obs`` [B, obs] / boolean ``mask`` [B, A]; the returned array is reused."""
        obs, mask = byte_rows(obs, mask)
        b = obs.shape[0]
        if self._out.shape[0] < b:  # grow only: batches of varying size share one buffer
            self._out = np.zeros(b, np.int64)
        out = self._out[:b]
        rules_kernel(obs, mask, out, self._seed, self._layout, self.params, self._honour, self._odds)
        return out
