#!/usr/bin/python3
"""Writes the positions that the system PROJ gives for reproject's test fixtures.

Run with Debian's own interpreter (/usr/bin/python3) and its python3-pyproj, which calls the
system libproj that geopipe links. The points are the first vertex of every Natural Earth
country within ±80° of latitude; always_xy=True is PROJ's normalised (lon/lat, easting/
northing) axis order, as geopipe uses.

    /usr/bin/python3 Scripts/reproject-oracle.py
"""
import gzip
import json
import os

import pyproj

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "Fixtures", "geometry")
TARGETS = [
    "EPSG:3857",
    "EPSG:8857",
    "EPSG:3035",
    "+proj=robin +datum=WGS84",
    # WKT, written by PROJ itself.
    pyproj.CRS("EPSG:3395").to_wkt(),
]


def first_vertex(geometry):
    coordinates = geometry["coordinates"]
    while isinstance(coordinates[0], list):
        coordinates = coordinates[0]
    return coordinates


def main():
    with gzip.open(os.path.join(FIXTURES, "ne_110m_countries.geojson.gz")) as f:
        countries = json.load(f)["features"]
    points = [first_vertex(c["geometry"]) for c in countries]
    points = [p for p in points if abs(p[1]) <= 80]
    with open(os.path.join(FIXTURES, "reproject-points.geojsonl"), "w") as out:
        for i, (lon, lat) in enumerate(points):
            feature = {
                "type": "Feature",
                "properties": {"i": i},
                "geometry": {"type": "Point", "coordinates": [lon, lat]},
            }
            out.write(json.dumps(feature, separators=(",", ":")) + "\n")
    with open(os.path.join(FIXTURES, "reproject-expected.tsv"), "w") as out:
        out.write(f"# pyproj {pyproj.__version__}, PROJ {pyproj.proj_version_str}\n")
        for target in TARGETS:
            transformer = pyproj.Transformer.from_crs("OGC:CRS84", target, always_xy=True)
            for i, (lon, lat) in enumerate(points):
                x, y = transformer.transform(lon, lat)
                out.write(f"{target}\t{i}\t{x!r}\t{y!r}\n")


main()
