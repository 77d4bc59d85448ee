"""Columns outside the table's schema stay hidden through the mount, as a Delta reader hides them.

Spark writes two kinds into the data files of an UPDATE or MERGE, and only there: row
tracking's materialized columns (named in the table's configuration) and, with change data
feed on, a null `_change_type`. A Delta reader serves the schema's columns alone. Served as
stored, the folder gave each plain reader something else: pyarrow took the extra columns
from the first file it met, DuckDB and Polars refused the folder.

The row tracking table is written here with pyarrow (one rewritten file, sorting first, with
the materialized columns, and one without them); the change data feed tables are the shared
ones Spark wrote.
"""

from __future__ import annotations

import json

import pytest

ROW_ID = "_row-id-col-4cbc7924-f662-4db1-aa59-22c23f59eb5d"
ROW_VERSION = "_row-commit-version-col-2f60dcc1-9e36-4424-95e7-799b707e4ddb"
EXPECTED = sorted([(i, f"v{i}") for i in range(10)] + [(i, f"updated {i}") for i in range(100, 105)])


def _write_table(root):
    import pyarrow as pa
    import pyarrow.parquet as pq

    root.mkdir()
    (root / "_delta_log").mkdir()
    plain = pa.table({"id": pa.array(range(10), pa.int64()), "value": [f"v{i}" for i in range(10)]})
    ids = list(range(100, 105))
    rewritten = pa.table({"id": pa.array(ids, pa.int64()), "value": [f"updated {i}" for i in ids],
                          ROW_ID: pa.array([i - 90 for i in ids], pa.int64()),
                          ROW_VERSION: pa.array([1] * len(ids), pa.int64())})
    pq.write_table(plain, root / "b-plain.parquet")
    pq.write_table(rewritten, root / "a-rewritten.parquet")

    def add(name):
        return {"add": {"path": name, "partitionValues": {}, "size": (root / name).stat().st_size,
                        "modificationTime": 1700000000000, "dataChange": True}}

    schema = {"type": "struct", "fields": [
        {"name": "id", "type": "long", "nullable": True, "metadata": {}},
        {"name": "value", "type": "string", "nullable": True, "metadata": {}}]}
    conf = {"delta.enableRowTracking": "true",
            "delta.rowTracking.materializedRowIdColumnName": ROW_ID,
            "delta.rowTracking.materializedRowCommitVersionColumnName": ROW_VERSION}
    commits = [
        [{"protocol": {"minReaderVersion": 1, "minWriterVersion": 7,
                       "writerFeatures": ["domainMetadata", "rowTracking"]}},
         {"metaData": {"id": "row-tracking", "format": {"provider": "parquet", "options": {}},
                       "schemaString": json.dumps(schema), "partitionColumns": [], "configuration": conf,
                       "createdTime": 1700000000000}},
         add("b-plain.parquet")],
        [add("a-rewritten.parquet")],
    ]
    for v, actions in enumerate(commits):
        (root / "_delta_log" / f"{v:020d}.json").write_text("".join(json.dumps(a) + "\n" for a in actions))


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    root = tmp_path_factory.mktemp("row-tracking") / "table"
    _write_table(root)
    return root


@pytest.fixture
def latest(mount, table):
    return mount(table, "--refresh=-1s") / "latest"


def _rows(t):
    return sorted(zip(t.column("id").to_pylist(), t.column("value").to_pylist()))


def test_delta_reader_hides_them(table):
    import deltalake

    t = deltalake.DeltaTable(str(table)).to_pyarrow_table()
    assert t.column_names == ["id", "value"]
    assert _rows(t) == EXPECTED


def test_served_file_has_the_schema_columns_only(latest, table):
    import pyarrow.parquet as pq

    f = latest / "a-rewritten.parquet"
    assert pq.read_schema(f).names == ["id", "value"]
    assert f.stat().st_size == (table / "a-rewritten.parquet").stat().st_size == len(f.read_bytes())
    assert (latest / "b-plain.parquet").read_bytes() == (table / "b-plain.parquet").read_bytes()


def _pyarrow(d):
    import pyarrow.dataset as ds

    return ds.dataset(d, format="parquet").to_table()


def _pandas(d):
    import pandas as pd
    import pyarrow as pa

    return pa.Table.from_pandas(pd.read_parquet(d), preserve_index=False)


def _duckdb(d):
    import duckdb

    con = duckdb.connect()
    try:
        return con.sql("SELECT * FROM read_parquet($glob)", params={"glob": f"{d}/*.parquet"}).to_arrow_table()
    finally:
        con.close()


def _polars(d):
    import polars as pl

    return pl.scan_parquet(f"{d}/*.parquet").collect().to_arrow()


@pytest.mark.parametrize("read", [_pyarrow, _pandas, _duckdb, _polars], ids=["pyarrow", "pandas", "duckdb", "polars"])
def test_readers_see_the_delta_readers_table(latest, read):
    t = read(latest)
    assert t.column_names == ["id", "value"]
    assert _rows(t) == EXPECTED


