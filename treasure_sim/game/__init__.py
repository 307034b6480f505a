"""The game: cards, the hand evaluator, the rules, the bot API, the state of a table, betting and pots,
the engine that plays the 17 steps of a hand, and the records of what happened.

It owns everything that decides a game of Treasure Poker and knows nothing of files, processes,
configs or statistics: a `Game` takes bots, a `RuleSet` and seeds, and returns records. Everything
else in treasure_sim is built on it; nothing here imports from the layers above (import-linter
checks this in CI).
"""
