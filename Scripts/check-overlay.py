#!/usr/bin/env python3
"""Checks geopipe's join, clip and dissolve against GEOS through Debian's python3-shapely.

    check-overlay.py GEOPIPE WORKDIR

Joins 10,000 random points (and points placed exactly on shared state borders and vertices) to
the US states and the Natural Earth countries with each predicate, clips the countries and
the states to boxes (one across the antimeridian), and dissolves the countries by continent;
every answer is compared with shapely's (GEOS) on the same inputs. Exits 1 on any difference.
"""
import gzip
import json
import random
import sys

from shapely.geometry import box, shape
from shapely.ops import unary_union
from shapely.prepared import prep

from geopipe_runner import run_geopipe

geopipe, work = sys.argv[1], sys.argv[2]
failures = 0


def run(args, stdin_path):
    return run_geopipe(geopipe, args, stdin_path)


def fail(message):
    global failures
    failures += 1
    if failures <= 20:
        print("  FAIL " + message)


def layer(path, key):
    """The layer as geopipe reads it (a declared CRS such as NAD83 is reprojected to WGS84),
    written as GeoJSONSeq for both tools."""
    plain = f"{work}/{key}.geojsonl"
    with gzip.open(path, "rb") as f, open(f"{work}/{key}.geojson", "wb") as out:
        out.write(f.read())
    features = run(["read", f"{work}/{key}.geojson"], "/dev/null")
    with open(plain, "w") as f:
        for feature in features:
            f.write(json.dumps(feature) + "\n")
    return plain, [shape(f["geometry"]) for f in features], [f["properties"][key] for f in features], features


def points(n, seed, extra):
    rng = random.Random(seed)
    path = f"{work}/points-{seed}.geojsonl"
    coords = [(rng.uniform(-180, 180), rng.uniform(-60, 80)) for _ in range(n)] + extra
    with open(path, "w") as f:
        for i, (x, y) in enumerate(coords):
            f.write(json.dumps({"type": "Feature", "properties": {"i": i},
                                "geometry": {"type": "Point", "coordinates": [x, y]}}) + "\n")
    return path


def near(bounds, p):
    """The indices of the boxes that hold point p (a box filter before the exact test)."""
    x, y = p.x, p.y
    return [i for i, (w, s, e, n) in enumerate(bounds) if w <= x <= e and s <= y <= n]


def check_join(name, plain, geoms, names, key, pts):
    bounds = [g.bounds for g in geoms]
    prepared = [prep(g) for g in geoms]
    for predicate in ["intersects", "within"]:
        got = run(["join", "--with", plain, "--predicate", predicate, "--fields", key,
                   "--matches", "list"], pts)
        boundary = 0
        for f in got:
            p = shape(f["geometry"])
            candidates = near(bounds, p)
            if predicate == "intersects":
                expected = [names[i] for i in candidates if prepared[i].intersects(p)]
            else:
                expected = [names[i] for i in candidates if prepared[i].contains(p)]
                if not expected:
                    # The boundary rule: the first polygon in layer order whose boundary has it.
                    edge = [names[i] for i in candidates if prepared[i].intersects(p)]
                    expected = edge[:1]
                    boundary += bool(edge)
            if f["properties"][key] != expected:
                fail(f"{name} {predicate} {p.wkt}: {f['properties'][key]} != {expected}")
        print(f"{name}: join --predicate {predicate}: {len(got)} points checked"
              + (f" ({boundary} on a boundary)" if predicate == "within" else ""))


def border_points(geoms, n, seed):
    """n vertices of the polygons' exterior rings (on shared borders where states meet)."""
    rng = random.Random(seed)
    rings = [list(poly.exterior.coords) for g in geoms for poly in getattr(g, "geoms", [g])]
    result = []
    for _ in range(n):
        ring = rings[rng.randrange(len(rings))]
        result.append(ring[rng.randrange(len(ring) - 1)])
    return result


states_plain, states, state_names, _ = layer("Fixtures/tiles/us_states_500k.geojson.gz", "NAME")
countries_plain, countries, country_names, country_features = layer(
    "Fixtures/geometry/ne_110m_countries.geojson.gz", "name")

check_join("states", states_plain, states, state_names, "NAME",
           points(5000, 1, border_points(states, 2000, 2)))
check_join("countries", countries_plain, countries, country_names, "name",
           points(5000, 3, border_points(countries, 1000, 4)))

for name, plain, geoms, names, key in [
    ("countries", countries_plain, countries, country_names, "name"),
    ("states", states_plain, states, state_names, "NAME"),
]:
    for bbox in ["-10,35,30,60", "-125,30,-100,45", "170,-50,-170,-10"]:
        got = run(["clip", "--bbox", bbox], plain)
        w, s, e, n = map(float, bbox.split(","))
        area = box(w, s, e, n) if w <= e else box(w, s, 180, n).union(box(-180, s, e, n))
        expected = {names[i]: g.intersection(area) for i, g in enumerate(geoms)}
        expected = {k: v for k, v in expected.items() if v.area > 0}
        seen = set()
        for f in got:
            k = f["properties"][key]
            seen.add(k)
            g = shape(f["geometry"])
            if k not in expected:
                fail(f"clip {bbox}: {k} kept, GEOS leaves nothing")
            elif not g.is_valid or g.symmetric_difference(expected[k]).area > 1e-9 * max(1, expected[k].area):
                fail(f"clip {bbox}: {k} differs from GEOS by {g.symmetric_difference(expected[k]).area}")
        for k in set(expected) - seen:
            fail(f"clip {bbox}: {k} missing")
        print(f"{name}: clip --bbox {bbox}: {len(got)} features checked")

got = run(["dissolve", "--by", "continent"], countries_plain)
for f in got:
    c = f["properties"]["continent"]
    members = [countries[i] for i, x in enumerate(country_features) if x["properties"]["continent"] == c]
    expected = unary_union(members)
    g = shape(f["geometry"])
    if f["properties"]["count"] != len(members) or g.symmetric_difference(expected).area > 1e-9:
        fail(f"dissolve {c}: differs from GEOS")
print(f"countries: dissolve --by continent: {len(got)} groups checked")

print("overlay:", "0 failed" if failures == 0 else f"{failures} failed")
sys.exit(1 if failures else 0)
