"""Writing synthetic results folders for the study tests, exactly as the store writes real ones."""

from __future__ import annotations


def write_results(path, games, hands, *, name: str = "exp", rules: dict | None = None, seed: int = 0,
                  deals: int | None = None):
    """A results folder as `treasure-sim run` writes it (parts with checksums, a manifest) from data frames."""
    import pyarrow as pa

    from treasure_sim.run.store import Manifest, ResultsDir, now, write_manifest

    deals = deals if deals is not None else int(games["deal_id"].max()) + 1
    folder = ResultsDir(path)
    for table in ("games", "hands"):
        folder.table_dir(table).mkdir(parents=True, exist_ok=True)
    part = folder.write_part(0, deals, {"games": pa.Table.from_pandas(games, preserve_index=False),
                                        "hands": pa.Table.from_pandas(hands, preserve_index=False)})
    folder.record_part(part)
    n_games = int(games["game_id"].nunique())
    manifest = Manifest(kind="run", name=name, fingerprint="test", config={"seed": seed, "rules": rules or {}},
                        deals=deals, games=n_games, package_version="test", python="test", source="<test>",
                        started=now(), updated=now(), status="complete", games_done=n_games, parts=(part,))
    write_manifest(path, manifest)
    return path
