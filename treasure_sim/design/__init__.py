"""Design: tools for game designers that play and measure in one go — tuning rules towards targets.

It sits above `treasure_sim.study` (it judges candidates by study's estimates) and below the CLI (which
only parses arguments and prints): the only layer that both runs games and reads figures.
"""
