#!/usr/bin/env bash
# Benchmark geocoding: the gazetteer build from GeoNames cities500, forward queries
# (GeocodeBench), and reverse geocoding of 1M points against reverse_geocoder from PyPI,
# lookups alone and end to end. Prints a Markdown table to stdout and writes it to
# $BENCH_WORK/geocode-results.md; the raw measurements (tab-separated) go to
# $BENCH_WORK/geocode-results.tsv.
#
# Environment (paths relative to the repository root):
#   SWIFT               Swift driver                              (swift)
#   BUILD_PATH          SwiftPM scratch folder, as `make release` uses (.build)
#   GEOCODE_BUILD       0 to skip building GeocodeBench           (1)
#   GEOCODEBENCH        GeocodeBench binary                       (BUILD_PATH/release/GeocodeBench)
#   GEOPIPE             geopipe binary                            (BUILD_PATH/release/geopipe)
#   DATA                folder with geonames/cities500.txt.gz ... (../shared/data)
#   BENCH_WORK          scratch folder                            (bench/.work)
#   BENCH_RUNS          runs per measurement, best is kept        (3)
#   GEOCODE_POINTS      points for reverse geocoding              (1000000)
#   GEOCODE_SEED        seed of the points and the queries        (7)
#   GEOCODE_QUERIES     forward queries per set                   (20000)
#   GEOCODE_SAMPLE      points checked against brute force       (2000)
#   GEOCODE_ALL         1 to also build from a synthetic file of allCountries' size (0)
set -euo pipefail

BENCH_NAME="geocode bench"
source "$(dirname "$0")/common.sh"

GEOCODEBENCH=$(abspath "${GEOCODEBENCH:-$BUILD_PATH/release/GeocodeBench}")
RUNS=${BENCH_RUNS:-3}
POINTS=${GEOCODE_POINTS:-1000000}
SEED=${GEOCODE_SEED:-7}
QUERIES=${GEOCODE_QUERIES:-20000}
SAMPLE=${GEOCODE_SAMPLE:-2000}
ALL=${GEOCODE_ALL:-0}
GEONAMES=$DATA/geonames
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)

# --- prerequisites ----------------------------------------------------------
for f in cities500.txt.gz admin1CodesASCII.txt.gz countryInfo.txt.gz; do
  [ -f "$GEONAMES/$f" ] || die "missing $GEONAMES/$f (set DATA)"
done
if [ ! -x /usr/bin/time ]; then
  sudo=
  [ "$(id -u)" = 0 ] || sudo=sudo
  log "installing time"
  $sudo apt-get update -qq >&2
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >&2
fi
mkdir -p "$WORK"
VENV=$WORK/geocode-venv
if ! "$VENV/bin/python" -c 'import reverse_geocoder, orjson, numpy' 2>/dev/null; then
  log "installing reverse_geocoder and orjson from PyPI into $VENV"
  if ! python3 -m venv "$VENV" >&2; then
    sudo=
    [ "$(id -u)" = 0 ] || sudo=sudo
    log "installing python3-venv"
    $sudo apt-get update -qq >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >&2
    python3 -m venv --clear "$VENV" >&2
  fi
  "$VENV/bin/pip" install --quiet --disable-pip-version-check reverse_geocoder orjson >&2
fi
PY=$VENV/bin/python
if [ "${GEOCODE_BUILD:-1}" = 1 ]; then
  log "building GeocodeBench (release)"
  GEOPIPE_BENCH=1 "$SWIFT" build -c release --product GeocodeBench --build-path "$BUILD_PATH" >&2
fi
[ -x "$GEOCODEBENCH" ] || die "no GeocodeBench binary at $GEOCODEBENCH"
command -v "$GEOPIPE" >/dev/null || die "no geopipe binary at $GEOPIPE (run 'make release' or set GEOPIPE)"

RESULTS=$WORK/geocode-results.tsv
: >"$RESULTS"
put() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$RESULTS"; }
value() { # NAME METRIC
  awk -F '\t' -v n="$1" -v m="$2" '$1 == n && $2 == m { v = $3 } END { print v }' "$RESULTS"
}
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }'; }

