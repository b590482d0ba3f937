#!/usr/bin/env bash
# Runs every libFuzzer target of fuzz/ (cargo-fuzz, nightly Rust) for N
# minutes each, then adds the inputs that reached new code to the committed
# corpus fuzz/corpus/<target>/ (a set-cover merge, at most 16 KiB per
# input), which CI replays (tests/it/fuzz_corpus.rs). The chain_file and boc
# targets start from the fixtures, read in place; what they find is kept
# out of the repository. Crashes land in
# fuzz/artifacts/<target>/; the script exits non-zero if there are any.
#
#   scripts/fuzz.sh [minutes per target, default 5] [target ...]
# Needs: cargo install cargo-fuzz, and nightly Rust — or the stable
# toolchain with RUSTC_BOOTSTRAP=1 (set here when no nightly is installed).
# ROCKSDB_LIB_DIR may name a directory holding an already built
# librocksdb.a (e.g. a release build's librocksdb-sys out/ directory) to
# skip the C++ build.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes="${1:-5}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(boc chain_file address hash query json_body stack)
fi
fixtures="$(pwd)/tests/data/fixtures"
jobs="$(nproc)"

if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  fuzz=(cargo +nightly fuzz)
else
  export RUSTC_BOOTSTRAP=1
  fuzz=(cargo fuzz)
fi

"${fuzz[@]}" build --sanitizer none
for t in "${targets[@]}"; do
  scratch="fuzz/target/work/$t"
  mkdir -p "$scratch" "fuzz/corpus/$t" "fuzz/artifacts/$t"
  seeds=("fuzz/corpus/$t")
  case "$t" in
    # Real blocks, states and BoCs from tests/data, read in place.
    chain_file | boc) seeds+=("$fixtures/blocks/tongo" "$fixtures/blocks/tonutils-go" "$fixtures/blocks/ton-benchmark" "$fixtures/accounts") ;;
  esac
  echo "== $t: $minutes min"
  "${fuzz[@]}" run --sanitizer none "$t" "$scratch" "${seeds[@]}" -- \
    -max_total_time=$((minutes * 60)) -jobs="$jobs" -workers="$jobs" \
    -print_final_stats=1 2>&1 | grep -E "stat::|ERROR|panicked|Done" || true
  case "$t" in
    # Their new inputs are mutations of the test data (public chain data
    # taken from repositories of other licences, some GPL): kept in the
    # scratch dir, not committed.
    chain_file | boc) echo "   ($t: new inputs stay in $scratch)" ;;
    *)
      # The smallest set of the corpus and the new inputs that covers
      # what they cover together.
      merged="fuzz/target/work/$t-merged"
      rm -rf "$merged" && mkdir -p "$merged"
      "${fuzz[@]}" run --sanitizer none "$t" "$merged" "fuzz/corpus/$t" "$scratch" -- \
        -set_cover_merge=1 -max_len=16384 2>&1 | grep -E "MERGE-OUTER: [0-9]+ new" || true
      cp -n "$merged"/* "fuzz/corpus/$t/" 2>/dev/null || true
      ;;
  esac
done
crashes=$(find fuzz/artifacts -type f -name 'crash-*' | wc -l)
echo "crashes: $crashes"
[ "$crashes" -eq 0 ]
