#!/usr/bin/python3
"""Draws geopipe's tilesets with MapLibre GL JS in headless Chromium and checks the pixels.

Run by Scripts/browser-check/run.sh, which makes the tilesets and fetches MapLibre; see
docs/formats.md ("Checked in a map client"). Needs Debian's python3-shapely and python3-numpy
(run it with /usr/bin/python3) and chromium.

A test server on 127.0.0.1 serves the page, MapLibre's scripts, /mbtiles/NAME/{z}/{x}/{y}.pbf
straight from an MBTiles file's tiles view (TMS rows flipped) and /files/NAME.pmtiles with HTTP
range requests. The page shows two maps side by side, the MBTiles file in MapLibre GL JS on the
left and the PMTiles file through the pmtiles:// protocol on the right, and each view is
screenshotted through the DevTools protocol. Checks:

- countries: at every zoom 0-5, views of 4x4 tiles that together show every tile (views with
  neither tiles nor land left out); on a grid of points (16 x 16 a tile) the pixel is the fill
  colour where the point is on land and the background where it is at sea, land and sea
  decided from the source polygons with shapely (points within a few pixels of a coast are
  skipped);
- points: at every zoom, a circle at each point the data has at that zoom (its "tippecanoe"
  zoom range), and nothing drawn anywhere else;
- clusters: `cluster --all-zooms` cut into tiles draws at zoom 3 exactly the clusters and
  points of `cluster --zoom 3`;
- no console errors, exceptions or failed requests;
- a self-check, so that the checks are seen to be able to fail: the countries view of tile
  2/2/1 with that tile garbled (left) or swapped for tile 2/1/1 (right) must fail the pixel
  checks, the garbled one the console check too; and the points check must see a point left
  out of the expected points and one added where nothing is drawn.

Tiles are drawn at a quarter of their size (128 device pixels for 512 CSS pixels), which
keeps SwiftShader's work small; set BROWSER_CHECK_VERBOSE=1 for each view's timing and
BROWSER_CHECK_SAVE=DIR to keep the screenshots.

Prints one line per failure and a closing line "browser: N passed, M failed"; exits 1 on any
failure.
"""
import argparse
import gzip
import http.server
import json
import math
import os
import signal
import socketserver
import sqlite3
import struct
import sys
import threading
import time
import zlib

import numpy as np
from shapely import vectorized
from shapely.geometry import box, shape
from shapely.ops import transform, unary_union

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

SIZE = 2048  # CSS pixels per map: 4x4 tiles of 512
SCALE = 0.25  # device pixels per CSS pixel: tiles drawn 128 pixels wide, 16x fewer to fill
TILES_PER_VIEW = SIZE // 512
MAX_LAT = 85.0511287798066
STEP = 32  # sample grid, CSS pixels (16 points across a tile)
MARGIN = 2.5  # device pixels kept clear of coasts
RADIUS = 8  # circle radius, CSS pixels (2 device pixels)
FILL = "#ff0000"
CIRCLE = "#0000ff"


# ---------------------------------------------------------------------------- test server

class Tiles:
    """What the server serves: MBTiles files by name, PMTiles files by name, tile overrides."""

    def __init__(self, js_dir, page):
        self.js_dir = js_dir
        self.page = page
        self.mbtiles = {}
        self.pmtiles = {}
        self.overrides = {}  # (name, z, x, y) -> bytes
        self.lock = threading.Lock()

    def tile(self, name, z, x, y):
        if (name, z, x, y) in self.overrides:
            return self.overrides[(name, z, x, y)]
        with self.lock:
            db = self.mbtiles[name]
            row = db.execute("SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? "
                             "AND tile_row = ?", (z, x, (1 << z) - 1 - y)).fetchone()
        return row[0] if row else None


