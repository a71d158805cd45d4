#!/usr/bin/env bash
# Folds the inputs of a fuzzing run into a target's committed corpus,
# keeping only what adds coverage.
#
#   scripts/fuzz-cmin.sh TARGET [DIR...]
#
# The named seeds in fuzz/corpus/TARGET/ (the files `gen_corpus` writes and
# the regression inputs, anything not named by a 40-digit SHA-1) are always
# kept. Then libFuzzer's merge (`-merge=1`) adds, from the rest of the
# committed corpus and from each DIR (a long run's scratch corpus), the
# smallest inputs that reach a coverage feature the kept set does not.
# The result replaces fuzz/corpus/TARGET/; the script prints the file
# count and size before and after.
#
# Environment: FUZZ_TOOLCHAIN (default: nightly), FUZZ_SANITIZER (default:
# none: the merge only needs coverage), FUZZ_BUILD_ARGS (extra build flags,
# e.g. `--no-trace-compares`, which counts fewer features and so keeps fewer
# inputs), CARGO_TARGET_DIR as usual.
set -euo pipefail

if [ $# -lt 1 ]; then
    echo "usage: scripts/fuzz-cmin.sh TARGET [DIR...]" >&2
    exit 2
fi
target="$1"
shift
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
toolchain="${FUZZ_TOOLCHAIN:-nightly}"
sanitizer="${FUZZ_SANITIZER:-none}"
read -r -a build_args <<<"${FUZZ_BUILD_ARGS:-}"

cd "$root/fuzz"
targets="$(cargo fuzz list)"
if ! grep -qx "$target" <<<"$targets"; then
    echo "fuzz-cmin: no fuzz target named '$target' (cargo fuzz list)" >&2
    exit 2
fi
for d in "$@"; do
    [ -d "$d" ] || { echo "fuzz-cmin: '$d' is not a directory" >&2; exit 2; }
done
corpus="corpus/$target"
mkdir -p "$corpus"
size() {
    printf '%s files, %s bytes' "$(find "$1" -type f | wc -l)" \
        "$(find "$1" -type f -exec cat {} + | wc -c)"
}
before="$(size "$corpus")"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir "$work/kept" "$work/hashed"
for f in "$corpus"/*; do
    [ -f "$f" ] || continue
    if [[ "$(basename "$f")" =~ ^[0-9a-f]{40}$ ]]; then
        cp "$f" "$work/hashed/"
    else
        cp "$f" "$work/kept/"
    fi
done

cargo "+$toolchain" fuzz build -s "$sanitizer" "${build_args[@]}" "$target"
cargo "+$toolchain" fuzz run -s "$sanitizer" "${build_args[@]}" "$target" \
    "$work/kept" "$work/hashed" "$@" -- -merge=1 -timeout=60 -rss_limit_mb=4096

rm -rf "$corpus"
cp -r "$work/kept" "$corpus"
echo "fuzz-cmin: $target: before $before; after $(size "$corpus")"
