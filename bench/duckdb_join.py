#!/usr/bin/env python3
"""The DuckDB side of bench/join.sh: POINTS (GeoJSONSeq) joined to COUNTRIES with the spatial
extension (`ST_Read`, a left join on `ST_Intersects`), the countries' NAME and ISO_A2 added,
written as GeoJSONSeq through the extension's GDAL.

Usage: bench/duckdb_join.py EXTENSION POINTS COUNTRIES OUT
"""
import sys

import duckdb

extension, points, countries, out = sys.argv[1:5]
db = duckdb.connect()
db.execute(f"LOAD '{extension}'")
db.execute(
    f"""
    COPY (
      SELECT p.*, c.NAME, c.ISO_A2
      FROM ST_Read('{points}') p
      LEFT JOIN ST_Read('{countries}') c ON ST_Intersects(c.geom, p.geom)
    ) TO '{out}' WITH (FORMAT GDAL, DRIVER 'GeoJSONSeq')
    """)