def make_handler(tiles):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send(self, status, body=b"", kind="application/octet-stream", headers=()):
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Access-Control-Allow-Origin", "*")
            self.send_header("Cache-Control", "no-store")
            for key, value in headers:
                self.send_header(key, value)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def do_HEAD(self):
            self.do_GET()

        def do_GET(self):
            path = self.path.split("?")[0]
            parts = path.strip("/").split("/")
            try:
                if path == "/":
                    return self.send(200, tiles.page, "text/html; charset=utf-8")
                if parts[0] == "js" and len(parts) == 2 and parts[1] in (
                        "maplibre-gl.js", "maplibre-gl.css", "pywidget.js"):
                    with open(os.path.join(tiles.js_dir, parts[1]), "rb") as f:
                        kind = "text/css" if parts[1].endswith(".css") else "text/javascript"
                        return self.send(200, f.read(), kind)
                if parts[0] == "mbtiles" and len(parts) == 5 and parts[4].endswith(".pbf"):
                    name, z, x, y = parts[1], int(parts[2]), int(parts[3]), int(parts[4][:-4])
                    data = tiles.tile(name, z, x, y)
                    if data is None:
                        return self.send(204)
                    headers = [("Content-Encoding", "gzip")] if data[:2] == b"\x1f\x8b" else []
                    return self.send(200, data, "application/x-protobuf", headers)
                if parts[0] == "files" and len(parts) == 2 and parts[1] in tiles.pmtiles:
                    return self.send_range(tiles.pmtiles[parts[1]])
                if path == "/favicon.ico":
                    return self.send(204)
            except (ValueError, OSError) as error:
                return self.send(500, str(error).encode(), "text/plain")
            return self.send(404, b"not found", "text/plain")

        def send_range(self, data):
            spec = self.headers.get("Range")
            if not spec:
                return self.send(200, data, headers=[("Accept-Ranges", "bytes")])
            first, _, last = spec.removeprefix("bytes=").partition("-")
            first = int(first)
            last = min(int(last) if last else len(data) - 1, len(data) - 1)
            if first >= len(data) or first > last:
                return self.send(416, headers=[("Content-Range", f"bytes */{len(data)}")])
            return self.send(206, data[first:last + 1], headers=[
                ("Accept-Ranges", "bytes"), ("Content-Range", f"bytes {first}-{last}/{len(data)}")])

    return Handler


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


# ---------------------------------------------------------------------------- geometry

def mercator(lon, lat):
    """Web Mercator, the world as the unit square (y down), latitudes clamped as tiles do."""
    lat = max(-MAX_LAT, min(MAX_LAT, lat))
    x = lon / 360 + 0.5
    y = 0.5 - math.log(math.tan(math.pi / 4 + math.radians(lat) / 2)) / (2 * math.pi)
    return x, y


def unmercator(x, y):
    return (x - 0.5) * 360, math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * y))))


def project_geometry(geometry):
    return transform(_project_arrays, geometry)


def _project_arrays(xs, ys, zs=None):
    lon = np.asarray(xs, dtype=float)
    lat = np.clip(np.asarray(ys, dtype=float), -MAX_LAT, MAX_LAT)
    x = lon / 360 + 0.5
    y = 0.5 - np.log(np.tan(np.pi / 4 + np.radians(lat) / 2)) / (2 * np.pi)
    return x, y


class Land:
    """Land and sea from the source polygons, per zoom, leaving out a margin along coasts."""

    def __init__(self, path):
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            features = json.load(f)["features"]
        self.land = unary_union([project_geometry(shape(f["geometry"])).buffer(0)
                                 for f in features if f.get("geometry")])
        self.by_zoom = {}

    def classify(self, zoom, x, y):
        """For arrays of points in the unit square: 1 land, 0 sea, -1 too near a coast."""
        if zoom not in self.by_zoom:
            margin = MARGIN / SCALE / (512 * (1 << zoom))
            self.by_zoom[zoom] = (self.land.buffer(-margin, 4), self.land.buffer(margin, 4))
        inner, outer = self.by_zoom[zoom]
        result = np.full(len(x), -1, dtype=np.int8)
        result[vectorized.contains(inner, x, y)] = 1
        result[~vectorized.contains(outer, x, y)] = 0
        return result


# ---------------------------------------------------------------------------- pixels

