#!/usr/bin/env bash
# Line coverage of the engine crate (crates/strata) under its own tests
# (`cargo test -p strata`: unit and integration tests; doctests are not
# instrumented), by module and in total.
#
#   scripts/coverage.sh [OUT]      # OUT defaults to target/coverage
#
# Builds the tests with `-C instrument-coverage` in OUT/target, runs them
# with one raw profile per process, merges the profiles and prints
#   OUT/report.txt   llvm-cov's per-file report of crates/strata/src
#   OUT/modules.md   lines and regions by module (a markdown table)
# Needs an llvm-profdata and llvm-cov that read the profiles of rustc's
# LLVM: LLVM 19 reads those of rustc 1.95 (LLVM 22); Debian's `llvm-19`
# package has them; the script installs it when missing (as root, with
# apt). LLVM_PROFDATA and LLVM_COV name other ones.
#
# STRATA_COVERAGE_BRANCHES=1 measures branch coverage too: it needs
# `-Z coverage-options=branch`, a nightly flag, so it builds with
# `cargo +nightly` (the toolchain scripts/miri.sh installs) in
# OUT/target-nightly; modules.md then has a branch column.
#
# STRATA_COVERAGE_TEST_ARGS replaces `--lib --tests` in the `cargo test`
# command (e.g. `--test model` to measure one suite). Nice it on a shared machine: `nice -n 10`.
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:-target/coverage}
# LLVM 19's tools, installed here when missing (as root, with apt).
if [ -z "${LLVM_PROFDATA:-}${LLVM_COV:-}" ] && ! command -v llvm-profdata-19 >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "coverage: installing llvm-19 (llvm-profdata-19, llvm-cov-19)" >&2
    apt-get install -y -qq llvm-19 >/dev/null || { apt-get update -qq && apt-get install -y -qq llvm-19 >/dev/null; }
  else
    echo "coverage: needs llvm-profdata-19 and llvm-cov-19 (Debian's llvm-19), or LLVM_PROFDATA and LLVM_COV" >&2
    exit 2
  fi
fi
profdata_tool=${LLVM_PROFDATA:-$(command -v llvm-profdata-19 || command -v llvm-profdata)}
cov_tool=${LLVM_COV:-$(command -v llvm-cov-19 || command -v llvm-cov)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/profraw"
mkdir -p "$out/profraw"

cargo=(cargo)
export RUSTFLAGS="-C instrument-coverage"
export CARGO_TARGET_DIR="$out/target"
if [ "${STRATA_COVERAGE_BRANCHES:-0}" = 1 ]; then
  cargo=(cargo +nightly)
  RUSTFLAGS="$RUSTFLAGS -Z coverage-options=branch"
  CARGO_TARGET_DIR="$out/target-nightly"
fi
# One profile per process (%p) and binary (%m), in OUT: the instrumented
# build scripts write theirs while building, the tests (and the child
# processes some of them start) theirs while running.
export LLVM_PROFILE_FILE="$out/profraw/%p-%m.profraw"
# shellcheck disable=SC2086
test_args="-p strata ${STRATA_COVERAGE_TEST_ARGS:---lib --tests}"

# The test binaries, to read the coverage maps from.
# shellcheck disable=SC2086
objects=$("${cargo[@]}" test $test_args --no-run --message-format=json \
  | jq -r 'select(.reason == "compiler-artifact" and .profile.test == true and .target.name != "build-script-build") | .executable // empty')

set +e
# shellcheck disable=SC2086
"${cargo[@]}" test $test_args --no-fail-fast 2>&1 | tee "$out/test.log"
test_rc=${PIPESTATUS[0]}
set -e

"$profdata_tool" merge -sparse "$out"/profraw/*.profraw -o "$out/strata.profdata"

object_args=()
for o in $objects; do object_args+=(-object "$o"); done
# Only the engine's sources: not the standard library, dependencies, the
# test kit or the tests themselves.
ignore='(/rustc/|/\.cargo/|/registry/|crates/strata-testkit/|crates/strata/tests/)'
"$cov_tool" report "${object_args[@]}" -instr-profile="$out/strata.profdata" \
  -ignore-filename-regex="$ignore" > "$out/report.txt"
"$cov_tool" export -summary-only "${object_args[@]}" -instr-profile="$out/strata.profdata" \
  -ignore-filename-regex="$ignore" > "$out/summary.json"

python3 - "$out/summary.json" > "$out/modules.md" <<'EOF'
import json, sys
from collections import defaultdict

data = json.load(open(sys.argv[1]))["data"][0]
mods = defaultdict(lambda: [0, 0, 0, 0, 0, 0])
for f in data["files"]:
    name = f["filename"]
    i = name.find("crates/strata/src/")
    if i < 0:
        continue
    rel = name[i + len("crates/strata/src/"):]
    mod = rel.split("/")[0].removesuffix(".rs")
    s = f["summary"]
    m = mods[mod]
    m[0] += s["lines"]["count"]; m[1] += s["lines"]["covered"]
    m[2] += s["regions"]["count"]; m[3] += s["regions"]["covered"]
    m[4] += s["branches"]["count"]; m[5] += s["branches"]["covered"]

def pct(c, n):
    return f"{100.0 * c / n:.1f}%" if n else "-"

branches = any(m[4] for m in mods.values())
head = "| module | lines | covered | line coverage | region coverage |"
rule = "|---|---:|---:|---:|---:|"
print(head + (" branches | branch coverage |" if branches else ""))
print(rule + ("---:|---:|" if branches else ""))
tot = [0] * 6
def row(name, m):
    n, c, rn, rc, bn, bc = m
    extra = f" {bn} | {pct(bc, bn)} |" if branches else ""
    print(f"| {name} | {n} | {c} | {pct(c, n)} | {pct(rc, rn)} |{extra}")
for mod in sorted(mods):
    tot = [a + b for a, b in zip(tot, mods[mod])]
    row(mod, mods[mod])
row("**total**", tot)
EOF

tail -n 3 "$out/report.txt"
cat "$out/modules.md"
echo "tests exit status: $test_rc (report in $out)"
exit "$test_rc"
