"""Parquet files as pyarrow writes them, for TestDVViewsOfForeignEncodings.

    python foreign_parquet.py write DIR     writes the files under DIR/flat and DIR/nested,
                                            prints one JSON line per file
    python foreign_parquet.py write-spark DIR
                                            the same, written by Spark (parquet-mr), under
                                            DIR/spark-flat and DIR/spark-nested
    python foreign_parquet.py write-deltars DIR
                                            the same, written by delta-rs (arrow-rs), under
                                            DIR/flat and DIR/nested
    python foreign_parquet.py write-duckdb DIR
                                            the same, written by DuckDB
    python foreign_parquet.py check STORED SERVED DELETED_JSON
                                            compares each served file with its stored one
                                            less the deleted rows (pyarrow, and DuckDB's
                                            count); prints "ok N" or the mismatches

Every codec pyarrow has, both data page versions, and three ways to encode: dictionary,
plain, and the delta and byte-stream-split encodings. Flat files are rebuilt page by page
by deltafs; nested ones (a list, a struct, a map) are re-encoded by parquet-go. Spark's
files: every codec it has (its "lz4" in Hadoop's framing, which parquet-go cannot decode:
deltafs decodes it itself), both writer versions (v2: delta encodings), INT96 timestamps,
decimals as ints and as fixed-length bytes. delta-rs's: every codec arrow-rs has (its
"LZ4" in Hadoop's framing too), with dictionaries or without. DuckDB's: every codec it
has, both of its Parquet format versions.
"""

import datetime
import decimal
import itertools
import json
import os
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

ROWS = 3000


def flat():
    def null(i, v):
        return None if i % 5 == 4 else v
    return pa.table({
        "i32": pa.array([null(i, i * 3 - 500) for i in range(ROWS)], pa.int32()),
        "i64": pa.array([i * 7919 - 10**6 for i in range(ROWS)], pa.int64()),
        "f32": pa.array([null(i, i / 4) for i in range(ROWS)], pa.float32()),
        "f64": pa.array([i * 1.5e-3 for i in range(ROWS)], pa.float64()),
        "s": pa.array([null(i, f"value-{i % 97}-{i}") for i in range(ROWS)], pa.string()),
        "b": pa.array([bytes([i % 256, 7]) for i in range(ROWS)], pa.binary()),
        "flag": pa.array([null(i, i % 3 == 0) for i in range(ROWS)], pa.bool_()),
        "dec": pa.array([decimal.Decimal(i * 101 - 3000) / 100 for i in range(ROWS)], pa.decimal128(10, 2)),
        "day": pa.array([datetime.date(2024, 1, 1) + datetime.timedelta(days=i % 400) for i in range(ROWS)], pa.date32()),
        "ts": pa.array([null(i, 1_700_000_000_000_000 + i * 1_000_003) for i in range(ROWS)], pa.timestamp("us", "UTC")),
        # A column of nulls: an empty dictionary page, which arrow-rs's
        # LZ4 frames as a block of nothing.
        "nothing": pa.nulls(ROWS, pa.int32()),
    })


def nested():
    return pa.table({
        "id": pa.array(range(ROWS), pa.int64()),
        "tags": pa.array([None if i % 6 == 5 else list(range(i % 4)) for i in range(ROWS)], pa.list_(pa.int64())),
        "pair": pa.array([None if i % 9 == 8 else {"a": i, "b": f"b{i % 13}"} for i in range(ROWS)],
                         pa.struct([("a", pa.int32()), ("b", pa.string())])),
        "attrs": pa.array([[(f"k{j}", i + j) for j in range(i % 3)] for i in range(ROWS)], pa.map_(pa.string(), pa.int32())),
        "no_tags": pa.nulls(ROWS, pa.list_(pa.int32())),
    })


