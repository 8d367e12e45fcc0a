#!/usr/bin/python3
"""A reference implementation of simplify's ranked methods, written apart from geopipe's, and
a comparison of the two on real lines and polygons.

    simplify-reference.py GEOPIPE WORKDIR

For each case below, runs `geopipe simplify` and computes the expected result here: every
line and ring is one arc whose ends (a ring's first position) stay; Visvalingam-Whyatt
effective areas come from a heap with lazy deletion (ties to the earlier position; a vertex
never ranks below one removed before it), mapshaper's weighted variant multiplies them by
1 - K cos(angle); Douglas-Peucker ranks come from recursion (a vertex never ranks above the
one that split its section off). A tolerance keeps Visvalingam vertices whose 0.65 sqrt(area)
is at least the tolerance and Douglas-Peucker vertices farther than it; a percentage keeps
the top P% of all removable vertices of the layer (ties to the earlier vertex in feature,
ring and position order). Rings left with fewer than four positions, or without area, go
(--keep-shapes puts back their best vertices instead), and so does a polygon whose shell
went. Every coordinate of every feature must match exactly. Exits 1 on any difference.
"""
import gzip
import heapq
import json
import math
import sys

from geopipe_runner import run_geopipe

geopipe, work = sys.argv[1], sys.argv[2]
failures = 0


def run(args, stdin_path):
    return run_geopipe(geopipe, args, stdin_path)


def layer(name):
    """The fixture as geopipe reads it, as GeoJSONSeq."""
    source = f"{work}/{name}.geojson"
    with gzip.open(f"Fixtures/geometry/{name}.geojson.gz", "rb") as f, open(source, "wb") as out:
        out.write(f.read())
    features = run(["read", source], "/dev/null")
    path = f"{work}/{name}.geojsonl"
    with open(path, "w") as f:
        for feature in features:
            f.write(json.dumps(feature) + "\n")
    return path, features


def paths_of(geometry):
    """(positions, is_ring) for every line and ring, in collection order."""
    kind = geometry["type"]
    c = geometry.get("coordinates")
    if kind == "LineString":
        return [(c, False)]
    if kind == "MultiLineString":
        return [(line, False) for line in c]
    if kind == "Polygon":
        return [(ring, len(ring) > 1 and ring[0] == ring[-1]) for ring in c]
    if kind == "MultiPolygon":
        return [(ring, len(ring) > 1 and ring[0] == ring[-1]) for poly in c for ring in poly]
    if kind == "GeometryCollection":
        return [p for g in geometry["geometries"] for p in paths_of(g)]
    return []


def triangle(a, b, c):
    return abs((b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1])) / 2


def cos_at(a, b, c):
    la = math.sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]))
    lc = math.sqrt((c[0] - b[0]) * (c[0] - b[0]) + (c[1] - b[1]) * (c[1] - b[1]))
    lengths = la * lc
    if not lengths > 0:
        return 0.0
    return min(1.0, max(-1.0, ((a[0] - b[0]) * (c[0] - b[0]) + (a[1] - b[1]) * (c[1] - b[1])) / lengths))


def visvalingam_ranks(pts, weighting):
    """Effective-area ranks of pts[1:-1] (pts is the arc, ends fixed)."""
    n = len(pts)
    ranks = [math.inf] * n
    if n < 3:
        return ranks

    def area(i, j, k):
        a = triangle(pts[i], pts[j], pts[k])
        return a if weighting == 0 else a * (1 - weighting * cos_at(pts[i], pts[j], pts[k]))

    left = list(range(-1, n - 1))
    right = list(range(1, n + 1))
    current = [None] * n
    heap = []
    for j in range(1, n - 1):
        current[j] = area(j - 1, j, j + 1)
        heap.append((current[j], j))
    heapq.heapify(heap)
    gone = [False] * n
    highest = -math.inf
    while heap:
        value, j = heapq.heappop(heap)
        if gone[j] or value != current[j]:
            continue
        gone[j] = True
        highest = max(highest, value)
        ranks[j] = highest
        i, k = left[j], right[j]
        right[i], left[k] = k, i
        for m in (i, k):
            if 0 < m < n - 1:
                current[m] = area(left[m], m, right[m])
                heapq.heappush(heap, (current[m], m))
    return ranks


