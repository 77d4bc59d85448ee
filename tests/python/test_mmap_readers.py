"""Readers that memory-map their files get the right bytes through the mount, however it serves them.

A local table's plain data files are passed through to the kernel by default (FUSE passthrough);
`--passthrough=false` serves them through deltafs and the page cache, and `--direct-io=on` through
deltafs with direct I/O (mmap then relies on the kernel allowing it: FUSE_DIRECT_IO_ALLOW_MMAP).
In each mode, every data file of a partitioned DAT table is read three ways through the mount and
compared with the file itself: Python's mmap, pyarrow with memory_map=True, and polars (which maps
local files).
"""

from __future__ import annotations

import mmap
from pathlib import Path

import pytest

TABLE = "dat/reader_tests/generated/basic_partitioned/delta"


@pytest.mark.parametrize("flags", [[], ["--passthrough=false"], ["--direct-io=on", "--passthrough=false"]],
                         ids=["passthrough", "page-cache", "direct-io"])
def test_mmap_readers_see_the_stored_files(mount, testdata, flags):
    import polars as pl
    import pyarrow.parquet as pq

    source = testdata / TABLE
    latest = mount(source, *flags) / "latest"
    files = sorted(p for p in latest.rglob("*.parquet"))
    assert files, f"no data files under {latest}"
    for p in files:
        rel = p.relative_to(latest)
        stored = source / rel
        want = stored.read_bytes()
        with open(p, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            assert m[:] == want, f"{rel}: mmap through the mount differs from the stored file"
        assert pq.read_table(p, memory_map=True).equals(pq.read_table(stored)), f"{rel}: pyarrow memory_map"
        assert pl.read_parquet(p).equals(pl.read_parquet(stored)), f"{rel}: polars"
