#!/usr/bin/env python3
"""How many files each engine kept in L0 over a lab step, from the LOG
events the lab keeps beside each run (`stepN.events`): the time-weighted
mean and the maximum of L0's file count, taken from the `lsm_state` of
every `flush_finished` and `compaction_finished` event, between the first
and the last such event of the step. Medians over repeats, per cell and
engine.

L0's file count is what a point lookup may have to check besides one file
per deeper level (read amplification), and it is what an L0 -> L1 merge
batches: an engine whose merges wait for more files writes less per
flushed byte and keeps more files in L0 meanwhile.

Runs made since 1d52cdb carry the same figures as the lab metrics
`l0_files_mean` and `l0_files_max` (which also count trivial moves'
`lsm_state`); this script reads older runs' events.

Usage: scripts/l0_over_time.py RUNS_DIR [STEP_INDEX]   (default step 1)
"""
import glob
import json
import os
import statistics
import sys
from collections import defaultdict


def l0_series(path):
    """(time_micros, L0 files) after each flush or compaction, in order."""
    points = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            i = line.find("{")
            if i < 0 or "lsm_state" not in line:
                continue
            try:
                e = json.loads(line[i:])
            except ValueError:
                continue
            if e.get("event") in ("flush_finished", "compaction_finished"):
                points.append((e["time_micros"], e["lsm_state"][0]))
    points.sort()
    return points


def mean_and_max(points):
    """Time-weighted mean L0 count between the first and last point."""
    if len(points) < 2:
        return None
    area = sum(n * (t2 - t1) for (t1, n), (t2, _) in zip(points, points[1:]))
    span = points[-1][0] - points[0][0]
    return area / span if span else None, max(n for _, n in points)


def main(runs_dir, step):
    by_cell = defaultdict(list)
    for run in sorted(glob.glob(os.path.join(runs_dir, "*"))):
        path = os.path.join(run, f"step{step}.events")
        if not os.path.exists(path):
            continue
        engine, cell = os.path.basename(run).split("__")[:2]
        r = mean_and_max(l0_series(path))
        if r and r[0] is not None:
            by_cell[(cell, engine)].append(r)
    print("| cell | engine | runs | mean L0 files | max L0 files |")
    print("|---|---|---|---|---|")
    for (cell, engine), rs in sorted(by_cell.items()):
        mean = statistics.median(m for m, _ in rs)
        top = statistics.median(x for _, x in rs)
        print(f"| {cell} | {engine} | {len(rs)} | {mean:.2f} | {top:g} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1)