def decode_png(data):
    """RGB pixels of a PNG (8-bit RGB or RGBA, no interlace) as a numpy array [y, x, 3]."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    i, idat = 8, []
    width = height = channels = None
    while i < len(data):
        n, kind = struct.unpack(">I4s", data[i:i + 8])
        body = data[i + 8:i + 8 + n]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or color not in (2, 6) or interlace:
                raise ValueError(f"PNG depth {depth} colour type {color} interlace {interlace}")
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
        i += 12 + n
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), dtype=np.uint8)
    stride = width * channels
    rows = raw.reshape(height, stride + 1)
    filters = rows[:, 0]
    pixels = rows[:, 1:].copy()
    if (filters == 2).all():  # "Up" everywhere, as Chromium's fast encoding writes
        pixels = np.cumsum(pixels, axis=0, dtype=np.uint8)
    elif filters.any():
        previous = np.zeros(stride, dtype=np.int32)
        for r in range(height):
            line = pixels[r].astype(np.int32)
            f = filters[r]
            if f == 1:
                line = np.cumsum(line.reshape(-1, channels), axis=0).reshape(-1) & 255
            elif f == 2:
                line = (line + previous) & 255
            elif f in (3, 4):
                out = line.copy()
                for k in range(stride):
                    a = out[k - channels] if k >= channels else 0
                    b = previous[k]
                    if f == 3:
                        out[k] = (out[k] + (a + b) // 2) & 255
                    else:
                        c = previous[k - channels] if k >= channels else 0
                        p = a + b - c
                        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                        pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                        out[k] = (out[k] + pred) & 255
                line = out
            elif f != 0:
                raise ValueError(f"PNG filter {f}")
            pixels[r] = line.astype(np.uint8)
            previous = line
    return pixels.reshape(height, width, channels)[:, :, :3]


# ---------------------------------------------------------------------------- views

def views(zoom, wanted=None):
    """The views of 4x4 tiles that together show every tile of a zoom: (zoom, tile x0, tile y0,
    tiles across), with the view's centre. `wanted(x0, y0, n)` may leave views out."""
    n = 1 << zoom
    across = min(TILES_PER_VIEW, n)
    for ty in range(0, n, across):
        for tx in range(0, n, across):
            if wanted and not wanted(tx, ty, across):
                continue
            cx, cy = (tx + across / 2) / n, (ty + across / 2) / n
            yield zoom, tx, ty, across, unmercator(cx, cy)


class Run:
    def __init__(self, browser, base):
        self.browser = browser
        self.base = base
        self.passed = 0
        self.failed = 0
        self.verbose = bool(os.environ.get("BROWSER_CHECK_VERBOSE"))
        self.save = os.environ.get("BROWSER_CHECK_SAVE")
        self.shots = 0
        self.loaded = False

    def result(self, name, problems):
        if problems:
            self.failed += 1
            print(f"FAIL {name}: {problems[0]}", flush=True)
            for problem in problems[1:8]:
                print(f"     {problem}", flush=True)
            if len(problems) > 8:
                print(f"     and {len(problems) - 8} more", flush=True)
        else:
            self.passed += 1

    def load(self, left_style, right_style):
        spec = json.dumps({"size": SIZE, "mbtilesStyle": left_style, "pmtilesStyle": right_style})
        if not self.loaded:
            self.browser.navigate(self.base + "/")
            self.loaded = True
            self.browser.evaluate(f"setup({spec})")
        else:
            self.browser.evaluate(f"restyle({spec})")

    def shoot(self, zoom, center):
        t0 = time.time()
        size = min(SIZE, 512 << zoom)  # MapLibre shows no less than the world
        origin = self.browser.evaluate(f"show({zoom}, {center[0]!r}, {center[1]!r}, {size})")
        t1 = time.time()
        png = self.browser.screenshot()
        pixels = decode_png(png)
        if self.save:
            self.shots += 1
            with open(os.path.join(self.save, f"{self.shots:03d}-z{zoom}.png"), "wb") as f:
                f.write(png)
        if self.verbose:
            print(f"  z{zoom} {center[0]:.2f},{center[1]:.2f}: drawn in {t1 - t0:.2f} s, "
                  f"screenshot {time.time() - t1:.2f} s", file=sys.stderr, flush=True)
        if pixels.shape[0] < SIZE * SCALE or pixels.shape[1] < 2 * SIZE * SCALE:
            raise cdp.CDPError(f"screenshot is {pixels.shape[1]}x{pixels.shape[0]}")
        return origin, pixels


def style(source, kind, layer):
    paint = ({"fill-color": FILL, "fill-antialias": False} if kind == "fill" else
             {"circle-color": CIRCLE, "circle-radius": RADIUS})
    return {"version": 8, "sources": {"t": source}, "layers": [
        {"id": "background", "type": "background", "paint": {"background-color": "#ffffff"}},
        {"id": "data", "type": kind, "source": "t", "source-layer": layer, "paint": paint}]}