timed() { # NAME CASE RUNS COMMAND...: best wall, CPU (user + sys) of that run, peak RSS
  local name=$1 case=$2 runs=$3 wall="" cpu="" peak=0 w u s m i
  shift 3
  for ((i = 0; i < runs; i++)); do
    /usr/bin/time -f '%e %U %S %M' -o "$WORK/geocode-time.txt" "$@" || die "failed: $*"
    read -r w u s m < <(tail -n 1 "$WORK/geocode-time.txt")
    if [ -z "$wall" ] || awk -v a="$w" -v b="$wall" 'BEGIN { exit !(a + 0 < b + 0) }'; then
      wall=$w
      cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
    fi
    ((m > peak)) && peak=$m
  done
  put "$name" "${case}_wall_s" "$wall"
  put "$name" "${case}_cpu_s" "$cpu"
  put "$name" "${case}_peak_rss_mib" "$(awk -v k="$peak" 'BEGIN { printf "%.0f", k / 1024 }')"
}

human() { # 1000000 -> 1M, 20000 -> 20k
  if (($1 % 1000000 == 0)); then echo "$(($1 / 1000000))M"
  elif (($1 % 1000 == 0)); then echo "$(($1 / 1000))k"
  else echo "$1"; fi
}

# --- the gazetteer ----------------------------------------------------------
GAZETTEER=$WORK/cities500.gazetteer
SOURCES=(--admin1 "$GEONAMES/admin1CodesASCII.txt.gz" --countries "$GEONAMES/countryInfo.txt.gz")
log "gazetteer build from cities500 ($RUNS runs)"
timed build cities500 "$RUNS" "$GEOPIPE" gazetteer build -q --geonames "$GEONAMES/cities500.txt.gz" \
  "${SOURCES[@]}" "$GAZETTEER"
put build cities500_mb "$(awk -v b="$(stat -c %s "$GAZETTEER")" 'BEGIN { printf "%.0f", b / 1e6 }')"
log "gazetteer build from cities500 with --no-typo-index"
timed build cities500_no_typo 1 "$GEOPIPE" gazetteer build -q --no-typo-index \
  --geonames "$GEONAMES/cities500.txt.gz" "${SOURCES[@]}" "$WORK/cities500-no-typo.gazetteer"
put build cities500_no_typo_mb \
  "$(awk -v b="$(stat -c %s "$WORK/cities500-no-typo.gazetteer")" 'BEGIN { printf "%.0f", b / 1e6 }')"
rm -f "$WORK/cities500-no-typo.gazetteer"

if [ "$ALL" = 1 ]; then
  # allCountries.txt (about 12.4M rows, 1.6 GB) cannot be downloaded here. A stand-in of its
  # row count: cities500 rows over and over with fresh geonameids, one row in three kept as a
  # populated place (class P) and the others turned into spots (class S, which the build reads
  # and skips). Every place keeps its cities500 alternate names, more than most small places
  # in allCountries have, so the name count (and the time) errs high.
  ALLFILE=$WORK/allcountries-synthetic.txt
  if [ ! -s "$ALLFILE" ]; then
    log "generating $(basename "$ALLFILE") (12.4M rows)"
    gzip -dc "$GEONAMES/cities500.txt.gz" | awk -F '\t' -v OFS='\t' -v rows=12400000 '
      { line[NR] = $0 } END {
        n = NR
        for (i = 0; i < rows; i++) {
          split(line[i % n + 1], f, "\t")
          f[1] = 20000000 + i
          f[7] = (i % 3 == 0) ? "P" : "S"
          out = f[1]
          for (k = 2; k <= 19; k++) out = out OFS f[k]
          print out
        }
      }' >"$ALLFILE.tmp"
    mv "$ALLFILE.tmp" "$ALLFILE"
  fi
  put build all_rows "$(wc -l <"$ALLFILE")"
  put build all_input_mb "$(awk -v b="$(stat -c %s "$ALLFILE")" 'BEGIN { printf "%.0f", b / 1e6 }')"
  for variant in typo no_typo; do
    flag=()
    [ "$variant" = no_typo ] && flag=(--no-typo-index)
    log "gazetteer build from the synthetic allCountries file ($variant)"
    timed build "all_$variant" 1 "$GEOPIPE" gazetteer build -q "${flag[@]}" --geonames "$ALLFILE" \
      "${SOURCES[@]}" "$WORK/all.gazetteer"
    put build "all_${variant}_mb" \
      "$(awk -v b="$(stat -c %s "$WORK/all.gazetteer")" 'BEGIN { printf "%.0f", b / 1e6 }')"
  done
  put build all_places "$("$GEOPIPE" gazetteer info "$WORK/all.gazetteer" | awk '$1 == "places:" { print $2 }')"
  put build all_names "$("$GEOPIPE" gazetteer info "$WORK/all.gazetteer" | awk '$1 == "names:" { print $2 }')"
  rm -f "$WORK/all.gazetteer"
fi

# --- forward ----------------------------------------------------------------
log "GeocodeBench forward: $QUERIES queries per set, seed $SEED"
"$GEOCODEBENCH" forward --name forward --seed "$SEED" --queries "$QUERIES" "$GAZETTEER" >>"$RESULTS"

