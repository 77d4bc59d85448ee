#!/usr/bin/env python3
"""Time how long delta-rs takes to load a table's latest snapshot and list its files.

    python bench/deltars_snapshot.py TABLE_DIR [--repeat N]

Each repetition opens the table from scratch (DeltaTable(path): log listing,
checkpoint + JSON replay) and lists the live data file URIs, which is the same work
deltafs does for `ls <mount>/latest/`. Prints one JSON line:

    {"engine": "delta-rs", "version": 10, "files": 11, "seconds_min": ..., "seconds_median": ...}

The first repetition also warms the OS page cache; min and median are reported so a
cold first run does not dominate.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time


def list_file_uris(table) -> list[str]:
    # deltalake >= 0.10 has file_uris(); very old releases only had file_paths()/files().
    for name in ("file_uris", "files", "file_paths"):
        fn = getattr(table, name, None)
        if fn is not None:
            return list(fn())
    raise RuntimeError("this deltalake version has no way to list file URIs")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("table_dir", metavar="TABLE_DIR", help="local Delta table directory (holds _delta_log/)")
    ap.add_argument("--repeat", "-n", type=int, default=5, help="number of timed repetitions (default 5)")
    args = ap.parse_args(argv)

    if args.repeat < 1:
        ap.error("--repeat must be >= 1")
    remote = "://" in args.table_dir  # s3://...: storage settings from the AWS_* environment
    if not remote and not os.path.isdir(os.path.join(args.table_dir, "_delta_log")):
        ap.error(f"{args.table_dir}: not a Delta table (no _delta_log/)")

    import deltalake
    from deltalake import DeltaTable

    table_path = args.table_dir if remote else os.path.abspath(args.table_dir)
    times: list[float] = []
    version = files = None
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        table = DeltaTable(table_path)
        uris = list_file_uris(table)
        times.append(time.perf_counter() - t0)
        version, files = table.version(), len(uris)

    print(json.dumps({
        "engine": "delta-rs",
        "version": version,
        "files": files,
        "seconds_min": round(min(times), 6),
        "seconds_median": round(statistics.median(times), 6),
        "repeat": args.repeat,
        "deltalake": getattr(deltalake, "__version__", "unknown"),
        "table": table_path,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
