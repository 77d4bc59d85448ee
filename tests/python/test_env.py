"""Sanity checks of the test venv itself: the readers import and interoperate.

If these fail, the end-to-end tests' failures say nothing about deltafs.
"""

import importlib

import pytest

READERS = ["pyarrow", "pyarrow.parquet", "duckdb", "pandas", "polars", "deltalake", "pyspark"]


@pytest.mark.parametrize("module", READERS)
def test_reader_imports(module):
    mod = importlib.import_module(module)
    root = importlib.import_module(module.split(".")[0])
    assert getattr(root, "__version__", None), f"{module} has no __version__"
    assert mod is not None


def test_duckdb_reads_parquet_written_by_pyarrow(tmp_path):
    import duckdb
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({
        "id": pa.array([1, 2, 3, 4], pa.int64()),
        "name": pa.array(["a", "b", None, "d"]),
        "part": pa.array(["x", "x", "y", "y"]),
    })
    path = tmp_path / "sample.parquet"
    # Two row groups, so the reader has to follow the footer, not just the first group.
    pq.write_table(table, path, row_group_size=2)
    assert pq.ParquetFile(path).metadata.num_row_groups == 2

    con = duckdb.connect()
    try:
        rows = con.execute(
            "SELECT id, name, part FROM read_parquet(?) ORDER BY id", [str(path)]
        ).fetchall()
        total = con.execute("SELECT count(*), sum(id) FROM read_parquet(?)", [str(path)]).fetchone()
    finally:
        con.close()

    assert rows == [(1, "a", "x"), (2, "b", "x"), (3, None, "y"), (4, "d", "y")]
    assert total == (4, 10)
