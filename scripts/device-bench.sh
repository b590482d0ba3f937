#!/usr/bin/env bash
# The multi-core figures that a 2-core machine cannot give, in one run
# short enough for a lent machine (about 5 minutes on 16 cores):
#  1. decode+index with and without traces and actions (`tonindex bench`,
#     the writer-alone phase too where the build has it)
#     at 4 and 16 decode threads, an older build and a newer one in turns,
#     twice each, so that a change is compared on the same machine and run;
#  2. what the API's guards and metrics cost (`tonindex bench-serve`: the
#     guarded API against the unguarded one), then the same columns with
#     nothing different (`--noise-floor`), on an index of the same blocks.
# Not in CI. Usage:
#   scripts/device-bench.sh OLD_BINARY NEW_BINARY BLOCKS_DIR OUT_DIR
# Binaries may be gzipped (`*.gz`); OUT_DIR gets one log per step.
# THREADS (default 4,16), BENCH_ROUNDS (turns of the two builds, default
# 2) and ROUNDS (bench-serve's, default 5) size a run; SERVE=0 skips
# bench-serve.
set -euo pipefail
threads=${THREADS:-4,16}
rounds=${ROUNDS:-5}
bench_rounds=${BENCH_ROUNDS:-2}

if [ $# -ne 4 ]; then
    echo "usage: $0 OLD_BINARY NEW_BINARY BLOCKS_DIR OUT_DIR" >&2
    exit 2
fi
old=$1 new=$2 blocks=$3 out=$4
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

binary() {
    local src=$1 dst=$2
    case "$src" in
        *.gz) gunzip -c "$src" >"$dst" ;;
        *) cp "$src" "$dst" ;;
    esac
    chmod +x "$dst"
}
binary "$old" "$work/old"
binary "$new" "$work/new"

nproc >"$out/machine.txt"
for round in $(seq "$bench_rounds"); do
    for build in old new; do
        echo "== $build, round $round" >>"$out/bench.txt"
        "$work/$build" bench --threads "$threads" --samples 3 --min-tx 20000 --index-rounds 10 "$blocks" \
            2>&1 | grep -E "machine:|writer's us/tx|runs at|writer alone|^decode\+index|^index-notrace" \
            >>"$out/bench.txt"
    done
done

if [ "${SERVE:-1}" = 0 ]; then
    echo done >>"$out/machine.txt"
    exit 0
fi
db="$work/db"
# Every block file (the fixture folder also holds a BoC that is a hashmap).
mapfile -t files < <(find "$blocks" -type f ! -name 'hashmap_aug.hex' ! -name '*.json' | sort)
"$work/new" import --db "$db" "${files[@]}" >"$out/import.txt" 2>&1
"$work/new" bench-serve --db "$db" --server-threads 8 --rounds "$rounds" --seconds 1 \
    >"$out/serve-guarded.txt" 2>&1
"$work/new" bench-serve --db "$db" --server-threads 8 --rounds "$rounds" --seconds 1 --noise-floor \
    >"$out/serve-noise-floor.txt" 2>&1
echo done >>"$out/machine.txt"
