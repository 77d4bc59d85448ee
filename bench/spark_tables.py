#!/usr/bin/env python3
"""Write Delta tables with Delta on Spark, each exercising features together, for
bench/spark_crosscheck.py to check through a mount (held out from the shared tables).

    .venv/bin/python bench/spark_tables.py OUT_DIR [--only NAME]
    .venv/bin/python bench/spark_crosscheck.py --all-versions OUT_DIR/*

Each table is written into OUT_DIR/<name> from scratch (an existing one is removed).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from spark_crosscheck import spark_session  # noqa: E402


def mapped_with_vectors(spark, t):
    """Column mapping by name, deletion vectors, renamed, dropped and added columns,
    partition values with characters paths escape, checkpoints every 3 commits."""
    spark.sql(f"""CREATE TABLE delta.`{t}` (id BIGINT, `weird name` STRING, `p/art` STRING, score DOUBLE)
        USING delta PARTITIONED BY (`p/art`)
        TBLPROPERTIES ('delta.columnMapping.mode'='name', 'delta.enableDeletionVectors'='true',
                       'delta.checkpointInterval'='3', 'delta.minReaderVersion'='3', 'delta.minWriterVersion'='7')""")
    spark.sql(f"""INSERT INTO delta.`{t}` SELECT id, concat('n', id), CASE id % 4 WHEN 0 THEN 'a b' WHEN 1 THEN 'x=y%z'
        WHEN 2 THEN NULL ELSE 'é/ü' END, id * 1.5 FROM range(0, 400)""")
    spark.sql(f"DELETE FROM delta.`{t}` WHERE id % 7 = 0")
    spark.sql(f"ALTER TABLE delta.`{t}` RENAME COLUMN `weird name` TO label")
    spark.sql(f"UPDATE delta.`{t}` SET score = -score WHERE id % 5 = 0")
    spark.sql(f"ALTER TABLE delta.`{t}` ADD COLUMNS (extra STRUCT<a: INT, b: ARRAY<STRING>>)")
    spark.sql(f"""INSERT INTO delta.`{t}` (id, label, `p/art`, score, extra)
        SELECT id, 'late', 'a b', 0.0, named_struct('a', CAST(id AS INT), 'b', array('u', CAST(id AS STRING)))
        FROM range(400, 450)""")
    spark.sql(f"ALTER TABLE delta.`{t}` DROP COLUMN score")
    spark.sql(f"DELETE FROM delta.`{t}` WHERE id % 11 = 0")
    spark.sql(f"""MERGE INTO delta.`{t}` d USING (SELECT id, concat('m', id) AS label FROM range(300, 460, 3)) s
        ON d.id = s.id WHEN MATCHED THEN UPDATE SET d.label = s.label
        WHEN NOT MATCHED THEN INSERT (id, label, `p/art`) VALUES (s.id, s.label, 'new')""")
    spark.sql(f"OPTIMIZE delta.`{t}`")
    spark.sql(f"DELETE FROM delta.`{t}` WHERE id < 20")


def widened(spark, t):
    """Type widening: byte, short and int to wider integers, float to double, decimal
    precision, date to timestamp_ntz; rows written before and after each change."""
    spark.sql(f"""CREATE TABLE delta.`{t}` (b BYTE, s SHORT, i INT, f FLOAT, d DECIMAL(5,2), dt DATE)
        USING delta TBLPROPERTIES ('delta.enableTypeWidening'='true', 'delta.enableDeletionVectors'='true',
                       'delta.feature.timestampNtz'='supported')""")
    spark.sql(f"""INSERT INTO delta.`{t}` SELECT CAST(id AS BYTE), CAST(id * 100 AS SHORT), CAST(id * 1000 AS INT),
        CAST(id / 3 AS FLOAT), CAST(id / 7 AS DECIMAL(5,2)), date_add(DATE'2020-02-27', CAST(id AS INT)) FROM range(0, 100)""")
    for stmt in ("ALTER COLUMN b TYPE SHORT", "ALTER COLUMN s TYPE INT", "ALTER COLUMN i TYPE BIGINT",
                 "ALTER COLUMN f TYPE DOUBLE", "ALTER COLUMN d TYPE DECIMAL(12,4)", "ALTER COLUMN dt TYPE TIMESTAMP_NTZ"):
        spark.sql(f"ALTER TABLE delta.`{t}` {stmt}")
    spark.sql(f"""INSERT INTO delta.`{t}` SELECT CAST(id * 200 AS SHORT), id * 100000, id * 10000000000,
        id / 3, CAST(id / 7 AS DECIMAL(12,4)), TIMESTAMP_NTZ'2021-01-01 12:34:56' FROM range(100, 150)""")
    spark.sql(f"DELETE FROM delta.`{t}` WHERE b % 9 = 0")


def nested_widened(spark, t):
    """Type widening inside a struct, an array's elements and a map's keys and values,
    under column mapping, with in-commit timestamps; a rename after the changes."""
    spark.sql(f"""CREATE TABLE delta.`{t}` (id INT, s STRUCT<x: SHORT, y: FLOAT>, a ARRAY<INT>, m MAP<INT, BYTE>)
        USING delta TBLPROPERTIES ('delta.enableTypeWidening'='true', 'delta.enableDeletionVectors'='true',
            'delta.columnMapping.mode'='name', 'delta.enableInCommitTimestamps'='true')""")
    spark.sql(f"""INSERT INTO delta.`{t}` SELECT CAST(id AS INT), named_struct('x', CAST(id AS SHORT), 'y', CAST(id / 3 AS FLOAT)),
        array(CAST(id AS INT), NULL), map(CAST(id AS INT), CAST(id % 100 AS BYTE)) FROM range(0, 50)""")
    for stmt in ("ALTER COLUMN s.x TYPE INT", "ALTER COLUMN s.y TYPE DOUBLE", "ALTER COLUMN a.element TYPE BIGINT",
                 "ALTER COLUMN m.key TYPE BIGINT", "ALTER COLUMN m.value TYPE INT", "ALTER COLUMN id TYPE BIGINT"):
        spark.sql(f"ALTER TABLE delta.`{t}` {stmt}")
    spark.sql(f"DELETE FROM delta.`{t}` WHERE id % 7 = 0")
    spark.sql(f"""INSERT INTO delta.`{t}` SELECT id * 100000000000, named_struct('x', CAST(id * 100000 AS INT), 'y', id / 3.0),
        array(id * 10000000000), map(id * 10000000000, CAST(id * 1000 AS INT)) FROM range(50, 60)""")
    spark.sql(f"ALTER TABLE delta.`{t}` RENAME COLUMN s TO t2")
    spark.sql(f"UPDATE delta.`{t}` SET id = -id WHERE id % 5 = 1")


def nested_added(spark, t):
    """Fields added inside a struct, a list's element struct and a map's value struct
    (older files lack them: served as nulls), then one dropped and one renamed."""
    spark.sql(f"""CREATE TABLE delta.`{t}` (id BIGINT, s STRUCT<a: INT, b: STRING>, l ARRAY<STRUCT<x: INT>>,
        m MAP<STRING, STRUCT<q: INT>>) USING delta TBLPROPERTIES ('delta.columnMapping.mode'='name')""")
    spark.sql(f"""INSERT INTO delta.`{t}` SELECT id, named_struct('a', CAST(id AS INT), 'b', 'x'), array(named_struct('x', 1)),
        map('k', named_struct('q', 2)) FROM range(0, 10)""")
    spark.sql(f"ALTER TABLE delta.`{t}` ADD COLUMNS (s.c DOUBLE, l.element.y STRING, m.value.r BOOLEAN, top DATE)")
    spark.sql(f"""INSERT INTO delta.`{t}` SELECT id, named_struct('a', 1, 'b', 'y', 'c', id / 2), array(named_struct('x', 3, 'y', 'z')),
        map('k', named_struct('q', 4, 'r', true)), DATE'2024-01-01' FROM range(10, 15)""")
    spark.sql(f"ALTER TABLE delta.`{t}` DROP COLUMN s.b")
    spark.sql(f"ALTER TABLE delta.`{t}` RENAME COLUMN s.a TO aa")


def typed_partitions(spark, t):
    """Partitions of every type a folder name can hold, nulls among them."""
    spark.sql(f"""CREATE TABLE delta.`{t}` (v BIGINT, pd DATE, pts TIMESTAMP, pdec DECIMAL(9,3), pb BOOLEAN, pi INT, ps STRING)
        USING delta PARTITIONED BY (pd, pts, pdec, pb, pi, ps)""")
    spark.sql(f"""INSERT INTO delta.`{t}` SELECT id,
        CASE WHEN id % 5 = 0 THEN NULL ELSE date_add(DATE'1999-12-30', CAST(id % 3 AS INT)) END,
        CASE WHEN id % 6 = 0 THEN NULL ELSE TIMESTAMP'2024-03-10 01:30:00.123456' + make_interval(0, 0, 0, 0, CAST(id % 2 AS INT)) END,
        CASE WHEN id % 4 = 0 THEN NULL ELSE CAST(-1.5 + id % 3 AS DECIMAL(9,3)) END,
        CASE WHEN id % 7 = 0 THEN NULL ELSE id % 2 = 0 END,
        CASE WHEN id % 8 = 0 THEN NULL ELSE CAST(id % 3 - 1 AS INT) END,
        CASE id % 5 WHEN 0 THEN NULL WHEN 1 THEN '' WHEN 2 THEN 'a:b' WHEN 3 THEN '_hidden' ELSE '%2F' END
        FROM range(0, 120)""")
    spark.sql(f"DELETE FROM delta.`{t}` WHERE v % 10 = 3")


def nested_by_id(spark, t):
    """Column mapping by id over nested structs, arrays and maps, deletion vectors,
    a v2 checkpoint with sidecars, row tracking and in-commit timestamps."""
    spark.sql(f"""CREATE TABLE delta.`{t}` (id BIGINT,
        s STRUCT<x: INT, inner: STRUCT<y: STRING, z: ARRAY<INT>>>, m MAP<STRING, STRUCT<q: DOUBLE>>,
        a ARRAY<STRUCT<k: STRING, v: BIGINT>>, ntz TIMESTAMP_NTZ, ts TIMESTAMP)
        USING delta TBLPROPERTIES ('delta.columnMapping.mode'='id', 'delta.enableDeletionVectors'='true',
            'delta.checkpointPolicy'='v2', 'delta.checkpointInterval'='2', 'delta.enableRowTracking'='true',
            'delta.enableInCommitTimestamps'='true', 'delta.feature.timestampNtz'='supported')""")
    for lo in (0, 50, 100):
        spark.sql(f"""INSERT INTO delta.`{t}` SELECT id,
            named_struct('x', CAST(id AS INT), 'inner', named_struct('y', CAST(id AS STRING), 'z', array(CAST(id AS INT), NULL))),
            map(concat('k', id), named_struct('q', id / 2.0)),
            CASE WHEN id % 3 = 0 THEN NULL ELSE array(named_struct('k', 'a', 'v', id), named_struct('k', NULL, 'v', NULL)) END,
            TIMESTAMP_NTZ'1900-01-01 00:00:00' + make_interval(0, 0, 0, CAST(id AS INT)),
            TIMESTAMP'9999-12-31 23:59:59.999999' - make_interval(0, 0, 0, CAST(id AS INT))
            FROM range({lo}, {lo + 50})""")
    spark.sql(f"ALTER TABLE delta.`{t}` RENAME COLUMN s.inner.y TO why")
    spark.sql(f"DELETE FROM delta.`{t}` WHERE id % 4 = 1")
    spark.sql(f"ALTER TABLE delta.`{t}` DROP COLUMN m")
    spark.sql(f"UPDATE delta.`{t}` SET ts = NULL WHERE id % 9 = 0")


def variants(spark, t):
    """A variant column, with change data feed on."""
    spark.sql(f"""CREATE TABLE delta.`{t}` (id BIGINT, v VARIANT) USING delta
        TBLPROPERTIES ('delta.enableChangeDataFeed'='true', 'delta.enableDeletionVectors'='true')""")
    spark.sql(f"""INSERT INTO delta.`{t}` SELECT id, parse_json(concat('{{"a":', id, ',"b":[1,"two",null],"c":{{"d":',
        id / 4, '}}}}')) FROM range(0, 60)""")
    spark.sql(f"DELETE FROM delta.`{t}` WHERE id % 6 = 0")
    spark.sql(f"UPDATE delta.`{t}` SET v = parse_json('\"replaced\"') WHERE id % 10 = 1")


def shredded(spark, t):
    """Variants stored shredded (Spark 4.1 and later with Delta 4.3 and later: older
    ones write them whole), in a column-mapped table with deletion vectors: a typed
    column per object field a file's variants share, renamed and moved by the mapping."""
    spark.sql(f"""CREATE TABLE delta.`{t}` (id BIGINT, v VARIANT, s STRUCT<tag: STRING, w: VARIANT>)
        USING delta TBLPROPERTIES ('delta.enableVariantShredding'='true', 'delta.columnMapping.mode'='name',
            'delta.enableDeletionVectors'='true')""")
    spark.sql(f"""INSERT INTO delta.`{t}` SELECT id, parse_json(CASE WHEN id % 9 = 0 THEN '[1, 2]'
        WHEN id % 13 = 0 THEN concat('"s', id, '"') ELSE concat('{{"a":', id, ',"b":"x', id, '","c":{{"d":', id / 4, '}}}}') END),
        named_struct('tag', concat('t', id), 'w', parse_json(concat('{{"k":', id % 3, '}}'))) FROM range(0, 80)""")
    spark.sql(f"ALTER TABLE delta.`{t}` RENAME COLUMN v TO payload")
    spark.sql(f"DELETE FROM delta.`{t}` WHERE id % 5 = 2")
    spark.sql(f"""INSERT INTO delta.`{t}` SELECT id, parse_json(concat('{{"a":"text', id, '","z":true}}')),
        NULL FROM range(80, 100)""")
    spark.sql(f"UPDATE delta.`{t}` SET payload = parse_json('null') WHERE id % 7 = 3")


