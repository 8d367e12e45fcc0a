#!/usr/bin/python3
"""Checks that every polygon in a tileset covers what a map client should fill: the source
feature clipped to the tile plus its buffer, computed independently with GEOS (Debian's
python3-shapely, the system GEOS). Validity and winding alone cannot see a ring that
encloses the wrong region; this compares areas.

For every tile of zooms 0..MAXZOOM and every feature (told apart by the property --key), the
area of the decoded polygons must equal the area of the source feature (projected to Web
Mercator, latitudes clamped at ±85.0511°, made valid by GEOS if it is not, with copies a
world east and west as geopipe makes near the antimeridian) intersected with the buffered tile square, within --relative of it
plus what rounding to whole tile units and simplifying by --simplification units can move
(the piece's perimeter times half a unit plus the tolerance). For every --sample-th piece
the symmetric difference must be as small. Features absent from a tile must have nothing
there larger than that allowance, and the other way round.

Usage: Scripts/check-tile-areas.py SOURCE.geojson[.gz] TILESET MAXZOOM --key name
Prints a line per zoom and the first problems; exits 1 if any piece is wrong.
"""
import argparse
import gzip
import json
import math
import sys

from shapely.affinity import affine_transform, translate
from shapely.geometry import MultiPolygon, Polygon, box, shape
from shapely.ops import transform
from shapely.validation import make_valid

from mvt_decode import area, features, rings, tiles

MAX_LATITUDE = 85.0511287798066


def project(lons, lats):
    xs, ys = [], []
    for lon, lat in zip(lons, lats):
        lat = max(-MAX_LATITUDE, min(MAX_LATITUDE, lat))
        s = math.sin(math.radians(lat))
        xs.append((lon + 180) / 360)
        ys.append(0.5 - math.log((1 + s) / (1 - s)) / (4 * math.pi))
    return xs, ys


def polygons_of(geometry):
    """The polygonal parts of a geometry, as a list of Polygons."""
    if geometry.is_empty:
        return []
    if geometry.geom_type == "Polygon":
        return [geometry]
    if geometry.geom_type in ("MultiPolygon", "GeometryCollection"):
        return [p for g in geometry.geoms for p in polygons_of(g)]
    return []


