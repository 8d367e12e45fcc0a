#!/usr/bin/env python3
"""Writes random valid polygons as GeoJSON, for checking how tiles cut them: jagged
star-shaped rings (deep bays, so that they enter a tile across one, two or three edges many
times and wrap its corners), some with a hole, some large enough to hold whole tiles, some
MultiPolygons, and combs whose teeth cross tile edges, one with its back on the antimeridian.
Each feature has a unique "name".

Usage: Scripts/gen-random-polygons.py COUNT SEED > polygons.geojson
"""
import json
import math
import random
import sys


def star(rng, cx, cy, radius, count, depth, reverse=False):
    """A simple ring: strictly turning angles, radii between radius*(1-depth) and radius
    (longitudes stretched so that it looks round on a map)."""
    stretch = 1 / math.cos(math.radians(cy))
    points = []
    for k in range(count):
        angle = 2 * math.pi * k / count * (-1 if reverse else 1)
        r = radius * (1 - depth * rng.random())
        points.append([round(cx + r * math.cos(angle) * stretch, 9),
                       round(cy + r * math.sin(angle), 9)])
    points.append(points[0])
    return points


def comb(rng, east, south, north, width, teeth):
    """A comb whose back runs north along the meridian `east` and whose teeth point west."""
    points = [[east, south], [east, north]]
    step = (north - south) / (2 * teeth)
    for t in range(teeth):
        top = north - 2 * t * step
        points += [[east - width * rng.uniform(0.6, 1), top],
                   [east - width * rng.uniform(0.6, 1), top - step],
                   [east - width * 0.1, top - step]]
        if t < teeth - 1:
            points.append([east - width * 0.1, top - 2 * step])
    points.append([east - width * rng.uniform(0.6, 1), south])
    points.append(points[0])
    return [[round(x, 9), round(y, 9)] for x, y in points]


def main():
    count, seed = int(sys.argv[1]), int(sys.argv[2])
    rng = random.Random(seed)
    features = []
    for k in range(count):
        if k % 10 == 9:
            east = 180.0 if k % 20 == 9 else rng.uniform(-150, 170)
            south = rng.uniform(-70, 40)
            width = rng.choice([0.5, 3, 12])
            north = south + rng.uniform(1, 30)
            geometry = {"type": "Polygon",
                        "coordinates": [comb(rng, east, south, north, width, rng.randint(2, 12))]}
        else:
            radius = rng.choice([0.3, 1.5, 4, 12, 30]) * rng.uniform(0.7, 1.3)
            cy = rng.uniform(-75 + radius, 75 - radius)
            reach = radius / math.cos(math.radians(cy)) * 4
            cx = rng.uniform(-175 + reach, 175 - reach) if reach < 170 else 0.0
            depth = rng.uniform(0.2, 0.85)
            vertices = rng.randint(12, 160)
            polygon = [star(rng, cx, cy, radius, vertices, depth)]
            if k % 3 == 1:
                # A hole well inside the exterior's smallest radius, wound the other way.
                polygon.append(
                    star(rng, cx, cy, radius * (1 - depth) * 0.6, rng.randint(6, 40), 0.5, True))
            if k % 4 == 2:
                offset = (2.5 * radius + 1) / math.cos(math.radians(cy))
                other = star(rng, cx + offset, cy, radius / 2, vertices // 2 + 6, depth)
                geometry = {"type": "MultiPolygon", "coordinates": [polygon, [other]]}
            else:
                geometry = {"type": "Polygon", "coordinates": polygon}
        features.append({"type": "Feature", "properties": {"name": f"p{k}"},
                         "geometry": geometry})
    json.dump({"type": "FeatureCollection", "features": features}, sys.stdout)
    sys.stdout.write("\n")


main()
