"""Built-in bots. Each module holds one strategy class; `treasure_sim.loader` finds them by name."""
