#!/usr/bin/env python3
"""Checks that every library target builds alone: `swift build --target X` with nothing
built but what X declares (directly or through its dependencies).

In one build folder a module that imports another it does not declare still builds when
something else built that module first. Here each target is built in a folder that holds only
modules of its own dependency closure, so such an import fails with "no such module".

To keep it cheap, targets share a folder when their closures nest: the targets are laid out
in chains (each one in the closure of the next, e.g. GeoPipeCore, GeoPipeIO, GeoPipeValidation)
and each chain is built bottom-up in its own folder under .build/alone, kept between runs so
that later runs only rebuild what changed.

Usage: Scripts/check-target-builds.py [--list]
"""
import hashlib
import json
import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRATCH = ROOT / ".build" / "alone"


def package():
    text = subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout
    targets = {}
    for target in json.loads(text)["targets"]:
        deps = [value[0] for dependency in target.get("dependencies", [])
                for value in dependency.values()]
        targets[target["name"]] = {"type": target["type"], "deps": deps}
    return targets


def closures(targets):
    result = {}

    def closure(name):
        if name not in result:
            result[name] = set()
            for dep in targets.get(name, {"deps": []})["deps"]:
                result[name] |= {dep} | closure(dep)
        return result[name]

    for name in targets:
        closure(name)
    return result


def chains(targets):
    """The library targets in chains whose closures nest, smallest closures first."""
    libraries = [name for name, target in targets.items() if target["type"] == "regular"]
    closure = closures(targets)
    laid = []
    for name in sorted(libraries, key=lambda n: (len(closure[n]), n)):
        fits = [chain for chain in laid if chain[-1] in closure[name]]
        if fits:
            max(fits, key=lambda chain: len(closure[chain[-1]])).append(name)
        else:
            laid.append([name])
    return laid


def main():
    laid = chains(package())
    if "--list" in sys.argv:
        for chain in laid:
            print(" -> ".join(chain))
        return
    folders = {}
    for chain in laid:
        folders[hashlib.sha1(" ".join(chain).encode()).hexdigest()[:12]] = chain
    # Folders of chains the package no longer has could hold modules outside a closure.
    if SCRATCH.exists():
        for old in SCRATCH.iterdir():
            if old.name not in folders:
                shutil.rmtree(old)
    failed = []
    for folder, chain in folders.items():
        for name in chain:
            print(f"swift build --target {name}", file=sys.stderr, flush=True)
            run = subprocess.run(
                ["swift", "build", "--target", name, "--scratch-path", str(SCRATCH / folder)],
                cwd=ROOT, capture_output=True, text=True)
            if run.returncode != 0:
                print(run.stdout + run.stderr, file=sys.stderr)
                failed.append(name)
                break
    for name in failed:
        print(f"error: {name} does not build alone: it imports a module it does not declare "
              "in Package.swift", file=sys.stderr)
    sys.exit(1 if failed else 0)


main()
