"""Running: experiment and sweep configs, planning tournaments, executing them on a process pool or a
dask cluster, and the results store (the Parquet schema, part files, the typed manifest, resume,
readers).

It owns the path from a TOML file to results on disk. It builds on `treasure_sim.game` and
`treasure_sim.bots` (which finds, asks and isolates bots) and never on statistics or the command line;
readers of results use `treasure_sim.run.store` only, so that reading never loads what executes.
"""