# Shared tables with change data feed on whose live files mix files with and without
# _change_type (UPDATE or DELETE with change data feed). Column-mapped ones hid it already.
CDF_TABLES = [
    "delta-rs/data/cdf-table",
    "delta-rs/data/cdf-table-non-partitioned",
    "delta-rs/data/checkpoint-cdf-table",
    "delta-kernel-rs/data/cdf-table-delete-conditional-two-rows",
]


@pytest.mark.parametrize("name", CDF_TABLES)
def test_change_type_hidden(mount, testdata, name):
    import deltalake
    import duckdb
    import pyarrow.parquet as pq

    table = testdata / name
    if not table.is_dir():
        pytest.skip(f"{name} is not in the test data")
    expected = deltalake.DeltaTable(str(table)).to_pyarrow_table()
    parts = set(deltalake.DeltaTable(str(table)).metadata().partition_columns)
    columns = [c for c in expected.column_names if c not in parts]
    latest = mount(table, "--refresh=-1s") / "latest"
    files = sorted(p for p in latest.rglob("*.parquet"))
    assert files
    for f in files:
        assert pq.read_schema(f).names == columns, f.relative_to(latest)
    con = duckdb.connect()
    try:
        got = con.sql("SELECT * FROM read_parquet($files, hive_partitioning=false)",
                      params={"files": [str(f) for f in files]}).to_arrow_table()
    finally:
        con.close()
    assert got.column_names == columns

    def rows(t):
        return sorted(map(repr, zip(*(t.column(c).to_pylist() for c in columns))))

    assert rows(got) == rows(expected)


# A partitioned table with the `materializePartitionColumns` writer feature: its writers
# store the partition column in every data file as well. A Delta reader takes the column's
# value from the add's partitionValues; served as stored, the file's column met the folder's
# `part=` value in every plain reader that reads the folders as partitions.
PARTITIONED_EXPECTED = sorted([(i, f"v{i}", "a" if i < 5 else "b") for i in range(10)])


def _write_materialized_table(root):
    import pyarrow as pa
    import pyarrow.parquet as pq

    (root / "_delta_log").mkdir(parents=True)
    adds = []
    for part in ("a", "b"):
        ids = [i for i, _, p in PARTITIONED_EXPECTED if p == part]
        name = f"part={part}/data.parquet"
        (root / f"part={part}").mkdir()
        pq.write_table(pa.table({"id": pa.array(ids, pa.int64()), "value": [f"v{i}" for i in ids],
                                 "part": [part] * len(ids)}), root / name)
        adds.append({"add": {"path": name, "partitionValues": {"part": part}, "size": (root / name).stat().st_size,
                             "modificationTime": 1700000000000, "dataChange": True}})
    schema = {"type": "struct", "fields": [
        {"name": n, "type": t, "nullable": True, "metadata": {}} for n, t in
        (("id", "long"), ("value", "string"), ("part", "string"))]}
    commit = [{"protocol": {"minReaderVersion": 1, "minWriterVersion": 7,
                            "writerFeatures": ["materializePartitionColumns"]}},
              {"metaData": {"id": "materialized", "format": {"provider": "parquet", "options": {}},
                            "schemaString": json.dumps(schema), "partitionColumns": ["part"],
                            "configuration": {"delta.enableMaterializePartitionColumnsFeature": "true"},
                            "createdTime": 1700000000000}}] + adds
    (root / "_delta_log" / f"{0:020d}.json").write_text("".join(json.dumps(a) + "\n" for a in commit))


@pytest.fixture(scope="module")
def materialized(tmp_path_factory):
    root = tmp_path_factory.mktemp("materialized") / "table"
    _write_materialized_table(root)
    return root


def _partitioned_rows(t):
    return sorted(zip(t.column("id").to_pylist(), t.column("value").to_pylist(),
                      (str(v) for v in t.column("part").to_pylist())))


def test_delta_reader_reads_materialized_partitions(materialized):
    import deltalake

    assert _partitioned_rows(deltalake.DeltaTable(str(materialized)).to_pyarrow_table()) == PARTITIONED_EXPECTED


def _pyarrow_hive(d):
    import pyarrow.dataset as ds

    return ds.dataset(d, format="parquet", partitioning="hive").to_table()


def _duckdb_hive(d):
    import duckdb

    con = duckdb.connect()
    try:
        return con.sql("SELECT * FROM read_parquet($glob, hive_partitioning=true)",
                       params={"glob": f"{d}/*/*.parquet"}).to_arrow_table()
    finally:
        con.close()


def _polars_hive(d):
    import polars as pl

    return pl.scan_parquet(f"{d}/*/*.parquet", hive_partitioning=True).collect().to_arrow()


@pytest.mark.parametrize("read", [_pyarrow_hive, _pandas, _duckdb_hive, _polars_hive],
                         ids=["pyarrow", "pandas", "duckdb", "polars"])
def test_materialized_partition_column_served_once(mount, materialized, read):
    import pyarrow.parquet as pq

    latest = mount(materialized, "--refresh=-1s") / "latest"
    for part in ("a", "b"):
        served = latest / f"part={part}" / "data.parquet"
        assert pq.read_schema(served).names == ["id", "value"]
        stored = materialized / f"part={part}" / "data.parquet"
        assert served.stat().st_size == stored.stat().st_size == len(served.read_bytes())
    assert _partitioned_rows(read(latest)) == PARTITIONED_EXPECTED
