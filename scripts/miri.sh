#!/usr/bin/env bash
# Runs the unit tests of the engine's unsafe data structures under Miri,
# which interprets them and reports undefined behaviour: out-of-bounds or
# dangling accesses, aliasing violations (Stacked Borrows), data races
# between the skiplist's writer and its readers, leaks.
#
#   scripts/miri.sh [TEST_FILTER...]
#
# Filters default to `memtable::arena memtable::skiplist memtable::filter`, the modules whose
# `unsafe` Miri can run. The other `unsafe` in the workspace is system
# calls (fs/posix.rs: pread, pwrite, O_DIRECT, linkat; clock_gettime in the
# compaction job; LevelDB's C API in the bench), which Miri cannot
# interpret. Under Miri the skiplist's tests run a hundredth of their
# operations (`cfg(miri)`).
#
# Exit status: 0 when the tests ran clean, or when no toolchain with Miri
# can be had (the script says so and skips); 1 when Miri reports an error
# or a test fails.
#
# Environment: MIRI_TOOLCHAIN (default: nightly).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tc="${MIRI_TOOLCHAIN:-nightly}"
filters=("$@")
[ ${#filters[@]} -eq 0 ] && filters=(memtable::arena memtable::skiplist memtable::filter)

if ! cargo "+$tc" --version >/dev/null 2>&1; then
    echo "miri: skipped: no '$tc' toolchain (rustup toolchain install $tc)"
    exit 0
fi
if ! cargo "+$tc" miri --version >/dev/null 2>&1; then
    echo "miri: installing the miri component of '$tc'"
    if ! timeout 180 rustup component add --toolchain "$tc" miri rust-src >/dev/null 2>&1; then
        echo "miri: skipped: the miri component of '$tc' could not be installed"
        exit 0
    fi
fi
cd "$root"
cargo "+$tc" miri setup >/dev/null 2>&1 || {
    echo "miri: skipped: 'cargo +$tc miri setup' failed (it builds the standard library from rust-src)"
    exit 0
}
echo "miri: $(cargo "+$tc" miri --version) over ${filters[*]}"
if cargo "+$tc" miri test -p strata --lib -- "${filters[@]}"; then
    echo "miri: clean"
else
    echo "miri: FAILED"
    exit 1
fi
