#!/usr/bin/env python3
"""Issue 4's bar for study 5: is Strata's WAF at most RocksDB's for the same
flags and workload? Reads one or more lab results.csv files, pools the
repeats of each (value size, cell, step, engine), and classifies every
step-cell by the ratio of the medians, Strata / RocksDB:

  at/below   <= 1.00
  within 5%  <= 1.05
  in range   above 5%, but Strata's median is inside RocksDB's own range
             over its repeats (the difference is within RocksDB's noise)
  above      above 5% and above every RocksDB repeat

Then counts, the geometric mean of the ratios, and the cells above 5%.

Several CSVs may be pooled (e.g. two lab runs of the same study) to get
more repeats per cell; `--strata-commit PREFIX` keeps only the Strata rows
measured with that git commit (RocksDB's rows are kept whatever commit the
harness had: the RocksDB engine is the same release build), so that runs of
older Strata binaries do not mix in.

Metrics: `waf` (everything written / user bytes, the CSV column), `wamp`
(the `Sum` row's W-Amp, printed with one decimal, so coarse), and
`wamp_exact`: (flush + compaction bytes) / flush bytes from the tickers
(`rocksdb.flush.write.bytes`, `rocksdb.compact.write.bytes`), W-Amp at full
precision. `wamp_exact` is free of the unflushed tail: a step ends with
part of a memtable not yet flushed, and how much depends on how many
entries each engine's memtable holds, which moves `waf` by a few tenths of
a percent without any difference in how data is rewritten.

Usage: scripts/waf_bar.py [--metric waf|wamp|wamp_exact] [--strata-commit PREFIX] RESULTS_CSV...
"""
import argparse
import csv
import json
import math
import re
import statistics
from collections import defaultdict


def value_size(command):
    m = re.search(r"--value_size=(\d+)", command)
    return int(m.group(1)) if m else 0


def load(paths, metric, strata_commit):
    runs = defaultdict(list)
    for path in paths:
        for r in csv.DictReader(open(path)):
            if r["ok"] != "true":
                continue
            if metric == "wamp_exact":
                m = json.loads(r.get("metrics_json") or "{}")
                flush = float(m.get("rocksdb.flush.write.bytes", 0))
                if flush <= 0:
                    continue
                value = (flush + float(m.get("rocksdb.compact.write.bytes", 0))) / flush
            elif r.get(metric):
                value = float(r[metric])
            else:
                continue
            if (
                r["engine"] == "strata"
                and strata_commit
                and not r["git_commit"].startswith(strata_commit)
            ):
                continue
            key = (value_size(r["command"]), r["cell_id"], r["step"], r["engine"])
            runs[key].append(value)
    return runs


def classify(s, r):
    ms, mr = statistics.median(s), statistics.median(r)
    q = ms / mr
    if q <= 1.0:
        return q, "at/below"
    if q <= 1.05:
        return q, "within 5%"
    if ms <= max(r):
        return q, "in range"
    return q, "above"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--metric", default="waf", choices=["waf", "wamp", "wamp_exact"])
    ap.add_argument("--strata-commit", default="")
    ap.add_argument("csv", nargs="+")
    a = ap.parse_args()
    runs = load(a.csv, a.metric, a.strata_commit)
    cells = sorted({k[:3] for k in runs})
    counts = defaultdict(int)
    logs = []
    high = []
    for vs, cell, step in cells:
        s = runs.get((vs, cell, step, "strata"))
        r = runs.get((vs, cell, step, "rocksdb"))
        if not s or not r:
            continue
        q, cls = classify(s, r)
        counts[cls] += 1
        logs.append(math.log(q))
        if q > 1.05:
            high.append((q, vs, cell, step, s, r, cls))
    n = len(logs)
    if n == 0:
        print("no step-cell has both engines")
        return
    print(
        f"{n} step-cells ({a.metric}): at/below {counts['at/below']}, "
        f"within 5% {counts['within 5%']}, above 5% but in RocksDB's range "
        f"{counts['in range']}, above {counts['above']}; "
        f"geomean Strata/RocksDB {math.exp(sum(logs) / n):.3f}"
    )
    if high:
        print()
        print("| value | cell | step | Strata median [range] (n) | RocksDB median [range] (n) | S/R | class |")
        print("|---|---|---|---|---|---|---|")
        for q, vs, cell, step, s, r, cls in sorted(high, reverse=True):
            print(
                f"| {vs} | {cell} | {step} | {statistics.median(s):.2f} "
                f"[{min(s):.2f}-{max(s):.2f}] ({len(s)}) | {statistics.median(r):.2f} "
                f"[{min(r):.2f}-{max(r):.2f}] ({len(r)}) | {q:.2f} | {cls} |"
            )


if __name__ == "__main__":
    main()
