"""A shallow clone's files, named by absolute URIs in its source table, are read through the mount.

The source is a partitioned table delta-rs writes; the clone's log is the source's first
commit with every add's path made an absolute file:// URI into the source, plus one file of
its own (a shallow clone's later writes land in the clone). Without --allow-external the
mount shows only the clone's own file (it reads nothing outside the table root); with the
source's location allowed, pyarrow and DuckDB read every row of the clone (the source's four and
its own), in their partition folders. (delta-rs 1.6 cannot read such a table: it looks for the
absolute URIs under the clone's root.)
"""

from __future__ import annotations

import json
import os

import pytest


def _write_tables(tmp_path):
    import pyarrow as pa
    from deltalake import write_deltalake

    src, clone = tmp_path / "src", tmp_path / "clone"
    rows = pa.table({"id": pa.array([1, 2, 3, 4], pa.int64()), "day": ["a", "a", "b", "b"]})
    write_deltalake(str(src), rows, partition_by=["day"])
    (clone / "_delta_log").mkdir(parents=True)
    write_deltalake(str(tmp_path / "own"), pa.table({"id": pa.array([5], pa.int64()), "day": ["c"]}), partition_by=["day"])
    commit = []
    for line in open(src / "_delta_log" / "00000000000000000000.json"):
        action = json.loads(line)
        if "add" in action:
            action["add"]["path"] = "file://" + str(src / action["add"]["path"])
        commit.append(action)
    for line in open(tmp_path / "own" / "_delta_log" / "00000000000000000000.json"):
        action = json.loads(line)
        if "add" in action:
            path = action["add"]["path"]
            os.makedirs(clone / os.path.dirname(path), exist_ok=True)
            os.rename(tmp_path / "own" / path, clone / path)
            commit.append(action)
    with open(clone / "_delta_log" / "00000000000000000000.json", "w") as f:
        f.write("".join(json.dumps(a) + "\n" for a in commit))
    return src, clone


def _rows_pyarrow(folder):
    import pyarrow.dataset as ds

    t = ds.dataset(folder, format="parquet", partitioning="hive").to_table()
    return sorted(zip(t.column("id").to_pylist(), [str(d) for d in t.column("day").to_pylist()]))


def _rows_duckdb(folder):
    import duckdb

    return sorted(duckdb.sql(f"select id, day from read_parquet('{folder}/**/*.parquet', hive_partitioning=true)").fetchall())


def test_shallow_clone_through_mount(mount, tmp_path):
    pytest.importorskip("deltalake")
    src, clone = _write_tables(tmp_path)
    want = [(1, "a"), (2, "a"), (3, "b"), (4, "b"), (5, "c")]

    hidden = mount(clone)
    assert _rows_pyarrow(str(hidden / "v" / "0")) == [(5, "c")]

    mp = mount(clone, "--allow-external", src)
    folder = str(mp / "v" / "0")
    assert sorted(os.listdir(folder)) == ["day=a", "day=b", "day=c"]
    assert _rows_pyarrow(folder) == want
    assert _rows_duckdb(folder) == want
