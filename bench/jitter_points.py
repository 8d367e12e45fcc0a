#!/usr/bin/env python3
"""Writes POINTS points near the cities of cities145k: each a place picked at random (seeded),
moved by N(0, 0.01°) in longitude and latitude, clamped to the valid ranges, keeping the
place's id, name and country code. The cluster and tiles benchmarks share the file.

Usage: bench/jitter_points.py CITIES.geojson OUT.geojson POINTS SEED
"""
import json, random, sys

source, out, points, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
with open(source, encoding="utf-8") as f:
    places = [(feature["properties"], feature["geometry"]["coordinates"])
              for feature in json.load(f)["features"]]
rng = random.Random(seed)
with open(out, "w", encoding="utf-8", buffering=1 << 20) as f:
    f.write('{"type":"FeatureCollection","features":[\n')
    for i in range(points):
        props, (lon, lat) = places[rng.randrange(len(places))]
        lon = min(180.0, max(-180.0, lon + rng.gauss(0.0, 0.01)))
        lat = min(90.0, max(-90.0, lat + rng.gauss(0.0, 0.01)))
        f.write(('' if i == 0 else ',\n') + '{"type":"Feature","properties":{"place":'
                + json.dumps(props["id"]) + ',"name":' + json.dumps(props["name"], ensure_ascii=False)
                + ',"cc":' + json.dumps(props["cc"]) + '},"geometry":{"type":"Point",'
                + f'"coordinates":[{lon:.6f},{lat:.6f}]}}}}')
    f.write('\n]}\n')
