#!/usr/bin/env python3
"""Time DuckDB's count(*) over the Parquet files under two folders, paired and alternated.

    python bench/duckdb_count.py LOCAL_DIR MOUNTED_DIR [--repeat N]

Each round runs SELECT count(*) FROM read_parquet('<dir>/**/*.parquet') on a fresh DuckDB
connection, first on one folder then on the other (the order alternates per round), so both see
the same machine load. Prints one JSON line: the row counts (which must agree), the median time
of each, and the median of the per-round ratios mounted/local.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import duckdb


def count(folder: str) -> tuple[int, float]:
    con = duckdb.connect()
    try:
        start = time.perf_counter()
        t = con.sql("SELECT count(*) AS n FROM read_parquet($glob)", params={"glob": f"{folder}/**/*.parquet"}).to_arrow_table()
        return t.column("n")[0].as_py(), time.perf_counter() - start
    finally:
        con.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("local")
    ap.add_argument("mounted")
    ap.add_argument("--repeat", "-n", type=int, default=21)
    args = ap.parse_args()
    count(args.local), count(args.mounted)  # warm both: page cache, kernel entries
    local, mounted, ratios = [], [], []
    rows = set()
    for i in range(args.repeat):
        pair = [args.local, args.mounted] if i % 2 == 0 else [args.mounted, args.local]
        res = {}
        for folder in pair:
            n, s = count(folder)
            rows.add(n)
            res[folder] = s
        local.append(res[args.local])
        mounted.append(res[args.mounted])
        ratios.append(res[args.mounted] / res[args.local])
    print(json.dumps({"rows": sorted(rows), "local_median_s": statistics.median(local),
                      "mounted_median_s": statistics.median(mounted), "ratio_median": statistics.median(ratios),
                      "repeat": args.repeat}))
    return 0 if len(rows) == 1 else 1


if __name__ == "__main__":
    raise SystemExit(main())
