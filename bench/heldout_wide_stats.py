"""A held-out log shape for `deltafs ls` against delta-rs: 1,500 JSON commits of 60 adds each,
stats over 40 columns (min, max, null counts), 3 partition columns; every 10th commit also
removes 30 files added before (254 MB of JSON, no checkpoint).

    python bench/heldout_wide_stats.py TABLE_DIR

A remove may name a file its own commit adds; Delta readers keep such a file (deltafs and
delta-rs both list 85,523 files).
"""

import json
import os
import random
import sys
import uuid

COLUMNS = 40
COMMITS = 1500
ADDS = 60


def value(rnd: random.Random, i: int, high: bool):
    kind = i % 4
    if kind == 0:
        return rnd.randint(10**9, 2 * 10**9) if high else rnd.randint(0, 10**9)
    if kind == 1:
        return f"value-{rnd.randint(10**6, 2 * 10**6) if high else rnd.randint(0, 10**6)}"
    if kind == 2:
        return 1 + rnd.random() if high else rnd.random()
    return "2024-12-31T00:00:00.000Z" if high else "2024-01-01T00:00:00.000Z"


def main(root: str) -> None:
    log = os.path.join(root, "_delta_log")
    os.makedirs(log, exist_ok=True)
    kinds = ("long", "string", "double", "timestamp")
    fields = [{"name": f"c{i}", "type": kinds[i % 4], "nullable": True, "metadata": {}} for i in range(COLUMNS)]
    fields += [{"name": p, "type": "string", "nullable": True, "metadata": {}} for p in ("region", "day", "kind")]

    def commit(v: int, actions: list) -> None:
        with open(os.path.join(log, f"{v:020d}.json"), "w") as f:
            f.write("\n".join(json.dumps(a, separators=(",", ":")) for a in actions) + "\n")

    commit(0, [{"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}},
               {"metaData": {"id": str(uuid.uuid4()), "format": {"provider": "parquet", "options": {}},
                             "schemaString": json.dumps({"type": "struct", "fields": fields}),
                             "partitionColumns": ["region", "day", "kind"], "configuration": {}, "createdTime": 1}}])
    rnd = random.Random(7)
    live = []
    for v in range(1, COMMITS + 1):
        actions = [{"commitInfo": {"timestamp": 1_700_000_000_000 + v * 1000, "operation": "WRITE"}}]
        for _ in range(ADDS):
            pv = {"region": rnd.choice(["eu", "us", "ap", "sa"]),
                  "day": f"2024-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}",
                  "kind": rnd.choice(["a", "b", "c"])}
            path = (f"region={pv['region']}/day={pv['day']}/kind={pv['kind']}/"
                    f"part-{rnd.randint(0, 99999):05d}-{uuid.UUID(int=rnd.getrandbits(128))}.c000.snappy.parquet")
            stats = {"numRecords": rnd.randint(1, 10**6),
                     "minValues": {f"c{i}": value(rnd, i, False) for i in range(COLUMNS)},
                     "maxValues": {f"c{i}": value(rnd, i, True) for i in range(COLUMNS)},
                     "nullCount": {f"c{i}": rnd.randint(0, 100) for i in range(COLUMNS)}}
            actions.append({"add": {"path": path, "partitionValues": pv, "size": rnd.randint(10**5, 10**8),
                                    "modificationTime": 1_700_000_000_000 + v, "dataChange": True,
                                    "stats": json.dumps(stats, separators=(",", ":"))}})
            live.append((path, pv))
        if v % 10 == 0:
            for _ in range(30):
                path, pv = live.pop(rnd.randrange(len(live)))
                actions.append({"remove": {"path": path, "deletionTimestamp": 1_700_000_000_000 + v,
                                           "dataChange": True, "partitionValues": pv}})
        commit(v, actions)


if __name__ == "__main__":
    main(sys.argv[1])
