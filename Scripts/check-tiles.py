#!/usr/bin/env python3
"""Reads tilesets geopipe wrote from Fixtures/tiles/points.geojson with independent readers
(mapbox-vector-tile for MVT, pmtiles for PMTiles, sqlite3 for MBTiles) and compares every
tile with Fixtures/tiles/points-expected.json: the same points, within one tile unit.

Usage: Scripts/check-tiles.py TILESET.mbtiles|TILESET.pmtiles [Fixtures]
(in a virtual environment with `pip install mapbox-vector-tile pmtiles`)
"""
import gzip
import json
import sqlite3
import sys

import mapbox_vector_tile
from pmtiles.reader import MmapSource, Reader, all_tiles

path = sys.argv[1]
fixtures = sys.argv[2] if len(sys.argv) > 2 else "Fixtures"
expected = json.load(open(f"{fixtures}/tiles/points-expected.json"))["tiles"]

tiles = {}
if path.endswith(".mbtiles"):
    db = sqlite3.connect(path)
    for z, x, row, data in db.execute(
            "SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles"):
        tiles[f"{z}/{x}/{(1 << z) - 1 - row}"] = gzip.decompress(data)
else:
    with open(path, "rb") as f:
        reader = Reader(MmapSource(f))
        for (z, x, y), data in all_tiles(reader.get_bytes):
            tiles[f"{z}/{x}/{y}"] = gzip.decompress(data)
        print("metadata layers:", [l["id"] for l in reader.metadata()["vector_layers"]])

problems = 0
if set(tiles) != set(expected):
    problems += 1
    print("tiles differ:", sorted(set(tiles) ^ set(expected))[:10])
for key, points in expected.items():
    if key not in tiles:
        continue
    decoded = mapbox_vector_tile.decode(tiles[key], default_options={"y_coord_down": True})
    features = decoded["points"]["features"]
    by_name = {f["properties"]["name"]: f for f in features}
    if len(features) != len(points):
        problems += 1
        print(key, "has", len(features), "features, expected", len(points))
    for name, *xy in points:
        f = by_name.get(name)
        if f is None:
            problems += 1
            print(key, "lacks", name)
            continue
        # A point and its copies across the antimeridian come as one (multi)point.
        got = f["geometry"]["coordinates"]
        got = [got] if f["geometry"]["type"] == "Point" else got
        want = list(zip(xy[::2], xy[1::2]))
        if len(got) != len(want) or any(
                min(abs(x - px) + abs(y - py) for x, y in got) > 2 for px, py in want):
            problems += 1
            print(key, name, "at", got, "expected", want)
print(f"{path}: {len(tiles)} tiles, {sum(map(len, expected.values()))} placements, "
      f"{problems} problems")
sys.exit(1 if problems else 0)
