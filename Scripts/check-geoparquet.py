#!/usr/bin/env python3
"""Checks geopipe's GeoParquet reader and writer against pyarrow, GeoPandas and DuckDB.

    check-geoparquet.py read FILE.parquet GEOPIPE_OUTPUT.geojsonl
        What geopipe read from FILE must be, feature by feature, what pyarrow reads: the
        geometry (WKB through shapely; reprojected to WGS84 by GeoPandas when the file's CRS
        is another) and every column but the geometry and the covering box, converted as
        docs/formats.md says (dates and timestamps as ISO 8601, decimals as exact numbers,
        lists and structs as arrays and objects).
    check-geoparquet.py written FILE.parquet SOURCE.geojsonl
        FILE, written by geopipe from SOURCE, must read the same features in pyarrow,
        GeoPandas (read_parquet) and DuckDB (read_parquet); its `geo` metadata must satisfy the
        GeoParquet 1.1 schema's rules (written out below), its bbox and geometry_types must
        match the geometries, and its covering columns each row's bounds.

Prints "ok ..." or the differences, and exits 1 when there are any.
"""
import base64
import datetime
import decimal
import json
import sys

import duckdb
import geopandas
import jsonschema
import numpy
import pyarrow as pa
import pyarrow.parquet as pq
import shapely
import shapely.geometry

# The GeoParquet 1.1 metadata rules (format-specs/schema.json of the specification), written
# out: required members, the encodings, geometry type names, bbox lengths, covering paths.
GEO_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "required": ["version", "primary_column", "columns"],
    "properties": {
        "version": {"type": "string", "pattern": "^1\\.1\\.0$"},
        "primary_column": {"type": "string", "minLength": 1},
        "columns": {
            "type": "object",
            "minProperties": 1,
            "additionalProperties": {
                "type": "object",
                "required": ["encoding", "geometry_types"],
                "properties": {
                    "encoding": {"type": "string", "pattern": "^(WKB|point|linestring|polygon|"
                                 "multipoint|multilinestring|multipolygon)$"},
                    "geometry_types": {
                        "type": "array", "uniqueItems": True,
                        "items": {"type": "string", "pattern":
                                  "^(GeometryCollection|(Multi)?(Point|LineString|Polygon))( Z)?$"},
                    },
                    "crs": {"type": ["object", "null"]},
                    "bbox": {"type": "array", "items": {"type": "number"},
                             "oneOf": [{"minItems": 4, "maxItems": 4},
                                       {"minItems": 6, "maxItems": 6}]},
                    "covering": {
                        "type": "object", "minProperties": 1,
                        "properties": {"bbox": {
                            "type": "object", "required": ["xmin", "xmax", "ymin", "ymax"],
                            "properties": {k: {"type": "array", "minItems": 2, "maxItems": 2,
                                               "items": [{"type": "string"}, {"const": k}]}
                                           for k in ["xmin", "ymin", "xmax", "ymax"]},
                        }},
                    },
                },
            },
        },
    },
}


def geojsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line, parse_float=decimal.Decimal) for line in f if line.strip()]


def shape(geometry):
    return None if geometry is None else shapely.geometry.shape(_floats(geometry))


def _floats(value):
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, list):
        return [_floats(v) for v in value]
    if isinstance(value, dict):
        return {k: _floats(v) for k, v in value.items()}
    return value


def same_geometry(a, b, tolerance=0.0):
    if a is None or b is None:
        return a is None and b is None
    a, b = shapely.normalize(a), shapely.normalize(b)
    if tolerance:
        return a.equals_exact(b, tolerance) and a.has_z == b.has_z
    return shapely.to_wkb(a) == shapely.to_wkb(b)


def expected_value(value, arrow_type):
    """The JSON value geopipe gives for a pyarrow value of arrow_type."""
    if value is None:
        return None
    if pa.types.is_timestamp(arrow_type) or pa.types.is_date(arrow_type):
        return value  # compared as instants by same_value
    if pa.types.is_decimal(arrow_type):
        return decimal.Decimal(value)
    if pa.types.is_list(arrow_type):
        return [expected_value(v, arrow_type.value_type) for v in value]
    if pa.types.is_struct(arrow_type):
        return {f.name: expected_value(value[f.name], f.type) for f in arrow_type}
    if pa.types.is_binary(arrow_type):
        return base64.b64encode(value).decode()
    return value


