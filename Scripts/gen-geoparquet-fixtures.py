#!/usr/bin/env python3
"""Writes the GeoParquet fixtures in Fixtures/geoparquet with pyarrow, GeoPandas and DuckDB.

    gen-geoparquet-fixtures.py OUT_FOLDER

Each file holds the same small table (points, lines and polygons, with and without Z, and a
null geometry; a column per Parquet type and logical type geopipe reads) written with one
codec, page version and encoding; Scripts/check-geoparquet.py reads them with pyarrow and
compares what geopipe reads. Run with the venv Scripts/test-geoparquet.sh makes (pyarrow,
geopandas, shapely, duckdb).
"""
import datetime
import decimal
import json
import os
import sys

import duckdb
import geopandas
import pyarrow as pa
import pyarrow.parquet as pq
import shapely

ROWS = 40


def geometries():
    shapes = []
    for k in range(ROWS):
        x, y = -120 + 6 * k, -60 + 3 * k
        if k % 10 == 9:
            shapes.append(None)
        elif k % 4 == 0:
            shapes.append(shapely.Point(x, y))
        elif k % 4 == 1:
            shapes.append(shapely.LineString([(x, y), (x + 1, y + 0.5), (x + 2, y - 0.25)]))
        elif k % 4 == 2:
            shapes.append(shapely.Polygon([(x, y), (x + 1, y), (x + 1, y + 1), (x, y)],
                                          [[(x + 0.2, y + 0.1), (x + 0.3, y + 0.1),
                                            (x + 0.3, y + 0.2), (x + 0.2, y + 0.1)]]))
        else:
            shapes.append(shapely.MultiPoint([(x, y, 10.5 * k), (x + 1, y, -3.0)]))
    return shapes


def table():
    shapes = geometries()
    wkb = [None if s is None else shapely.to_wkb(s, flavor="iso") for s in shapes]
    names = ["alpha", "beta", None, "gamma", "delta", "ünïcode ☃"]
    epoch = datetime.datetime(2020, 2, 29, 12, 30, 15, 123456)
    columns = {
        "id": pa.array(range(ROWS), pa.int64()),
        "geometry": pa.array(wkb, pa.binary()),
        "name": pa.array([names[k % len(names)] for k in range(ROWS)], pa.string()),
        "i8": pa.array([(-1) ** k * k for k in range(ROWS)], pa.int8()),
        "i16": pa.array([k * 1000 - 20000 for k in range(ROWS)], pa.int16()),
        "i32": pa.array([None if k % 7 == 3 else k * 100000 for k in range(ROWS)], pa.int32()),
        "u8": pa.array([250 - k for k in range(ROWS)], pa.uint8()),
        "u32": pa.array([4_000_000_000 + k for k in range(ROWS)], pa.uint32()),
        "u64": pa.array([18_000_000_000_000_000_000 + k for k in range(ROWS)], pa.uint64()),
        "f32": pa.array([k / 4 for k in range(ROWS)], pa.float32()),
        "f64": pa.array([None if k % 5 == 2 else k * 1.1 for k in range(ROWS)], pa.float64()),
        "flag": pa.array([None if k % 6 == 5 else k % 3 == 0 for k in range(ROWS)], pa.bool_()),
        "day": pa.array([datetime.date(1969, 12, 25) + datetime.timedelta(days=37 * k)
                         for k in range(ROWS)], pa.date32()),
        "ts_ms": pa.array([epoch + datetime.timedelta(hours=k) for k in range(ROWS)],
                          pa.timestamp("ms", tz="UTC")),
        "ts_us": pa.array([epoch - datetime.timedelta(days=k * 400) for k in range(ROWS)],
                          pa.timestamp("us")),
        "ts_ns": pa.array([epoch + datetime.timedelta(minutes=k) for k in range(ROWS)],
                          pa.timestamp("ns", tz="UTC")),
        "price": pa.array([decimal.Decimal(k * 1234 - 9999) / 100 for k in range(ROWS)],
                          pa.decimal128(10, 2)),
        "tags": pa.array([None if k % 8 == 7 else [k, k + 1][: k % 3] for k in range(ROWS)],
                         pa.list_(pa.int64())),
        "info": pa.array([None if k % 9 == 4 else {"a": k, "b": f"b{k}"} for k in range(ROWS)],
                         pa.struct([("a", pa.int32()), ("b", pa.string())])),
    }
    return pa.table(columns), shapes


def geo_metadata(shapes, covering):
    types = []
    for s in shapes:
        if s is not None:
            name = s.geom_type + (" Z" if s.has_z else "")
            if name not in types:
                types.append(name)
    column = {"encoding": "WKB", "geometry_types": types}
    if covering:
        column["covering"] = {"bbox": {k: ["bbox", k] for k in ["xmin", "ymin", "xmax", "ymax"]}}
    return {"version": "1.1.0", "primary_column": "geometry", "columns": {"geometry": column}}


def with_covering(t, shapes):
    bounds = [None if s is None else s.bounds for s in shapes]
    box = pa.array([None if b is None else dict(zip(["xmin", "ymin", "xmax", "ymax"], b))
                    for b in bounds],
                   pa.struct([(k, pa.float64()) for k in ["xmin", "ymin", "xmax", "ymax"]]))
    return t.append_column("bbox", box)


