#!/usr/bin/python3
"""Checks that GDAL reads a FlatGeobuf file as the given GeoJSONSeq features (see README.md)."""
import json
import sys

from osgeo import ogr

ogr.UseExceptions()


def close(a, b, path):
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return f"{path}: {len(a)} vs {len(b)} items"
        for k, (x, y) in enumerate(zip(a, b)):
            problem = close(x, y, f"{path}[{k}]")
            if problem:
                return problem
        return None
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, bool) or isinstance(b, bool):
            return f"{path}: {a!r} vs {b!r}"
        if abs(float(a) - float(b)) > 1e-9 * max(1.0, abs(float(a))):
            return f"{path}: {a!r} vs {b!r}"
        return None
    return None if a == b else f"{path}: {a!r} vs {b!r}"


def gdal_geometry(geometry):
    if geometry is None:
        return None
    return json.loads(geometry.ExportToJson())


def geometry_problem(g, p):
    if g is None or p is None:
        return None if g is None and p is None else f"geometry: {g!r} vs {p!r}"
    if g["type"] != p["type"]:
        return f"geometry type: {g['type']} vs {p['type']}"
    if g["type"] == "GeometryCollection":
        return close(
            [m.get("coordinates") for m in g["geometries"]],
            [m.get("coordinates") for m in p["geometries"]], "geometries")
    return close(g["coordinates"], p["coordinates"], "coordinates")


def gdal_value(feature, k, definition):
    if not feature.IsFieldSetAndNotNull(k):
        return None
    kind = definition.GetType()
    subtype = definition.GetSubType()
    if kind in (ogr.OFTInteger, ogr.OFTInteger64):
        value = feature.GetFieldAsInteger64(k)
        return bool(value) if subtype == ogr.OFSTBoolean else value
    if kind == ogr.OFTReal:
        return feature.GetFieldAsDouble(k)
    if kind == ogr.OFTString and subtype == ogr.OFSTJSON:
        return json.loads(feature.GetFieldAsString(k))
    return feature.GetField(k)


def main():
    arguments = sys.argv[1:]
    spat = None
    if arguments[0] == "--spat":
        spat = [float(v) for v in arguments[1:5]]
        arguments = arguments[5:]
    path, features_path = arguments
    source = ogr.Open(path)
    layer = source.GetLayer(0)
    if spat:
        layer.SetSpatialFilterRect(*spat)
    definition = layer.GetLayerDefn()
    fields = [definition.GetFieldDefn(k) for k in range(definition.GetFieldCount())]
    with open(features_path, encoding="utf-8") as text:
        ours = [json.loads(line) for line in text if line.strip()]
    count = 0
    for feature in layer:
        if count >= len(ours):
            print(f"GDAL reads more than {len(ours)} features")
            return 1
        mine = ours[count]
        properties = {f.GetName(): gdal_value(feature, k, f) for k, f in enumerate(fields)}
        theirs = mine.get("properties") or {}
        if list(properties) != list(theirs) and set(properties) != set(theirs):
            print(f"feature {count}: fields {list(properties)} vs {list(theirs)}")
            return 1
        for key, value in properties.items():
            mine_value = theirs.get(key)
            if isinstance(value, str) and value != mine_value:
                # GDAL 3.6 reads a Json column as text; geopipe parses it.
                try:
                    value = json.loads(value)
                except ValueError:
                    pass
            problem = close(value, mine_value, key)
            if problem:
                print(f"feature {count}: {problem}")
                return 1
        problem = geometry_problem(gdal_geometry(feature.GetGeometryRef()), mine.get("geometry"))
        if problem:
            print(f"feature {count}: {problem}")
            return 1
        count += 1
    if count != len(ours):
        print(f"GDAL reads {count} features, geopipe {len(ours)}")
        return 1
    print(f"ok {count}")
    return 0


sys.exit(main())