# --- reverse ----------------------------------------------------------------
N=$(human "$POINTS")
CSV=$WORK/sphere-$N-seed$SEED.csv
SEQ=$WORK/sphere-$N-seed$SEED.geojsonl
if [ ! -s "$SEQ" ]; then
  log "generating $N points uniform on the sphere, seed $SEED"
  python3 - "$POINTS" "$SEED" "$CSV.tmp" "$SEQ.tmp" <<'PY'
import math, random, sys

count, seed, csv, seq = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
rng = random.Random(seed)
with open(csv, "w") as c, open(seq, "w") as s:
    for i in range(count):
        # Uniform on the sphere: z = sin(latitude) uniform in [-1, 1].
        lat = math.degrees(math.asin(rng.uniform(-1.0, 1.0)))
        lon = rng.uniform(-180.0, 180.0)
        c.write(f"{lat:.6f},{lon:.6f}\n")
        s.write(f'{{"type":"Feature","properties":{{"id":{i}}},"geometry":{{"type":"Point",'
                f'"coordinates":[{lon:.6f},{lat:.6f}]}}}}\n')
PY
  mv "$CSV.tmp" "$CSV"
  mv "$SEQ.tmp" "$SEQ"
fi

log "GeocodeBench reverse: $N points, cities500 gazetteer ($RUNS runs)"
"$GEOCODEBENCH" reverse --name reverse --answers "$WORK/geocode-answers.txt" "$GAZETTEER" "$CSV" \
  "$RUNS" >>"$RESULTS"
for mode in 1 2; do
  log "reverse_geocoder rg.search, mode $mode ($RUNS runs)"
  "$PY" bench/rg_bench.py lookups "$mode" "$CSV" "$RUNS" | sed "s/^/rg_mode$mode\t/" >>"$RESULTS"
done

log "end to end: geopipe reverse-geocode ($RUNS runs)"
timed e2e geopipe "$RUNS" bash -c '"$0" reverse-geocode -q --gazetteer "$1" <"$2" >"$3"' \
  "$GEOPIPE" "$GAZETTEER" "$SEQ" "$WORK/geocode-e2e-geopipe.geojsonl"
log "end to end: geopipe reverse-geocode with the script's three fields ($RUNS runs)"
timed e2e geopipe_same "$RUNS" bash -c \
  '"$0" reverse-geocode -q --gazetteer "$1" --fields name,admin1_name,country_code <"$2" >"$3"' \
  "$GEOPIPE" "$GAZETTEER" "$SEQ" "$WORK/geocode-e2e-geopipe-same.geojsonl"
log "end to end: orjson + reverse_geocoder ($RUNS runs)"
timed e2e python "$RUNS" "$PY" bench/rg_bench.py convert "$SEQ" "$WORK/geocode-e2e-python.geojsonl"

# --- checks -----------------------------------------------------------------
log "checking the answers: GeocodeBench = geopipe reverse-geocode, and a brute-force sample"
"$PY" - "$GAZETTEER" "$CSV" "$WORK/geocode-answers.txt" "$WORK/geocode-e2e-geopipe.geojsonl" \
  "$WORK/geocode-e2e-python.geojsonl" "$SAMPLE" "$SEED" >>"$RESULTS" <<'PY'
import random, sqlite3, sys

import numpy as np
import orjson

gazetteer, csv, answers, e2e, peer, sample, seed = sys.argv[1:8]
points = np.loadtxt(csv, delimiter=",", ndmin=2)
answers = [line.strip() for line in open(answers)]
cli = []
with open(e2e, "rb") as f:
    for line in f:
        properties = orjson.loads(line)["properties"]
        cli.append((str(properties.get("geocode_geonameid")), properties.get("geocode_distance_m")))
with open(peer, "rb") as f:
    peer_count = sum(1 for _ in f)
assert len(answers) == len(points) == len(cli) == peer_count, "counts differ"
same = sum(1 for a, (b, _) in zip(answers, cli) if a == b)
print(f"check\tcli_agrees\t{same}\ncheck\tpoints\t{len(points)}")
if same != len(points):
    sys.exit(f"geopipe reverse-geocode and GeocodeBench disagree on {len(points) - same} points")

db = sqlite3.connect(gazetteer)
rows = db.execute(
    "SELECT geonameid, latitude, longitude, population FROM places WHERE kind = 'place'").fetchall()
