"""Checks `geopipe render --map-type` against tilesets made by GDAL (Scripts/make-raster-tileset.sh).

The raster tilesets colour the sea, land, France, Brazil and Australia; each map geopipe draws
is read back with GDAL and the pixel where a known place lies, worked out here from the Web
Mercator formulas, must have that place's colour: at several zooms (overzoomed past the
tileset's deepest), bearings and scales, from MBTiles (PNG, JPEG, WebP), PMTiles (written by
the pmtiles package) and XYZ and TMS tile folders (written here from the MBTiles). A missing
tile shows the background, a corrupt one too with a warning; vector tiles of the same
countries (geopipe's own) draw the standard map, and hybrid draws the imagery under labels.

Usage: check-basemaps.py GEOPIPE WORK
"""

import math
import os
import shutil
import sqlite3
import subprocess
import sys

import numpy
from osgeo import gdal
from pmtiles.convert import mbtiles_to_pmtiles

gdal.UseExceptions()

SEA = (40, 90, 160)
LAND = (225, 215, 190)
FRANCE = (220, 30, 30)
BRAZIL = (30, 170, 60)
AUSTRALIA = (240, 150, 20)
BACKGROUND = (238, 240, 242)
STANDARD_LAND = (242, 239, 233)
STANDARD_WATER = (170, 211, 223)

# Places well inside their colour, and the tile zoom from which they are wide enough to check.
PROBES = [
    ((-52.0, -10.0), BRAZIL, 0),
    ((134.0, -24.0), AUSTRALIA, 0),
    ((100.0, 62.0), LAND, 0),
    ((-140.0, 0.0), SEA, 0),
    ((-25.0, -5.0), SEA, 1),
    ((2.5, 46.8), FRANCE, 3),
]

failures = []
checked = []


def fail(message):
    failures.append(message)
    print("FAIL:", message, file=sys.stderr)


def pixel(lon, lat, center, zoom, bearing, width, height, scale):
    world = 256 * 2**zoom

    def x(lon):
        return (lon + 180) / 360 * world

    def y(lat):
        return (1 - math.log(math.tan(math.pi / 4 + math.radians(lat) / 2)) / math.pi) / 2 * world

    dx = x(lon) - x(center[0])
    dy = y(lat) - y(center[1])
    b = math.radians(bearing)
    sx = width / 2 + dx * math.cos(b) + dy * math.sin(b)
    sy = height / 2 - dx * math.sin(b) + dy * math.cos(b)
    return int(math.floor(sx * scale)), int(math.floor(sy * scale))


def read_png(path):
    data = gdal.Open(path).ReadAsArray()
    return numpy.transpose(data[:3], (1, 2, 0)).astype(int)


