"""Four held-out log shapes for `deltafs ls` against delta-rs, JSON commits only, no checkpoint
and no data files (opening and listing reads only the log):

    churn      1,000 commits of 100 adds, each commit after the first removing 50 live files
    widestats  200 commits of 500 adds, stats over 100 columns (508 MB of JSON)
    onebig     one commit of 400,000 adds (144 MB: a bulk load's first commit)
    partdv     500 commits of 200 adds under three partition columns, 30% with a deletion vector

    python bench/heldout_log_shapes.py OUT_DIR

Each shape is written to OUT_DIR/<name> (about 750 MB in all, half a minute).
"""

import json
import os
import random
import sys
import uuid

rnd = random.Random(7)
BASE_MS = 1_700_000_000_000


def protocol(dv: bool) -> dict:
    if dv:
        return {"protocol": {"minReaderVersion": 3, "minWriterVersion": 7,
                             "readerFeatures": ["deletionVectors"], "writerFeatures": ["deletionVectors"]}}
    return {"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}}


def metadata(cols: list, parts: list) -> dict:
    fields = [{"name": c, "type": "long", "nullable": True, "metadata": {}} for c in cols]
    fields += [{"name": p, "type": "string", "nullable": True, "metadata": {}} for p in parts]
    return {"metaData": {"id": str(uuid.UUID(int=rnd.getrandbits(128))), "format": {"provider": "parquet", "options": {}},
                         "schemaString": json.dumps({"type": "struct", "fields": fields}),
                         "partitionColumns": parts, "configuration": {}, "createdTime": BASE_MS}}


def stats(cols: list) -> str:
    return json.dumps({"numRecords": 1000,
                       "minValues": {c: rnd.randint(0, 1000) for c in cols},
                       "maxValues": {c: rnd.randint(1000, 100000) for c in cols},
                       "nullCount": {c: 0 for c in cols}})


def add(path: str, cols: list, pv: dict | None = None, dv: dict | None = None) -> dict:
    a = {"path": path, "partitionValues": pv or {}, "size": rnd.randint(10_000, 10**7),
         "modificationTime": BASE_MS + rnd.randint(0, 10**8), "dataChange": True, "stats": stats(cols)}
    if dv:
        a["deletionVector"] = dv
    return {"add": a}


def file_name() -> str:
    return f"part-00000-{uuid.UUID(int=rnd.getrandbits(128))}-c000.snappy.parquet"


def write(root: str, table: str, version: int, actions: list) -> None:
    log = os.path.join(root, table, "_delta_log")
    os.makedirs(log, exist_ok=True)
    with open(os.path.join(log, f"{version:020d}.json"), "w") as f:
        f.write(json.dumps({"commitInfo": {"timestamp": BASE_MS + version, "operation": "WRITE"}}) + "\n")
        for a in actions:
            f.write(json.dumps(a) + "\n")


def churn(root: str) -> None:
    cols = [f"c{i}" for i in range(5)]
    live = []
    for v in range(1000):
        actions = [protocol(False), metadata(cols, [])] if v == 0 else []
        for _ in range(100):
            p = file_name()
            live.append(p)
            actions.append(add(p, cols))
        if v:
            rnd.shuffle(live)
            for p in live[:50]:
                actions.append({"remove": {"path": p, "deletionTimestamp": BASE_MS + v, "dataChange": True, "size": 1000}})
            live = live[50:]
        write(root, "churn", v, actions)


def widestats(root: str) -> None:
    cols = [f"col_{i}" for i in range(100)]
    for v in range(200):
        actions = [protocol(False), metadata(cols, [])] if v == 0 else []
        write(root, "widestats", v, actions + [add(file_name(), cols) for _ in range(500)])


def onebig(root: str) -> None:
    cols = ["a", "b", "c"]
    write(root, "onebig", 0, [protocol(False), metadata(cols, [])] + [add(file_name(), cols) for _ in range(400_000)])


def partdv(root: str) -> None:
    cols = ["x", "y"]
    for v in range(500):
        actions = [protocol(True), metadata(cols, ["year", "month", "id"])] if v == 0 else []
        for _ in range(200):
            pv = {"year": str(2000 + rnd.randint(0, 20)), "month": str(rnd.randint(1, 12)), "id": str(rnd.randint(0, 1000))}
            dv = None
            if rnd.random() < 0.3:
                dv = {"storageType": "u", "pathOrInlineDv": "ab^-aqEH.-t@S}K{vb[*k^", "offset": 1,
                      "sizeInBytes": 36, "cardinality": rnd.randint(1, 100)}
            path = f"year={pv['year']}/month={pv['month']}/id={pv['id']}/{file_name()}"
            actions.append(add(path, cols, pv, dv))
        write(root, "partdv", v, actions)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for shape in (churn, widestats, onebig, partdv):
        shape(sys.argv[1])
