#!/usr/bin/env python3
"""Writes the expected values the tile and camera tests compare against.

Independent oracles: mercantile (tile math, and where each point of the held-out tiles
input lands in tile units), plain EPSG:3857 metre arithmetic through mercantile.xy /
mercantile.lnglat (cameras), and the pmtiles package (Hilbert tile ids, directory bytes).
Run in a virtual environment with `pip install mercantile pmtiles`; the Swift tests read
only the files this writes.

Usage: Scripts/gen-tile-fixtures.py [Fixtures]
"""
import gzip
import json
import math
import random
import sys

import mercantile
from pmtiles.tile import Entry, serialize_directory, zxy_to_tileid

out = sys.argv[1] if len(sys.argv) > 1 else "Fixtures"
rng = random.Random(20261130)


def tiles():
    cases = []
    points = [(0, 0), (-180, 85), (179.999999, -85), (2.3522, 48.8566), (-122.4194, 37.7749),
              (151.2093, -33.8688), (-0.0000001, 0.0000001)]
    points += [(rng.uniform(-180, 180), rng.uniform(-85, 85)) for _ in range(60)]
    for lon, lat in points:
        for z in [0, 1, 3, 7, 12, 14, 18, 22]:
            t = mercantile.tile(lon, lat, z)
            b = mercantile.bounds(t)
            cases.append({
                "lon": lon, "lat": lat, "z": z, "x": t.x, "y": t.y,
                "tmsY": (1 << z) - 1 - t.y, "quadkey": mercantile.quadkey(t),
                "bounds": [b.west, b.south, b.east, b.north],
            })
    return cases


CIRCUMFERENCE = 2 * math.pi * 6378137.0


def fit(box, width, height, insets, minzoom, maxzoom):
    """The camera fitting box, in metres: an implementation independent of geopipe's."""
    west, south, east, north = box
    x0, y1 = mercantile.xy(west, north)
    x1, y0 = mercantile.xy(east, south)
    if x1 < x0:
        x1 += CIRCUMFERENCE
    top, left, bottom, right = insets
    room_w, room_h = width - left - right, height - top - bottom
    zooms = []
    if x1 > x0:
        zooms.append(math.log2(room_w * CIRCUMFERENCE / (256 * (x1 - x0))))
    if y1 > y0:
        zooms.append(math.log2(room_h * CIRCUMFERENCE / (256 * (y1 - y0))))
    zoom = min(max(min(zooms), minzoom), maxzoom) if zooms else maxzoom
    metres_per_point = CIRCUMFERENCE / (256 * 2 ** zoom)
    # Screen y grows downward, metres northward.
    cx = (x0 + x1) / 2 + (right - left) / 2 * metres_per_point
    cy = (y0 + y1) / 2 - (bottom - top) / 2 * metres_per_point
    if cx > CIRCUMFERENCE / 2:
        cx -= CIRCUMFERENCE
    center = mercantile.lnglat(cx, cy)
    half_w, half_h = width / 2 * metres_per_point, height / 2 * metres_per_point
    sw = mercantile.lnglat(cx - half_w, cy - half_h)
    ne = mercantile.lnglat(cx + half_w, cy + half_h)

    def wrap(lon):
        return (lon + 180) % 360 - 180 if lon > 180 or lon < -180 else lon

    return {
        "center": [center.lng, center.lat], "zoom": zoom,
        "bounds": [wrap(sw.lng), sw.lat, wrap(ne.lng), ne.lat],
    }


def cameras():
    cases = []
    fixed = [
        ((2.22, 48.81, 2.47, 48.90), 800, 600, (20, 20, 20, 20), 0, 22),
        ((-10, 35, 30, 60), 1024, 768, (0, 0, 0, 0), 0, 22),
        ((170, -50, -170, -30), 512, 512, (0, 0, 0, 0), 0, 22),
        ((-180, -85, 180, 85), 256, 256, (0, 0, 0, 0), 0, 22),
        ((2.35, 48.85, 2.35, 48.85), 400, 300, (0, 0, 0, 0), 0, 15),
        ((2.3, 48.8, 2.4, 48.9), 400, 300, (0, 0, 0, 0), 0, 10),
        ((-130, 20, -60, 55), 640, 480, (0, 0, 0, 0), 5, 22),
        ((0, 0, 10, 10), 800, 600, (50, 10, 0, 200), 0, 22),
    ]
    for _ in range(40):
        w = rng.uniform(-179, 170)
        s = rng.uniform(-80, 75)
        e = min(w + rng.uniform(0.001, 60), 180)
        n = min(s + rng.uniform(0.001, 40), 84)
        insets = tuple(rng.choice([0, 10, 25]) for _ in range(4))
        fixed.append(((w, s, e, n), rng.choice([256, 512, 800, 1024]),
                      rng.choice([256, 400, 768]), insets, 0, rng.choice([22, 8, 14])))
    for box, width, height, insets, minzoom, maxzoom in fixed:
        case = {"box": list(box), "width": width, "height": height, "insets": list(insets),
                "minZoom": minzoom, "maxZoom": maxzoom}
        case["expected"] = fit(box, width, height, insets, minzoom, maxzoom)
        cases.append(case)
    return cases


