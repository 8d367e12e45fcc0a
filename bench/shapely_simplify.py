"""The shapely peer of `geopipe read | geopipe simplify | geopipe write`: reads a GeoJSON
FeatureCollection whole with orjson, simplifies every geometry with shapely.simplify (one
vectorised call) and writes a FeatureCollection with one orjson.dumps per feature.

    python3 shapely_simplify.py IN.geojson OUT.geojson TOLERANCE dp|topology
"""
import sys

import orjson
import shapely
from shapely.geometry import mapping, shape


def main():
    source, target, tolerance, method = sys.argv[1:5]
    with open(source, "rb") as f:
        features = orjson.loads(f.read())["features"]
    geometries = [shape(feature["geometry"]) for feature in features]
    simplified = shapely.simplify(
        geometries, float(tolerance), preserve_topology=(method == "topology"))
    with open(target, "wb") as out:
        out.write(b'{"type":"FeatureCollection","features":[\n')
        for i, (feature, geometry) in enumerate(zip(features, simplified)):
            feature["geometry"] = mapping(geometry)
            out.write((b",\n" if i else b"") + orjson.dumps(feature))
        out.write(b"\n]}\n")


main()
