#!/usr/bin/env python3
"""Load GeoJSONSeq into a PostGIS table with psycopg 3's COPY: the Python peer of
`geopipe write postgresql://…` in bench/postgis.sh.

    psycopg_copy.py IN TABLE

Connects with libpq's PG* environment. Does the same work as geopipe, in one transaction: a
first pass types the columns from every feature (bigint, double precision, boolean, text,
jsonb), a second streams the rows with `COPY … FROM STDIN` (geometries as hex EWKB, written
with struct), then the GiST index, ANALYZE and COMMIT.
"""
import json
import struct
import sys

import psycopg
from psycopg import sql

CODES = {"Point": 1, "LineString": 2, "Polygon": 3, "MultiPoint": 4, "MultiLineString": 5,
         "MultiPolygon": 6}


def ewkb(geometry, srid=True):
    kind, coordinates = geometry["type"], geometry["coordinates"]
    out = [struct.pack("<BI", 1, CODES[kind] | (0x20000000 if srid else 0))]
    if srid:
        out.append(struct.pack("<I", 4326))

    def points(run):
        out.append(struct.pack("<I", len(run)))
        out.extend(struct.pack("<dd", p[0], p[1]) for p in run)

    if kind == "Point":
        out.append(struct.pack("<dd", coordinates[0], coordinates[1]))
    elif kind == "LineString":
        points(coordinates)
    elif kind == "Polygon":
        out.append(struct.pack("<I", len(coordinates)))
        for ring in coordinates:
            points(ring)
    else:
        member = {"MultiPoint": "Point", "MultiLineString": "LineString",
                  "MultiPolygon": "Polygon"}[kind]
        out.append(struct.pack("<I", len(coordinates)))
        for part in coordinates:
            out.append(ewkb({"type": member, "coordinates": part}, srid=False))
    return b"".join(out)


def kind(value):
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "bigint"
    if isinstance(value, float):
        return "double precision"
    if isinstance(value, str):
        return "text"
    return "jsonb"


def main():
    path, table = sys.argv[1], sys.argv[2]
    columns = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            for key, value in (json.loads(line).get("properties") or {}).items():
                if value is None:
                    columns.setdefault(key, None)
                    continue
                seen, new = columns.get(key), kind(value)
                if seen in ("bigint", "double precision") and new in ("bigint", "double precision"):
                    new = "double precision" if "double precision" in (seen, new) else "bigint"
                columns[key] = new
    names = list(columns)
    with psycopg.connect() as connection:
        with connection.cursor() as cursor:
            cursor.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier(table)))
            definitions = [sql.SQL("geom geometry(Geometry, 4326)")] + [
                sql.SQL("{} {}").format(sql.Identifier(n), sql.SQL(columns[n] or "text"))
                for n in names]
            cursor.execute(sql.SQL("CREATE TABLE {} ({})").format(
                sql.Identifier(table), sql.SQL(", ").join(definitions)))
            copy_sql = sql.SQL("COPY {} ({}) FROM STDIN").format(
                sql.Identifier(table),
                sql.SQL(", ").join(sql.Identifier(n) for n in ["geom"] + names))
            with cursor.copy(copy_sql) as copy, open(path, encoding="utf-8") as f:
                for line in f:
                    feature = json.loads(line)
                    properties = feature.get("properties") or {}
                    row = [ewkb(feature["geometry"]).hex() if feature.get("geometry") else None]
                    for n in names:
                        value = properties.get(n)
                        if columns[n] == "jsonb" and value is not None:
                            value = json.dumps(value)
                        row.append(value)
                    copy.write_row(row)
            cursor.execute(sql.SQL("CREATE INDEX ON {} USING GIST (geom)").format(
                sql.Identifier(table)))
            cursor.execute(sql.SQL("ANALYZE {}").format(sql.Identifier(table)))


if __name__ == "__main__":
    main()