def load(path, key):
    """{key: (world geometry with its antimeridian copies, valid in the source?)}."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        collection = json.load(f)
    sources = {}
    for feature in collection["features"]:
        geometry = feature.get("geometry")
        if not geometry or geometry["type"] not in ("Polygon", "MultiPolygon"):
            continue
        g = transform(project, shape(geometry))
        valid = g.is_valid
        if not valid:
            g = MultiPolygon(polygons_of(make_valid(g)))
        parts = polygons_of(g)
        minx, _, maxx, _ = g.bounds
        if minx < 0.5:
            parts += polygons_of(translate(g, xoff=1))
        if maxx > 0.5:
            parts += polygons_of(translate(g, xoff=-1))
        name = feature["properties"].get(key)
        if name in sources:
            raise SystemExit(f"--key {key}: the value {name!r} names two features")
        sources[name] = (MultiPolygon(parts), valid)
    return sources


def tile_box(z, x, y, buffer):
    size = 1 / (1 << z)
    return box((x - buffer) * size, (y - buffer) * size, (x + 1 + buffer) * size,
               (y + 1 + buffer) * size)


def oracle(sources, maxzoom, buffer):
    """{(z, x, y): {key: world geometry}} for every tile a feature reaches, cut zoom by zoom
    from the zoom above (exact, since a child's buffered box lies in its parent's)."""
    pieces = {}
    level = {(0, 0): {}}
    root = tile_box(0, 0, 0, buffer)
    for name, (g, _) in sources.items():
        piece = g.intersection(root)
        if piece.area > 0:
            level[(0, 0)][name] = piece
    for z in range(maxzoom + 1):
        following = {}
        for (x, y), members in level.items():
            if not members:
                continue
            pieces[(z, x, y)] = members
            if z == maxzoom:
                continue
            for dx in (0, 1):
                for dy in (0, 1):
                    child = tile_box(z + 1, 2 * x + dx, 2 * y + dy, buffer)
                    kept = {}
                    for name, g in members.items():
                        if g.equals(tile_box(z, x, y, buffer)):
                            kept[name] = child
                            continue
                        if not g.intersects(child):
                            continue
                        part = g.intersection(child)
                        if part.area > 0:
                            kept[name] = MultiPolygon(polygons_of(part)) if part.geom_type not in (
                                "Polygon", "MultiPolygon") else part
                    if kept:
                        following[(2 * x + dx, 2 * y + dy)] = kept
        level = following
    return pieces


def decoded(data, key):
    """{key: MultiPolygon in tile units} of a tile's polygon features."""
    out = {}
    for _, properties, kind, geometry in features(data):
        if kind != 3:
            continue
        polygons = []
        for ring in rings(geometry):
            a = area(ring)
            if a > 0:
                polygons.append([ring])
            elif a < 0 and polygons:
                polygons[-1].append(ring)
        shapes = [Polygon(p[0], p[1:]) for p in polygons]
        name = properties.get(key)
        out.setdefault(name, []).extend(shapes)
    return {name: MultiPolygon(shapes) for name, shapes in out.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source")
    parser.add_argument("tileset")
    parser.add_argument("maxzoom", type=int)
    parser.add_argument("--key", required=True, help="the property that tells features apart")
    parser.add_argument("--buffer", type=float, default=80, help="tile units (default 80)")
    parser.add_argument("--extent", type=int, default=4096)
    parser.add_argument("--simplification", type=float, default=1)
    parser.add_argument("--relative", type=float, default=0.01)
    parser.add_argument("--sample", type=int, default=7)
    args = parser.parse_args()

    sources = load(args.source, args.key)
    invalid = {name for name, (_, valid) in sources.items() if not valid}
    expected = oracle(sources, args.maxzoom, args.buffer / args.extent)
    found = {}
    for z, x, y, data in tiles(args.tileset):
        if z <= args.maxzoom:
            found[(z, x, y)] = decoded(data, args.key)

    problems, checked, per_zoom = [], 0, {}
    for tile in sorted(set(expected) | set(found)):
        z, x, y = tile
        scale = args.extent * (1 << z)
        to_tile = [scale, 0, 0, scale, -x * args.extent, -y * args.extent]
        want = expected.get(tile, {})
        have = found.get(tile, {})
        for name in set(want) | set(have):
            o = affine_transform(want[name], to_tile) if name in want else None
            d = have.get(name)
            o_area = o.area if o is not None else 0.0
            d_area = d.area if d is not None else 0.0
            perimeter = (o if o is not None else d).length
            allowance = args.relative * o_area + perimeter * (0.5 + args.simplification) + 1
            checked += 1
            counts = per_zoom.setdefault(z, [0, 0])
            counts[0] += 1
            error = abs(d_area - o_area)
            if error <= allowance and o is not None and d is not None and checked % args.sample == 0:
                error = max(error, o.symmetric_difference(d.buffer(0)).area)
            if error > allowance:
                counts[1] += 1
                problems.append(
                    f"{z}/{x}/{y} {name}: tile area {d_area:.0f}, source clipped {o_area:.0f} "
                    f"(difference {error:.0f} > {allowance:.0f})")
    for z in sorted(per_zoom):
        total, bad = per_zoom[z]
        print(f"z{z}: {total} pieces, {bad} wrong")
    if invalid:
        print(f"made valid first (GEOS MakeValid, as geopipe does): "
              f"{', '.join(sorted(map(str, invalid)))}")
    for line in problems[:20]:
        print("  " + line, file=sys.stderr)
    print(f"tile areas: {checked - len(problems)} passed, {len(problems)} failed")
    sys.exit(1 if problems else 0)


main()