def segment_distance(p, a, b):
    """GEOS's point-to-segment distance."""
    if a == b:
        return math.sqrt((p[0] - a[0]) ** 2 + (p[1] - a[1]) ** 2)
    len2 = (b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1])
    r = ((p[0] - a[0]) * (b[0] - a[0]) + (p[1] - a[1]) * (b[1] - a[1])) / len2
    if r <= 0:
        return math.sqrt((p[0] - a[0]) * (p[0] - a[0]) + (p[1] - a[1]) * (p[1] - a[1]))
    if r >= 1:
        return math.sqrt((p[0] - b[0]) * (p[0] - b[0]) + (p[1] - b[1]) * (p[1] - b[1]))
    s = ((a[1] - p[1]) * (b[0] - a[0]) - (a[0] - p[0]) * (b[1] - a[1])) / len2
    return abs(s) * math.sqrt(len2)


def dp_ranks(pts):
    n = len(pts)
    ranks = [math.inf] * n
    sys.setrecursionlimit(100000)

    def split(i, j, cap):
        if j - i < 2:
            return
        best, where = -1.0, i + 1
        for k in range(i + 1, j):
            d = segment_distance(pts[k], pts[i], pts[j])
            if d > best:
                best, where = d, k
        ranks[where] = min(best, cap)
        split(i, where, ranks[where])
        split(where, j, ranks[where])

    split(0, n - 1, math.inf)
    return ranks


def expected(features, method, weighting, tolerance, percentage, keep_shapes):
    # Ranks of every position, in layer order: (feature, path, position) -> rank.
    arcs = []  # (feature, path, points, is_ring, ranks)
    for f, feature in enumerate(features):
        geometry = feature.get("geometry")
        if not geometry or geometry["type"] in ("Point", "MultiPoint"):
            continue
        for p, (pts, ring) in enumerate(paths_of(geometry)):
            arc = [tuple(q[:2]) for q in pts]
            ranks = dp_ranks(arc) if method == "dp" else visvalingam_ranks(arc, weighting)
            arcs.append((f, p, pts, ring, ranks))
    keep = {}
    if percentage is not None:
        removable = [(r, (a, k)) for a, (_, _, _, _, ranks) in enumerate(arcs)
                     for k, r in enumerate(ranks) if r != math.inf and not
                     (arcs[a][3] and k == len(ranks) - 1)]
        count = math.floor(percentage / 100 * len(removable) + 0.5)
        removable.sort(key=lambda t: -t[0])  # stable: ties stay in layer order
        chosen = {key for _, key in removable[:count]}
    for a, (_, _, pts, ring, ranks) in enumerate(arcs):
        flags = []
        for k, r in enumerate(ranks):
            if r == math.inf:
                flags.append(True)
            elif percentage is not None:
                flags.append((a, k) in chosen)
            elif method == "dp":
                flags.append(r > tolerance)
            else:
                flags.append(0.65 * math.sqrt(r) >= tolerance)
        if keep_shapes and ring and collapsed(pts, flags):
            order = sorted((k for k in range(1, len(pts) - 1) if not flags[k]),
                           key=lambda k: -ranks[k])
            for k in order:
                flags[k] = True
                if not collapsed(pts, flags):
                    break
        keep[a] = flags
    out = []
    a = 0
    for f, feature in enumerate(features):
        geometry = feature.get("geometry")
        if not geometry or geometry["type"] in ("Point", "MultiPoint"):
            out.append(feature)
            continue
        count = len(paths_of(geometry))
        rebuilt, a = rebuild(geometry, arcs, keep, a)
        assert a == sum(1 for arc in arcs if arc[0] <= f) and count >= 0
        if rebuilt is not None:
            out.append(dict(feature, geometry=rebuilt))
    return out


def collapsed(pts, flags):
    kept = [tuple(pts[k][:2]) for k in range(len(pts) - 1) if flags[k]]
    if len(set(kept)) < 3:
        return True
    twice = sum(kept[k][0] * kept[(k + 1) % len(kept)][1] - kept[(k + 1) % len(kept)][0] * kept[k][1]
                for k in range(len(kept)))
    return twice == 0


