#!/usr/bin/python3
"""Writes Fixtures/wkb/cases.tsv: geometries as WKT and as GDAL writes them in Well-Known
Binary (Debian's python3-gdal, GDAL 3.6): ISO WKB little-endian (NDR) and big-endian (XDR),
and the 2.5D "extended" WKB with a Z flag bit (as PostGIS's EWKB marks Z).

Usage: /usr/bin/python3 Scripts/gen-wkb-fixtures.py > Fixtures/wkb/cases.tsv
"""
from osgeo import ogr

CASES = [
    "POINT (1 2)",
    "POINT (-179.999999999 89.5)",
    "POINT Z (1 2 3)",
    "POINT M (1 2 4)",
    "POINT ZM (1 2 3 4)",
    "LINESTRING (0 0,1 1,2 0.5)",
    "LINESTRING Z (0 0 1,1 1 2)",
    "LINESTRING M (0 0 5,1 1 6)",
    "POLYGON ((0 0,10 0,10 10,0 10,0 0),(2 2,2 4,4 4,4 2,2 2))",
    "POLYGON ZM ((0 0 1 2,10 0 1 2,10 10 1 2,0 0 1 2))",
    "MULTIPOINT ((1 2),(3 4))",
    "MULTIPOINT Z ((1 2 3),(3 4 5))",
    "MULTILINESTRING ((0 0,1 1),(2 2,3 3,4 2))",
    "MULTIPOLYGON (((0 0,1 0,1 1,0 0)),((5 5,6 5,6 6,5 5),(5.2 5.1,5.8 5.1,5.8 5.7,5.2 5.1)))",
    "MULTIPOLYGON Z (((0 0 1,1 0 1,1 1 1,0 0 1)))",
    "GEOMETRYCOLLECTION (POINT (1 2),LINESTRING (0 0,1 1))",
    "GEOMETRYCOLLECTION (POINT (1 2),GEOMETRYCOLLECTION (POLYGON ((0 0,1 0,1 1,0 0))))",
    "LINESTRING (0.1 0.2,1e-300 -1e300,123456789.123456789 -0.000000001)",
]

print("wkt\tiso_ndr\tiso_xdr\textended_ndr")
for wkt in CASES:
    g = ogr.CreateGeometryFromWkt(wkt)
    iso_ndr = g.ExportToIsoWkb(ogr.wkbNDR).hex()
    iso_xdr = g.ExportToIsoWkb(ogr.wkbXDR).hex()
    extended = g.ExportToWkb(ogr.wkbNDR).hex() if " M " not in wkt and " ZM " not in wkt else ""
    print(f"{wkt}\t{iso_ndr}\t{iso_xdr}\t{extended}")
