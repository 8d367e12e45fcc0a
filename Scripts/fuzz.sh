#!/usr/bin/env bash
# Builds the libFuzzer targets and runs each for SECONDS (default 60) on its corpus in
# Fuzz/corpus/<target>. Crashes are written to Fuzz/crashes/; each one found should become a
# regression fixture under Fixtures/fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
targets=${FUZZ_TARGETS:-"FuzzGeoJSON FuzzCSV FuzzWKT FuzzWKB FuzzPipeline FuzzGeoPackageBlob FuzzDBase FuzzXML FuzzFlatGeobuf FuzzTiles FuzzPostgreSQLCopy FuzzRasterTile FuzzParquet"}
export GEOPIPE_FUZZ=1 SWIFT_BACKTRACE=enable=no
for target in $targets; do
  swift build --product "$target" --sanitize fuzzer --sanitize address \
    -Xswiftc -parse-as-library -Xswiftc -use-ld=lld -Xswiftc -sanitize=fuzzer,address \
    --scratch-path .build-fuzz >&2
done
bin=$(swift build --show-bin-path --sanitize fuzzer --sanitize address --scratch-path .build-fuzz)
mkdir -p Fuzz/crashes
for target in $targets; do
  corpus=Fuzz/corpus/$target
  mkdir -p "$corpus"
  echo "== $target: ${seconds}s" >&2
  "$bin/$target" "$corpus" Fuzz/seeds/"$target" -max_total_time="$seconds" -max_len=65536 \
    -timeout=10 -rss_limit_mb=4096 -artifact_prefix=Fuzz/crashes/"$target"- -print_final_stats=1
done