ids = np.array([r[0] for r in rows])
lat = np.radians(np.array([r[1] for r in rows]))
lon = np.radians(np.array([r[2] for r in rows]))
population = np.array([r[3] for r in rows])
R = 6371008.8
rng = random.Random(int(seed))
chosen = rng.sample(range(len(points)), min(int(sample), len(points)))
exact = ties = 0
worst = 0.0
for k in chosen:
    p_lat, p_lon = np.radians(points[k])
    h = np.sin((lat - p_lat) / 2) ** 2 + np.cos(p_lat) * np.cos(lat) * np.sin((lon - p_lon) / 2) ** 2
    d = 2 * R * np.arcsin(np.sqrt(np.clip(h, 0, 1)))
    best = d.min()
    # The nearest, ties to the larger population, then the smaller geonameid.
    near = np.flatnonzero(d <= best)
    pick = min(near, key=lambda j: (-population[j], ids[j]))
    got = int(answers[k])
    if got == ids[pick]:
        exact += 1
        continue
    # Another place at the same distance to within rounding (a few nanometres) is a tie.
    j = int(np.flatnonzero(ids == got)[0])
    worst = max(worst, d[j] - best)
    if d[j] - best <= 1e-6:
        ties += 1
    else:
        sys.exit(f"point {k} {points[k]}: geopipe answered {got} at {d[j]:.3f} m, "
                 f"the nearest is {ids[pick]} at {best:.3f} m")
print(f"check\tsample\t{len(chosen)}\ncheck\tsample_exact\t{exact}\ncheck\tsample_rounding_ties\t{ties}")
PY

