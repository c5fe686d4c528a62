"""Column layout of the scalar table ``State.s`` shared by every game.

Each game keeps its scalar state in one int32 row per game (``s[g, FIELD]``),
like the fields of a C struct. The fields below are common to all games;
a game appends its own from ``GAME_FIELDS`` on.
"""

# Phases. A game uses the ones its rules have; PLAY and DONE are universal.
PH_TRUMP = 0  # a seat chooses the trump suit
PH_BID = 1  # seats declare a number of tricks
PH_CALL = 2  # the caller names a card (King Calling)
PH_PLAY = 3  # tricks are played (declarations may be interleaved)
PH_DONE = 4  # the episode is over
NUM_PHASES = 5
PHASE_NAMES = ("trump", "bid", "call", "play", "done")

NO_TRUMP = -1  # value of TRUMP when no suit is trump (or none chosen yet)

PHASE = 0
DEALER = 1
TO_ACT = 2
LEADER = 3  # leader of the current trick
TRUMP = 4
TRICK_NO = 5  # tricks completed in this deal
TRICK_LEN = 6  # cards in the current trick
ROUND = 7  # deals completed in this episode
TRICK = 8  # 4 slots: cards of the current trick in play order
TRICKS = 12  # 4 slots: tricks won per seat this deal
POINTS = 16  # 4 slots: card points won per seat this deal
TOTALS = 20  # 4 slots: match totals
LAST_SCORES = 24  # 4 slots: scores (rewards) of the last finished deal
LAST_TRICKS = 28  # 4 slots: tricks per seat of the last finished deal
LAST_POINTS = 32  # 4 slots: card points per seat of the last finished deal
LAST_TRUMP = 36  # trump of the last finished deal
DEALS_DONE = 37  # deals finished since the env was created (all episodes)
LAST_DEALER = 38  # dealer of the last finished deal
LAST_ROUND = 39  # index of the last finished deal within its match (0 = first deal)
LAST_TOTALS = 40  # 4 slots: match totals right after the last finished deal
LAST_MATCH_OVER = 44  # 1 if the last finished deal ended its match
GAME_FIELDS = 45  # first column a game may use for its own fields

# Rows of the int32 card table ``tab`` passed to every kernel (length = deck).
TAB_SUIT = 0
TAB_STRENGTH = 1  # trick-taking strength within a suit that is not trump, higher wins
TAB_POINTS = 2  # card points
TAB_TRUMP_STRENGTH = 3  # strength within the trump suit (differs from TAB_STRENGTH only in trump_ten)
TAB_GAME = 4  # first row a game may use
