"""The Parquet schemas of the results tables: one place, documented column by column in docs/results-schema.md
(a test keeps the two in step)."""

from __future__ import annotations

import pyarrow as pa

_STR = pa.dictionary(pa.int32(), pa.string())  # low-cardinality strings: categorical in pandas

# docs/results-schema.md documents every column; a test keeps the two in step.
GAMES_SCHEMA = pa.schema([
    ("experiment", _STR),
    ("game_id", pa.int64()),
    ("deal_id", pa.int32()),
    ("rotation", pa.int8()),
    ("table_id", pa.int32()),
    ("seat", pa.int8()),
    ("n_players", pa.int8()),
    ("entrant_id", pa.int16()),
    ("entrant", _STR),
    ("strategy", _STR),
    ("params", _STR),
    ("final_money", pa.int32()),
    ("net", pa.int32()),
    ("win_share", pa.float64()),
    ("rank", pa.int8()),
    ("eliminated_hand", pa.int32()),
    ("finish", pa.int8()),
    ("hands_played", pa.int32()),
    ("end_reason", _STR),
    ("decisions", pa.int32()),
    ("errors", pa.int32()),
    ("failed_decisions", pa.int32()),
    ("timeouts", pa.int32()),
    ("first_error", pa.string()),
    ("error_messages", pa.list_(pa.string())),
    ("error_counts", pa.list_(pa.int32())),
    ("treasures", pa.string()),
    ("treasures_spades", pa.int8()),
    ("treasures_clubs", pa.int8()),
    ("treasures_hearts", pa.int8()),
    ("treasures_diamonds", pa.int8()),
    ("decision_time", pa.float32()),
])
HANDS_SCHEMA = pa.schema([
    ("experiment", _STR),
    ("game_id", pa.int64()),
    ("hand_no", pa.int32()),
    ("dealer", pa.int8()),
    ("players_in_hand", pa.int8()),
    ("pot", pa.int32()),
    ("players_at_showdown", pa.int8()),
    ("winners", pa.list_(pa.int8())),
    ("winning_category", _STR),
    ("last_folder", pa.int8()),
    ("new_treasure", pa.string()),
    ("treasure_taken", pa.string()),
    ("treasure_taker", pa.int8()),
    ("spades_moved", pa.int8()),
    ("hearts_drawn", pa.int8()),
    ("steals", pa.int8()),
    ("deck_size", pa.int8()),
    ("void", pa.bool_()),
    ("deck_ran_out", pa.bool_()),
    ("bot_errors", pa.int16()),
    ("money_after", pa.list_(pa.int32())),
    ("shared", pa.list_(pa.string())),
    ("given_up", pa.list_(pa.string())),
    ("removed", pa.list_(pa.string())),
])
SEATS_SCHEMA = pa.schema([
    ("experiment", _STR),
    ("game_id", pa.int64()),
    ("hand_no", pa.int32()),
    ("seat", pa.int8()),
    ("stack", pa.int32()),
    ("net", pa.int32()),
    ("hole", pa.list_(pa.string())),
    ("treasures_before", pa.list_(pa.string())),
    ("put_in", pa.list_(pa.int32())),
    ("folded_round", pa.int8()),
    ("bets", pa.int16()),
    ("calls", pa.int16()),
    ("checks", pa.int16()),
    ("vpip", pa.bool_()),
    ("pfr", pa.bool_()),
    ("saw_shared", pa.bool_()),
    ("showdown", pa.bool_()),
    ("won", pa.int32()),
    ("last_folder", pa.bool_()),
    ("treasure_taken", pa.string()),
    ("spades_moved", pa.list_(pa.string())),
    ("hearts_drawn", pa.list_(pa.string())),
    ("steals", pa.int8()),
    ("stolen_from", pa.int8()),
    ("errors", pa.int16()),
])
MIXED_SCHEMA = pa.schema([  # one row per betting decision drawn from a bot's declared chances (strategy.Mixed)
    ("experiment", _STR),
    ("game_id", pa.int64()),
    ("hand_no", pa.int32()),
    ("seat", pa.int8()),
    ("round", pa.int8()),
    ("fold_chance", pa.float64()),
    ("committed", pa.list_(pa.int32())),
    ("still_in", pa.list_(pa.bool_())),
    ("to_call", pa.int32()),
    ("folded", pa.bool_()),
])
SCHEMAS = {"games": GAMES_SCHEMA, "hands": HANDS_SCHEMA, "seats": SEATS_SCHEMA, "mixed": MIXED_SCHEMA}
TABLES = tuple(SCHEMAS)
WALL_CLOCK_COLUMNS = ("decision_time",)  # differ between runs of the same games
GAME_KEY = ("game_id", "seat")
HAND_KEY = ("game_id", "hand_no")
SUIT_COLUMNS = {"s": "treasures_spades", "c": "treasures_clubs", "h": "treasures_hearts", "d": "treasures_diamonds"}
END_REASONS = ("deck_empty", "all_stopped", "too_few_players", "hand_limit")