# --- report -----------------------------------------------------------------
cpu=$(grep -m1 -E '^(model name|Model|cpu model)' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || true)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }
atleast() { # VALUE TARGET: met / not met
  awk -v v="$1" -v t="$2" 'BEGIN { print (v + 0 >= t + 0) ? "met" : "not met" }'
}
atmost() { awk -v v="$1" -v t="$2" 'BEGIN { print (v + 0 <= t + 0) ? "met" : "not met" }'; }
report() {
  local g1 g2 r1 r2 e2g e2s e2p s1 s2 s3 s4
  g1=$(value reverse lookup_1thread_wall_s)
  g2=$(value reverse lookup_threads_wall_s)
  r1=$(value rg_mode1 lookup_wall_s)
  r2=$(value rg_mode2 lookup_wall_s)
  e2g=$(value e2e geopipe_wall_s)
  e2p=$(value e2e python_wall_s)
  e2s=$(value e2e geopipe_same_wall_s)
  s1=$(ratio "$r1" "$g1")
  s2=$(ratio "$r2" "$g2")
  s3=$(ratio "$e2p" "$e2g")
  s4=$(ratio "$e2p" "$e2s")
  echo "## Geocoding benchmark"
  echo
  echo "- machine: $(uname -m), $(nproc) CPUs, ${cpu:-unknown CPU}; load average before the run:" \
    "$LOAD"
  echo "- geopipe: $("$GEOPIPE" --version 2>&1 | head -n 1 || echo unknown); peer:" \
    "reverse_geocoder $("$PY" -c 'import importlib.metadata as m; print(m.version("reverse_geocoder"))')" \
    "with its bundled GeoNames cities1000 (~145k places), numpy $("$PY" -c 'import numpy; print(numpy.__version__)')," \
    "scipy $("$PY" -c 'import scipy; print(scipy.__version__)'), orjson $("$PY" -c 'import orjson; print(orjson.__version__)')"
  echo "- geopipe's gazetteer: GeoNames cities500 ($(value reverse places) places); $N points uniform" \
    "on the sphere (seed $SEED); best of $RUNS runs"
  echo
  echo "| measurement | geopipe | peer | target | result |"
  echo "|---|--:|--:|---|---|"
  echo "| gazetteer build from cities500: wall s / CPU s / MB | $(value build cities500_wall_s) /" \
    "$(value build cities500_cpu_s) / $(value build cities500_mb) | – | < 60 s wall |" \
    "$(atmost "$(value build cities500_wall_s)" 60) |"
  echo "| reverse, lookups alone, one thread vs \`rg.search(points, mode=1)\`, s | $g1 | $r1 |" \
    "≥ 2× faster | $(atleast "$s1" 2) ($s1×) |"
  echo "| reverse, lookups alone, $(value reverse lookup_threads) threads vs \`rg.search(points)\`" \
    "(mode 2, default), s | $g2 | $r2 | ≥ 2× faster | $(atleast "$s2" 2) ($s2×) |"
  echo "| reverse, end to end (GeoJSONSeq in and out), the script's 3 fields" \
    "(\`--fields name,admin1_name,country_code\`), wall s | $e2s | $e2p (orjson + rg) |" \
    "≥ 3× faster | $(atleast "$s4" 3) ($s4×) |"
  echo "| reverse, end to end, geopipe's full placemark (10 fields against the script's 3), wall s |" \
    "$e2g | $e2p | – | $s3× |"
  echo "| reverse, exact great-circle nearest | $(value check sample_exact) + $(value check sample_rounding_ties)" \
    "rounding ties of $(value check sample) sampled points; CLI = harness on all $(value check cli_agrees) | – | all |" \
    "$( [ "$(($(value check sample_exact) + $(value check sample_rounding_ties)))" = "$(value check sample)" ] && echo met || echo 'not met')" \
    "|"
  for set in exact country state; do
    echo "| forward, $set queries, q/s | $(value forward "${set}_qps") | – | ≥ 5,000 |" \
      "$(atleast "$(value forward "${set}_qps")" 5000) |"
  done
  echo "| forward, typo queries, p95 ms | $(value forward typo_p95_ms) | – | ≤ 20 |" \
    "$(atmost "$(value forward typo_p95_ms)" 20) |"
  echo
  echo "| forward query set ($(value forward exact_queries) each) | q/s | CPU s | p50 ms | p95 ms | p99 ms | found | the place drawn |"
  echo "|---|--:|--:|--:|--:|--:|--:|--:|"
  for set in exact country state typo; do
    echo "| $set | $(value forward "${set}_qps") | $(value forward "${set}_cpu_s") |" \
      "$(value forward "${set}_p50_ms") | $(value forward "${set}_p95_ms") |" \
      "$(value forward "${set}_p99_ms") | $(value forward "${set}_found") |" \
      "$(value forward "${set}_same_place") |"
  done
  echo
  echo "| reverse, $N points | wall s | CPU s | peak RSS MiB |"
  echo "|---|--:|--:|--:|"
  echo "| geopipe: load the gazetteer's places and build the index | $(value reverse load_wall_s) |" \
    "$(value reverse load_cpu_s) | – |"
  echo "| geopipe: lookups, one thread | $g1 | $(value reverse lookup_1thread_cpu_s) | – |"
  echo "| geopipe: lookups, $(value reverse lookup_threads) threads | $g2 |" \
    "$(value reverse lookup_threads_cpu_s) | – |"
  echo "| reverse_geocoder: lookups, mode 1 | $r1 | $(value rg_mode1 lookup_cpu_s) | – |"
  echo "| reverse_geocoder: lookups, mode 2 (CPU: main process only) | $r2 |" \
    "$(value rg_mode2 lookup_cpu_s) | – |"
  echo "| \`geopipe reverse-geocode < in.geojsonl > out.geojsonl\` | $e2g | $(value e2e geopipe_cpu_s) |" \
    "$(value e2e geopipe_peak_rss_mib) |"
  echo "| \`geopipe reverse-geocode --fields name,admin1_name,country_code\` | $e2s |" \
    "$(value e2e geopipe_same_cpu_s) | $(value e2e geopipe_same_peak_rss_mib) |"
  echo "| \`rg_bench.py convert\` (orjson + reverse_geocoder, mode 2) | $e2p | $(value e2e python_cpu_s) |" \
    "$(value e2e python_peak_rss_mib) |"
  echo
  echo "| gazetteer build | wall s | CPU s | peak RSS MiB | file MB |"
  echo "|---|--:|--:|--:|--:|"
  echo "| cities500 | $(value build cities500_wall_s) | $(value build cities500_cpu_s) |" \
    "$(value build cities500_peak_rss_mib) | $(value build cities500_mb) |"
  echo "| cities500, \`--no-typo-index\` | $(value build cities500_no_typo_wall_s) |" \
    "$(value build cities500_no_typo_cpu_s) | $(value build cities500_no_typo_peak_rss_mib) |" \
    "$(value build cities500_no_typo_mb) |"
  if [ "$ALL" = 1 ]; then
    echo "| synthetic allCountries ($(value build all_rows) rows, $(value build all_input_mb) MB;" \
      "$(value build all_places) places, $(value build all_names) names) |" \
      "$(value build all_typo_wall_s) | $(value build all_typo_cpu_s) | $(value build all_typo_peak_rss_mib) |" \
      "$(value build all_typo_mb) |"
    echo "| the same, \`--no-typo-index\` | $(value build all_no_typo_wall_s) |" \
      "$(value build all_no_typo_cpu_s) | $(value build all_no_typo_peak_rss_mib) | $(value build all_no_typo_mb) |"
  fi
}
report | tee "$WORK/geocode-results.md"
