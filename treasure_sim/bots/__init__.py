"""The bots layer: asking a bot a question and living with its answer.

It owns everything between the game and a bot's code: the engine's driver loop that asks each seat
(`driver.Game`, `play_game`), the per-seat checks, time limits, fallbacks and error records
(`seats`, `timeouts`), the integrity checks after the hands (`integrity`), finding a bot by name or
file (`loader`), and isolated bots in their own sandboxed processes over the line protocol
(`isolated`, `protocol`, `bot_host`, `sandbox`, `processes`).

It builds on `treasure_sim.game` (the rules, the steppable state, the decision catalogue), which
knows none of it; running (configs, schedules, backends, the store) builds on both. import-linter
checks the direction in CI.
"""
