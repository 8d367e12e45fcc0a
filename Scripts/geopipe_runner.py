"""Runs the geopipe binary for the oracle scripts in this folder (check-overlay.py,
simplify-reference.py): one command, standard input from a file, GeoJSONSeq back."""

import json
import subprocess
import sys


def run_geopipe(geopipe, args, stdin_path):
    """The features `geopipe ARGS --quiet < STDIN_PATH` writes; exits on failure."""
    with open(stdin_path, "rb") as stdin:
        out = subprocess.run([geopipe, *args, "--quiet"], stdin=stdin, capture_output=True)
    if out.returncode != 0:
        sys.exit(f"geopipe {' '.join(args)} failed: {out.stderr.decode()}")
    return [json.loads(line) for line in out.stdout.decode().splitlines() if line]
