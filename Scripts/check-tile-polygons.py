#!/usr/bin/python3
"""Checks every polygon in a tileset's tiles with GEOS (through Debian's python3-shapely, which
uses the system GEOS that geopipe links): OGC validity, and MVT 2.1's winding (exteriors with
positive area in tile coordinates, holes negative). Decodes MBTiles or PMTiles and MVT itself,
so it needs nothing but shapely.

Usage: Scripts/check-tile-polygons.py TILESET.mbtiles|TILESET.pmtiles [MAXZOOM]
Prints a line per zoom and exits 1 if any polygon is invalid.
"""
import sys
from collections import Counter

from shapely.geometry import Polygon, MultiPolygon
from shapely.validation import explain_validity

from mvt_decode import area, fields, packed, rings, tiles


def main():
    path = sys.argv[1]
    maxzoom = int(sys.argv[2]) if len(sys.argv) > 2 else 99
    per_zoom = {}
    reasons = Counter()
    for z, x, y, data in tiles(path):
        if z > maxzoom:
            continue
        stats = per_zoom.setdefault(z, [0, 0, 0])
        for field, layer in fields(data):
            if field != 3:
                continue
            for lf, feature in fields(layer):
                if lf != 2:
                    continue
                kind, geometry = 0, []
                for ff, value in fields(feature):
                    if ff == 3:
                        kind = value
                    elif ff == 4:
                        geometry = packed(value)
                if kind != 3:
                    continue
                stats[0] += 1
                polygons, winding = [], True
                for ring in rings(geometry):
                    a = area(ring)
                    if a > 0:
                        polygons.append([ring])
                    elif polygons and a < 0:
                        polygons[-1].append(ring)
                    else:
                        winding = False
                shape = MultiPolygon([Polygon(p[0], p[1:]) for p in polygons]) if polygons else None
                if shape is None or not winding or not shape.is_valid:
                    stats[1] += 1
                    reason = explain_validity(shape).split("[")[0] if shape is not None else "empty"
                    reasons[reason if winding else "winding: " + reason] += 1
                    if stats[1] <= 3:
                        print(f"  {z}/{x}/{y}: {reasons.most_common(1)[0][0]}", file=sys.stderr)
    invalid = 0
    for z in sorted(per_zoom):
        total, bad, _ = per_zoom[z]
        invalid += bad
        print(f"z{z}: {total} polygons, {bad} invalid")
    for reason, count in reasons.most_common():
        print(f"  {count} {reason}")
    sys.exit(1 if invalid else 0)


main()
