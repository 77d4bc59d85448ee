#!/usr/bin/env python3
"""Write a Delta table to S3, or time one read of all of it (or some columns) in this process.

    python bench/table_read.py write s3://BUCKET/PREFIX --files 4 --rows 1000000
    python bench/table_read.py deltalake s3://BUCKET/PREFIX [--columns a,b]
    python bench/table_read.py pyarrow-s3 s3://BUCKET/PREFIX [--columns a,b]
    python bench/table_read.py folder DIR [--columns a,b]

S3 settings come from the AWS_* environment (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, ...).
`deltalake` is delta-rs reading the table's latest version from the bucket; `pyarrow-s3`
is pyarrow's own S3 file system reading the Parquet files under the prefix (no Delta log:
what a plain Parquet reader does); `folder` is pyarrow reading the Parquet files of a
folder, such as a deltafs mount's latest/. Only the read is timed (imports and set-up are
not). Prints one JSON line: {"how": ..., "seconds": ..., "rows": ..., "bytes": ...}.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from urllib.parse import urlparse


def schema_table(pa, np, index: int, rows: int):
    rng = np.random.default_rng(index)
    ids = np.arange(index * rows, (index + 1) * rows, dtype=np.int64)
    # Strings that do not compress: 16 hex digits of a random word.
    words = rng.integers(0, 2**63, size=rows, dtype=np.int64)
    text = pa.array(np.char.mod("%016x", words))
    return pa.table({
        "id": ids,
        "value": rng.random(rows),
        "label": text,
        "bucket": pa.array((ids % 97).astype(np.int32)),
    })


def s3_filesystem():
    from pyarrow import fs
    endpoint = urlparse(os.environ["AWS_ENDPOINT_URL"])
    return fs.S3FileSystem(
        access_key=os.environ["AWS_ACCESS_KEY_ID"],
        secret_key=os.environ["AWS_SECRET_ACCESS_KEY"],
        region=os.environ.get("AWS_REGION", "us-east-1"),
        endpoint_override=endpoint.netloc,
        scheme=endpoint.scheme,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("how", choices=["write", "deltalake", "pyarrow-s3", "folder"])
    ap.add_argument("where", help="s3://bucket/prefix, or a folder for `folder`")
    ap.add_argument("--columns", help="comma-separated columns to read (default: all)")
    ap.add_argument("--files", type=int, default=4, help="write: data files (one commit each)")
    ap.add_argument("--rows", type=int, default=1_000_000, help="write: rows per file")
    args = ap.parse_args(argv)
    columns = args.columns.split(",") if args.columns else None

    import numpy as np
    import pyarrow as pa
    import pyarrow.dataset as ds

    if args.how == "write":
        from deltalake import write_deltalake
        for i in range(args.files):
            write_deltalake(args.where, schema_table(pa, np, i, args.rows), mode="append",
                            storage_options={"AWS_S3_ALLOW_UNSAFE_RENAME": "true"})
        return 0

    if args.how == "deltalake":
        from deltalake import DeltaTable
        start = time.perf_counter()
        table = DeltaTable(args.where).to_pyarrow_table(columns=columns)
    elif args.how == "pyarrow-s3":
        s3 = s3_filesystem()
        u = urlparse(args.where)
        start = time.perf_counter()
        table = ds.dataset(u.netloc + u.path, filesystem=s3, format="parquet").to_table(columns=columns)
    else:
        start = time.perf_counter()
        table = ds.dataset(args.where, format="parquet").to_table(columns=columns)
    seconds = time.perf_counter() - start
    print(json.dumps({"how": args.how, "seconds": seconds, "rows": table.num_rows, "bytes": table.nbytes}), flush=True)
    # Skip the interpreter's teardown: with deltalake and pyarrow both loaded
    # it sometimes aborts ("terminate called without an active exception").
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
