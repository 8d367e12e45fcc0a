#!/usr/bin/env python3
"""Generate a deterministic GeoJSON FeatureCollection for the validate benchmark.

    generate_polygons.py [--megabytes N] [--seed S] OUT

One feature per line, about N MB (10^6 bytes): mostly polygons (some with holes, 12 to 80
vertices, coordinates with 6 decimals) and lines, a few points. About 2% of the features
have a problem for validate to find: a self-intersecting ring (bowtie), a clockwise
exterior, a repeated position, a duplicate id or a line crossing the antimeridian. The same
seed gives the same bytes.
"""
import argparse
import math
import random


def ring(rng, cx, cy, radius, n, clockwise=False):
    """A star-shaped (so simple) ring around (cx, cy), counter-clockwise unless asked."""
    angles = sorted(rng.uniform(0, 2 * math.pi) for _ in range(n))
    points = []
    for a in angles:
        r = radius * rng.uniform(0.6, 1.0)
        points.append((round(cx + r * math.cos(a), 6), round(cy + r * math.sin(a), 6)))
    if clockwise:
        points.reverse()
    points.append(points[0])
    return points


def text(points):
    return "[" + ",".join(f"[{x},{y}]" for x, y in points) + "]"


def feature(rng, index):
    kind = rng.random()
    fid = index if rng.random() > 0.002 else max(0, index - 1)
    problem = rng.random()
    cx = rng.uniform(-170, 170)
    cy = rng.uniform(-80, 80)
    if kind < 0.75:
        radius = rng.uniform(0.01, 0.5)
        shell = ring(rng, cx, cy, radius, rng.randint(12, 80), clockwise=problem < 0.005)
        if 0.005 <= problem < 0.01:
            shell = [shell[0], shell[2], shell[1]] + shell[3:]
        if 0.01 <= problem < 0.015:
            shell.insert(3, shell[2])
        rings = [shell]
        if rng.random() < 0.2:
            rings.append(ring(rng, cx, cy, radius * 0.3, rng.randint(6, 20), clockwise=True))
        geometry = '{"type":"Polygon","coordinates":[' + ",".join(map(text, rings)) + "]}"
    elif kind < 0.95:
        n = rng.randint(5, 60)
        x, y = cx, cy
        points = []
        for _ in range(n):
            points.append((round(x, 6), round(y, 6)))
            x += rng.uniform(-0.05, 0.05)
            y += rng.uniform(-0.05, 0.05)
        if problem < 0.005:
            points = [(179.9, y), (-179.9, y)] + points[2:]
        geometry = '{"type":"LineString","coordinates":' + text(points) + "}"
    else:
        geometry = f'{{"type":"Point","coordinates":[{round(cx, 6)},{round(cy, 6)}]}}'
    name = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(4, 12)))
    return (
        f'{{"type":"Feature","id":{fid},"geometry":{geometry},'
        f'"properties":{{"name":"{name.capitalize()}","value":{rng.randint(0, 100000)}}}}}'
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--megabytes", type=float, default=100)
    parser.add_argument("--seed", type=int, default=7946)
    parser.add_argument("out")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    target = int(args.megabytes * 1_000_000)
    size = 0
    with open(args.out, "w", encoding="utf-8", newline="\n") as out:
        out.write('{"type":"FeatureCollection","features":[\n')
        index = 0
        while size < target:
            line = feature(rng, index) + ",\n"
            out.write(line)
            size += len(line)
            index += 1
        out.write(feature(rng, index) + "\n]}\n")


if __name__ == "__main__":
    main()
