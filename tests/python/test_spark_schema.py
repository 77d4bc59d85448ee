"""Spark's plain Parquet reader sees a mounted file's columns with the table's types.

Spark keeps the schema it wrote in each file's footer (org.apache.spark.sql.parquet.row.metadata)
and its reader takes a file's schema from there before the Parquet schema. A variant column
is stored as a struct of two binaries: only that entry makes it a variant again. Where the
mount rewrites a footer (column mapping's names, columns outside the schema, widened types)
the stored entry would name what the file no longer serves; the mount writes it again from
the table's schema. Here a change data feed table whose file holds Spark's null
`_change_type` beside a variant column: the file is written by Spark's own Parquet writer,
the log by hand.
"""

from __future__ import annotations

import json

import pytest

SPARK_SCHEMA_KEY = b"org.apache.spark.sql.parquet.row.metadata"


# As Spark 4.0 writes a variant (4.1 and later annotate it in the Parquet schema, and may
# shred it): a plain struct of two binaries, its type only in Spark's schema entry.
AS_SPARK_4_0 = {"spark.sql.parquet.variant.annotateLogicalType.enabled": "false",
                "spark.sql.variant.writeShredding.enabled": "false"}


def _write_table(spark, root):
    root.mkdir()
    (root / "_delta_log").mkdir()
    staging = root.parent / "staging"
    before = {k: spark.conf.get(k, None) for k in AS_SPARK_4_0}
    for k, v in AS_SPARK_4_0.items():
        spark.conf.set(k, v)
    try:
        (spark.sql("""SELECT id, parse_json(concat('{"a":', id, ',"b":[1,"two",null]}')) AS v,
                      CAST(NULL AS STRING) AS _change_type FROM range(0, 6)""")
         .coalesce(1).write.parquet(str(staging)))
    finally:
        for k, v in before.items():
            if v is None:
                spark.conf.unset(k)
            else:
                spark.conf.set(k, v)
    [stored] = staging.glob("part-*.parquet")
    stored.rename(root / "part-0.parquet")
    schema = {"type": "struct", "fields": [
        {"name": "id", "type": "long", "nullable": True, "metadata": {}},
        {"name": "v", "type": "variant", "nullable": True, "metadata": {}}]}
    actions = [
        {"protocol": {"minReaderVersion": 3, "minWriterVersion": 7, "readerFeatures": ["variantType"],
                      "writerFeatures": ["variantType", "changeDataFeed"]}},
        {"metaData": {"id": "variant-cdf", "format": {"provider": "parquet", "options": {}},
                      "schemaString": json.dumps(schema), "partitionColumns": [],
                      "configuration": {"delta.enableChangeDataFeed": "true"}, "createdTime": 1700000000000}},
        {"add": {"path": "part-0.parquet", "partitionValues": {}, "size": (root / "part-0.parquet").stat().st_size,
                 "modificationTime": 1700000000000, "dataChange": True}},
    ]
    (root / "_delta_log" / f"{0:020d}.json").write_text("".join(json.dumps(a) + "\n" for a in actions))


@pytest.fixture(scope="module")
def table(spark, tmp_path_factory):
    root = tmp_path_factory.mktemp("variant-cdf") / "table"
    _write_table(spark, root)
    return root


def test_footer_keeps_sparks_schema(mount, table):
    import pyarrow.parquet as pq

    assert "Variant" not in str(pq.read_metadata(table / "part-0.parquet").schema), "written as Spark 4.1 writes"
    served = mount(table) / "latest" / "part-0.parquet"
    stored = json.loads(pq.read_metadata(table / "part-0.parquet").metadata[SPARK_SCHEMA_KEY])
    assert [f["name"] for f in stored["fields"]] == ["id", "v", "_change_type"]
    entry = pq.read_metadata(served).metadata.get(SPARK_SCHEMA_KEY)
    assert entry is not None, "the served footer lost Spark's schema"
    assert [(f["name"], f["type"]) for f in json.loads(entry)["fields"]] == [("id", "long"), ("v", "variant")]
    assert served.stat().st_size == (table / "part-0.parquet").stat().st_size


def test_spark_reads_the_variant(mount, table, spark):
    served = spark.read.parquet(str(mount(table) / "latest"))
    assert [(f.name, f.dataType.simpleString()) for f in served.schema.fields] == [("id", "bigint"), ("v", "variant")]
    stored = spark.read.parquet(str(table / "part-0.parquet"))

    def rows(df):
        return sorted(r[0] for r in df.selectExpr("to_json(named_struct('id', id, 'v', v))").collect())

    assert rows(served) == rows(stored)
