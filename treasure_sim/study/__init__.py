"""Study: the statistics every figure comes from (`stats`), the analysis of a tournament, balance
metrics of rule sweeps, plots and the markdown reports.

It reads results only through `treasure_sim.run.store`'s readers and never imports execution
(backends, tournaments, the loader): a report runs without loading what plays games.
"""
