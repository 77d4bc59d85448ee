"""A Delta `timestamp` reads as an instant through the mount, whatever the file stores.

Spark's INT96 timestamps (its default) are served as INT64 microseconds in UTC: pyarrow read
them as naive nanoseconds, 9999-12-31 as 1816-03-29 (test_int96_read_as_instants).

Older delta-rs releases wrote a `timestamp` column from Arrow timestamps without a time
zone: Parquet TIMESTAMP with isAdjustedToUTC false, a local date-time to every Parquet
reader (pandas naive datetimes, DuckDB TIMESTAMP, Spark timestamp_ntz), where a Delta
reader reads instants. deltafs serves such files with the flag set. Checked on delta-rs's
own tables of that era (`issue_1374`, `http_requests`), read by pyarrow, pandas, DuckDB,
Polars and Spark through the mount and compared with delta-rs's read of the table.
"""

from __future__ import annotations

from pathlib import Path

import pytest

TABLES = ["delta-rs/data/issue_1374", "delta-rs/data/http_requests"]


def _timestamp_columns(table_dir: Path) -> list[str]:
    from deltalake import DeltaTable

    schema = DeltaTable(str(table_dir)).schema()
    return [f.name for f in schema.fields if getattr(f.type, "type", None) == "timestamp"]


@pytest.mark.parametrize("table", TABLES)
def test_stored_local_times_read_as_instants(mount, testdata, table, spark):
    import duckdb
    import polars as pl
    import pyarrow as pa
    import pyarrow.dataset as ds
    from deltalake import DeltaTable

    table_dir = testdata / table
    if not table_dir.is_dir():
        pytest.skip(f"{table} is not in the shared test data")
    columns = _timestamp_columns(table_dir)
    assert columns, f"{table}: no timestamp column in its schema"
    expected = DeltaTable(str(table_dir)).to_pyarrow_table(columns=columns)
    latest = mount(table_dir, "--refresh=-1s") / "latest"
    files = sorted(str(p) for p in latest.rglob("*.parquet"))
    assert files

    got = ds.dataset(files, format="parquet").to_table(columns=columns)
    for c in columns:
        assert got.schema.field(c).type == pa.timestamp("us", tz="UTC"), f"pyarrow reads {c} as {got.schema.field(c).type}"
        assert sorted(got.column(c).to_pylist()) == sorted(expected.column(c).to_pylist()), f"pyarrow: {c} differs from delta-rs"
    frame = got.to_pandas()
    assert all(str(frame[c].dtype) == "datetime64[us, UTC]" for c in columns), frame.dtypes

    for f in files:  # each file alone: a folder reader takes the first file's type
        types = duckdb.sql(f"select {', '.join(f'typeof({c})' for c in columns)} from read_parquet('{f}') limit 1").fetchall()
        assert all(t == "TIMESTAMP WITH TIME ZONE" for t in types[0]), f"DuckDB reads {types} in {f}"
        schema = pl.read_parquet(f).schema
        assert all(schema[c] == pl.Datetime("us", "UTC") for c in columns), f"Polars reads {schema} in {f}"
        fields = {x.name: x.dataType.typeName() for x in spark.read.parquet(f).schema.fields}
        assert all(fields[c] == "timestamp" for c in columns), f"Spark reads {fields} in {f}"


# Tables whose files store timestamps as INT96 (Spark's default), and where the expected values
# come from: delta-rs's read, or the stored files read in microseconds where delta-rs wraps
# 9999-12-31 past 2262 (its nanosecond cast).
INT96_TABLES = [
    ("delta-rs/data/table_with_edge_timestamps", "stored"),
    ("delta-kernel-rs/golden_data/kernel-timestamp-int96/delta", "delta-rs"),
    ("delta-kernel-rs/data/with-short-dv", "delta-rs"),  # a deletion vector too
]


@pytest.mark.parametrize("table,expect", INT96_TABLES)
def test_int96_read_as_instants(mount, testdata, table, expect):
    import duckdb
    import pyarrow as pa
    import pyarrow.parquet as pq
    from deltalake import DeltaTable, QueryBuilder

    table_dir = testdata / table
    if not table_dir.is_dir():
        pytest.skip(f"{table} is not in the shared test data")
    dt = DeltaTable(str(table_dir))
    parts = set(dt.metadata().partition_columns)
    columns = [c for c in _timestamp_columns(table_dir) if c not in parts]
    assert columns, f"{table}: no timestamp column in its files"
    stored = [pq.read_table(u, columns=columns, coerce_int96_timestamp_unit="us") for u in dt.file_uris()]
    kinds = {pq.ParquetFile(u).schema.column(i).physical_type for u in dt.file_uris()
             for i in range(len(pq.ParquetFile(u).schema)) if pq.ParquetFile(u).schema.column(i).path in columns}
    assert kinds == {"INT96"}, f"{table} stores its timestamps as {kinds}"
    if expect == "stored":
        want = pa.concat_tables(stored)
    else:
        sql = f"select {', '.join(columns)} from t"
        want = pa.table(QueryBuilder().register("t", dt).execute(sql).read_all())

    latest = mount(table_dir, "--refresh=-1s") / "latest"
    files = sorted(latest.rglob("*.parquet"))
    assert files
    got = pa.concat_tables(pq.read_table(f, columns=columns) for f in files)
    for c in columns:
        assert got.schema.field(c).type == pa.timestamp("us", tz="UTC"), f"pyarrow reads {c} as {got.schema.field(c).type}"
        norm = lambda vs: sorted((v is None, v and v.timestamp()) for v in vs)  # noqa: E731
        assert norm(got.column(c).to_pylist()) == norm(want.column(c).cast(pa.timestamp("us", tz="UTC")).to_pylist()), c
    for f in files:
        types = duckdb.sql(f"select {', '.join(f'typeof({c})' for c in columns)} from read_parquet('{f}') limit 1").fetchall()
        assert all(t == "TIMESTAMP WITH TIME ZONE" for t in types[0]), f"DuckDB reads {types} in {f}"
