"""The peer of `bench/geocode.sh`: reverse_geocoder (PyPI) on the same points as geopipe.

    rg_bench.py lookups MODE POINTS.csv RUNS
        Reads the points (latitude,longitude per line) into a list of tuples, loads
        reverse_geocoder's data and k-d tree with one warm-up query, then times
        rg.search(points, mode=MODE) RUNS times and prints the best wall time and the CPU
        time of that run (this process only: mode 2's worker processes are not counted)
        as tab-separated `lookup_wall_s` / `lookup_cpu_s` lines.
    rg_bench.py convert IN.geojsonl OUT.geojsonl [MODE]
        End to end, as a short script would do it: reads GeoJSONSeq with orjson, looks every
        point up with rg.search (default mode 2), adds the place's name, admin1 and country
        code to the properties and writes GeoJSONSeq with orjson.

reverse_geocoder brings its own data (GeoNames cities1000, about 145k places) and finds the
nearest place by Euclidean distance in latitude/longitude degrees, not great-circle distance.
"""

import sys
import time

import orjson
import reverse_geocoder as rg


def lookups(mode, path, runs):
    with open(path, encoding="ascii") as f:
        points = [tuple(float(v) for v in line.split(",")) for line in f if line.strip()]
    rg.search([(0.0, 0.0)], mode=mode, verbose=False)  # loads the data and builds the tree
    best = None
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        results = rg.search(points, mode=mode, verbose=False)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        assert len(results) == len(points)
        if best is None or wall < best[0]:
            best = (wall, cpu)
    print(f"lookup_wall_s\t{best[0]:.3f}\nlookup_cpu_s\t{best[1]:.3f}\npoints\t{len(points)}")


def convert(source, target, mode):
    features, points = [], []
    with open(source, "rb") as f:
        for line in f:
            feature = orjson.loads(line)
            lon, lat = feature["geometry"]["coordinates"][:2]
            features.append(feature)
            points.append((lat, lon))
    results = rg.search(points, mode=mode, verbose=False)
    with open(target, "wb") as f:
        for feature, place in zip(features, results):
            properties = feature.setdefault("properties", {}) or {}
            properties["geocode_name"] = place["name"]
            properties["geocode_admin1_name"] = place["admin1"]
            properties["geocode_country_code"] = place["cc"]
            feature["properties"] = properties
            f.write(orjson.dumps(feature))
            f.write(b"\n")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "lookups":
        lookups(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
    elif len(sys.argv) in (4, 5) and sys.argv[1] == "convert":
        convert(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) == 5 else 2)
    else:
        sys.exit(__doc__)
