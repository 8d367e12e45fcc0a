#!/usr/bin/python3
"""Writes the expected GEOS validity of Fixtures/validate/geos/cases.geojsonl.

Run with Debian's own interpreter (/usr/bin/python3) and python3-shapely, which use the
system GEOS (3.11) that geopipe links: PyPI's shapely bundles another GEOS and may give
other reasons. Usage: Scripts/gen-validate-fixtures.py
"""
import json
import re
import sys
from pathlib import Path

import shapely.geos
from shapely.geometry import shape
from shapely.validation import explain_validity

folder = Path(__file__).resolve().parent.parent / "Fixtures" / "validate" / "geos"
expected = []
for line in (folder / "cases.geojsonl").read_text().splitlines():
    if not line.strip():
        continue
    feature = json.loads(line)
    text = explain_validity(shape(feature["geometry"]))
    entry = {"case": feature["properties"]["case"]}
    if text == "Valid Geometry":
        entry["valid"] = True
    else:
        match = re.fullmatch(r"(.*)\[(\S+) (\S+)\]", text)
        entry["valid"] = False
        entry["reason"] = match.group(1) if match else text
        if match:
            entry["location"] = [float(match.group(2)), float(match.group(3))]
    expected.append(entry)
out = folder / "expected.json"
out.write_text(
    json.dumps({"geos": shapely.geos.geos_version_string, "cases": expected}, indent=1) + "\n")
print(f"wrote {out}: {len(expected)} cases", file=sys.stderr)