DELTA_ENCODINGS = {"i32": "DELTA_BINARY_PACKED", "i64": "DELTA_BINARY_PACKED", "f32": "BYTE_STREAM_SPLIT",
                   "f64": "BYTE_STREAM_SPLIT", "s": "DELTA_LENGTH_BYTE_ARRAY", "b": "DELTA_BYTE_ARRAY"}


def write(out_dir):
    for shape, codec, version, enc in itertools.product(
            ("flat", "nested"), ("snappy", "zstd", "gzip", "lz4", "brotli", "none"), ("1.0", "2.0"),
            ("dict", "plain", "delta")):
        if shape == "nested" and enc == "delta":
            continue
        table = flat() if shape == "flat" else nested()
        kw = {"use_dictionary": enc == "dict"}
        if enc == "delta":
            kw["column_encoding"] = DELTA_ENCODINGS
        name = f"{codec}-v{version[0]}-{enc}.parquet"
        os.makedirs(os.path.join(out_dir, shape), exist_ok=True)
        path = os.path.join(out_dir, shape, name)
        pq.write_table(table, path, compression=codec, data_page_version=version, row_group_size=1000,
                       data_page_size=2048, **kw)
        print(json.dumps({"name": name, "size": os.path.getsize(path), "rows": table.num_rows, "shape": shape}))


def write_spark(out_dir):
    import glob
    import shutil

    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
             .config("spark.sql.session.timeZone", "UTC").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    id_ = F.col("id")
    flat_df = spark.range(ROWS).select(
        id_,
        F.when(id_ % 5 == 4, None).otherwise((id_ * 3 - 500).cast("int")).alias("i32"),
        F.when(id_ % 5 == 4, None).otherwise(F.concat(F.lit("value-"), (id_ % 97).cast("string"))).alias("s"),
        (id_ * 1.5e-3).alias("f64"),
        ((id_ * 101 - 3000) / 100).cast("decimal(10,2)").alias("dec"),
        ((id_ * 101 - 3000) / 100).cast("decimal(30,2)").alias("bigdec"),
        F.timestamp_seconds(F.lit(1_700_000_000) + id_ * 7).alias("ts"),
        F.lit(None).cast("int").alias("nothing"),
    )
    nested_df = spark.range(ROWS).select(
        id_,
        F.when(id_ % 6 == 5, None).otherwise(F.array(id_, id_ + 1)).alias("tags"),
        F.struct((id_ % 13).cast("int").alias("a"), F.concat(F.lit("b"), id_.cast("string")).alias("b")).alias("pair"),
        F.lit(None).cast("array<int>").alias("no_tags"),
    )
    for shape, df in (("spark-flat", flat_df), ("spark-nested", nested_df)):
        os.makedirs(os.path.join(out_dir, shape), exist_ok=True)
        for codec, version in itertools.product(("snappy", "gzip", "zstd", "lz4", "lz4_raw", "none"), ("v1", "v2")):
            tmp = os.path.join(out_dir, shape, "tmp")
            (df.coalesce(1).write.option("compression", codec).option("parquet.writer.version", version)
             .option("parquet.page.size", 4096).option("parquet.block.size", 65536).parquet(tmp))
            name = f"{codec}-{version}.parquet"
            path = os.path.join(out_dir, shape, name)
            shutil.move(glob.glob(os.path.join(tmp, "part-*.parquet"))[0], path)
            shutil.rmtree(tmp)
            print(json.dumps({"name": name, "size": os.path.getsize(path), "rows": ROWS, "shape": shape}))
    spark.stop()