def rebuild(geometry, arcs, keep, a):
    def line(pts):
        nonlocal a
        flags = keep[a]
        a += 1
        return [q for q, f in zip(pts, flags) if f]

    def ring(pts):
        nonlocal a
        if not arcs[a][3]:
            return line(pts)
        flags = keep[a]
        a += 1
        out = [q for q, f in zip(pts[:-1], flags[:-1]) if f]
        if not out:
            return None
        out.append(out[0])
        if len(out) < 4:
            return None
        twice = sum(out[k][0] * out[k + 1][1] - out[k + 1][0] * out[k][1] for k in range(len(out) - 1))
        if len(out) < len(pts) and twice == 0:
            return None
        return out

    def polygon(rings):
        done = [ring(r) for r in rings]
        if not done:
            return []
        if done[0] is None:
            return None
        return [done[0]] + [r for r in done[1:] if r is not None]

    kind = geometry["type"]
    c = geometry["coordinates"] if kind != "GeometryCollection" else None
    if kind == "LineString":
        return {"type": kind, "coordinates": line(c)}, a
    if kind == "MultiLineString":
        return {"type": kind, "coordinates": [line(x) for x in c]}, a
    if kind == "Polygon":
        p = polygon(c)
        return (None if p is None else {"type": kind, "coordinates": p}), a
    if kind == "MultiPolygon":
        ps = [p for p in (polygon(x) for x in c) if p is not None]
        return (None if not ps else {"type": kind, "coordinates": ps}), a
    raise SystemExit(f"no reference for {kind}")


def vertex_count(features):
    return sum(len(pts) for f in features if f.get("geometry") for pts, _ in paths_of(f["geometry"]))


CASES = [
    ("ne_110m_countries", ["--method", "visvalingam", "--percentage", "10%"]),
    ("ne_110m_countries", ["--method", "weighted-visvalingam", "--percentage", "3%"]),
    ("ne_110m_countries", ["--method", "visvalingam", "--percentage", "1%", "--keep-shapes"]),
    ("ne_110m_countries", ["--method", "visvalingam", "--tolerance", "0.5"]),
    ("ne_110m_countries", ["--method", "dp", "--percentage", "20%"]),
    ("us_states_500k_sample", ["--percentage", "5%"]),
    ("us_states_500k_sample", ["--method", "weighted-visvalingam", "--weighting", "1",
                               "--tolerance", "0.01", "--keep-shapes"]),
    ("wdbii_rivers_sample", ["--method", "visvalingam", "--percentage", "25%"]),
    ("wdbii_rivers_sample", ["--method", "dp", "--percentage", "5%"]),
]


def option(args, name, default=None):
    return args[args.index(name) + 1] if name in args else default


layers = {}
for name, args in CASES:
    if name not in layers:
        layers[name] = layer(name)
    path, features = layers[name]
    got = run(["simplify", *args], path)
    method = option(args, "--method", "weighted-visvalingam")
    weighting = float(option(args, "--weighting", "0.7")) if method == "weighted-visvalingam" else 0
    percentage = option(args, "--percentage")
    percentage = float(percentage.rstrip("%")) if percentage else None
    tolerance = float(option(args, "--tolerance", "0"))
    want = expected(features, method, weighting, tolerance, percentage, "--keep-shapes" in args)
    label = f"{name} simplify {' '.join(args)}"
    same = len(got) == len(want) and all(
        g.get("geometry") == w.get("geometry") for g, w in zip(got, want))
    print(f"{label}: {vertex_count(features)} -> {vertex_count(got)} vertices "
          f"(reference {vertex_count(want)}), {len(got)} of {len(features)} features")
    if not same:
        failures += 1
        first = next((k for k, (g, w) in enumerate(zip(got, want))
                      if g.get("geometry") != w.get("geometry")), min(len(got), len(want)))
        print(f"  FAIL differs from the reference at feature {first}")

sys.exit(1 if failures else 0)
