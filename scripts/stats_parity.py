#!/usr/bin/env python3
"""Compares the STATISTICS dumps of two `strata bench` (or db_bench) runs of
the same command, typically `--engine=strata` and `--engine=rocksdb`:

  - statistics one side counts and the other leaves at 0 (or does not print),
  - statistics both count whose values differ by more than --factor (2x).

Tickers are compared by their COUNT, histograms by their sample COUNT.

Usage: stats_parity.py [--factor F] STRATA_OUTPUT ROCKSDB_OUTPUT

Example (docs/stats.md, "Parity with RocksDB"):
  for e in strata rocksdb; do
    strata bench --engine=$e --statistics=1 --num=200000 --reads=50000 \\
      --benchmarks=fillrandom,overwrite,readrandom,readseq,seekrandom \\
      --seek_nexts=10 --db=/tmp/sp-$e > /tmp/sp-$e.txt; rm -rf /tmp/sp-$e
  done
  scripts/stats_parity.py /tmp/sp-strata.txt /tmp/sp-rocksdb.txt
"""

import argparse
import re
import sys

TICKER = re.compile(r"^(rocksdb\.\S+) COUNT : (\d+)$")
HISTOGRAM = re.compile(r"^(rocksdb\.\S+) P50 : .* COUNT : (\d+) SUM : \d+")


def load(path):
    """Name -> count; histograms are named 'NAME (histogram)'."""
    out = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            m = TICKER.match(line)
            if m:
                out[m.group(1)] = int(m.group(2))
                continue
            m = HISTOGRAM.match(line)
            if m:
                out[m.group(1) + " (histogram)"] = int(m.group(2))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--factor", type=float, default=2.0)
    ap.add_argument("strata")
    ap.add_argument("rocksdb")
    a = ap.parse_args()
    s, r = load(a.strata), load(a.rocksdb)
    if not s or not r:
        sys.exit("no STATISTICS dump found (run with --statistics=1)")
    print(f"{len(s)} statistics in {a.strata}, {len(r)} in {a.rocksdb}")
    sections = [
        ("RocksDB counts, Strata does not", [k for k in sorted(r) if r[k] and not s.get(k)]),
        ("Strata counts, RocksDB does not", [k for k in sorted(s) if s[k] and not r.get(k)]),
    ]
    for title, keys in sections:
        print(f"\n{title} ({len(keys)}):")
        for k in keys:
            note = "" if k in s and k in r else "  (not printed by the other)"
            print(f"  {k}: {s.get(k, 0)} vs {r.get(k, 0)}{note}")
    both = [k for k in sorted(set(s) & set(r)) if s[k] and r[k]]
    apart = [k for k in both if max(s[k], r[k]) > a.factor * min(s[k], r[k])]
    print(f"\nBoth count ({len(both)}); more than {a.factor:g}x apart ({len(apart)}):")
    for k in apart:
        print(f"  {k}: Strata {s[k]}, RocksDB {r[k]} ({s[k] / r[k]:.2f}x)")


if __name__ == "__main__":
    main()
