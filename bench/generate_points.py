#!/usr/bin/env python3
"""Generate deterministic point data for the geopipe benchmarks.

    generate_points.py [--points N] [--seed S] [--csv | --seq] OUT

Default output is a GeoJSON FeatureCollection with one feature per line
(the layout ogr2ogr writes), about 200 bytes per feature.  --seq writes the
same features as newline-delimited GeoJSONSeq, --csv writes the columns
id,name,latitude,longitude,value.  The same seed gives the same bytes.
"""
import argparse
import csv
import json
import random

SYLLABLES = ["san", "ta", "ber", "lin", "ko", "mar", "ville", "do", "ri", "ham",
             "ton", "burg", "ka", "no", "va", "el", "port", "sur", "mi", "lo"]
UNICODE = ["ã", "é", "ü", "ø", "ß", "ñ", "İ", "Ł", "東京", "Москва", "القاهرة",
           "ἀθῆναι", "🌍", "ĳ", "\u00a0"]
JSON_SPECIAL = ['"', "\\", "/", "\t", "\n", "\r", "\b", "\f", "\u0001", "\u001f"]
CSV_SPECIAL = [",", '"', ", ", '""', "'"]


def make_name(rng, special):
    """A random place-like name; ~10% non-ASCII, ~8% with special characters."""
    words = []
    for _ in range(rng.randint(2, 5)):
        word = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))
        words.append(word.capitalize())
    r = rng.random()
    if r < 0.10:
        words.insert(rng.randrange(len(words) + 1), rng.choice(UNICODE))
    elif r < 0.18:
        words.insert(rng.randrange(len(words) + 1), rng.choice(special))
    return " ".join(words)


def fmt_coord(rng, x):
    """Coordinates with a random number of significant digits."""
    r = rng.random()
    if r < 0.15:
        return f"{x:.{rng.randint(1, 2)}f}"            # short: 13.4, -7.25
    if r < 0.55:
        return f"{x:.{rng.randint(6, 16)}g}"           # 6-16 significant digits
    if r < 0.80:
        return repr(round(x * 1e7) * 1e-7)             # float noise: -122.41941550000001
    return repr(x)                                     # full double, 15-17 digits


def fmt_value(rng):
    v = rng.uniform(-1000, 100000)
    return repr(v) if rng.random() < 0.5 else repr(round(v, 2))


def feature_lines(rng, n):
    for i in range(n):
        name = make_name(rng, JSON_SPECIAL)
        # A third of the non-ASCII names use \uXXXX escapes instead of raw UTF-8.
        ascii_escapes = not name.isascii() and rng.random() < 0.33
        props = (f'"id": {i}, "name": {json.dumps(name, ensure_ascii=ascii_escapes)}, '
                 f'"value": {fmt_value(rng)}')
        r = rng.random()
        if r < 0.4:
            props += f', "active": {"true" if r < 0.2 else "false"}'
        elif r < 0.55:
            props += ', "comment": null'
        lon = fmt_coord(rng, rng.uniform(-180, 180))
        lat = fmt_coord(rng, rng.uniform(-90, 90))
        yield ('{"type":"Feature","properties":{' + props + '},'
               '"geometry":{"type":"Point","coordinates":[' + lon + ',' + lat + ']}}')


def write_geojson(rng, n, out, seq):
    with open(out, "w", encoding="utf-8", newline="\n", buffering=1 << 20) as f:
        if seq:
            for line in feature_lines(rng, n):
                f.write(line + "\n")
            return
        f.write('{"type":"FeatureCollection","features":[\n')
        sep = ""
        for line in feature_lines(rng, n):
            f.write(sep + line)
            sep = ",\n"
        f.write("\n]}\n")


def write_csv(rng, n, out):
    with open(out, "w", encoding="utf-8", newline="", buffering=1 << 20) as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["id", "name", "latitude", "longitude", "value"])
        for i in range(n):
            name = make_name(rng, CSV_SPECIAL)
            lat = fmt_coord(rng, rng.uniform(-90, 90))
            lon = fmt_coord(rng, rng.uniform(-180, 180))
            w.writerow([i, name, lat, lon, fmt_value(rng)])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--points", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=20240611)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--csv", action="store_true", help="write CSV")
    mode.add_argument("--seq", action="store_true", help="write GeoJSONSeq")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    if args.csv:
        write_csv(rng, args.points, args.out)
    else:
        write_geojson(rng, args.points, args.out, args.seq)


if __name__ == "__main__":
    main()
