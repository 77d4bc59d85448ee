#!/usr/bin/env python3
"""Read each table version twice with Spark and compare the rows.

    .venv/bin/pip install -r bench/requirements-spark.txt
    .venv/bin/python bench/spark_crosscheck.py [--all-versions] [--testdata DIR] [--only SUBSTRING]
    .venv/bin/python bench/spark_crosscheck.py [--all-versions] TABLE_DIR...

The tables are the shared ones (inventory.jsonl under --testdata), or those named (held
out: tables Spark wrote here, say). Each is read once as Delta on Spark reads it
(spark.read.format("delta"); versionAsOf under --all-versions), once as Spark's plain
Parquet reader reads `latest/` (or each `v/<N>`) of a `deltafs mount` of it, partition
values as strings cast to the table's types. Rows are compared as multisets of their
JSON text (every column of the table, in its order). One line per table (or version):
`same`, `differs` (counts, a few rows of each side), `delta-spark refuses` (its error:
no evidence either way), `mount failed`, or `skipped` (data files absent from the
shared copy, or more rows than --max-rows).

Run by hand, not by `make test`: delta-spark fetches its jars from Maven at first use.
Where Maven serves no Delta jar for the venv's Spark, a venv of pyspark==4.0.1 and
delta-spark==4.0.1, or of pyspark==4.1.1 and delta-spark==4.3.1, does the same.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def spark_session():
    from delta import configure_spark_with_delta_pip
    from pyspark.sql import SparkSession

    builder = (SparkSession.builder.master("local[2]")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.databricks.delta.snapshotPartitions", "2")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
               # Two jars Delta 4.3 names that Maven may not serve; pyspark ships both.
               .config("spark.jars.excludes", "org.slf4j:slf4j-api,com.google.code.findbugs:jsr305")
               .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
               .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog"))
    spark = configure_spark_with_delta_pip(builder).getOrCreate()
    spark.sparkContext.setLogLevel("OFF")
    return spark


class Mount:
    """`deltafs mount TABLE DIR` in the background, ready when latest/ lists."""

    def __init__(self, table: Path, flags: tuple[str, ...] = ()):
        self.dir = Path(tempfile.mkdtemp(prefix="deltafs-crosscheck-"))
        self.log = open(self.dir.with_suffix(".log"), "w")
        self.proc = subprocess.Popen([str(REPO / "bin" / "deltafs"), "mount", *flags, str(table), str(self.dir)],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(600):
            if self.proc.poll() is not None:
                raise RuntimeError(f"deltafs mount exited {self.proc.returncode}: see {self.log.name}")
            if (self.dir / "latest").exists():
                return
            time.sleep(0.1)
        raise RuntimeError("deltafs mount not ready after a minute")

    def allow_external(self) -> tuple[str, ...]:
        """The --allow-external the mount says shows files of the table's latest version
        that lie outside it (a shallow clone's source), if it says so."""
        log = Path(self.log.name)
        for _ in range(50):  # its note is queued before the ready line, written by its log's goroutine
            if "ready:" in log.read_text():
                break
            time.sleep(0.1)
        time.sleep(0.2)
        found = re.search(r"mount with --allow-external (\S+) to show them", log.read_text())
        return ("--allow-external", found.group(1)) if found else ()

    def close(self):
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(60)
        self.log.close()
        os.rmdir(self.dir)
        os.remove(self.log.name)


def as_json(df, schema):
    """Each row of df as the JSON text of the table's columns, cast to the table's types."""
    from pyspark.sql import functions as F

    cols = []
    for f in schema.fields:
        c = F.col("`" + f.name.replace("`", "``") + "`")
        if df.schema[f.name].dataType.simpleString() != f.dataType.simpleString():  # nullability aside
            c = c.cast(f.dataType)
        cols.append(c.alias(f.name))
    return df.select(F.to_json(F.struct(*cols)).alias("row"))


class DeltaRefuses(Exception):
    """Delta on Spark could not read the table: no evidence either way."""


def first_line(e: Exception) -> str:
    """The line of e that says what went wrong (a Java exception's, not py4j's)."""
    lines = str(e).strip().splitlines()
    if not lines:
        return type(e).__name__
    said = next((ln for ln in lines if "Exception:" in ln or "Error:" in ln), lines[0])
    return said.strip()[:300]


def compare(spark, table: Path, served_dir: Path, version: int | None) -> str:
    """Delta on Spark's rows of version (None: the latest) against those of served_dir."""
    try:
        reader = spark.read.format("delta")
        if version is not None:
            reader = reader.option("versionAsOf", version)
        delta = reader.load(str(table))
        n = delta.count()
    except Exception as e:  # noqa: BLE001 - any refusal
        raise DeltaRefuses(first_line(e)) from e
    if not any(p.suffix == ".parquet" for p in served_dir.rglob("*")):
        return "same (no files, no rows)" if n == 0 else f"differs: no files through the mount, Delta reads {n} rows"
    served = spark.read.parquet(str(served_dir))
    missing = [f.name for f in delta.schema.fields if f.name not in served.columns]
    if missing:
        return f"differs: columns {missing} not served (served {served.columns})"
    a, b = as_json(delta, delta.schema), as_json(served, delta.schema)
    only_delta, only_mount = a.exceptAll(b), b.exceptAll(a)
    nd, nm = only_delta.count(), only_mount.count()
    if nd == 0 and nm == 0:
        return f"same ({n} rows)"
    show = lambda df: [r.row[:200] for r in df.limit(3).collect()]  # noqa: E731
    return (f"differs: {n} rows by Delta, {served.count()} through the mount; "
            f"{nd} only by Delta {show(only_delta)}, {nm} only through the mount {show(only_mount)}")


def check_table(spark, table: Path, all_versions: bool) -> list[tuple[str, str]]:
    """(version label, verdict) for latest/, or for every v/<N>, of a mount of table."""
    try:
        m = Mount(table)
        if flags := m.allow_external():  # a shallow clone: its source's files too
            m.close()
            m = Mount(table, flags)
    except RuntimeError as e:
        return [("", f"mount failed: {e}")]
    verdicts = []
    try:
        dirs = [(None, m.dir / "latest")]
        if all_versions:
            dirs = [(int(d.name), d) for d in sorted((m.dir / "v").iterdir(), key=lambda d: int(d.name))]
        for version, served_dir in dirs:
            label = "" if version is None else f"@v{version}"
            try:
                verdicts.append((label, compare(spark, table, served_dir, version)))
            except DeltaRefuses as e:
                verdicts.append((label, f"delta-spark refuses: {e}"))
            except Exception as e:  # noqa: BLE001 - reported per version
                verdicts.append((label, f"read through the mount failed: {first_line(e)}"))
    finally:
        m.close()
    return verdicts


def shared_tables(td: Path, only: str, max_rows: int):
    """(table path, reason to skip it or "") for the tables of inventory.jsonl."""
    for line in open(td / "inventory.jsonl"):
        inv = json.loads(line)
        if only not in inv["table"]:
            continue
        rows = (inv.get("latest") or {}).get("visible_rows") or 0
        skip = ""
        if inv.get("missing_data_files"):
            skip = "data files absent from the shared copy"
        elif rows > max_rows:
            skip = f"{rows} rows"
        yield td / inv["table"], skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tables", nargs="*", type=Path, help="table folders to check instead of the shared tables")
    ap.add_argument("--testdata", default=os.environ.get("DELTAFS_TESTDATA", str(REPO.parent / "shared" / "testdata")))
    ap.add_argument("--only", default="", help="shared tables whose path contains this")
    ap.add_argument("--max-rows", type=int, default=2_000_000)
    ap.add_argument("--all-versions", action="store_true", help="every version under v/, not only latest/")
    args = ap.parse_args(argv)
    td = Path(args.testdata)
    tables = [(t, "") for t in args.tables] or shared_tables(td, args.only, args.max_rows)
    spark = spark_session()
    counts: dict[str, int] = {}
    for table, skip in tables:
        name = str(table.relative_to(td)) if table.is_relative_to(td) else str(table)
        verdicts = [("", f"skipped: {skip}")] if skip else check_table(spark, table, args.all_versions)
        for label, verdict in verdicts:
            kind = verdict.split(":")[0].split(" (")[0]
            counts[kind] = counts.get(kind, 0) + 1
            print(f"{name}{label}: {verdict}", flush=True)
    print(json.dumps(counts), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
