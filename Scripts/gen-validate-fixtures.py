#!/usr/bin/python3
"""Writes the expected GEOS validity of Fixtures/validate/geos/cases.geojsonl (expected.json)
and of the Natural Earth countries in ne_110m_countries.geojson.gz (ne_110m_countries.json).

Run with Debian's own interpreter (/usr/bin/python3) and python3-shapely, which use the
system GEOS (3.11) that geopipe links: PyPI's shapely bundles another GEOS and may give
other reasons. Usage: Scripts/gen-validate-fixtures.py
"""
import gzip
import json
import re
import sys
from pathlib import Path

import shapely.geos
from shapely.geometry import shape
from shapely.validation import explain_validity

folder = Path(__file__).resolve().parent.parent / "Fixtures" / "validate" / "geos"


def validity(geometry):
    """valid, and GEOS's reason and location when invalid."""
    text = explain_validity(shape(geometry))
    if text == "Valid Geometry":
        return {"valid": True}
    match = re.fullmatch(r"(.*)\[(\S+) (\S+)\]", text)
    entry = {"valid": False, "reason": match.group(1) if match else text}
    if match:
        entry["location"] = [float(match.group(2)), float(match.group(3))]
    return entry


expected = []
for line in (folder / "cases.geojsonl").read_text().splitlines():
    if not line.strip():
        continue
    feature = json.loads(line)
    expected.append({"case": feature["properties"]["case"], **validity(feature["geometry"])})
out = folder / "expected.json"
out.write_text(
    json.dumps({"geos": shapely.geos.geos_version_string, "cases": expected}, indent=1) + "\n")
print(f"wrote {out}: {len(expected)} cases", file=sys.stderr)

with gzip.open(folder / "ne_110m_countries.geojson.gz", "rt", encoding="utf-8") as f:
    countries = json.load(f)["features"]
invalid = []
for index, feature in enumerate(countries):
    entry = validity(feature["geometry"])
    if not entry["valid"]:
        invalid.append({"feature": index, "reason": entry["reason"], "location": entry.get("location")})
out = folder / "ne_110m_countries.json"
out.write_text(
    json.dumps(
        {"geos": shapely.geos.geos_version_string, "features": len(countries), "invalid": invalid},
        indent=1) + "\n")
print(f"wrote {out}: {len(invalid)} of {len(countries)} invalid", file=sys.stderr)