def pmtiles_ids():
    cases = [[0, 0, 0], [1, 0, 0], [1, 1, 1], [1, 0, 1], [2, 3, 0], [12, 2047, 1361]]
    for _ in range(200):
        z = rng.randint(0, 26)
        cases.append([z, rng.randrange(1 << z), rng.randrange(1 << z)])
    return [{"z": z, "x": x, "y": y, "id": zxy_to_tileid(z, x, y)} for z, x, y in cases]


def directory():
    entries, tile_id, offset = [], 0, 0
    for k in range(300):
        tile_id += rng.choice([1, 1, 2, 7])
        length = rng.randint(20, 4000)
        run = rng.choice([1, 1, 1, 3])
        # Some entries point back at earlier data (deduplicated tiles).
        if k > 5 and rng.random() < 0.1:
            back = entries[rng.randrange(k)]
            entries.append(Entry(tile_id, back.offset, back.length, run))
        else:
            entries.append(Entry(tile_id, offset, length, run))
            offset += length
        tile_id += run - 1
    return {
        "entries": [[e.tile_id, e.offset, e.length, e.run_length] for e in entries],
        "bytes": list(gzip.decompress(serialize_directory(entries))),
    }


def held_out_points():
    """Points for the tiles tests and where each lands: {z/x/y: [[name, x, y, ...], ...]}
    (more than one x, y where copies across the antimeridian share a tile), in its tile and
    in the 80-unit buffers of the tiles beside it."""
    features = []
    centres = [(2.35, 48.85), (-0.12, 51.5), (13.4, 52.5), (-74.0, 40.7), (151.2, -33.9)]
    for k in range(400):
        lon, lat = rng.choice(centres)
        lon += rng.gauss(0, 2)
        lat += rng.gauss(0, 1.5)
        props = {"name": f"p{k}", "rank": rng.randint(-5, 1000), "score": round(rng.random(), 6),
                 "open": rng.random() < 0.5, "none": None}
        feature = {"type": "Feature", "id": k,
                   "geometry": {"type": "Point", "coordinates": [round(lon, 6), round(lat, 6)]},
                   "properties": props}
        if k % 10 == 0:
            feature["tippecanoe"] = {"minzoom": 2, "maxzoom": 4}
        features.append(feature)
    features[0]["geometry"]["coordinates"] = [0.0, 0.0]
    features[1]["geometry"]["coordinates"] = [-180.0, 85.0]
    minzoom, maxzoom = 0, 6
    expected = {}
    for feature in features:
        lon, lat = feature["geometry"]["coordinates"]
        limits = feature.get("tippecanoe", {})
        for z in range(max(minzoom, limits.get("minzoom", 0)), min(maxzoom, limits.get("maxzoom", 99)) + 1):
            # Its tile, and the tiles beside it whose 80-unit buffer it falls in; columns past
            # the antimeridian wrap round to the other side of the world, as tippecanoe does,
            # so at zoom 0 a point near it is in the one tile twice.
            home = mercantile.tile(lon, lat, z)
            width = 2 * math.pi * 6378137.0 / (1 << z)
            x, y = mercantile.xy(lon, lat)
            copies = {}
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    tx, ty = home.x + dx, home.y + dy
                    if not 0 <= ty < 1 << z:
                        continue
                    b = mercantile.xy_bounds(mercantile.Tile(tx % (1 << z), ty, z))
                    shift = (tx // (1 << z)) * (1 << z) * width
                    px = (x - b.left - shift) / (b.right - b.left) * 4096
                    py = (b.top - y) / (b.top - b.bottom) * 4096
                    if -80 <= px < 4176 and -80 <= py < 4176:
                        copies.setdefault(f"{z}/{tx % (1 << z)}/{ty}", []).extend(
                            [round(px, 3), round(py, 3)])
            for key, xy in copies.items():
                expected.setdefault(key, []).append([feature["properties"]["name"]] + xy)
    return {"type": "FeatureCollection", "features": features}, {
        "minZoom": minzoom, "maxZoom": maxzoom, "tiles": expected}


def dump(path, value, indent=1):
    with open(path, "w") as f:
        json.dump(value, f, indent=indent)
        f.write("\n")


dump(f"{out}/mercator/tiles.json", tiles())
dump(f"{out}/mercator/cameras.json", cameras())
dump(f"{out}/tiles/pmtiles-ids.json", pmtiles_ids(), None)
dump(f"{out}/tiles/pmtiles-directory.json", directory(), None)
points, expected = held_out_points()
dump(f"{out}/tiles/points.geojson", points, None)
dump(f"{out}/tiles/points-expected.json", expected, None)
