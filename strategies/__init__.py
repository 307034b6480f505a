"""Built-in bots. Each module holds one strategy class; `treasure_sim.run.loader` finds them by name."""
