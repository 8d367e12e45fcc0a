#!/usr/bin/env python3
"""Checks a tileset geopipe wrote with size limits, read with independent readers
(mapbox-vector-tile for MVT, pmtiles for PMTiles, sqlite3 for MBTiles, and tippecanoe-decode
for the feature counts): every tile below the highest zoom keeps to the limits (with a
strategy), the highest zoom holds every feature, and per zoom the features in the tiles plus
those the metadata counts as dropped (or coalesced) are all the features. Without a strategy
every zoom holds every feature, and the tiles over the limits are the ones geopipe warned of.
With --thinned BASE RATE each zoom keeps one point in RATE^(BASE - z); with --clusters (a
tileset of 'cluster --all-zooms'), each zoom's point_count values add up to the points; with
--cluster-densest (a tileset of --cluster-densest-as-needed), the tiles keep to the limits and
each zoom's features, a cluster counted as its point_count, add up to the points.

Usage: Scripts/check-tile-limits.py TILESET POINTS MAXZOOM --key PROPERTY --bytes B
       --features F [--strategy | --thinned BASE RATE | --cluster-densest] [--warnings STDERR]
       [--clusters]
       [--tippecanoe-decode PATH]
"""
import argparse
import collections
import gzip
import json
import re
import sqlite3
import subprocess

import mapbox_vector_tile
from pmtiles.reader import MmapSource, Reader, all_tiles

parser = argparse.ArgumentParser()
parser.add_argument("tileset")
parser.add_argument("points", type=int, help="the features (points) that went in")
parser.add_argument("maxzoom", type=int)
parser.add_argument("--bytes", type=int, required=True)
parser.add_argument("--features", type=int, required=True)
parser.add_argument("--key", required=True, help="the property that tells features apart")
parser.add_argument("--strategy", action="store_true")
parser.add_argument("--thinned", nargs=2, type=float, metavar=("BASE", "RATE"),
                    help="points thinned below zoom BASE at RATE, tippecanoe's -B and -r")
parser.add_argument("--warnings")
parser.add_argument("--clusters", action="store_true")
parser.add_argument("--cluster-densest", action="store_true")
parser.add_argument("--tippecanoe-decode")
args = parser.parse_args()
if args.cluster_densest:
    args.strategy = True

stored = {}  # "z/x/y" -> bytes as stored (gzipped)
if args.tileset.endswith(".mbtiles"):
    db = sqlite3.connect(args.tileset)
    for z, x, row, data in db.execute(
            "SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles"):
        stored[(z, x, (1 << z) - 1 - row)] = data
    metadata = json.loads(dict(db.execute("SELECT name, value FROM metadata"))["json"])
else:
    with open(args.tileset, "rb") as f:
        reader = Reader(MmapSource(f))
        for (z, x, y), data in all_tiles(reader.get_bytes):
            stored[(z, x, y)] = data
        metadata = reader.metadata()
counts = metadata.get("geopipe", {})
left_out = collections.Counter()
for kind in ("dropped", "coalesced", "clustered"):
    for z, n in counts.get(kind, {}).items():
        left_out[int(z)] += n

problems = 0


def problem(*message):
    global problems
    problems += 1
    if problems <= 20:
        print(*message)


ids = collections.defaultdict(set)
point_counts = collections.Counter()
features_per_tile = {}
over = set()
for (z, x, y), data in sorted(stored.items()):
    layers = mapbox_vector_tile.decode(gzip.decompress(data))
    features = [f for layer in layers.values() for f in layer["features"]]
    features_per_tile[(z, x, y)] = len(features)
    if len(data) > args.bytes or len(features) > args.features:
        over.add(f"{z}/{x}/{y}")
        if args.strategy and z < args.maxzoom:
            problem(f"tile {z}/{x}/{y}: {len(data)} bytes, {len(features)} features over the limits")
    for f in features:
        properties = f["properties"]
        ids[z].add(properties.get(args.key))
        if args.cluster_densest:
            # A cluster keeps its first member's properties, so the key names it at a zoom.
            count = properties.get("point_count", 1)
            if "point_count" in properties and properties.get("clustered") is not True:
                problem(f"tile {z}/{x}/{y}: a cluster without clustered: true")
            if point_counts.setdefault((z, properties[args.key]), count) != count:
                problem(f"zoom {z}: {args.key} {properties[args.key]} with two point counts")
        if args.clusters:
            # Each cluster or point counted once per zoom, though buffers copy it.
            key = ("cluster", properties["cluster_id"]) if "cluster_id" in properties else (
                "point", properties[args.key])
            point_counts[(z, key)] = properties.get("point_count", 1)

for z in range(args.maxzoom + 1):
    if args.clusters:
        total = sum(n for (zz, _), n in point_counts.items() if zz == z)
        if total != args.points:
            problem(f"zoom {z}: point counts add up to {total}, not {args.points}")
        continue
    kept = len(ids[z])
    if args.cluster_densest:
        total = sum(n for (zz, _), n in point_counts.items() if zz == z)
        if total != args.points:
            problem(f"zoom {z}: features and clusters stand for {total} points, not {args.points}")
    if z == args.maxzoom and left_out[z]:
        problem(f"zoom {z}: the highest zoom left out {left_out[z]} features")
    if args.thinned:
        base, rate = args.thinned
        expected = args.points / rate ** max(0, base - z)
        if abs(kept - expected) > 2:
            problem(f"zoom {z}: {kept} points kept, {expected:.0f} expected from the drop rate")
    elif not args.strategy and left_out[z]:
        problem(f"zoom {z}: {left_out[z]} features left out without a strategy")
    if kept + left_out[z] != args.points:
        problem(f"zoom {z}: {kept} features in the tiles + {left_out[z]} left out != {args.points}")

if args.warnings:
    text = open(args.warnings).read()
    named = set(re.findall(r"warning: tiles: tile (\d+/\d+/\d+) ", text))
    total = re.search(r"warning: tiles: (\d+) tiles? over the size limits", text)
    reported = int(total.group(1)) if total else 0
    expected = {t for t in over if args.strategy is False or int(t.split("/")[0]) == args.maxzoom}
    if reported != len(expected) or not named <= expected:
        problem(f"warned of {reported} tiles ({sorted(named)}), over the limits: {sorted(expected)}")

if args.tippecanoe_decode:
    # tippecanoe's own reader agrees on what every tile holds.
    for z in range(args.maxzoom + 1):
        decoded = json.loads(subprocess.run(
            [args.tippecanoe_decode, "-Z", str(z), "-z", str(z), args.tileset],
            check=True, capture_output=True).stdout)
        for tile in decoded["features"]:
            key = (tile["properties"]["zoom"], tile["properties"]["x"], tile["properties"]["y"])
            n = sum(len(layer["features"]) for layer in tile["features"])
            if features_per_tile.get(key) != n:
                problem(f"tile {key}: tippecanoe-decode reads {n} features, "
                        f"mapbox-vector-tile {features_per_tile.get(key)}")

summary = ", ".join(f"z{z}: {len(ids[z])}" for z in range(args.maxzoom + 1))
print(f"{args.tileset}: {len(stored)} tiles, {len(over)} over the limits; features {summary}")
raise SystemExit(1 if problems else 0)
