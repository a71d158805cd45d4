#!/usr/bin/env bash
# Builds the fuzz crate (fuzz/) and runs every target for a few seconds.
#
#   scripts/fuzz-ci.sh [SECONDS] [TARGET...]
#
# SECONDS defaults to 10 (or $FUZZ_SECONDS). Targets default to all of them.
# Each target starts from its committed seeds (fuzz/corpus/<target>/) plus a
# scratch corpus in a temp directory, so the committed corpus is not touched.
#
# Exit status: 0 when every target ran clean, or when the toolchain is
# missing (cargo-fuzz or a nightly toolchain: the script says so and skips);
# 1 when a target crashed, leaked, timed out or ran out of memory (the
# reproducer is under fuzz/artifacts/<target>/); 2 on a build failure.
#
# Environment: FUZZ_TOOLCHAIN (default: nightly), FUZZ_SANITIZER (default:
# address; `none` builds without a sanitizer), FUZZ_JOBS_NICE (default 10).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
secs="${1:-${FUZZ_SECONDS:-10}}"
[ $# -gt 0 ] && shift
toolchain="${FUZZ_TOOLCHAIN:-nightly}"
sanitizer="${FUZZ_SANITIZER:-address}"
nice_level="${FUZZ_JOBS_NICE:-10}"

if ! [[ "$secs" =~ ^[0-9]+$ ]]; then
    echo "fuzz-ci: SECONDS must be a whole number, got '$secs'" >&2
    exit 2
fi
if ! command -v cargo >/dev/null 2>&1; then
    echo "fuzz-ci: SKIPPED: cargo is not installed"
    exit 0
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz-ci: SKIPPED: cargo-fuzz is not installed (cargo install cargo-fuzz)"
    exit 0
fi
if ! cargo "+$toolchain" --version >/dev/null 2>&1; then
    echo "fuzz-ci: SKIPPED: the '$toolchain' toolchain is not installed (rustup toolchain install nightly," \
        "or run on stable without a sanitizer: FUZZ_TOOLCHAIN=stable FUZZ_SANITIZER=none $0)"
    exit 0
fi

cd "$root/fuzz"
if [ $# -gt 0 ]; then
    targets=("$@")
else
    mapfile -t targets < <(cargo fuzz list)
fi

echo "fuzz-ci: building every target, running ${#targets[@]} (+$toolchain, sanitizer=$sanitizer)"
build() { nice -n "$nice_level" cargo "+$toolchain" fuzz build -s "$sanitizer" "$@"; }
# Every target is built, also when only some are run, so that none of them
# stops compiling unnoticed (sst_roundtrip did once, when TableOptions grew
# a field).
build || { echo "fuzz-ci: FAILED: build" >&2; exit 2; }

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
failed=()
printf '%-16s %8s %12s  %s\n' target seconds executions result
for t in "${targets[@]}"; do
    mkdir -p "$scratch/$t" "corpus/$t"
    log="$scratch/$t.log"
    set +e
    nice -n "$nice_level" cargo "+$toolchain" fuzz run -s "$sanitizer" "$t" \
        "$scratch/$t" "corpus/$t" -- \
        -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
        >"$log" 2>&1
    rc=$?
    set -e
    execs="$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -1 || true)"
    if [ "$rc" -eq 0 ]; then
        result=ok
    else
        result="FAILED (exit $rc)"
        failed+=("$t")
        echo "---- $t: last lines of the log ($log) ----" >&2
        tail -n 40 "$log" >&2
        ls -1 "artifacts/$t" 2>/dev/null | sed "s|^|  reproducer: fuzz/artifacts/$t/|" >&2 || true
    fi
    printf '%-16s %8s %12s  %s\n' "$t" "$secs" "${execs:-?}" "$result"
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz-ci: FAILED targets: ${failed[*]}" >&2
    exit 1
fi
echo "fuzz-ci: all ${#targets[@]} targets ran ${secs}s each without a finding"
