"""A type-widened table reads through the mount as a Delta reader reads it.

delta-kernel-rs's `type-widening` table widened every column at version 2 (byte and int
to long and double, float to double, decimals to wider decimals, date to timestamp_ntz);
its file written before the change stores the narrow types. Through the mount every
file of v/2 has the table's types, its old values converted, so each plain reader gets
the same rows whatever file it meets first (Polars refused the folder, and pyarrow or
DuckDB would take the narrow types from whichever file sorted first). v/1, before the
change, is served as stored.
"""

from __future__ import annotations

import datetime
from decimal import Decimal

import pytest

TABLE = "delta-kernel-rs/data/type-widening"

WIDE_TYPES = {
    "byte_long": "int64", "int_long": "int64",
    "float_double": "double", "byte_double": "double", "short_double": "double", "int_double": "double",
    "decimal_decimal_same_scale": "decimal128(20, 2)", "decimal_decimal_greater_scale": "decimal128(20, 5)",
    "byte_decimal": "decimal128(4, 1)", "short_decimal": "decimal128(6, 1)",
    "int_decimal": "decimal128(11, 1)", "long_decimal": "decimal128(21, 1)",
    "date_timestamp_ntz": "timestamp[us]",
}

BIG = 9223372036854775807
EXPECTED = sorted([
    # written at version 2, in the wide types
    (BIG, BIG, 1.234567890123, 1.234567890123, 1.234567890123, 1.234567890123,
     Decimal("12345678901234.56"), Decimal("12345678901.23456"), Decimal("123.4"), Decimal("12345.6"),
     Decimal("1234567890.1"), Decimal("123456789012345678.9"), datetime.datetime(2024, 9, 9, 12, 34, 56, 123456)),
    # written at version 0, before the change: converted as a Delta reader converts
    (1, 2, 3.4000000953674316, 5.0, 6.0, 7.0,
     Decimal("123.45"), Decimal("67.89000"), Decimal("1.0"), Decimal("2.0"),
     Decimal("3.0"), Decimal("4.0"), datetime.datetime(2024, 9, 9)),
], key=repr)


def _rows(records):
    return sorted((tuple(r[c] for c in WIDE_TYPES) for r in records), key=repr)


@pytest.fixture
def widened(mount, testdata):
    return mount(testdata / TABLE, "--refresh=-1s")


def test_every_file_has_the_table_types(widened):
    import pyarrow.parquet as pq

    files = sorted((widened / "v" / "2").glob("*.parquet"))
    assert len(files) == 2
    for f in files:
        schema = pq.read_schema(f)
        assert {n: str(schema.field(n).type) for n in WIDE_TYPES} == WIDE_TYPES, f.name
        assert f.stat().st_size == len(f.read_bytes()), f"{f.name}: stat size is not the bytes served"


@pytest.mark.parametrize("reader", ["pyarrow", "pandas", "duckdb", "polars"])
def test_readers_see_the_widened_rows(widened, reader):
    vdir = widened / "v" / "2"
    if reader == "pyarrow":
        import pyarrow.parquet as pq
        records = pq.read_table(vdir).to_pylist()
    elif reader == "pandas":
        import pandas as pd
        records = [{c: (v.to_pydatetime() if hasattr(v, "to_pydatetime") else v) for c, v in r.items()}
                   for r in pd.read_parquet(vdir).to_dict("records")]
    elif reader == "duckdb":
        import duckdb
        records = duckdb.sql(f"SELECT * FROM read_parquet('{vdir}/*.parquet')").to_arrow_table().to_pylist()
    else:
        import polars as pl
        records = pl.read_parquet(f"{vdir}/*.parquet").to_dicts()
    assert _rows(records) == EXPECTED


def test_before_the_change_files_are_served_as_stored(widened, testdata):
    import pyarrow.parquet as pq

    (served,) = (widened / "v" / "1").glob("*.parquet")
    stored = testdata / TABLE / served.name
    assert served.read_bytes() == stored.read_bytes()
    assert str(pq.read_schema(served).field("byte_long").type) == "int8"
