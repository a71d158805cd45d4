#!/usr/bin/env python3
"""Study 5, cell by cell: the bytes each engine rewrote over a whole cell
(fill and overwrite together) and the L0 files its merges took.

Reads lab results.jsonl or results.csv files (one or more; rows pooled by
value size, cell, engine and repeat). For every run it adds up, over the cell's steps,
flush + compaction bytes written (`rocksdb.flush.write.bytes` +
`rocksdb.compact.write.bytes`: what W-Amp counts, without the WAL, which
is the same on both engines). Per cell it prints the median of those
totals on each engine, Strata / RocksDB, and the exact two-sided
Mann-Whitney U p-value over the repeats (all rank assignments enumerated;
ties take mid-ranks). Beside them: the median over runs of the mean L0
files per L0 merge (the lab's `l0_files_per_merge`, from the LOG events),
fill and overwrite.

Why totals: the overwrite step starts from the tree the fill left, so a
fill that rewrote less often hands the overwrite more to rewrite, and the
two steps' verdicts are not independent.

Usage: scripts/waf_totals.py RESULTS_JSONL_OR_CSV...
"""

import csv
import itertools
import json
import statistics
import sys
from collections import defaultdict


def mann_whitney_p(a, b):
    """Exact two-sided p of the U test (enumerating every split)."""
    pooled = sorted(a + b)
    ranks = {}
    i = 0
    while i < len(pooled):
        j = i
        while j < len(pooled) and pooled[j] == pooled[i]:
            j += 1
        ranks[pooled[i]] = (i + 1 + j) / 2.0
        i = j
    allr = [ranks[x] for x in a + b]
    n = len(a)
    observed = sum(ranks[x] for x in a)
    mean = n * (len(a) + len(b) + 1) / 2.0
    dev = abs(observed - mean)
    count = total = 0
    for idx in itertools.combinations(range(len(allr)), n):
        s = sum(allr[k] for k in idx)
        total += 1
        if abs(s - mean) >= dev - 1e-9:
            count += 1
    return count / total


def read_rows(path):
    """Rows of a results.jsonl or results.csv as dicts with `ok`, `engine`,
    `repeat`, `step`, `command`, `cell` (text) and `metrics`."""
    if path.endswith(".csv"):
        csv.field_size_limit(1 << 30)
        for r in csv.DictReader(open(path, newline="")):
            yield {
                "ok": r["ok"] == "true",
                "engine": r["engine"],
                "repeat": int(r["repeat"]),
                "step": r["step"],
                "command": r["command"],
                "cell": r["cell_id"],
                "metrics": json.loads(r["metrics_json"] or "{}"),
            }
    else:
        for line in open(path):
            r = json.loads(line)
            yield {
                "ok": r.get("ok", False),
                "engine": r["engine"],
                "repeat": r["repeat"],
                "step": r["step"],
                "command": r["command"],
                "cell": ",".join(f"{k}={v}" for k, v in sorted(r["cell"].items())),
                "metrics": r["metrics"],
            }


def main(paths):
    runs = defaultdict(lambda: defaultdict(float))  # (size, cell, engine, repeat) -> sums
    l0 = defaultdict(list)  # (size, cell, engine, step) -> [l0_files_per_merge]
    for p in paths:
        for r in read_rows(p):
            if not r["ok"]:
                continue
            m = r["metrics"]
            size = int(r["command"].split("--value_size=")[1].split()[0]) if "--value_size=" in r["command"] else 0
            cell = r["cell"]
            key = (size, cell, r["engine"], r["repeat"])
            runs[key]["bytes"] += m.get("rocksdb.flush.write.bytes", 0) + m.get(
                "rocksdb.compact.write.bytes", 0
            )
            runs[key]["steps"] += 1
            if "l0_files_per_merge" in m:
                l0[(size, cell, r["engine"], r["step"])].append(m["l0_files_per_merge"])
    cells = sorted({(k[0], k[1]) for k in runs})
    steps = max(v["steps"] for v in runs.values())
    print(
        "| value | cell | repeats S/R | GB rewritten S | GB rewritten R | S / R | p | "
        "L0 files/merge fill S / R | overwrite S / R |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    tally = defaultdict(int)
    ratios = []
    for size, cell in cells:
        tot = {}
        for e in ("strata", "rocksdb"):
            tot[e] = [
                v["bytes"] / 1e9
                for k, v in runs.items()
                if k[0] == size and k[1] == cell and k[2] == e and v["steps"] == steps
            ]
        s, r = tot["strata"], tot["rocksdb"]
        if not s or not r:
            continue
        ms, mr = statistics.median(s), statistics.median(r)
        ratio = ms / mr
        ratios.append(ratio)
        p = mann_whitney_p(s, r) if min(len(s), len(r)) >= 4 else None
        if p is not None and p < 0.05:
            verdict = "worse" if ratio > 1 else "better"
        else:
            verdict = "same"
        tally[verdict] += 1

        def l0med(engine, step):
            xs = l0[(size, cell, engine, step)]
            return f"{statistics.median(xs):.2f}" if xs else "-"

        ptxt = "-" if p is None else ("< 0.001" if p < 0.001 else f"{p:.3f}")
        mark = "" if verdict == "same" else f" {verdict}"
        print(
            f"| {size} | {cell} | {len(s)}/{len(r)} | {ms:.3f} | {mr:.3f} | {ratio:.3f}{mark} | {ptxt} | "
            f"{l0med('strata', 'fillrandom')} / {l0med('rocksdb', 'fillrandom')} | "
            f"{l0med('strata', 'overwrite')} / {l0med('rocksdb', 'overwrite')} |"
        )
    g = statistics.geometric_mean(ratios) if ratios else float("nan")
    print()
    print(
        f"{len(ratios)} cells: Strata better in {tally['better']}, worse in {tally['worse']}, "
        f"no difference shown in {tally['same']} (two-sided p < 0.05); geometric mean of S / R {g:.3f}"
    )


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
