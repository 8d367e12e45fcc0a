#!/usr/bin/python3
"""Checks every polygon in a tileset's tiles with GEOS (through Debian's python3-shapely, which
uses the system GEOS that geopipe links): OGC validity, and MVT 2.1's winding (exteriors with
positive area in tile coordinates, holes negative). Decodes MBTiles or PMTiles and MVT itself,
so it needs nothing but shapely.

Usage: Scripts/check-tile-polygons.py TILESET.mbtiles|TILESET.pmtiles [MAXZOOM]
Prints a line per zoom and exits 1 if any polygon is invalid.
"""
import gzip
import sqlite3
import struct
import sys
from collections import Counter

from shapely.geometry import Polygon, MultiPolygon
from shapely.validation import explain_validity


def varint(data, i):
    value = shift = 0
    while True:
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, i


def fields(data):
    i = 0
    while i < len(data):
        key, i = varint(data, i)
        wire = key & 7
        if wire == 0:
            value, i = varint(data, i)
        elif wire == 2:
            n, i = varint(data, i)
            value, i = data[i:i + n], i + n
        elif wire == 1:
            value, i = data[i:i + 8], i + 8
        elif wire == 5:
            value, i = data[i:i + 4], i + 4
        else:
            raise ValueError(f"wire type {wire}")
        yield key >> 3, value


def packed(data):
    out, i = [], 0
    while i < len(data):
        v, i = varint(data, i)
        out.append(v)
    return out


def rings(commands):
    """The rings of a polygon's commands as lists of integer points."""
    result, ring, x, y, i = [], [], 0, 0, 0
    while i < len(commands):
        op, count = commands[i] & 7, commands[i] >> 3
        i += 1
        if op == 7:
            result.append(ring)
            ring = []
            continue
        for _ in range(count):
            dx, dy = commands[i], commands[i + 1]
            x += (dx >> 1) ^ -(dx & 1)
            y += (dy >> 1) ^ -(dy & 1)
            if op == 1 and ring:
                result.append(ring)
                ring = []
            ring.append((x, y))
            i += 2
    return result


def area(ring):
    return sum(ring[k][0] * ring[(k + 1) % len(ring)][1] - ring[(k + 1) % len(ring)][0] * ring[k][1]
               for k in range(len(ring)))


def tiles(path):
    if path.endswith(".mbtiles"):
        db = sqlite3.connect(path)
        for z, x, row, data in db.execute(
                "SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles"):
            yield z, x, (1 << z) - 1 - row, gzip.decompress(data)
        return
    with open(path, "rb") as f:
        blob = f.read()
    root_offset, root_length, _, _, _, _, data_offset = struct.unpack_from("<7Q", blob, 8)

    def directory(offset, length):
        data = gzip.decompress(blob[offset:offset + length])
        n, i = varint(data, 0)
        columns = []
        for _ in range(4):
            col = []
            for _ in range(n):
                v, i = varint(data, i)
                col.append(v)
            columns.append(col)
        ids, runs, lengths, offsets = columns
        tid = 0
        entries = []
        for k in range(n):
            tid += ids[k]
            off = offsets[k] - 1 if offsets[k] else entries[-1][3] + entries[-1][2]
            entries.append((tid, runs[k], lengths[k], off))
        return entries

    leaf_offset = struct.unpack_from("<Q", blob, 40)[0]
    stack = [(root_offset, root_length, False)]
    while stack:
        offset, length, _ = stack.pop()
        for tid, run, size, off in directory(offset, length):
            if run == 0:
                stack.append((leaf_offset + off, size, True))
                continue
            for r in range(run):
                yield (*zxy(tid + r), gzip.decompress(blob[data_offset + off:data_offset + off + size]))


def zxy(tile_id):
    acc, z = 0, 0
    while acc + (1 << (2 * z)) <= tile_id:
        acc += 1 << (2 * z)
        z += 1
    pos, n = tile_id - acc, 1 << z
    x = y = 0
    s, t = 1, pos
    while s < n:
        rx = 1 & (t // 2)
        ry = 1 & (t ^ rx)
        if ry == 0:
            if rx == 1:
                x, y = s - 1 - x, s - 1 - y
            x, y = y, x
        x += s * rx
        y += s * ry
        t //= 4
        s *= 2
    return z, x, y


def main():
    path = sys.argv[1]
    maxzoom = int(sys.argv[2]) if len(sys.argv) > 2 else 99
    per_zoom = {}
    reasons = Counter()
    for z, x, y, data in tiles(path):
        if z > maxzoom:
            continue
        stats = per_zoom.setdefault(z, [0, 0, 0])
        for field, layer in fields(data):
            if field != 3:
                continue
            for lf, feature in fields(layer):
                if lf != 2:
                    continue
                kind, geometry = 0, []
                for ff, value in fields(feature):
                    if ff == 3:
                        kind = value
                    elif ff == 4:
                        geometry = packed(value)
                if kind != 3:
                    continue
                stats[0] += 1
                polygons, winding = [], True
                for ring in rings(geometry):
                    a = area(ring)
                    if a > 0:
                        polygons.append([ring])
                    elif polygons and a < 0:
                        polygons[-1].append(ring)
                    else:
                        winding = False
                shape = MultiPolygon([Polygon(p[0], p[1:]) for p in polygons]) if polygons else None
                if shape is None or not winding or not shape.is_valid:
                    stats[1] += 1
                    reason = explain_validity(shape).split("[")[0] if shape is not None else "empty"
                    reasons[reason if winding else "winding: " + reason] += 1
                    if stats[1] <= 3:
                        print(f"  {z}/{x}/{y}: {reasons.most_common(1)[0][0]}", file=sys.stderr)
    invalid = 0
    for z in sorted(per_zoom):
        total, bad, _ = per_zoom[z]
        invalid += bad
        print(f"z{z}: {total} polygons, {bad} invalid")
    for reason, count in reasons.most_common():
        print(f"  {count} {reason}")
    sys.exit(1 if invalid else 0)


main()
