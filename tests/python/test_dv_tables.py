"""Deletion vectors end to end: real Parquet readers on a real mount see exactly the
rows a Delta reader sees.

For every table of the shared test data with deletion vectors (inventory.jsonl:
non-empty dv_types) and every version of its oracle (per_version "vN:<files>f/<rows>r"),
pyarrow, DuckDB and Spark, reading v/N of a `deltafs mount` as plain Parquet, count the
oracle's rows. Where the table has an expected/ folder (delta-kernel-rs golden data),
the rows of the latest version are compared with it, value for value, after mapping
physical column names to logical ones and adding partition values from the paths.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from urllib.parse import unquote

import pytest

INVENTORY = "inventory.jsonl"


def _dv_tables(testdata: Path) -> list[dict]:
    out = []
    with open(testdata / INVENTORY, encoding="utf-8") as f:
        for line in f:
            it = json.loads(line)
            if it.get("dv_types") and not it.get("missing_data_files") and not it.get("missing_dv_files"):
                out.append(it)
    return out


def _per_version(it: dict) -> list[tuple[int, int, int]]:
    out = []
    for pv in it["per_version"]:
        m = re.fullmatch(r"v(\d+):(\d+)f/(-?\d+|\?)r", pv)
        assert m, pv
        if m.group(3) not in ("?", "-1"):
            out.append((int(m.group(1)), int(m.group(2)), int(m.group(3))))
    return out


def _testdata_dir() -> Path:
    from conftest import _testdata_path  # same resolution as the fixture

    return _testdata_path()


def _table_ids() -> list[str]:
    td = _testdata_dir()
    if not (td / INVENTORY).is_file():
        return ["<no testdata>"]
    return [it["table"] for it in _dv_tables(td)]


def _data_files(version_dir: Path) -> list[Path]:
    return sorted(p for p in version_dir.rglob("*") if p.is_file())


@pytest.mark.parametrize("table", _table_ids())
def test_dv_table_row_counts(mount, testdata, table, spark):
    import duckdb
    import pyarrow.parquet as pq

    if table == "<no testdata>":
        pytest.skip("no shared test data")
    it = next(t for t in _dv_tables(testdata) if t["table"] == table)
    mp = mount(testdata / table, "--refresh=-1s")
    con = duckdb.connect()
    checked = 0
    for version, nfiles, rows in _per_version(it):
        vdir = mp / "v" / str(version)
        files = _data_files(vdir)
        assert len(files) == nfiles, f"v{version}: {len(files)} files, oracle {nfiles}"
        # pyarrow: footer row counts (what the size/footer promise) and a full read.
        footer_rows = sum(pq.ParquetFile(f).metadata.num_rows for f in files)
        read_rows = sum(pq.read_table(f).num_rows for f in files)
        assert footer_rows == rows, f"v{version}: pyarrow footers say {footer_rows} rows, oracle {rows}"
        assert read_rows == rows, f"v{version}: pyarrow reads {read_rows} rows, oracle {rows}"
        # DuckDB: one scan over the version directory, reading every row.
        if files:
            globbed = [str(f) for f in files]
            n = con.sql("select count(*) from read_parquet($files, union_by_name=true)", params={"files": globbed}).fetchall()[0][0]
            full = con.sql(
                "select count(*) from (select * from read_parquet($files, union_by_name=true) order by all)",
                params={"files": globbed},
            ).fetchall()[0][0]
        else:
            n = full = 0
        assert n == rows and full == rows, f"v{version}: DuckDB counts {n}/{full} rows, oracle {rows}"
        # Spark: its count (from the footers) and its rows read.
        if files:
            df = spark.read.parquet(*map(str, files))
            n, full = df.count(), df.toArrow().num_rows
        assert n == rows and full == rows, f"v{version}: Spark counts {n}/{full} rows, oracle {rows}"
        checked += 1
    assert checked > 0


def _latest_metadata(table_dir: Path) -> dict:
    """The newest metaData action in the JSON commits."""
    meta = None
    for p in sorted((table_dir / "_delta_log").glob("*.json")):
        if not re.fullmatch(r"\d{20}\.json", p.name):
            continue
        for line in p.read_text(encoding="utf-8").splitlines():
            if line.strip():
                a = json.loads(line)
                if "metaData" in a:
                    meta = a["metaData"]
    assert meta is not None, f"no metaData in {table_dir}"
    return meta


def _golden_tables() -> list[str]:
    td = _testdata_dir()
    if not (td / INVENTORY).is_file():
        return ["<no testdata>"]
    out = []
    for it in _dv_tables(td):
        t = it["table"]
        if t.endswith("/delta") and (td / t).parent.joinpath("expected").is_dir():
            out.append(t)
    return out or ["<none>"]


@pytest.mark.parametrize("table", _golden_tables())
def test_dv_table_rows_match_expected(mount, testdata, table):
    import pyarrow as pa
    import pyarrow.parquet as pq

    if table.startswith("<"):
        pytest.skip("no golden table with deletion vectors and expected/ data")
    it = next(t for t in _dv_tables(testdata) if t["table"] == table)
    table_dir = testdata / table
    meta = _latest_metadata(table_dir)
    schema = json.loads(meta["schemaString"])
    phys_to_logical = {}
    types = {}
    for field in schema["fields"]:
        phys = field.get("metadata", {}).get("delta.columnMapping.physicalName", field["name"])
        phys_to_logical[phys] = field["name"]
        types[field["name"]] = field["type"]

    mp = mount(table_dir, "--refresh=-1s")
    vdir = mp / "v" / str(it["latest_version"])
    got = []
    for f in _data_files(vdir):
        t = pq.read_table(f)
        t = t.rename_columns([phys_to_logical.get(c, c) for c in t.column_names])
        rel = f.relative_to(vdir)
        for part in rel.parts[:-1]:
            k, _, v = part.partition("=")
            name = phys_to_logical.get(unquote(k), unquote(k))
            v = unquote(v)
            value = None if v == "__HIVE_DEFAULT_PARTITION__" else v
            if value is not None and types.get(name) in ("integer", "long", "short", "byte"):
                value = int(value)
            t = t.append_column(name, pa.array([value] * t.num_rows))
        got.extend(t.to_pylist())

    expected = []
    for f in sorted((table_dir.parent / "expected").glob("*.parquet")):
        expected.extend(pq.read_table(f).to_pylist())

    def key(row):
        return tuple(sorted((k, repr(v)) for k, v in row.items()))

    assert len(got) == len(expected)
    cols = set(expected[0]) if expected else set()
    got_rows = sorted(key({k: r.get(k) for k in cols}) for r in got)
    want_rows = sorted(key(r) for r in expected)
    assert got_rows == want_rows
