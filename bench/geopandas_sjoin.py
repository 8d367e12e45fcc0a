#!/usr/bin/env python3
"""The GeoPandas side of bench/join.sh: POINTS (GeoJSONSeq) joined to COUNTRIES with
`geopandas.sjoin(how="left", predicate="intersects")`, the countries' NAME and ISO_A2 added,
written as GeoJSONSeq, as `geopipe join --predicate intersects --matches all` does. Prints
the seconds of each step (read, join, write) on standard error.

Usage: bench/geopandas_sjoin.py POINTS COUNTRIES OUT
"""
import sys
import time

import geopandas

points_path, countries_path, out = sys.argv[1:4]
started = time.perf_counter()
points = geopandas.read_file(points_path)
countries = geopandas.read_file(countries_path)[["NAME", "ISO_A2", "geometry"]]
read = time.perf_counter()
joined = geopandas.sjoin(points, countries, how="left", predicate="intersects")
joined = joined.drop(columns=["index_right"])
join = time.perf_counter()
joined.to_file(out, driver="GeoJSONSeq")
done = time.perf_counter()
print(f"read {read - started:.2f} s, sjoin {join - read:.2f} s, write {done - join:.2f} s",
      file=sys.stderr)
