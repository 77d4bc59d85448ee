"""Partition columns with unusual names read back through the mount.

The folder of a partition column is `<name>=<value>/`. Every reader decodes
the value; only pyarrow decodes the name (DuckDB and Polars take it as it
stands). So deltafs escapes in a name only what some reader misreads
unescaped: `%`, `/`, `=`, `\\`, `?`, control characters, and a leading `_` or
`.`, which pyarrow would take for a hidden folder and skip with every file in
it. A name with `#`, `:`, `*`, quotes, brackets or spaces stays as it is and
every reader gets it right.
"""

from __future__ import annotations

import pytest

PLAIN = ["p#h", "a b:c*'[x]"]     # names that stay as they are
ESCAPED = {"_u": "%5Fu", "p%q": "p%25q"}  # names escaped, as DuckDB and Polars see them
VALUES = ["x#1", "a/b=c%", "_y"]


def _write_table(root):
    import pyarrow as pa
    from deltalake import write_deltalake

    n = len(VALUES)
    cols = {"id": pa.array(range(n), pa.int64())}
    for i, name in enumerate(PLAIN + list(ESCAPED)):
        cols[name] = pa.array([VALUES[(r + i) % n] for r in range(n)])
    table = pa.table(cols)
    write_deltalake(str(root), table, partition_by=PLAIN + list(ESCAPED))
    return table


def _rows(columns: dict, names: list[str]) -> list[tuple]:
    return sorted(zip(*(columns[n] for n in names)))


def test_partition_column_names_through_mount(mount, tmp_path):
    pytest.importorskip("deltalake")
    import duckdb
    import polars as pl
    import pyarrow.dataset as ds

    table = _write_table(tmp_path / "t")
    want = {n: [str(v) for v in table.column(n).to_pylist()] for n in table.column_names}
    want["id"] = table.column("id").to_pylist()
    folder = str(mount(tmp_path / "t") / "v" / "0")

    names = ["id"] + PLAIN + list(ESCAPED)
    got = ds.dataset(folder, format="parquet", partitioning="hive").to_table()
    assert sorted(got.column_names) == sorted(names)
    assert _rows({n: got.column(n).to_pylist() for n in names}, names) == _rows(want, names)

    seen = ["id"] + PLAIN + list(ESCAPED.values())
    rel = duckdb.sql(f"select * from read_parquet('{folder}/**/*.parquet', hive_partitioning=true)")
    assert sorted(rel.columns) == sorted(seen)
    rows = rel.fetchall()
    columns = {c: [r[i] for r in rows] for i, c in enumerate(rel.columns)}
    for name, shown in ESCAPED.items():
        columns[name] = columns.pop(shown)
    assert _rows(columns, names) == _rows(want, names)

    df = pl.read_parquet(folder + "/", hive_partitioning=True)
    assert sorted(df.columns) == sorted(seen)
    columns = {c: [str(v) if c != "id" else v for v in df[c].to_list()] for c in df.columns}
    for name, shown in ESCAPED.items():
        columns[name] = columns.pop(shown)
    assert _rows(columns, names) == _rows(want, names)
