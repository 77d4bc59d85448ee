"""Files written before columns were added are read with those columns, as nulls.

A table delta-rs writes in three appends, the second adding columns of several kinds
and a field inside a struct column (schema_mode="merge"): the first append's files lack
them. A Delta reader shows them
as nulls there. Through the mount, plain Parquet readers must read the same rows and
columns whatever file they look at first: pyarrow's dataset, pandas, DuckDB without
union_by_name, Polars, Spark. Without the fill, pyarrow and DuckDB drop the added columns (or
DuckDB and Polars refuse) depending on which file comes first.

The table is read at a version before its checkpoint (stats from the JSON log), at the
checkpoint's (stats from the checkpoint) and after it (one more append in its tail), with
the checkpoint's stats as strings, parsed as well, or parsed only.

A table of 41 columns that adds one past the 32 delta-rs collects stats for: no stats
say which files lack it, the footers of the oldest files do. So for a field added to the
structs inside a list and a map.
"""

from __future__ import annotations

import glob
import os

import pytest


# How the checkpoint holds the stats: as strings (delta-rs's default), parsed as
# well, or parsed only (as Databricks writes tables it creates).
STATS = {
    "json": {},
    "json+parsed": {"delta.checkpoint.writeStatsAsStruct": "true"},
    "parsed": {"delta.checkpoint.writeStatsAsStruct": "true", "delta.checkpoint.writeStatsAsJson": "false"},
}


