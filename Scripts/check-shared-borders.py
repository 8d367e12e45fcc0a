#!/usr/bin/python3
"""Measures gaps and overlaps between neighbouring polygons after simplification, with GEOS
(Debian's python3-shapely, the GEOS geopipe links).

    check-shared-borders.py ORIGINAL SIMPLIFIED [--key NAME] [--expect-clean]

ORIGINAL and SIMPLIFIED are GeoJSON text sequences (one feature a line) of the same layer.
Prints one line of measures:

- features: in and out, and whether every value of --key is still there;
- vertices: in and out;
- overlap: the area covered twice (sum of the areas minus the area of their union), and the
  number of neighbour pairs whose intersection has an area;
- gaps: holes in the union of the simplified polygons that the union of the originals does
  not have (land between neighbours that no feature covers any more), count and area.

Areas are in square degrees. With --expect-clean exits 1 unless every feature is kept, no
overlap is larger than 1e-9 and no new hole opened.
"""
import json
import sys

from shapely.geometry import shape
from shapely.ops import unary_union
from shapely.strtree import STRtree

TINY = 1e-9


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def vertices(g):
    if g.is_empty:
        return 0
    if g.geom_type == "Polygon":
        return len(g.exterior.coords) + sum(len(r.coords) for r in g.interiors)
    if g.geom_type in ("LineString", "LinearRing"):
        return len(g.coords)
    return sum(vertices(part) for part in g.geoms)


def holes(g):
    parts = [g] if g.geom_type == "Polygon" else list(getattr(g, "geoms", []))
    return [p for part in parts for p in part.interiors]


def main():
    args = sys.argv[1:]
    expect_clean = "--expect-clean" in args
    key = "NAME"
    if "--key" in args:
        key = args[args.index("--key") + 1]
    paths = [a for k, a in enumerate(args) if not a.startswith("--") and
             (k == 0 or args[k - 1] != "--key")]
    original, simplified = load(paths[0]), load(paths[1])
    names_in = {f["properties"].get(key) for f in original}
    names_out = {f["properties"].get(key) for f in simplified}
    before = [shape(f["geometry"]).buffer(0) for f in original]
    after = [shape(f["geometry"]) for f in simplified if f.get("geometry")]
    after_valid = [g if g.is_valid else g.buffer(0) for g in after]
    invalid = sum(1 for g in after if not g.is_valid)

    union_after = unary_union(after_valid)
    overlap = sum(g.area for g in after_valid) - union_after.area
    tree = STRtree(after_valid)
    index = {id(g): k for k, g in enumerate(after_valid)}
    pairs = 0
    for k, g in enumerate(after_valid):
        for other in tree.query(g):
            j = index[id(other)]
            if j > k and g.intersection(other).area > TINY:
                pairs += 1

    union_before = unary_union(before)
    old_holes = [h for h in holes(union_before)]
    old = unary_union([shape({"type": "Polygon", "coordinates": [list(h.coords)]})
                       for h in old_holes]) if old_holes else None
    new_holes = []
    for h in holes(union_after):
        hole = shape({"type": "Polygon", "coordinates": [list(h.coords)]})
        if old is None or hole.difference(old).area > TINY:
            new_holes.append(hole.area if old is None else hole.difference(old).area)

    kept_all = names_in == names_out and len(simplified) == len(original)
    print(f"features {len(original)} -> {len(simplified)} (all kept: {kept_all}); "
          f"vertices {sum(vertices(g) for g in before)} -> {sum(vertices(g) for g in after)}; "
          f"invalid {invalid}; overlap {overlap:.3g} deg2 in {pairs} neighbour pairs; "
          f"gaps {len(new_holes)} holes, {sum(new_holes):.3g} deg2")
    if expect_clean:
        problems = []
        if not kept_all:
            problems.append(f"features lost: {sorted(map(str, names_in - names_out))}")
        if overlap > TINY or pairs:
            problems.append("neighbours overlap")
        if new_holes:
            problems.append("gaps opened between neighbours")
        if problems:
            print("  FAIL " + "; ".join(problems))
            sys.exit(1)


main()
