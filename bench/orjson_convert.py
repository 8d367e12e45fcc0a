#!/usr/bin/env python3
"""Python + orjson peer of `geopipe convert`, for the benchmarks.

    orjson_convert.py IN OUT      convert by extension
    orjson_convert.py --count IN  parse IN and print its number of features

Extensions: .geojson/.json (FeatureCollection), .geojsonl/.geojsons
(GeoJSONSeq, newline- or RS-delimited), .csv (read only: lat/lon columns
picked by name, the other columns become string properties); a .gz suffix
means gzip.  A FeatureCollection is read whole with orjson.loads, as
json.load would; the other formats are read and written one feature at a time.
"""
import csv
import gc
import gzip
import io
import sys

import orjson

LAT_NAMES = ("latitude", "lat", "y")
LON_NAMES = ("longitude", "lon", "lng", "long", "x")
BUFFER = 1 << 20


def kind(path):
    name = path[:-3] if path.endswith(".gz") else path
    ext = name.rsplit(".", 1)[-1].lower()
    kinds = {"geojson": "fc", "json": "fc", "geojsonl": "seq", "geojsons": "rs", "csv": "csv"}
    if ext not in kinds:
        sys.exit(f"orjson_convert: unknown extension: {path}")
    return kinds[ext]


def open_binary(path, mode):
    if path.endswith(".gz"):
        return gzip.open(path, mode)
    return open(path, mode, buffering=BUFFER)


def pick_column(header, names):
    lowered = {h.strip().lower(): h for h in header}
    for n in names:
        if n in lowered:
            return lowered[n]
    sys.exit(f"orjson_convert: no column named any of {', '.join(names)}")


def read_csv(path):
    with io.TextIOWrapper(open_binary(path, "rb"), encoding="utf-8-sig", newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        lat = header.index(pick_column(header, LAT_NAMES))
        lon = header.index(pick_column(header, LON_NAMES))
        others = [(i, h) for i, h in enumerate(header) if i not in (lat, lon)]
        for row in reader:
            if not row or not row[lat] or not row[lon]:
                continue
            yield {"type": "Feature",
                   "properties": {h: row[i] for i, h in others},
                   "geometry": {"type": "Point",
                                "coordinates": [float(row[lon]), float(row[lat])]}}


def read_features(path):
    k = kind(path)
    if k == "csv":
        yield from read_csv(path)
        return
    with open_binary(path, "rb") as f:
        if k == "fc":
            yield from orjson.loads(f.read())["features"]
            return
        for line in f:
            line = line.strip(b"\x1e \t\r\n")
            if line:
                yield orjson.loads(line)


def write_features(path, features):
    k = kind(path)
    if k == "csv":
        sys.exit("orjson_convert: CSV output is not supported")
    with open_binary(path, "wb") as f:
        if k == "fc":
            f.write(b'{"type":"FeatureCollection","features":[\n')
            sep = b""
            for feat in features:
                f.write(sep + orjson.dumps(feat))
                sep = b",\n"
            f.write(b"\n]}\n")
        else:
            prefix = b"\x1e" if k == "rs" else b""
            for feat in features:
                f.write(prefix + orjson.dumps(feat) + b"\n")


def main(argv):
    gc.disable()  # no reference cycles here; the collector only slows down big loads
    if len(argv) == 2 and argv[0] == "--count":
        print(sum(1 for _ in read_features(argv[1])))
    elif len(argv) == 2:
        write_features(argv[1], read_features(argv[0]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
