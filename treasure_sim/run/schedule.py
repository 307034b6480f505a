"""Who sits where: the balanced round-robin cycle of tables, and the seats of each rotation (pure functions)."""

from __future__ import annotations

from itertools import combinations


def round_robin(n_entrants: int, table_size: int) -> tuple[tuple[int, ...], ...]:
    """The cycle of tables (lineups of entrant indices) that deals are played at, in order.

    More entrants than seats: tables are drawn greedily so that at every point of the cycle each
    entrant has played as often as any other, give or take one table, and each next seat goes to the
    entrant who has met the table's players least; the cycle ends once every pair has met and all
    entrants have played equally often, so repeating it keeps both properties.
    Fewer entrants than seats: one table, seats filled by cycling the entrants (0, 1, 2, 0, 1, ...).
    """
    if n_entrants < 1 or not 2 <= table_size <= 10:
        raise ValueError(f"need >= 1 entrant and a table of 2..10 seats, got {n_entrants} and {table_size}")
    if n_entrants <= table_size:
        return (tuple(i % n_entrants for i in range(table_size)),)
    n = n_entrants
    plays = [0] * n
    last = [-1] * n  # the table at which each entrant last played: spreads entrants through the cycle
    met = [[0] * n for _ in range(n)]
    unmet = n * (n - 1) // 2
    tables: list[tuple[int, ...]] = []
    while unmet or sum(plays) % n:
        table: list[int] = []
        while len(table) < table_size:
            free = [e for e in range(n) if e not in table]
            fewest = min(plays[e] for e in free)
            pick = min((e for e in free if plays[e] == fewest),
                       key=lambda e: (sum(met[e][o] for o in table), last[e], e))
            table.append(pick)
        for a, b in combinations(table, 2):
            unmet -= met[a][b] == 0
            met[a][b] += 1
            met[b][a] += 1
        for e in table:
            plays[e] += 1
            last[e] = len(tables)
        tables.append(tuple(sorted(table)))
    return tuple(tables)


def seating(lineup: tuple[int, ...], rotation: int) -> tuple[int, ...]:
    """Entrant index per seat in a rotation: rotation r moves every entrant r seats on."""
    k = len(lineup)
    return tuple(lineup[(seat - rotation) % k] for seat in range(k))


def deals_to_seat_everyone(n_entrants: int, table_size: int) -> int:
    """How many deals it takes for every entrant to have sat at least once (the cycle's first tables)."""
    seen: set[int] = set()
    for i, table in enumerate(round_robin(n_entrants, table_size)):
        seen.update(table)
        if len(seen) == n_entrants:
            return i + 1
    raise AssertionError("the round-robin cycle seats every entrant")
