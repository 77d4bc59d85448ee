"""The cost of serving Spark's INT96 timestamps as microseconds: pyarrow reading a file of a
table through a new mount (its first open builds the converted view) against the same file
read from disk, and against a mount of a table whose file stores INT64 microseconds (served as
stored). 1M rows: id, a timestamp stored PLAIN (distinct values), one dictionary-encoded, a
double and a string; Snappy, as Spark writes.

    python bench/int96_read.py BIN [--rounds 5]

Prints one line per round and the medians of the ratios.
"""

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

import pyarrow as pa
import pyarrow.parquet as pq

ROWS = 1_000_000


def write_table(root: str, int96: bool) -> str:
    os.makedirs(os.path.join(root, "_delta_log"))
    base = 1_700_000_000_000_000
    t = pa.table({
        "id": pa.array(range(ROWS), pa.int64()),
        "ts": pa.array([base + i * 1_000_003 for i in range(ROWS)], pa.timestamp("us", tz="UTC")),
        "day": pa.array([base + (i % 365) * 86_400_000_000 for i in range(ROWS)], pa.timestamp("us", tz="UTC")),
        "x": pa.array([i * 0.5 for i in range(ROWS)], pa.float64()),
        "s": pa.array([f"value-{i % 1000}" for i in range(ROWS)], pa.string()),
    })
    name = "part-00000.snappy.parquet"
    path = os.path.join(root, name)
    pq.write_table(t, path, compression="snappy", use_deprecated_int96_timestamps=int96,
                   use_dictionary=["day", "s"], row_group_size=250_000)
    fields = [{"name": n, "type": k, "nullable": True, "metadata": {}}
              for n, k in (("id", "long"), ("ts", "timestamp"), ("day", "timestamp"), ("x", "double"), ("s", "string"))]
    actions = [
        {"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}},
        {"metaData": {"id": "int96-bench", "format": {"provider": "parquet", "options": {}},
                      "schemaString": json.dumps({"type": "struct", "fields": fields}),
                      "partitionColumns": [], "configuration": {}, "createdTime": 0}},
        {"add": {"path": name, "partitionValues": {}, "size": os.path.getsize(path),
                 "modificationTime": 0, "dataChange": True}},
    ]
    with open(os.path.join(root, "_delta_log", "00000000000000000000.json"), "w") as f:
        f.write("\n".join(json.dumps(a) for a in actions) + "\n")
    return path


def timed_read(path: str, ts_type: str = "") -> float:
    start = time.perf_counter()
    t = pq.read_table(path)
    took = time.perf_counter() - start
    if ts_type and str(t.schema.field("ts").type) != ts_type:
        raise RuntimeError(f"{path}: ts read as {t.schema.field('ts').type}, want {ts_type}")
    return took


def mounted_read(binary: str, table: str, work: str) -> float:
    mnt = tempfile.mkdtemp(dir=work)
    proc = subprocess.Popen([binary, "mount", table, mnt, "--refresh=0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline()
        if not line.startswith("ready"):
            raise RuntimeError(f"mount: {line!r}")
        return timed_read(os.path.join(mnt, "latest", "part-00000.snappy.parquet"), "timestamp[us, tz=UTC]")
    finally:
        for _ in range(50):  # a file just closed may keep the mount busy for a moment
            if subprocess.run(["fusermount3", "-u", mnt], check=False, stderr=subprocess.DEVNULL).returncode == 0:
                break
            time.sleep(0.1)
        else:
            subprocess.run(["fusermount3", "-uz", mnt], check=False)
        proc.wait()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    work = tempfile.mkdtemp()
    int96 = os.path.join(work, "int96")
    micros = os.path.join(work, "micros")
    stored = write_table(int96, True)
    write_table(micros, False)
    print(f"INT96 file {os.path.getsize(stored)} bytes")
    vs_disk, vs_micros = [], []
    for r in range(args.rounds):
        disk = timed_read(stored)
        conv = mounted_read(args.binary, int96, work)
        plain = mounted_read(args.binary, micros, work)
        vs_disk.append(conv / disk)
        vs_micros.append(conv / plain)
        print(f"round {r}: stored file on disk {disk * 1000:.0f} ms, INT96 table through a new mount {conv * 1000:.0f} ms, "
              f"INT64 table through a new mount {plain * 1000:.0f} ms")
    print(f"median: {statistics.median(vs_disk):.2f}x the file on disk, {statistics.median(vs_micros):.2f}x the INT64 table's mount")


if __name__ == "__main__":
    main()
