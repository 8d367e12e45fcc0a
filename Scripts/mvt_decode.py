"""Decoding of MBTiles and PMTiles tilesets and of Mapbox Vector Tiles 2.1, in plain Python,
for the scripts that check geopipe's tiles against independent implementations."""
import gzip
import sqlite3
import struct


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


def value(data):
    """A layer's value message (MVT 2.1 §4.1) as a Python value."""
    for field, raw in fields(data):
        if field == 1:
            return bytes(raw).decode()
        if field == 2:
            return struct.unpack("<f", raw)[0]
        if field == 3:
            return struct.unpack("<d", raw)[0]
        if field in (4, 5):
            return raw
        if field == 6:
            return (raw >> 1) ^ -(raw & 1)
        if field == 7:
            return bool(raw)
    return None


def features(tile):
    """(layer name, properties, geometry type, geometry commands) for each feature of a tile."""
    for field, layer in fields(tile):
        if field != 3:
            continue
        name, keys, values, members = "", [], [], []
        for lf, raw in fields(layer):
            if lf == 1:
                name = bytes(raw).decode()
            elif lf == 2:
                members.append(raw)
            elif lf == 3:
                keys.append(bytes(raw).decode())
            elif lf == 4:
                values.append(value(raw))
        for raw in members:
            kind, tags, geometry = 0, [], []
            for ff, v in fields(raw):
                if ff == 2:
                    tags = packed(v)
                elif ff == 3:
                    kind = v
                elif ff == 4:
                    geometry = packed(v)
            properties = {keys[tags[k]]: values[tags[k + 1]] for k in range(0, len(tags) - 1, 2)}
            yield name, properties, kind, geometry