def write_deltars(out_dir):
    import glob
    import shutil

    from deltalake import ColumnProperties, WriterProperties, write_deltalake

    for shape, codec, dictionary in itertools.product(
            ("flat", "nested"), ("SNAPPY", "GZIP", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW", "UNCOMPRESSED"), (True, False)):
        table = flat() if shape == "flat" else nested()
        tmp = os.path.join(out_dir, shape, "tmp")
        props = WriterProperties(compression=codec, data_page_row_count_limit=100, write_batch_size=100,
                                 max_row_group_size=1000,
                                 default_column_properties=ColumnProperties(dictionary_enabled=dictionary))
        write_deltalake(tmp, table, writer_properties=props)
        name = f"{codec.lower()}-{'dict' if dictionary else 'plain'}.parquet"
        path = os.path.join(out_dir, shape, name)
        shutil.move(glob.glob(os.path.join(tmp, "*.parquet"))[0], path)
        shutil.rmtree(tmp)
        print(json.dumps({"name": name, "size": os.path.getsize(path), "rows": table.num_rows, "shape": shape}))


def write_duckdb(out_dir):
    for shape, codec, version in itertools.product(
            ("flat", "nested"), ("snappy", "gzip", "zstd", "lz4", "brotli", "uncompressed"), ("V1", "V2")):
        con = duckdb.connect()
        con.register("rows_in", flat() if shape == "flat" else nested())
        os.makedirs(os.path.join(out_dir, shape), exist_ok=True)
        name = f"{codec}-{version.lower()}.parquet"
        path = os.path.join(out_dir, shape, name)
        con.execute(f"COPY (SELECT * FROM rows_in) TO '{path}' (FORMAT parquet, COMPRESSION {codec}, "
                    f"ROW_GROUP_SIZE 1000, PARQUET_VERSION {version})")
        con.close()
        print(json.dumps({"name": name, "size": os.path.getsize(path), "rows": ROWS, "shape": shape}))


def served_types(path):
    """The stored file as deltafs serves it: INT96 timestamps (Spark's) as microseconds in UTC."""
    schema = pq.ParquetFile(path).schema
    int96 = {schema.column(i).path for i in range(len(schema)) if schema.column(i).physical_type == "INT96"}
    table = pq.read_table(path, coerce_int96_timestamp_unit="us")
    if not int96:
        return table
    if any("." in p for p in int96):
        raise ValueError(f"{path}: nested INT96 columns {int96}: not handled here")
    fields = [f.with_type(pa.timestamp("us", tz="UTC")) if f.name in int96 else f for f in table.schema]
    return table.cast(pa.schema(fields, metadata=table.schema.metadata))


def check(stored_dir, served_dir, deleted_json):
    deleted = set(json.loads(deleted_json))
    names = sorted(n for n in os.listdir(stored_dir) if n.endswith(".parquet"))
    bad = []
    for n in names:
        stored = served_types(os.path.join(stored_dir, n))
        keep = pa.array([i not in deleted for i in range(stored.num_rows)])
        want = stored.filter(keep)
        served_path = os.path.join(served_dir, n)
        try:
            got = pq.read_table(served_path)
        except Exception as e:  # noqa: BLE001 - reported, not raised
            bad.append(f"{n}: pyarrow: {e}")
            continue
        if not got.schema.equals(want.schema):
            bad.append(f"{n}: schema {got.schema} != {want.schema}")
        elif not got.equals(want):
            rows = [i for i, (a, b) in enumerate(zip(got.to_pylist(), want.to_pylist())) if a != b]
            bad.append(f"{n}: {got.num_rows} rows, want {want.num_rows}; first differing {rows[:3]}")
        count = duckdb.sql(f"select count(*) from read_parquet('{served_path}')").fetchall()[0][0]
        if count != want.num_rows:
            bad.append(f"{n}: DuckDB counts {count}, want {want.num_rows}")
    print("\n".join(bad) if bad else f"ok {len(names)}")


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2])
    elif sys.argv[1] == "write-spark":
        write_spark(sys.argv[2])
    elif sys.argv[1] == "write-deltars":
        write_deltars(sys.argv[2])
    elif sys.argv[1] == "write-duckdb":
        write_duckdb(sys.argv[2])
    else:
        check(sys.argv[2], sys.argv[3], sys.argv[4])
