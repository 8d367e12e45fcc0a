#!/usr/bin/python3
"""Writes the vertex counts that the system GEOS gives for simplify's test fixtures.

Run with Debian's own interpreter (/usr/bin/python3) and its python3-shapely, which calls the
system libgeos_c that geopipe links: PyPI's shapely wheels bundle another GEOS, whose results
differ. Output: one line per file, method and tolerance, with the vertex count of every
feature in order (0 where GEOS returns an empty geometry).

    /usr/bin/python3 Scripts/simplify-oracle.py > Fixtures/geometry/simplify-counts.tsv
"""
import gzip
import json
import os
import sys

import shapely
from shapely.geometry import shape
from shapely import geos

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "Fixtures", "geometry")
FILES = [
    "ne_110m_countries.geojson.gz",
    "us_states_500k_sample.geojson.gz",
    "wdbii_rivers_sample.geojson.gz",
    "ais_us_coastal_sample.geojson.gz",
]
TOLERANCES = ["0.001", "0.01", "0.1", "1"]


def count(g):
    if g.is_empty:
        return 0
    kind = g.geom_type
    if kind == "Polygon":
        return len(g.exterior.coords) + sum(len(r.coords) for r in g.interiors)
    if kind in ("LineString", "LinearRing"):
        return len(g.coords)
    if kind == "Point":
        return 1
    return sum(count(part) for part in g.geoms)


def main():
    if not geos.geos_version_string.startswith("3.11"):
        sys.exit("expected the system GEOS 3.11, got " + geos.geos_version_string)
    print(f"# shapely {shapely.__version__}, GEOS {geos.geos_version_string}")
    for name in FILES:
        with gzip.open(os.path.join(FIXTURES, name)) as f:
            geometries = [shape(feature["geometry"]) for feature in json.load(f)["features"]]
        for method in ("dp", "topology"):
            for tolerance in TOLERANCES:
                counts = [
                    count(g.simplify(float(tolerance), preserve_topology=(method == "topology")))
                    for g in geometries
                ]
                print("\t".join([name, method, tolerance, ",".join(map(str, counts))]))


main()