def xyz(base, name, maxzoom):
    return {"type": "vector", "tiles": [f"{base}/mbtiles/{name}/{{z}}/{{x}}/{{y}}.pbf"],
            "minzoom": 0, "maxzoom": maxzoom}


def pmtiles(base, name):
    return {"type": "vector", "url": f"pmtiles://{base}/files/{name}"}


def check_land(pixels, origin, view, land, side_offset):
    """Failures on the sample grid of one view for one map (origin and offset in CSS pixels)."""
    zoom, tx, ty, across, _ = view
    scale = 512 * (1 << zoom)
    ox, oy = origin
    px, py = np.meshgrid(np.arange(tx * 512 + STEP // 2, (tx + across) * 512, STEP),
                         np.arange(ty * 512 + STEP // 2, (ty + across) * 512, STEP))
    px, py = px.ravel(), py.ravel()
    sx = np.floor((ox + px) * SCALE).astype(int)
    sy = np.floor((oy + py) * SCALE).astype(int)
    inside = ((sx >= side_offset * SCALE) & (sx < (side_offset + SIZE) * SCALE) & (sy >= 0)
              & (sy < SIZE * SCALE))
    problems = []
    if not inside.all():
        problems.append(f"z{zoom}: {int((~inside).sum())} sample points outside the map")
        px, py, sx, sy = px[inside], py[inside], sx[inside], sy[inside]
    kind = land.classify(zoom, ((sx + 0.5) / SCALE - ox) / scale, ((sy + 0.5) / SCALE - oy) / scale)
    rgb = pixels[sy, sx].astype(int)
    fill = (rgb[:, 0] > 200) & (rgb[:, 1] < 60) & (rgb[:, 2] < 60)
    background = rgb.min(axis=1) > 235
    land_missing = (kind == 1) & ~fill
    sea_filled = (kind == 0) & ~background
    wrong = {}
    for i in np.nonzero(land_missing | sea_filled)[0]:
        tile = (int(px[i]) // 512, int(py[i]) // 512)
        wrong.setdefault(tile, [0, 0])[0 if land_missing[i] else 1] += 1
    for (x, y), (missing, filled) in sorted(wrong.items()):
        problems.append(f"tile {zoom}/{x}/{y}: {missing} land points not filled, "
                        f"{filled} sea points filled")
    return problems


def check_points(pixels, origin, zoom, expected, side_offset):
    """A circle at each expected point in the map's area, and nothing drawn elsewhere."""
    scale = 512 * (1 << zoom)
    ox, oy = origin
    size = int(SIZE * SCALE)
    left = int(side_offset * SCALE)
    area = pixels[:size, left:left + size].astype(np.int32)
    drawn = area.min(axis=2) <= 235  # anything but the background
    problems = []
    reach = math.ceil(RADIUS * SCALE) + 2
    yy, xx = np.mgrid[-reach:reach + 1, -reach:reach + 1]
    disk = (xx * xx + yy * yy) <= reach * reach
    shown = 0
    for name, x, y in expected:
        sx, sy = (ox + x * scale) * SCALE - left, (oy + y * scale) * SCALE
        cx, cy = math.floor(sx), math.floor(sy)
        if not (-reach <= cx < size + reach and -reach <= cy < size + reach):
            continue
        if 0 <= cx < size and 0 <= cy < size:
            shown += 1
            r, g, b = (int(v) for v in area[cy, cx])
            if not (b > 200 and r < 100 and g < 100):
                problems.append(f"z{zoom} {name} at pixel {cx},{cy} not drawn (rgb {r},{g},{b})")
        y0, x0 = cy - reach, cx - reach
        ys = slice(max(y0, 0), min(y0 + disk.shape[0], size))
        xs = slice(max(x0, 0), min(x0 + disk.shape[1], size))
        if ys.start < ys.stop and xs.start < xs.stop:
            drawn[ys, xs] &= ~disk[ys.start - y0:ys.stop - y0, xs.start - x0:xs.stop - x0]
    stray = int(drawn.sum())
    if stray:
        ys, xs = np.nonzero(drawn)
        problems.append(f"z{zoom}: {stray} pixels drawn away from every point with data at "
                        f"this zoom (first at {xs[0]},{ys[0]})")
    return problems, shown


def read_points(path):
    """(name, x, y, minzoom, maxzoom) of every point of a GeoJSON or GeoJSONSeq file."""
    with open(path) as f:
        text = f.read()
    if text.lstrip().startswith("{") and '"FeatureCollection"' in text[:200]:
        features = json.loads(text)["features"]
    else:
        features = [json.loads(line.strip("\x1e")) for line in text.splitlines() if line.strip()]
    points = []
    for i, f in enumerate(features):
        lon, lat = f["geometry"]["coordinates"][:2]
        zooms = f.get("tippecanoe", {})
        name = f.get("properties", {}).get("name") or f"#{f.get('id', i)}"
        x, y = mercator(lon, lat)
        points.append((str(name), x, y, zooms.get("minzoom", 0), zooms.get("maxzoom", 99)))
    return points


def run_countries(run, land, tiles, left, right, zooms, label):
    """Views of every tile at each zoom, leaving out those with neither tiles nor land."""
    present = {tuple(row) for row in tiles.execute(
        "SELECT zoom_level, tile_column, (1 << zoom_level) - 1 - tile_row FROM tiles")}
    for zoom in zooms:
        n = 1 << zoom

        def wanted(tx, ty, across, zoom=zoom, n=n):
            if any((zoom, x, y) in present for x in range(tx, tx + across)
                   for y in range(ty, ty + across)):
                return True
            return land.land.intersects(box(tx / n, ty / n, (tx + across) / n, (ty + across) / n))

        for view in views(zoom, wanted):
            origin, pixels = run.shoot(zoom, view[4])
            where = f"{label} z{zoom} view of tiles {view[1]}-{view[1] + view[3] - 1}/" \
                    f"{view[2]}-{view[2] + view[3] - 1}"
            for side, offset, what in (("left", 0, left), ("right", SIZE, right)):
                problems = check_land(pixels, origin[side], view, land, offset)
                run.result(f"{where} ({what})", problems)


def run_points(run, points, zooms, label, left, right):
    """Returns the last view's screenshot for the self-check: (zoom, origin, pixels, expected)."""
    last = None
    for zoom in zooms:
        expected = [(n, x, y) for n, x, y, lo, hi in points if lo <= zoom <= hi]

        def wanted(tx, ty, across, zoom=zoom):
            n = 1 << zoom
            return any(tx / n <= x < (tx + across) / n and ty / n <= y < (ty + across) / n
                       for _, x, y, _, _ in points)

        for view in views(zoom, wanted):
            origin, pixels = run.shoot(zoom, view[4])
            last = (zoom, origin, pixels, expected)
            for side, offset, what in (("left", 0, left), ("right", SIZE, right)):
                problems, shown = check_points(pixels, origin[side], zoom, expected, offset)
                where = f"{label} z{zoom} view of tiles {view[1]}/{view[2]} ({what})"
                run.result(where + f", {shown} points", problems)
    return last


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", required=True, help="folder with the tilesets run.sh made")
    parser.add_argument("--js", required=True, help="folder with maplibre-gl.js and pywidget.js")
    parser.add_argument("--countries", required=True, help="the countries' source GeoJSON")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(2))
    started = time.time()
    work = args.work

    page = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "page.html"), "rb").read()
    tiles = Tiles(args.js, page)
    for name in ("countries", "points", "clusters"):
        tiles.mbtiles[name] = sqlite3.connect(os.path.join(work, f"{name}.mbtiles"),
                                              check_same_thread=False)
        with open(os.path.join(work, f"{name}.pmtiles"), "rb") as f:
            tiles.pmtiles[f"{name}.pmtiles"] = f.read()
    # The self-check's tilesets: the countries with tile 2/2/1 garbled, or swapped for 2/1/1.
    tiles.mbtiles["garbled"] = tiles.mbtiles["swapped"] = tiles.mbtiles["countries"]
    # Its ancestors are garbled too, or MapLibre would draw them in its place.
    for z, x, y in ((0, 0, 0), (1, 1, 0), (2, 2, 1)):
        tiles.overrides[("garbled", z, x, y)] = b"\x1f\x8b\x08\x00" + bytes(range(256)) * 4
    tiles.overrides[("swapped", 2, 2, 1)] = tiles.tile("countries", 2, 1, 1)

    server = Server(("127.0.0.1", 0), make_handler(tiles))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    land = Land(args.countries)

    browser = cdp.Browser(2 * SIZE, SIZE, SCALE)
    run = Run(browser, base)
    try:
        # Countries, zooms 0-5: every tile, MBTiles left and PMTiles right.
        run.load(style(xyz(base, "countries", 5), "fill", "countries"),
                 style(pmtiles(base, "countries.pmtiles"), "fill", "countries"))
        top = int(os.environ.get("BROWSER_CHECK_MAX_ZOOM", "5"))  # fewer zooms while debugging
        run_countries(run, land, tiles.mbtiles["countries"], "MBTiles", "PMTiles",
                      range(0, top + 1), "countries")
        run.result("countries: no console errors", browser.take_errors())

        # Points: every point with data at each zoom, nothing else.
        points = read_points(os.path.join(work, "points.geojson"))
        run.load(style(xyz(base, "points", 5), "circle", "points"),
                 style(pmtiles(base, "points.pmtiles"), "circle", "points"))
        zoom, origin, pixels, expected = run_points(run, points, range(0, 6), "points",
                                                    "MBTiles", "PMTiles")
        run.result("points: no console errors", browser.take_errors())

        # Clusters of cluster --all-zooms: at zoom 3 those of cluster --zoom 3.
        clusters = read_points(os.path.join(work, "clusters-z3.geojson"))
        run.load(style(xyz(base, "clusters", 5), "circle", "clusters"),
                 style(pmtiles(base, "clusters.pmtiles"), "circle", "clusters"))
        run_points(run, [(n, x, y, 3, 3) for n, x, y, _, _ in clusters], [3], "clusters",
                   "MBTiles", "PMTiles")
        run.result("clusters: no console errors", browser.take_errors())

        # Self-check: the points check must see a point missing from the data and one too many
        # (on the last points view, in CSS pixels of its left map).
        missed = []
        scale = 512 << zoom
        ox, oy = origin["left"]
        on_screen = [(p, ox + p[1] * scale, oy + p[2] * scale) for p in expected]
        inside = [e for e in on_screen if 16 < e[1] < SIZE - 16 and 16 < e[2] < SIZE - 16] or [
            (None, -1e9, -1e9)]
        alone = max(inside, key=lambda e: min(math.hypot(e[1] - f[1], e[2] - f[2])
                                              for f in on_screen if f is not e))[0]
        empty = max(((x, y) for x in range(128, SIZE, 256) for y in range(128, SIZE, 256)),
                    key=lambda c: min(math.hypot(c[0] - f[1], c[1] - f[2]) for f in on_screen))
        extra = ("nowhere", (empty[0] - ox) / scale, (empty[1] - oy) / scale)
        if not check_points(pixels, origin["left"], zoom, [p for p in expected if p is not alone],
                            0)[0]:
            missed.append(f"z{zoom}: a point drawn that the data does not have went unseen")
        if not check_points(pixels, origin["left"], zoom, expected + [extra], 0)[0]:
            missed.append(f"z{zoom}: a point the data has but the map lacks went unseen")

        # Self-check: a garbled tile and a swapped tile must make the countries checks fail. A
        # fresh page, so that MapLibre has no other zoom's tiles to stand in for a failed one.
        run.loaded = False
        run.load(style(xyz(base, "garbled", 5), "fill", "countries"),
                 style(xyz(base, "swapped", 5), "fill", "countries"))
        view = next(v for v in views(2))
        origin, pixels = run.shoot(2, view[4])
        garbled = check_land(pixels, origin["left"], view, land, 0)
        swapped = check_land(pixels, origin["right"], view, land, SIZE)
        errors = browser.take_errors()
        if not any("tile 2/2/1" in p for p in garbled):
            missed.append("a garbled tile 2/2/1 left its pixels as they should be")
        if not errors:
            missed.append("a garbled tile 2/2/1 made no console error")
        if not any("tile 2/2/1" in p for p in swapped):
            missed.append("tile 2/1/1 in place of 2/2/1 left its pixels as they should be")
        run.result("self-check: the checks catch corrupt tiles and wrong points", missed)
    except (cdp.CDPError, OSError, ValueError) as error:
        run.result("browser", [str(error)])
    finally:
        browser.close()
        server.shutdown()
    print(f"browser checks took {time.time() - started:.0f} s")
    print(f"browser: {run.passed} passed, {run.failed} failed", flush=True)
    sys.exit(1 if run.failed else 0)


if __name__ == "__main__":
    main()
