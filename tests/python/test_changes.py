"""changes/<N>/ read by real readers: pyarrow and DuckDB read what each commit of a change-data table added,
removed and wrote as change data. Row counts are checked against the log, read here with the json module:
an added file holds its add action's numRecords minus the rows its deletion vector drops; a removed file
holds what the same file held in the version before; every change-data row has a _change_type."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

# Under column mapping the change-data files keep _change_type, which has no field id.
TABLES = ["delta-rs/data/cdf-table", "delta-rs/data/cdf-table-with-cdc-and-dvs",
          "delta-kernel-rs/data/cdf-column-mapping-name-mode", "delta-kernel-rs/data/cdf-column-mapping-id-mode"]


def _commit(table: Path, version: int) -> list[dict]:
    path = table / "_delta_log" / f"{version:020d}.json"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _files(d: Path) -> list[Path]:
    return sorted(p for p in d.rglob("*") if p.is_file())


def _duckdb_rows(path: Path) -> int:
    con = duckdb.connect()
    try:
        t = con.sql("SELECT count(*) AS n FROM read_parquet($path)", params={"path": str(path)}).to_arrow_table()
        return t.column("n")[0].as_py()
    finally:
        con.close()


@pytest.mark.parametrize("name", TABLES)
def test_changes_read_by_readers(name, mount, testdata):
    table = testdata / name
    mnt = mount(table)
    versions = sorted(int(p.name) for p in (mnt / "v").iterdir())
    seen = {"added": 0, "removed": 0, "cdc": 0}
    for v in versions:
        actions = _commit(table, v)
        adds = [a["add"] for a in actions if "add" in a]
        want_added = sum(json.loads(a["stats"])["numRecords"] - (a.get("deletionVector") or {}).get("cardinality", 0)
                         for a in adds)
        added = _files(mnt / "changes" / str(v) / "added")
        assert len(added) == len(adds), f"v{v}: added/ {len(added)} files, the commit adds {len(adds)}"
        got = sum(pq.read_metadata(p).num_rows for p in added)
        assert got == want_added, f"v{v}: added/ holds {got} rows, the log says {want_added}"
        assert sum(_duckdb_rows(p) for p in added) == want_added

        for p in _files(mnt / "changes" / str(v) / "removed"):
            rel = p.relative_to(mnt / "changes" / str(v) / "removed")
            before = mnt / "v" / str(v - 1) / rel
            assert pq.read_table(p).equals(pq.read_table(before)), f"v{v}: removed {rel} differs from v{v - 1}"
            seen["removed"] += 1

        cdc_actions = [a["cdc"] for a in actions if "cdc" in a]
        cdc = _files(mnt / "changes" / str(v) / "cdc")
        assert len(cdc) == len(cdc_actions)
        for p in cdc:
            t = pq.read_table(p)
            kinds = set(t.column("_change_type").to_pylist())
            assert kinds and kinds <= {"insert", "delete", "update_preimage", "update_postimage"}, kinds
            assert _duckdb_rows(p) == t.num_rows
        seen["added"] += len(added)
        seen["cdc"] += len(cdc)
    assert all(seen.values()), f"{name}: a kind of change never appeared: {seen}"
