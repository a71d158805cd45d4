#!/usr/bin/env python3
"""Study 5's WAF table from a lab results.csv: per cell, both engines side by
side, both WAF definitions, for the fillrandom and overwrite steps.

Usage: scripts/waf_table.py RESULTS_CSV
"""
import csv
import sys
from collections import OrderedDict


def main():
    rows = OrderedDict()
    for r in csv.DictReader(open(sys.argv[1])):
        if r["ok"] != "true":
            continue
        rows.setdefault(r["cell_id"], {})[(r["step"], r["engine"])] = r
    print("| compaction | WAL | fill WAF S / R | fill W-Amp S / R | overwrite WAF S / R | overwrite W-Amp S / R | overwrite ops/s S / R |")
    print("|---|---|---|---|---|---|---|")

    def pair(c, step, m, fmt="{:.2f}"):
        s, r = c.get((step, "strata")), c.get((step, "rocksdb"))
        f = lambda x: fmt.format(float(x[m])) if x and x.get(m) else "-"
        return f"{f(s)} / {f(r)}"

    for cell, c in rows.items():
        parts = dict(kv.split("=", 1) for kv in cell.split(","))
        print(f"| {parts.get('compaction')} | {parts.get('wal')} | {pair(c, 'fillrandom', 'waf')} | "
              f"{pair(c, 'fillrandom', 'wamp', '{:.1f}')} | {pair(c, 'overwrite', 'waf')} | "
              f"{pair(c, 'overwrite', 'wamp', '{:.1f}')} | {pair(c, 'overwrite', 'ops_sec', '{:,.0f}')} |")


if __name__ == "__main__":
    main()