def write(t, shapes, path, covering=False, **options):
    if covering:
        t = with_covering(t, shapes)
    meta = dict(t.schema.metadata or {})
    meta[b"geo"] = json.dumps(geo_metadata(shapes, covering)).encode()
    pq.write_table(t.replace_schema_metadata(meta), path, **options)


def native(out):
    """GeoPandas' GeoArrow encodings of lines and polygons (one geometry type a file), with a
    null and an empty geometry, in row groups of 4 so that lists cross no row group."""
    ring = [(0, 0), (4, 0), (4, 3), (0, 3), (0, 0)]
    hole = [(1, 1), (1, 2), (2, 2), (2, 1), (1, 1)]
    kinds = {
        "linestring": [shapely.LineString([(k, 0), (k + 1, 1.5), (k + 2, -0.25)])
                       for k in range(9)] + [shapely.LineString()],
        "multipoint": [shapely.MultiPoint([(k, k), (-k, 0.5)]) for k in range(9)]
                      + [shapely.MultiPoint()],
        "polygon": [shapely.Polygon([(x + k, y) for x, y in ring],
                                    [[(x + k, y) for x, y in hole]] if k % 2 else [])
                    for k in range(9)] + [shapely.Polygon()],
        "multilinestring": [shapely.MultiLineString([[(k, 0), (k, 1)], [(0, k), (1, k), (2, 0)]])
                            for k in range(9)] + [shapely.MultiLineString()],
        "multipolygon": [shapely.MultiPolygon([shapely.Polygon(ring, [hole]),
                                               shapely.Polygon([(x + 10 + k, y) for x, y in ring])])
                         for k in range(9)] + [shapely.MultiPolygon()],
    }
    for kind, shapes in kinds.items():
        shapes = shapes[:4] + [None] + shapes[4:]
        frame = geopandas.GeoDataFrame(
            {"id": range(len(shapes))}, geometry=geopandas.GeoSeries(shapes, crs="EPSG:4326"))
        frame.to_parquet(f"{out}/geoarrow-{kind}.parquet", geometry_encoding="geoarrow",
                         row_group_size=4)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    t, shapes = table()
    for codec in ["none", "snappy", "gzip", "zstd"]:
        write(t, shapes, f"{out}/pyarrow-{codec}.parquet", compression=codec,
              row_group_size=16)
    write(t, shapes, f"{out}/pyarrow-v2.parquet", data_page_version="2.0",
          compression="zstd", row_group_size=16, covering=True)
    write(t, shapes, f"{out}/pyarrow-plain.parquet", use_dictionary=False,
          compression="snappy", data_page_version="2.0")
    write(t, shapes, f"{out}/pyarrow-delta.parquet", use_dictionary=False,
          compression="zstd", data_page_version="2.0",
          column_encoding={"id": "DELTA_BINARY_PACKED", "i32": "DELTA_BINARY_PACKED",
                           "ts_us": "DELTA_BINARY_PACKED", "name": "DELTA_LENGTH_BYTE_ARRAY",
                           "f64": "BYTE_STREAM_SPLIT", "geometry": "DELTA_BYTE_ARRAY"})
    write(t, shapes, f"{out}/pyarrow-small-pages.parquet", data_page_size=64,
          compression="gzip", write_batch_size=4, row_group_size=25)
    # INT96 timestamps (as Spark and Impala write them), without the Arrow schema that would
    # bring the time zones back.
    pq.write_table(t.replace_schema_metadata({b"geo": json.dumps(geo_metadata(shapes, False))}),
                   f"{out}/pyarrow-int96.parquet", use_deprecated_int96_timestamps=True,
                   store_schema=False)
    # The GeoArrow point encoding: a struct of x and y.
    points = [s if s is None or s.geom_type == "Point" else s.centroid for s in shapes]
    xy = pa.array([None if p is None else {"x": p.x, "y": p.y} for p in points],
                  pa.struct([("x", pa.float64()), ("y", pa.float64())]))
    native = pa.table({"id": pa.array(range(ROWS), pa.int64()), "geometry": xy})
    meta = {"version": "1.1.0", "primary_column": "geometry",
            "columns": {"geometry": {"encoding": "point", "geometry_types": ["Point"]}}}
    pq.write_table(native.replace_schema_metadata({b"geo": json.dumps(meta)}),
                   f"{out}/geoarrow-point.parquet")
    # GeoPandas: its own geo metadata (PROJJSON CRS, bbox covering), in EPSG:3857 so that the
    # reader reprojects.
    frame = geopandas.GeoDataFrame(
        {"id": range(ROWS), "name": [f"n{k}" for k in range(ROWS)]},
        geometry=geopandas.GeoSeries(shapes, crs="EPSG:4326"))
    frame.to_parquet(f"{out}/geopandas.parquet", write_covering_bbox=True)
    frame.to_crs("EPSG:3857").to_parquet(f"{out}/geopandas-3857.parquet")
    native(out)
    # DuckDB's own Parquet writer (its spatial extension is not installed here, so the file has
    # no geometry: its property columns are read).
    pq.write_table(t.drop_columns(["geometry", "tags", "info"]), f"{out}/plain.parquet")
    duckdb.sql(f"COPY (SELECT * FROM '{out}/plain.parquet') TO '{out}/duckdb.parquet' "
               "(FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 16)")
    os.remove(f"{out}/plain.parquet")


if __name__ == "__main__":
    main()
