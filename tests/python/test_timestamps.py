"""A Delta `timestamp` reads as an instant through the mount, whatever the file stores.

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
