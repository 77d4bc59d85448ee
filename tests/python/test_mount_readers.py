"""Plain Parquet readers on a real mount return exactly the rows a Delta reader returns.

For every DAT table (dat/reader_tests/generated/<t>/delta, expected rows per version in
expected/v<N>/table_content.parquet) and every delta-kernel-rs golden table with an
expected/ folder (the latest version's rows), `deltafs mount` the table and read v/<N>:
  - pyarrow: pyarrow.dataset over the directory, hive partitioning, partition
    columns read as strings;
  - DuckDB: read_parquet('v/<N>/**/*.parquet', hive_partitioning=true,
    hive_types_autocast=false, union_by_name=true);
  - Polars, on column-mapped tables: scan_parquet('v/<N>/**/*.parquet', hive_partitioning=True);
  - Spark: spark.read.parquet('v/<N>') with its defaults (the schema of one file, no
    mergeSchema: every file of a version is served with the version's columns),
    partition values as strings.
The rows are compared with expected exactly, as sorted multisets: every non-partition
column (the reader's values cast to the expected type), plus the partition columns
whose expected type prints as its directory value (strings, integers, booleans, dates,
decimals, UTF-8 binary), compared as strings (null = __HIVE_DEFAULT_PARTITION__).
DuckDB and Polars take a partition column's name as its folder spells it: a name the
mount escapes (a leading "_", as pyarrow skips such folders) is mapped back first.
Float and timestamp partition values are left out (the writer formats them its own
way: "1.0", or a local time), and the test id says so.

Column-mapped tables are read like any other: the mount serves their logical column
names. Skipped, with the reason in the test output: tables with deletion vectors (their
own tests: test_dv_tables.py) and tables whose data files are absent from the shared
copy.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

import pytest

HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"


def _testdata_dir() -> Path:
    from conftest import _testdata_path  # the fixture's resolution

    return _testdata_path()


@dataclass
class Case:
    label: str             # short name for the test id
    table: str             # path under testdata
    version: int
    expected: list[str]    # expected Parquet files, relative to testdata
    partition_columns: list[str] = field(default_factory=list)
    skip: str = ""         # reason, if the case cannot be checked
    column_mapping: str = ""  # "name" or "id" when the table maps its columns


def _inventory(td: Path) -> dict[str, dict]:
    out = {}
    with open(td / "inventory.jsonl", encoding="utf-8") as f:
        for line in f:
            it = json.loads(line)
            out[it["table"]] = it
    return out


def _skip_reason(it: dict | None) -> str:
    if it is None:
        return "not in inventory.jsonl"
    if it.get("dv_types"):
        return "deletion vectors: covered by test_dv_tables.py"
    if it.get("missing_data_files"):
        return f"{it['missing_data_files']} data files absent from the shared copy"
    return ""


def _cases() -> list[Case]:
    td = _testdata_dir()
    if not (td / "inventory.jsonl").is_file():
        return []
    inv = _inventory(td)
    cases = []
    for tdir in sorted((td / "dat/reader_tests/generated").glob("*/delta")):
        table = str(tdir.relative_to(td))
        it = inv.get(table)
        for vdir in sorted((tdir.parent / "expected").glob("v*")):
            meta = json.loads((vdir / "table_version_metadata.json").read_text())
            files = sorted(str(p.relative_to(td)) for p in vdir.glob("table_content*/**/*.parquet")) or \
                sorted(str(p.relative_to(td)) for p in vdir.glob("table_content*.parquet"))
            cases.append(Case(f"dat/{tdir.parent.name}", table, int(meta["version"]), files,
                              (it or {}).get("partition_columns") or [], _skip_reason(it),
                              (it or {}).get("column_mapping") or ""))
    for edir in sorted((td / "delta-kernel-rs/golden_data").glob("*/expected")):
        table = str((edir.parent / "delta").relative_to(td))
        it = inv.get(table)
        files = sorted(str(p.relative_to(td)) for p in edir.glob("*.parquet"))
        version = it["latest_version"] if it else -1
        cases.append(Case(f"golden/{edir.parent.name}", table, version, files,
                          (it or {}).get("partition_columns") or [], _skip_reason(it),
                          (it or {}).get("column_mapping") or ""))
    return cases


CASES = _cases()


# --- what is compared ----------------------------------------------------------------

def _comparable_partition(t) -> tuple[bool, str]:
    """Whether a partition column of expected type t can be compared as a string."""
    import pyarrow.types as pt

    if pt.is_string(t) or pt.is_large_string(t) or pt.is_integer(t) or pt.is_boolean(t) \
            or pt.is_date32(t) or pt.is_decimal(t) or pt.is_binary(t):
        return True, ""
    if pt.is_floating(t):
        return False, "float (written as 1.0, prints as 1)"
    if pt.is_timestamp(t):
        return False, "timestamp (written in the writer's time zone)"
    return False, str(t)


def _expected_table(td: Path, case: Case):
    import pyarrow as pa
    import pyarrow.parquet as pq

    tables = [pq.read_table(td / f) for f in case.expected]
    if not tables:
        return None
    return pa.concat_tables(tables, promote_options="default").replace_schema_metadata(None)


def _plan(expected, partition_columns):
    """(data columns, comparable partition columns, excluded partition columns with why)."""
    parts = [c for c in partition_columns if c in expected.column_names]
    data = [c for c in expected.column_names if c not in parts]
    cmp_parts, excluded = [], []
    for c in parts:
        ok, why = _comparable_partition(expected.schema.field(c).type)
        if ok:
            cmp_parts.append(c)
        else:
            excluded.append(f"{c}: {why}")
    return data, cmp_parts, excluded


def _describe(case: Case) -> str:
    """What the test compares, for its id (computed without a mount)."""
    if case.skip:
        return "SKIP " + case.skip.split(":")[0].split(" (")[0]
    try:
        expected = _expected_table(_testdata_dir(), case)
    except Exception as e:  # noqa: BLE001 - shown in the id; the test itself fails on it
        return f"expected unreadable ({type(e).__name__})"
    if expected is None:
        return "no expected files"
    data, cmp_parts, excluded = _plan(expected, case.partition_columns)
    s = f"{len(data)} data cols"
    if cmp_parts:
        s += f" + part {','.join(cmp_parts)} as str"
    if excluded:
        s += f" (part {','.join(x.split(':')[0] for x in excluded)} not compared)"
    return s


PARAMS = [
    pytest.param(case, reader, id=f"{case.label}@v{case.version}-{reader}-{_describe(case)}")
    for case in CASES
    # Polars too where the mount renames columns (the logical view).
    for reader in ("pyarrow", "duckdb", "spark") + (("polars",) if case.column_mapping in ("name", "id") else ())
] or [pytest.param(None, None, id="no-testdata")]


# --- reading through the mount --------------------------------------------------------

def _data_files(vdir: Path) -> list[Path]:
    return sorted(p for p in vdir.rglob("*.parquet") if p.is_file())


def _read_pyarrow(vdir: Path, partition_columns: list[str]):
    import pyarrow as pa
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    files = _data_files(vdir)
    # Files of one version may differ in schema (columns added later): read them
    # with the union of their schemas, missing columns as nulls.
    schema = pa.unify_schemas([pq.read_schema(f) for f in files], promote_options="permissive")
    present = [c for c in partition_columns
               if any(f"/{_folder_name(c)}=" in f"/{p.relative_to(vdir)}" for p in files)]
    part = ds.partitioning(pa.schema([(c, pa.string()) for c in present]), flavor="hive") if present else None
    for c in present:
        schema = schema.append(pa.field(c, pa.string()))
    # pyarrow's defaults: it skips folders starting with "_" or ".", so the mount
    # escapes such a partition column's name ("_2" as "%5F2").
    return ds.dataset(vdir, format="parquet", partitioning=part, schema=schema).to_table()


def _folder_name(column: str) -> str:
    """A partition column's name in its folders, as the mount escapes it: only
    where some reader misreads it unescaped (README, "The logical view")."""
    return "".join(f"%{ord(ch):02X}" if ord(ch) < 0x20 or ord(ch) == 0x7F or ch in "%/=\\?"
                   or (i == 0 and ch in "_.") else ch for i, ch in enumerate(column))


def _named_as_columns(table, partition_columns):
    """DuckDB and Polars take a folder's column name as it stands: a name the
    mount escaped comes back escaped, and is renamed here to compare."""
    back = {_folder_name(c): c for c in partition_columns if _folder_name(c) != c}
    return table.rename_columns([back.get(n, n) for n in table.column_names])


def _read_duckdb(vdir: Path):
    import duckdb

    con = duckdb.connect()
    try:
        return con.sql(
            "SELECT * FROM read_parquet($glob, hive_partitioning=true, hive_types_autocast=false, union_by_name=true)",
            params={"glob": f"{vdir}/**/*.parquet"},
        ).to_arrow_table()
    finally:
        con.close()


def _read_polars(vdir: Path):
    import polars as pl

    return pl.scan_parquet(f"{vdir}/**/*.parquet", hive_partitioning=True, missing_columns="insert",
                           extra_columns="ignore").collect().to_arrow()


def _read_spark(spark, vdir: Path):
    return spark.read.parquet(str(vdir)).toArrow()


# --- comparing ------------------------------------------------------------------------

def _norm(v):
    """A value as a hashable, orderable key part; NaN equals NaN."""
    if isinstance(v, float) and math.isnan(v):
        return ("nan",)
    if isinstance(v, dict):
        return tuple(sorted((k, _norm(x)) for k, x in v.items()))
    if isinstance(v, (list, tuple)):
        return tuple(_norm(x) for x in v)
    if isinstance(v, Decimal):
        return ("dec", str(v))
    return v


def _rows(table, columns):
    return sorted((tuple(_norm(r[c]) for c in columns) for r in table.select(columns).to_pylist()), key=repr)


def _compare(expected, actual, data, cmp_parts, where: str):
    import pyarrow as pa
    import pyarrow.compute as pc

    assert actual.num_rows == expected.num_rows, (
        f"{where}: {actual.num_rows} rows through the mount, expected {expected.num_rows}")
    missing = [c for c in data + cmp_parts if c not in actual.column_names]
    assert not missing, f"{where}: columns {missing} missing; the reader saw {actual.column_names}"

    cols_e, cols_a = [], []
    for c in data:
        e, a = expected.column(c), actual.column(c)
        if a.type != e.type:
            try:
                a = a.cast(e.type)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as err:
                pytest.fail(f"{where}: column {c}: the reader's {a.type} does not cast to the expected {e.type}: {err}")
        cols_e.append(e)
        cols_a.append(a)
    for c in cmp_parts:
        e = expected.column(c)
        e = e.cast(pa.string())
        a = actual.column(c).cast(pa.string())
        a = pc.if_else(pc.equal(a, HIVE_NULL), pa.scalar(None, pa.string()), a)
        cols_e.append(e)
        cols_a.append(a)
    names = data + cmp_parts
    te = pa.table(cols_e, names=names)
    ta = pa.table(cols_a, names=names)
    re_, ra = _rows(te, names), _rows(ta, names)
    if re_ != ra:
        only_e = [r for r in re_ if r not in ra][:5]
        only_a = [r for r in ra if r not in re_][:5]
        pytest.fail(f"{where}: rows differ on columns {names}\n"
                    f"  expected, not read: {only_e}\n  read, not expected: {only_a}")


@pytest.mark.parametrize("case,reader", PARAMS)
def test_mounted_version_reads_expected_rows(case: Case | None, reader: str | None, mount, testdata, request):
    if case is None:
        pytest.skip("no test data: nothing to compare")
    if case.skip:
        pytest.skip(f"{case.table}: {case.skip}")
    assert case.expected, f"{case.table}: no expected Parquet files"
    expected = _expected_table(testdata, case)
    data, cmp_parts, excluded = _plan(expected, case.partition_columns)

    mnt = mount(testdata / case.table)
    vdir = mnt / "v" / str(case.version)
    assert vdir.is_dir(), f"v/{case.version} missing; v/ holds {sorted(os.listdir(mnt / 'v'))}"
    files = _data_files(vdir)
    where = f"{case.table} v{case.version} via {reader}"
    if not files:
        assert expected.num_rows == 0, f"{where}: no data files, but {expected.num_rows} rows expected"
        return
    if reader == "pyarrow":
        actual = _read_pyarrow(vdir, case.partition_columns)
    elif reader == "polars":
        actual = _named_as_columns(_read_polars(vdir), case.partition_columns)
    elif reader == "spark":
        actual = _read_spark(request.getfixturevalue("spark"), vdir)
    else:
        actual = _named_as_columns(_read_duckdb(vdir), case.partition_columns)
    _compare(expected, actual, data, cmp_parts, where)
