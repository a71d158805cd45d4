#!/usr/bin/env python3
"""How big each engine's L0 -> L1 batches were in a lab run of a leveled
study (study 5): per cell and engine, from the `stats` dump at the end of a
step, the flushes (L0 jobs), the compactions into L1 and their mean time,
flushes per L1 compaction (the batch), and L1's W-Amp. Medians over repeats.

In a tree whose L0 -> L1 compactions rewrite most of L1 (random keys), the
bytes they write per flushed byte fall as the batch grows, and the batch is
set by how many flushes land while the previous L0 -> L1 compaction runs: a
faster compaction starts the next one sooner, with fewer files.

Usage: scripts/l0_batches.py RUNS_DIR [STEP_INDEX]   (default step 1)
"""
import glob
import os
import statistics
import sys
from collections import defaultdict

from tree_shapes import last_levels


def level_rows(text):
    """Rows of the step's compaction-stats table, keyed by level name."""
    found = last_levels(text)
    if not found:
        return {}
    rows, total = found
    out = {r["Level"]: r for r in rows}
    if total:
        out["Sum"] = total
    return out


def main():
    root = sys.argv[1]
    step = sys.argv[2] if len(sys.argv) > 2 else "1"
    cells = defaultdict(lambda: defaultdict(list))
    for d in sorted(glob.glob(os.path.join(root, "*__r*"))):
        name = os.path.basename(d)
        engine, rest = name.split("__", 1)
        cell = rest.rsplit("__", 1)[0]
        path = os.path.join(d, f"step{step}.stdout")
        if not os.path.exists(path):
            continue
        rows = level_rows(open(path).read())
        if "L0" not in rows or "L1" not in rows:
            continue
        flushes = float(rows["L0"]["Comp(cnt)"])
        jobs = float(rows["L1"]["Comp(cnt)"])
        cells[cell][engine].append(
            (flushes, jobs, float(rows["L1"]["Avg(sec)"]), float(rows["L1"]["W-Amp"]))
        )
    print("| cell | engine | flushes | L0->L1 jobs | s per job | flushes per job | L1 W-Amp |")
    print("|---|---|---|---|---|---|---|")
    for cell, by_engine in cells.items():
        for engine in ("strata", "rocksdb"):
            runs = by_engine.get(engine)
            if not runs:
                continue
            med = [statistics.median(x[i] for x in runs) for i in range(4)]
            per = med[0] / med[1] if med[1] else float("nan")
            print(f"| {cell} | {engine} | {med[0]:.0f} | {med[1]:.0f} | {med[2]:.2f} | {per:.1f} | {med[3]:.1f} |")


if __name__ == "__main__":
    main()
