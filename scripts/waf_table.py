#!/usr/bin/env python3
"""Study 5's WAF table from a lab results.csv: per cell, both engines side by
side, both WAF definitions, for the fillrandom and overwrite steps.

With several repeats a figure is the median, followed by the range over the
repeats in brackets when they differ ("2.4 [2.3-3.1]"); the last column
gives how many repeats each engine contributed.

Usage: scripts/waf_table.py RESULTS_CSV
"""
import csv
import statistics
import sys
from collections import OrderedDict


def main():
    rows = OrderedDict()
    for r in csv.DictReader(open(sys.argv[1])):
        if r["ok"] != "true":
            continue
        cell = rows.setdefault(r["cell_id"], {})
        cell.setdefault((r["step"], r["engine"]), []).append(r)
    print("| compaction | WAL | fill WAF S / R | fill W-Amp S / R | overwrite WAF S / R "
          "| overwrite W-Amp S / R | overwrite ops/s S / R | repeats S / R |")
    print("|---|---|---|---|---|---|---|---|")

    def one(runs, m, fmt):
        vals = [float(x[m]) for x in runs or [] if x.get(m)]
        if not vals:
            return "-"
        med = fmt.format(statistics.median(vals))
        lo, hi = fmt.format(min(vals)), fmt.format(max(vals))
        return med if lo == hi else f"{med} [{lo}-{hi}]"

    def pair(c, step, m, fmt="{:.2f}"):
        s, r = c.get((step, "strata")), c.get((step, "rocksdb"))
        return f"{one(s, m, fmt)} / {one(r, m, fmt)}"

    for cell, c in rows.items():
        parts = dict(kv.split("=", 1) for kv in cell.split(","))
        n = lambda e: len(c.get(("overwrite", e), []))
        print(f"| {parts.get('compaction')} | {parts.get('wal')} | {pair(c, 'fillrandom', 'waf')} | "
              f"{pair(c, 'fillrandom', 'wamp', '{:.1f}')} | {pair(c, 'overwrite', 'waf')} | "
              f"{pair(c, 'overwrite', 'wamp', '{:.1f}')} | "
              f"{pair(c, 'overwrite', 'ops_sec', '{:,.0f}')} | {n('strata')} / {n('rocksdb')} |")


if __name__ == "__main__":
    main()
