#!/usr/bin/env python3
"""Checks reverse-geocode's countries against GEOS through Debian's python3-shapely.

    check-country-polygons.py GEOPIPE WORKDIR

Builds the default gazetteer twice (with the shipped Natural Earth 1:10m countries, and with
--no-boundaries), then reverse-geocodes points generated from the same polygons: points near
land borders and near coasts (ring vertices moved by up to 0.1 degrees, some left exactly on
the vertex or on an edge's midpoint) and points well inside countries (more than 0.2 degrees
from their boundary). The oracle is shapely's prepared contains/intersects (GEOS): a point
belongs to the first country, in file order, whose polygon contains it, else to the first
whose boundary it lies on, else to none. With polygons every such point must get that
country (country_source polygon) and every other point country_source nearest; exits 1 on
any difference. Prints the share of contained points that get the right country with and
without polygons, for each kind of point.
"""
import gzip
import json
import os
import random
import subprocess
import sys
import warnings

from shapely.geometry import Point, shape
from shapely.prepared import prep
from shapely.strtree import STRtree

geopipe, work = sys.argv[1], sys.argv[2]
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
countries_file = os.path.join(root, "Data/naturalearth/ne_10m_admin_0_countries.geojsonl.gz")
info_file = os.path.join(root, "Data/geonames/countryInfo.txt.gz")


def country_code(properties, iso3):
    """The documented rule: ISO_A2, ISO_A2_EH, WB_A2, then ADM0_A3 through countryInfo."""
    for key in ("ISO_A2", "ISO_A2_EH", "WB_A2"):
        value = (properties.get(key) or "").strip()
        if len(value) == 2 and value.isalpha():
            return value.upper()
    return iso3.get((properties.get("ADM0_A3") or "").upper())


iso3 = {}
with gzip.open(info_file, "rt", encoding="utf-8") as f:
    for line in f:
        if line.startswith("#") or not line.strip():
            continue
        fields = line.rstrip("\n").split("\t")
        iso3[fields[1]] = fields[0]

areas = []
with gzip.open(countries_file, "rt", encoding="utf-8") as f:
    for line in f:
        feature = json.loads(line)
        code = country_code(feature["properties"], iso3)
        if code:
            areas.append((code, shape(feature["geometry"])))
prepared = [prep(geometry) for _, geometry in areas]
index_of = {id(geometry): k for k, (_, geometry) in enumerate(areas)}
# shapely 1.8 warns that STRtree changes in 2.0; Debian's 1.8 is the one with geopipe's GEOS.
warnings.filterwarnings("ignore", message="STRtree will be changed")
tree = STRtree([geometry for _, geometry in areas])


def candidates(point):
    return sorted(index_of[id(g)] for g in tree.query(point))


def expected(x, y):
    point = Point(x, y)
    found = candidates(point)
    for k in found:
        if prepared[k].contains(point):
            return areas[k][0]
    for k in found:
        if prepared[k].intersects(point):
            return areas[k][0]
    return None


def rings(geometry):
    polygons = geometry.geoms if geometry.geom_type == "MultiPolygon" else [geometry]
    for polygon in polygons:
        yield polygon.exterior.coords
        for hole in polygon.interiors:
            yield hole.coords


rng = random.Random(16)
samples = []  # (kind, x, y)
for k, (code, geometry) in enumerate(areas):
    vertices = [c for ring in rings(geometry) for c in ring[:-1]]
    step = max(1, len(vertices) // 24)
    for n, (vx, vy) in enumerate(vertices[::step]):
        others = [j for j in candidates(Point(vx, vy)) if j != k]
        border = any(areas[j][1].distance(Point(vx, vy)) < 1e-9 for j in others)
        kind = "border" if border else "coast"
        if n % 8 == 0:
            samples.append((kind, vx, vy))
        elif n % 8 == 1:
            nx, ny = vertices[(n * step + 1) % len(vertices)]
            samples.append((kind, (vx + nx) / 2, (vy + ny) / 2))
        else:
            samples.append((kind, vx + rng.uniform(-0.1, 0.1), vy + rng.uniform(-0.1, 0.1)))
    west, south, east, north = geometry.bounds
    inside = 0
    for _ in range(40):
        if inside == 4:
            break
        x, y = rng.uniform(west, east), rng.uniform(south, north)
        point = Point(x, y)
        if prepared[k].contains(point) and geometry.boundary.distance(point) > 0.2:
            samples.append(("inside", x, y))
            inside += 1

points_path = f"{work}/points.geojsonl"
with open(points_path, "w") as f:
    for i, (_, x, y) in enumerate(samples):
        f.write(json.dumps({"type": "Feature", "properties": {"i": i},
                            "geometry": {"type": "Point", "coordinates": [x, y]}}) + "\n")


def gazetteer(path, *extra):
    out = subprocess.run([geopipe, "gazetteer", "build", "--default", *extra, path, "--quiet"],
                         capture_output=True)
    if out.returncode != 0:
        sys.exit(f"gazetteer build failed: {out.stderr.decode()}")


def reverse(path):
    with open(points_path, "rb") as stdin:
        out = subprocess.run([geopipe, "reverse-geocode", "--gazetteer", path, "--quiet"],
                             stdin=stdin, capture_output=True)
    if out.returncode != 0:
        sys.exit(f"reverse-geocode failed: {out.stderr.decode()}")
    return [json.loads(line)["properties"] for line in out.stdout.decode().splitlines()]


gazetteer(f"{work}/with.sqlite")
gazetteer(f"{work}/without.sqlite", "--no-boundaries")
after = reverse(f"{work}/with.sqlite")
before = reverse(f"{work}/without.sqlite")
if len(after) != len(samples) or len(before) != len(samples):
    sys.exit("reverse-geocode wrote a different number of features than it read")

failures = 0
kinds = ["border", "coast", "inside"]
contained = {kind: 0 for kind in kinds}
right_before = {kind: 0 for kind in kinds}
right_after = {kind: 0 for kind in kinds}
for (kind, x, y), a, b in zip(samples, after, before):
    want = expected(x, y)
    source = a.get("geocode_country_source")
    if want is None:
        if source != "nearest":
            failures += 1
            if failures <= 20:
                print(f"  FAIL {x!r},{y!r}: in no polygon, got {a.get('geocode_country_code')} "
                      f"from {source}")
        continue
    contained[kind] += 1
    right_before[kind] += b.get("geocode_country_code") == want
    if a.get("geocode_country_code") == want and source == "polygon":
        right_after[kind] += 1
    else:
        failures += 1
        if failures <= 20:
            print(f"  FAIL {x!r},{y!r}: GEOS says {want}, got {a.get('geocode_country_code')} "
                  f"from {source}")

print(f"{len(samples)} points, {sum(contained.values())} in a country polygon")
print("kind     contained  nearest place (no polygons)  with polygons")
for kind in kinds:
    n = contained[kind]
    if n:
        print(f"{kind:8} {n:9}  {right_before[kind]:6} ({100 * right_before[kind] / n:5.1f}%)"
              f"               {right_after[kind]:6} ({100 * right_after[kind] / n:5.1f}%)")
if failures:
    sys.exit(f"{failures} points differ from GEOS")
print("reverse-geocode's countries agree with GEOS on every point")
