#!/usr/bin/env python3
"""Checks that two files hold the same features, to the bit.

    compare-features.py A B --key PROPERTY

A and B are GeoJSON FeatureCollections or GeoJSONSeq files. Features are matched by the value
of PROPERTY; their geometries must have the same type and coordinates (as doubles, exactly;
a Polygon and a one-polygon MultiPolygon count as the same) and their properties the same
values (None for a property one side lacks). Prints "ok N" or the differences, and exits 1
when there are any.
"""
import argparse
import json
import sys


def features(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        return json.loads(text)["features"]
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def shape(geometry):
    if geometry and geometry["type"] == "Polygon":
        return {"type": "MultiPolygon", "coordinates": [geometry["coordinates"]]}
    return geometry


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--key", required=True)
    args = parser.parse_args()
    a = {f["properties"][args.key]: f for f in features(args.a)}
    b = {f["properties"][args.key]: f for f in features(args.b)}
    problems = []
    if a.keys() != b.keys():
        problems.append(f"keys only in A: {sorted(a.keys() - b.keys())[:5]}, "
                        f"only in B: {sorted(b.keys() - a.keys())[:5]}")
    for key in sorted(a.keys() & b.keys()):
        fa, fb = a[key], b[key]
        if shape(fa["geometry"]) != shape(fb["geometry"]):
            problems.append(f"{key}: geometries differ")
        names = set(fa["properties"]) | set(fb["properties"])
        for name in sorted(names):
            va, vb = fa["properties"].get(name), fb["properties"].get(name)
            if va != vb or type(va) is not type(vb):
                problems.append(f"{key}: property {name}: {va!r} != {vb!r}")
    if problems:
        print("\n".join(problems[:20]))
        sys.exit(1)
    print(f"ok {len(a)}")


if __name__ == "__main__":
    main()