def _write_table(path: str, stats: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq
    from deltalake import DeltaTable, write_deltalake

    # s gains a field: the old files store s without it.
    s_old = pa.struct([("a", pa.int64())])
    s_new = pa.struct([("a", pa.int64()), ("b", pa.string())])
    old = pa.table({
        "id": pa.array([1, 2, 3], pa.int64()),
        "name": ["a", "b", None],
        "s": pa.array([{"a": 1}, None, {"a": None}], s_old),
    })
    write_deltalake(path, old, configuration=STATS[stats] or None)
    info = pa.struct([("x", pa.int32()), ("y", pa.string())])
    new = pa.table({
        "id": pa.array([4, 5], pa.int64()),
        "name": ["d", "e"],
        "s": pa.array([{"a": 4, "b": "x"}, None], s_new),
        "score": pa.array([1.5, None], pa.float64()),
        "day": pa.array([19000, 19001], pa.date32()),
        "price": pa.array([123, 456], pa.decimal128(10, 2)),
        "info": pa.array([{"x": 1, "y": "p"}, None], info),
        "tags": pa.array([["t"], []], pa.list_(pa.string())),
    })
    write_deltalake(path, new, mode="append", schema_mode="merge")
    write_deltalake(path, new.set_column(0, "id", pa.array([6, 7], pa.int64())), mode="append")
    DeltaTable(path).create_checkpoint()
    add = pq.read_schema(os.path.join(path, "_delta_log", "00000000000000000002.checkpoint.parquet")).field("add").type
    fields = {add.field(i).name for i in range(add.num_fields)}
    assert ("stats" in fields) == ("json" in stats) and ("stats_parsed" in fields) == ("parsed" in stats), fields
    write_deltalake(path, new.set_column(0, "id", pa.array([8, 9], pa.int64())), mode="append")


@pytest.fixture(scope="module", params=sorted(STATS))
def grown(request, tmp_path_factory) -> str:
    pytest.importorskip("deltalake")
    path = str(tmp_path_factory.mktemp("grown") / "table")
    _write_table(path, request.param)
    return path


def _delta_rows(path: str, version: int) -> list[dict]:
    from deltalake import DeltaTable

    t = DeltaTable(path, version=version).to_pyarrow_table()
    return _normalized(t.to_pylist())


def _normalized(rows: list[dict]) -> list[dict]:
    out = []
    for r in rows:
        r = dict(r)
        if r.get("tags") is not None:
            r["tags"] = list(r["tags"])
        out.append(r)
    return sorted(out, key=lambda r: r["id"])


READERS = ["pyarrow", "pandas", "duckdb", "polars", "spark"]


def _read(reader: str, folder: str, request) -> list[dict]:
    files = sorted(glob.glob(os.path.join(folder, "*.parquet")))
    assert files, folder
    if reader == "pyarrow":
        import pyarrow.dataset as ds

        return _normalized(ds.dataset(folder, format="parquet").to_table().to_pylist())
    if reader == "pandas":
        import pandas as pd
        import pyarrow as pa

        return _normalized(pa.Table.from_pandas(pd.read_parquet(folder, dtype_backend="pyarrow"), preserve_index=False).to_pylist())
    if reader == "duckdb":
        import duckdb

        return _normalized(duckdb.sql(f"select * from read_parquet({files!r})").arrow().read_all().to_pylist())
    if reader == "spark":
        return _normalized(request.getfixturevalue("spark").read.parquet(folder).toArrow().to_pylist())
    import polars as pl

    return _normalized(pl.read_parquet(files).to_arrow().to_pylist())


def _comparable(rows: list[dict]) -> list[dict]:
    """Values as strings: readers differ in how they hand out dates, decimals and
    missing structs (None against a struct of nulls is not at stake here: both sides
    come from the same reader family for a given column)."""
    return [{k: (None if v is None else str(v)) for k, v in sorted(r.items())} for r in rows]


@pytest.mark.parametrize("version", [1, 2, 3])
@pytest.mark.parametrize("reader", READERS)
def test_readers_see_added_columns(grown, mount, reader, version, request):
    mp = mount(grown)
    folder = str(mp / "v" / str(version))
    want = _delta_rows(grown, version)
    got = _read(reader, folder, request)
    assert [sorted(r) for r in got] == [sorted(r) for r in want], f"{reader}: columns differ"
    assert _comparable(got) == _comparable(want), f"{reader} through the mount"
    # The files written before the columns were added are the ones filled.
    assert any(r["score"] is None and r["id"] <= 3 for r in got)
    assert [r["s"] for r in got if r["id"] <= 3] == [{"a": 1, "b": None}, None, {"a": None, "b": None}], reader


def _write_wide_table(path: str) -> None:
    """40 columns, then a column added: past the 32 columns delta-rs collects stats
    for, so no stats say which files lack it."""
    import pyarrow as pa
    from deltalake import write_deltalake

    def rows(ids):
        return {f"c{i:02d}": pa.array([i * 100 + r for r in ids], pa.int64()) for i in range(40)}

    write_deltalake(path, pa.table({"id": pa.array([1, 2], pa.int64()), **rows([1, 2])}))
    write_deltalake(path, pa.table({"id": pa.array([3], pa.int64()), **rows([3])}), mode="append")
    late = {"id": pa.array([4, 5], pa.int64()), **rows([4, 5]), "late": pa.array(["x", None])}
    write_deltalake(path, pa.table(late), mode="append", schema_mode="merge")


@pytest.fixture(scope="module")
def wide(tmp_path_factory) -> str:
    pytest.importorskip("deltalake")
    path = str(tmp_path_factory.mktemp("wide") / "table")
    _write_wide_table(path)
    return path


@pytest.mark.parametrize("reader", READERS)
def test_readers_see_columns_added_past_the_stats(wide, mount, reader, request):
    mp = mount(wide)
    want = _delta_rows(wide, 2)
    got = _read(reader, str(mp / "v" / "2"), request)
    assert [sorted(r) for r in got] == [sorted(r) for r in want], f"{reader}: columns differ"
    assert _comparable(got) == _comparable(want), f"{reader} through the mount"
    assert [r["late"] for r in got] == [None, None, None, "x", None]


def _write_nested_table(path: str) -> None:
    """A list of structs and a map to structs, then a field added to both structs
    (schema_mode="merge"): delta-rs counts neither in its stats, so only the footers
    say which files lack it."""
    import pyarrow as pa
    from deltalake import write_deltalake

    old = pa.struct([("a", pa.int64())])
    new = pa.struct([("a", pa.int64()), ("b", pa.string())])
    write_deltalake(path, pa.table({
        "id": pa.array([1, 2, 3], pa.int64()),
        "items": pa.array([[{"a": 1}, None], [], None], pa.list_(old)),
        "m": pa.array([[("k", {"a": 1})], None, [("l", None)]], pa.map_(pa.string(), old)),
    }))
    write_deltalake(path, pa.table({
        "id": pa.array([4, 5], pa.int64()),
        "items": pa.array([[{"a": 4, "b": "x"}], None], pa.list_(new)),
        "m": pa.array([[("k", {"a": 4, "b": "y"})], None], pa.map_(pa.string(), new)),
    }), mode="append", schema_mode="merge")


@pytest.fixture(scope="module")
def nested(tmp_path_factory) -> str:
    pytest.importorskip("deltalake")
    path = str(tmp_path_factory.mktemp("nested") / "table")
    _write_nested_table(path)
    return path


def _pairs(rows: list[dict]) -> list[dict]:
    """Maps as lists of key and value pairs, whatever the reader hands out."""
    out = []
    for r in rows:
        r = dict(r)
        m = r.get("m")
        if isinstance(m, dict):
            m = list(m.items())
        r["m"] = None if m is None else [tuple(kv.values()) if isinstance(kv, dict) else tuple(kv) for kv in m]
        out.append(r)
    return sorted(out, key=lambda r: r["id"])


@pytest.mark.parametrize("reader", ["pyarrow", "duckdb", "polars", "spark"])
def test_readers_see_fields_added_inside_lists(nested, mount, reader, request):
    import pyarrow.parquet as pq
    from deltalake import DeltaTable

    mp = mount(nested)
    folder = str(mp / "v" / "1")
    # Every served file has the field, whichever file a reader meets first.
    for f in sorted(glob.glob(os.path.join(folder, "*.parquet"))):
        schema = pq.read_schema(f)
        assert str(schema.field("items").type.value_type) == "struct<a: int64, b: string>", f
        assert str(schema.field("m").type.item_type) == "struct<a: int64, b: string>", f
    want = _pairs(DeltaTable(nested, version=1).to_pyarrow_table().to_pylist())
    if reader == "pyarrow":
        import pyarrow.dataset as ds

        got = ds.dataset(folder, format="parquet").to_table().to_pylist()
    elif reader == "duckdb":
        import duckdb

        got = duckdb.sql(f"select * from read_parquet('{folder}/*.parquet')").arrow().read_all().to_pylist()
    elif reader == "polars":
        import polars as pl

        got = pl.read_parquet(sorted(glob.glob(os.path.join(folder, "*.parquet")))).to_arrow().to_pylist()
    else:
        got = request.getfixturevalue("spark").read.parquet(folder).toArrow().to_pylist()
    assert _pairs(got) == want, f"{reader} through the mount"


def test_void_column_read_as_nulls(mount, testdata):
    """A `void` column (Spark's NullType) is in no file (Delta's writers drop it), though
    Spark's stats count its nulls: it is served in every file as Parquet's null type, as a
    Delta reader shows it (all nulls)."""
    import duckdb
    import pyarrow as pa
    import pyarrow.dataset as ds

    table = testdata / "delta-kernel-rs/data/void-column"
    if not table.is_dir():
        pytest.skip("void-column is not in the shared test data")
    v0 = mount(table, "--refresh=-1s") / "v" / "0"
    got = ds.dataset(str(v0), format="parquet").to_table()
    assert got.schema.field("void_col").type == pa.null(), got.schema
    assert sorted(got.column("id").to_pylist()) == [1, 2, 3]
    assert got.column("void_col").null_count == 3
    rows = duckdb.sql(f"select id, void_col from read_parquet('{v0}/*.parquet') order by id").fetchall()
    assert rows == [(1, None), (2, None), (3, None)], rows
