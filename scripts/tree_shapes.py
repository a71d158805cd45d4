#!/usr/bin/env python3
"""Prints the LSM tree shape at the end of each step of a `strata lab run`.

Usage: scripts/tree_shapes.py RUN_DIR [STEP]

RUN_DIR is the directory holding `runs/` (e.g. out/wal_compaction-hour); STEP
is the step index (default: the last step of each job). For each job the
per-level `Files` and `Size` columns of the last `** Compaction Stats`
table in that step's stdout are printed as one Markdown row, with the
Sum row's W-Amp, so a WAF difference can be read next to the shape that
caused it.
"""
import os
import re
import sys


def last_levels(text):
    """(level rows, sum row) of the last compaction-stats table in text."""
    blocks = text.split("** Compaction Stats")
    for block in reversed(blocks[1:]):
        lines = block.splitlines()
        header = next((l for l in lines if l.startswith("Level ")), None)
        if header is None:
            continue
        cols = header.split()
        rows, total = [], None
        for l in lines:
            m = re.match(r"\s*(L\d+|Sum)\s+(\d+)/(\d+)\s+([\d.]+)\s+(\w+)", l)
            if not m:
                continue
            f = l.split()
            # Size is two tokens (value, unit): shift later columns by one.
            vals = dict(zip(cols, [f[0], f[1], f[2] + " " + f[3]] + f[4:]))
            if m.group(1) == "Sum":
                total = vals
            else:
                rows.append(vals)
        if rows:
            return rows, total
    return [], None


def main():
    run_dir = sys.argv[1]
    step = sys.argv[2] if len(sys.argv) > 2 else None
    runs = os.path.join(run_dir, "runs")
    print("| job | shape (level: files, size) | W-Amp |")
    print("|---|---|---|")
    for job in sorted(os.listdir(runs)):
        d = os.path.join(runs, job)
        steps = sorted(f for f in os.listdir(d) if re.match(r"step\d+\.stdout$", f))
        if not steps:
            continue
        name = f"step{step}.stdout" if step is not None else steps[-1]
        path = os.path.join(d, name)
        if not os.path.exists(path):
            continue
        rows, total = last_levels(open(path, errors="replace").read())
        shape = ", ".join(f"{r['Level']}: {r['Files'].split('/')[0]}, {r['Size']}" for r in rows)
        wamp = total.get("W-Amp", "?") if total else "?"
        print(f"| {job} | {shape} | {wamp} |")


if __name__ == "__main__":
    main()
