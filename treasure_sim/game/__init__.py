"""The game: cards, the hand evaluator, the rules, the bot API (`Strategy`, `Observation`, `Action`), the
state of a table, betting and pots, the steppable `GameState` that plays the 17 steps of a hand, the decision
catalogue (`questions`), and the records of what happened.

It owns everything that decides a game of Treasure Poker and knows nothing of bots' processes, time
limits, files, configs or statistics: a `GameState` says which decision it waits for and takes an
answer; asking bots is the bots layer's job (`treasure_sim.bots`). Everything else in treasure_sim is
built on it; nothing here imports from the layers above (import-linter checks this in CI).
"""