def render(geopipe, out, args, expect_status=0):
    run = subprocess.run(
        [geopipe, "render", out, "--quiet"] + args,
        stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if run.returncode != expect_status:
        fail(f"render {' '.join(args)}: exit {run.returncode}: {run.stderr}")
    return run


def close(actual, expected, tolerance):
    return all(abs(int(a) - e) <= tolerance for a, e in zip(actual, expected))


def check_map(geopipe, work, label, basemap, tolerance, views, extra=()):
    for center, zoom, bearing, scale in views:
        width, height = 600, 400
        out = os.path.join(work, "map.png")
        args = [
            "--center", f"{center[0]},{center[1]}", "--zoom", str(zoom), "--bearing",
            str(bearing), "--scale", str(scale), "--size", f"{width}x{height}",
        ] + [a for source in basemap for a in ("--basemap", source)] + list(extra)
        if render(geopipe, out, args).returncode != 0:
            continue
        image = read_png(out)
        tile_zoom = min(max(math.floor(zoom + math.log2(scale)), 0), 4)
        for (lon, lat), colour, from_zoom in PROBES:
            if tile_zoom < from_zoom:
                continue
            x, y = pixel(lon, lat, center, zoom, bearing, width, height, scale)
            if not (0 <= x < image.shape[1] and 0 <= y < image.shape[0]):
                continue
            got = tuple(image[y, x])
            checked.append(label)
            if not close(got, colour, tolerance):
                fail(f"{label}: zoom {zoom} bearing {bearing} scale {scale}: {lon},{lat} at "
                     f"{x},{y} is {got}, expected {colour}")


VIEWS = [
    ((0, 20), 1, 0, 1),
    ((0, 20), 2.5, 0, 2),
    ((10, 0), 2, 30, 1),
    ((-20, 10), 3.3, -60, 1.5),
    ((2.5, 46.8), 6, 15, 2),
    ((0, 0), 0.5, 200, 0.5),
]


def export_folder(mbtiles, folder, tms):
    database = sqlite3.connect(mbtiles)
    fmt = database.execute("SELECT value FROM metadata WHERE name = 'format'").fetchone()[0]
    for z, x, row, data in database.execute(
            "SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles"):
        y = row if tms else (1 << z) - 1 - row
        os.makedirs(os.path.join(folder, str(z), str(x)), exist_ok=True)
        with open(os.path.join(folder, str(z), str(x), f"{y}.{fmt}"), "wb") as f:
            f.write(data)
    database.close()


def make_webp(png, out):
    """A copy of a PNG MBTiles whose tiles GDAL's WEBP driver re-encodes (lossy)."""
    shutil.copy(png, out)
    database = sqlite3.connect(out)
    rows = database.execute(
        "SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles").fetchall()
    for z, x, y, data in rows:
        gdal.FileFromMemBuffer("/vsimem/tile.png", bytes(data))
        gdal.Translate("/vsimem/tile.webp", "/vsimem/tile.png", format="WEBP",
                       creationOptions=["QUALITY=80"])
        handle = gdal.VSIFOpenL("/vsimem/tile.webp", "rb")
        gdal.VSIFSeekL(handle, 0, 2)
        size = gdal.VSIFTellL(handle)
        gdal.VSIFSeekL(handle, 0, 0)
        webp = gdal.VSIFReadL(1, size, handle)
        gdal.VSIFCloseL(handle)
        gdal.Unlink("/vsimem/tile.png")
        gdal.Unlink("/vsimem/tile.webp")
        if not webp.startswith(b"RIFF"):
            fail(f"GDAL wrote no WebP for tile {z}/{x}/{y}")
        database.execute(
            "UPDATE tiles SET tile_data = ? WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?",
            (webp, z, x, y))
    database.execute("UPDATE metadata SET value = 'webp' WHERE name = 'format'")
    database.commit()
    database.close()


def main():
    geopipe, work = sys.argv[1], sys.argv[2]
    png = os.path.join(work, "world-png.mbtiles")
    make_webp(png, os.path.join(work, "world-webp.mbtiles"))
    for fmt, tolerance in [("png", 3), ("jpeg", 40), ("webp", 40)]:
        check_map(geopipe, work, f"MBTiles {fmt}", [os.path.join(work, f"world-{fmt}.mbtiles")],
                  tolerance, VIEWS, ["--map-type", "satellite"])
    pmtiles = os.path.join(work, "world.pmtiles")
    mbtiles_to_pmtiles(png, pmtiles, 4)
    check_map(geopipe, work, "PMTiles png", [pmtiles], 3, VIEWS)
    export_folder(png, os.path.join(work, "xyz"), tms=False)
    export_folder(png, os.path.join(work, "tms"), tms=True)
    check_map(geopipe, work, "XYZ folder", [os.path.join(work, "xyz")], 3, VIEWS)
    check_map(geopipe, work, "TMS folder", ["tms:" + os.path.join(work, "tms")], 3, VIEWS)

    # A missing tile and a corrupt one: the background, exit 0, a warning for the corrupt one.
    brazil = (-52.0, -10.0)
    n = 1 << 2
    x = int((brazil[0] + 180) / 360 * n)
    y = int((1 - math.log(math.tan(math.pi / 4 + math.radians(brazil[1]) / 2)) / math.pi) / 2 * n)
    view = ["--center", "-52,-10", "--zoom", "2", "--size", "600x400", "--map-type", "satellite"]
    where = (2, x, (1 << 2) - 1 - y)
    for case in ["missing", "corrupt"]:
        damaged = os.path.join(work, f"{case}.mbtiles")
        shutil.copy(png, damaged)
        database = sqlite3.connect(damaged)
        if case == "missing":
            database.execute(
                "DELETE FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?", where)
        else:
            database.execute(
                "UPDATE tiles SET tile_data = X'89504E470D0A1A0A00000000' WHERE zoom_level = ? "
                "AND tile_column = ? AND tile_row = ?", where)
        database.commit()
        database.close()
        out = os.path.join(work, f"{case}.png")
        run = subprocess.run([geopipe, "render", out, "--basemap", damaged] + view,
                             stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if run.returncode != 0:
            fail(f"{case} tile: exit {run.returncode}: {run.stderr}")
            continue
        image = read_png(out)
        got = tuple(image[200, 300])
        if not close(got, BACKGROUND, 2):
            fail(f"{case} tile: the middle is {got}, expected the background {BACKGROUND}")
        warned = f"tile 2/{x}/{y}" in run.stderr and "warning" in run.stderr
        if case == "corrupt" and not warned:
            fail(f"corrupt tile: no warning naming tile 2/{x}/{y}: {run.stderr!r}")
        if case == "missing" and run.stderr:
            fail(f"missing tile: unexpected messages: {run.stderr!r}")

    # Attribution: the tileset's, or --attribution.
    svg = os.path.join(work, "map.svg")
    render(geopipe, svg, ["--center", "0,0", "--zoom", "1", "--basemap", png, "--size", "300x200"])
    with open(svg, encoding="utf-8") as f:
        text = f.read()
    if ">Made with Natural Earth</text>" not in text or "data:image/png;base64," not in text:
        fail("SVG satellite map: no attribution text or embedded tiles")
    render(geopipe, svg, ["--center", "0,0", "--zoom", "1", "--basemap", png, "--size",
                          "300x200", "--attribution", "Mine"])
    with open(svg, encoding="utf-8") as f:
        if ">Mine</text>" not in f.read():
            fail("--attribution is not drawn")

    # Standard and hybrid from geopipe's vector tiles of the same countries.
    vector = os.path.join(work, "countries.pmtiles")
    with open(os.path.join(work, "countries.geojson"), "rb") as source:
        subprocess.run([geopipe, "tiles", vector, "--quiet", "--max-zoom", "4", "--layer",
                        "countries"], stdin=source, check=True)
    out = os.path.join(work, "standard.png")
    args = ["--center", "0,20", "--zoom", "3", "--size", "600x400"]
    if render(geopipe, out, args + ["--map-type", "standard", "--basemap", vector]).returncode == 0:
        image = read_png(out)
        for (lon, lat), colour in [((2.5, 46.8), STANDARD_LAND), ((-25, -5), STANDARD_WATER),
                                   ((-30, 30), STANDARD_WATER)]:
            px, py = pixel(lon, lat, (0, 20), 3, 0, 600, 400, 1)
            if 0 <= px < 600 and 0 <= py < 400 and not close(tuple(image[py, px]), colour, 2):
                fail(f"standard: {lon},{lat} is {tuple(image[py, px])}, expected {colour}")
    out = os.path.join(work, "hybrid.png")
    if render(geopipe, out, args + ["--basemap", png, "--basemap", vector]).returncode == 0:
        image = read_png(out)
        px, py = pixel(2.5, 46.8, (0, 20), 3, 0, 600, 400, 1)
        if not close(tuple(image[py, px]), FRANCE, 3):
            fail(f"hybrid: France is {tuple(image[py, px])}, expected {FRANCE}")

    # Usage errors: satellite without raster tiles, standard given only raster tiles.
    run = render(geopipe, out, ["--center", "0,0", "--zoom", "1", "--map-type", "satellite"], 64)
    if "needs a --basemap of raster tiles" not in run.stderr:
        fail(f"satellite without tiles: {run.stderr!r}")
    render(geopipe, out, ["--center", "0,0", "--zoom", "1", "--map-type", "standard",
                          "--basemap", png], 64)

    if failures:
        print(f"{len(failures)} basemap checks failed", file=sys.stderr)
        sys.exit(1)
    print(f"basemap checks passed ({len(checked)} pixels of known places in "
          f"{len(set(checked))} kinds of source, and the cases above)")


if __name__ == "__main__":
    main()