def same_value(got, want, arrow_type):
    if want is None or got is None:
        return got is None and want is None
    if pa.types.is_timestamp(arrow_type):
        text = got[:-1] if got.endswith("Z") else got
        if got.endswith("Z") != (arrow_type.tz is not None):
            return False
        if want.tzinfo is not None:  # UTC: numpy's datetime64 has no time zones
            want = want.replace(tzinfo=None)
        return numpy.datetime64(text, arrow_type.unit) == numpy.datetime64(want, arrow_type.unit)
    if pa.types.is_date(arrow_type):
        return got == want.isoformat()
    if pa.types.is_list(arrow_type):
        return len(got) == len(want) and all(
            same_value(g, w, arrow_type.value_type) for g, w in zip(got, want))
    if pa.types.is_struct(arrow_type):
        return got.keys() == want.keys() and all(
            same_value(got[f.name], want[f.name], f.type) for f in arrow_type)
    if isinstance(want, bool) or isinstance(got, bool):
        return got is want
    if isinstance(want, float):
        return isinstance(got, (decimal.Decimal, int)) and float(got) == want
    if isinstance(want, int):
        return isinstance(got, int) and got == want
    return got == want


def check_read(path, output):
    problems = []
    table = pq.read_table(path)
    geo = json.loads((table.schema.metadata or {}).get(b"geo", b"null"))
    primary = geo["primary_column"] if geo else None
    covering = set()
    tolerance = 0.0
    if geo:
        column = geo["columns"][primary]
        for path_ in column.get("covering", {}).get("bbox", {}).values():
            covering.add(path_[0])
        crs = column.get("crs")
        if crs and (crs.get("id") or {}).get("code") not in (4326, "CRS84"):
            frame = geopandas.read_parquet(path).to_crs("EPSG:4326")
            shapes = list(frame.geometry)
            tolerance = 1e-9
        elif column["encoding"] == "point":
            shapes = [None if p is None else shapely.Point(p["x"], p["y"])
                      for p in table.column(primary).to_pylist()]
        elif column["encoding"] != "WKB":
            # The GeoArrow list encodings, decoded by GeoPandas.
            shapes = list(geopandas.read_parquet(path).geometry)
        else:
            shapes = [None if w is None else shapely.from_wkb(w)
                      for w in table.column(primary).to_pylist()]
    else:
        shapes = [None] * table.num_rows
    got = geojsonl(output)
    if len(got) != table.num_rows:
        problems.append(f"{len(got)} features, {table.num_rows} rows")
    fields = [f for f in table.schema if f.name != primary and f.name not in covering]
    rows = table.select([f.name for f in fields]).to_pylist()
    for k, (feature, row, want_shape) in enumerate(zip(got, rows, shapes)):
        if not same_geometry(shape(feature["geometry"]), want_shape, tolerance):
            problems.append(f"row {k}: geometry {feature['geometry']} != {want_shape}")
        properties = feature["properties"]
        if list(properties) != [f.name for f in fields]:
            problems.append(f"row {k}: properties {list(properties)}")
            continue
        for f in fields:
            want = expected_value(row[f.name], f.type)
            if not same_value(properties[f.name], want, f.type):
                problems.append(f"row {k}: {f.name}: {properties[f.name]!r} != {want!r}")
    report(problems, f"ok {path}: {len(got)} features")


def plain(value):
    """A source GeoJSON value as the readers give it back."""
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, (list, dict)):
        return json.dumps(_floats(value), separators=(",", ":"))
    return value


def same_plain(got, want):
    if isinstance(got, str) and isinstance(want, str) and want.startswith(("[", "{")):
        return json.loads(got) == json.loads(want)
    if isinstance(want, float) or isinstance(got, float):
        return got is not None and want is not None and float(got) == float(want)
    if isinstance(want, bool) or isinstance(got, bool):
        return got is want
    return got == want


