"""Built-in bots. Each module holds one strategy class; `treasure_sim.bots.loader` finds them by name."""
