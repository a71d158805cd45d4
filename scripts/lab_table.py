#!/usr/bin/env python3
"""Medians of chosen metrics per engine x cell x step from a lab results.csv.

Usage: scripts/lab_table.py RESULTS_CSV STEP METRIC[,METRIC...] [--cells SUBSTR]

Prints a Markdown table: one row per (cell, engine), the median over the
repeats of each metric (the lab's report shows mean +- CI; this is for the
compact tables in docs/benchmarks.md).
"""
import csv
import statistics
import sys
from collections import defaultdict


def main():
    path, step, metrics = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
    rows = defaultdict(lambda: defaultdict(list))
    order = []
    for r in csv.DictReader(open(path)):
        if r["step"] != step or r["ok"] != "true":
            continue
        key = (r["cell_id"], r["engine"])
        if key not in rows:
            order.append(key)
        for m in metrics:
            if r.get(m) not in (None, ""):
                rows[key][m].append(float(r[m]))
    print("| cell | engine | n | " + " | ".join(metrics) + " |")
    print("|---|---|---|" + "---|" * len(metrics))
    for key in order:
        vals = rows[key]
        n = max((len(v) for v in vals.values()), default=0)
        cells = []
        for m in metrics:
            v = vals.get(m)
            if not v:
                cells.append("-")
                continue
            x = statistics.median(v)
            cells.append(f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.3g}")
        print(f"| {key[0]} | {key[1]} | {n} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