def check_written(path, source):
    problems = []
    features = geojsonl(source)
    names = []
    for f in features:
        for key in (f.get("properties") or {}):
            if key not in names:
                names.append(key)
    want_shapes = [shape(f["geometry"]) for f in features]
    want_rows = [{n: plain((f.get("properties") or {}).get(n)) for n in names} for f in features]

    file = pq.ParquetFile(path)
    geo = json.loads(file.schema_arrow.metadata[b"geo"])
    try:
        jsonschema.validate(geo, GEO_SCHEMA)
    except jsonschema.ValidationError as error:
        problems.append(f"geo metadata: {error.message}")
    primary = geo["primary_column"]
    column = geo["columns"][primary]
    types = sorted({s.geom_type + (" Z" if s.has_z else "") for s in want_shapes if s})
    if sorted(column["geometry_types"]) != types:
        problems.append(f"geometry_types {column['geometry_types']} != {types}")
    present = [s for s in want_shapes if s is not None and not s.is_empty]
    if present:
        bounds = shapely.total_bounds(present).tolist()
        if column.get("bbox") != bounds:
            problems.append(f"bbox {column.get('bbox')} != {bounds}")
    covering = column.get("covering", {}).get("bbox")
    table = file.read()
    if covering:
        boxes = table.column(covering["xmin"][0]).to_pylist()
        for k, (box, s) in enumerate(zip(boxes, want_shapes)):
            want = None if s is None else dict(zip(["xmin", "ymin", "xmax", "ymax"], s.bounds))
            if box != want:
                problems.append(f"row {k}: covering {box} != {want}")
    for g in range(file.metadata.num_row_groups):
        group = file.metadata.row_group(g)
        for c in range(group.num_columns):
            chunk = group.column(c)
            stats = chunk.statistics
            if chunk.path_in_schema != primary and (stats is None or stats.null_count is None):
                problems.append(f"row group {g}, column {chunk.path_in_schema}: no statistics")

    readers = {
        "pyarrow": lambda: (
            [None if w is None else shapely.from_wkb(w) for w in table.column(primary).to_pylist()],
            table.select(names).to_pylist()),
        "geopandas": lambda: (
            list(geopandas.read_parquet(path).geometry),
            geopandas.read_parquet(path)[names].astype(object).where(
                geopandas.read_parquet(path)[names].notna(), None).to_dict("records")),
        "duckdb": lambda: duckdb_rows(path, primary, names),
    }
    for reader, read in readers.items():
        shapes, rows = read()
        if len(shapes) != len(features):
            problems.append(f"{reader}: {len(shapes)} rows, {len(features)} features")
            continue
        for k, (s, want) in enumerate(zip(shapes, want_shapes)):
            if not same_geometry(s, want):
                problems.append(f"{reader}: row {k}: geometry differs")
        for k, (row, want) in enumerate(zip(rows, want_rows)):
            for n in names:
                got = row[n]
                if isinstance(got, float) and got != got:
                    got = None
                if hasattr(got, "item"):
                    got = got.item()
                if not same_plain(got, want[n]):
                    problems.append(f"{reader}: row {k}: {n}: {got!r} != {want[n]!r}")
    report(problems, f"ok {path}: {len(features)} features in pyarrow, GeoPandas and DuckDB")


def duckdb_rows(path, primary, names):
    columns = ", ".join(f'"{n}"' for n in [primary] + names)
    result = duckdb.sql(f"SELECT {columns} FROM read_parquet('{path}')")
    rows = result.fetchall()
    shapes = [None if r[0] is None else shapely.from_wkb(bytes(r[0])) for r in rows]
    return shapes, [dict(zip(names, r[1:])) for r in rows]


def report(problems, message):
    if problems:
        print("\n".join(problems[:30]))
        sys.exit(1)
    print(message)


if __name__ == "__main__":
    mode, path, other = sys.argv[1:4]
    (check_read if mode == "read" else check_written)(path, other)