def shallow_clone(spark, t):
    """A shallow clone (its log names the source's files by absolute URIs; the check
    mounts it with the --allow-external the mount names), deletes and inserts in it."""
    src = t.with_name(t.name + "_source")
    shutil.rmtree(src, ignore_errors=True)
    spark.sql(f"""CREATE TABLE delta.`{src}` (id BIGINT, p STRING) USING delta PARTITIONED BY (p)
        TBLPROPERTIES ('delta.enableDeletionVectors'='true')""")
    spark.sql(f"INSERT INTO delta.`{src}` SELECT id, CAST(id % 2 AS STRING) FROM range(0, 20)")
    spark.sql(f"CREATE TABLE delta.`{t}` SHALLOW CLONE delta.`{src}`")
    spark.sql(f"DELETE FROM delta.`{t}` WHERE id < 5")
    spark.sql(f"INSERT INTO delta.`{t}` SELECT id, 'c' FROM range(100, 105)")


def rewritten(spark, t):
    """A clustered layout, a restore, overwrites, the last with another schema."""
    spark.sql(f"CREATE TABLE delta.`{t}` (k INT, v STRING) USING delta CLUSTER BY (k)")
    spark.sql(f"INSERT INTO delta.`{t}` SELECT CAST(id AS INT), CAST(id AS STRING) FROM range(0, 30)")
    spark.sql(f"INSERT INTO delta.`{t}` SELECT CAST(id AS INT), 'second' FROM range(30, 60)")
    spark.sql(f"OPTIMIZE delta.`{t}`")
    spark.sql(f"RESTORE TABLE delta.`{t}` TO VERSION AS OF 1")
    spark.sql(f"""INSERT OVERWRITE delta.`{t}` SELECT CAST(id AS INT), concat('o', id) FROM range(0, 10)""")
    (spark.sql("SELECT id AS k, id / 3 AS w, CAST(NULL AS STRING) AS extra FROM range(0, 5)")
     .write.format("delta").mode("overwrite").option("overwriteSchema", "true").save(str(t)))


TABLES = {f.__name__: f for f in (mapped_with_vectors, widened, nested_widened, nested_added, typed_partitions, nested_by_id, variants, shredded, shallow_clone, rewritten)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--only", choices=sorted(TABLES))
    args = ap.parse_args(argv)
    spark = spark_session()
    for name, write in TABLES.items():
        if args.only and name != args.only:
            continue
        t = (args.out / name).resolve()
        shutil.rmtree(t, ignore_errors=True)
        write(spark, t)
        print(t, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
