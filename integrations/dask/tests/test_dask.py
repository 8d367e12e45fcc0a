"""geopipe-dask on a LocalCluster of two worker processes: the merged outputs (a tileset made
by shares of the tile space among them) are byte for byte those of one `geopipe run`, also
when a worker is killed while it runs a shard.

Usage: python test_dask.py GEOPIPE
"""

import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from distributed import Client

import geopipe_dask
from geopipe_dask.runner import GeopipeError

PIPELINE = """\
version: 1
vars:
  out: out
stages:
  - {id: rows, read: {path: rows.csv, infer-types: true}}
  - filter: {where: "v > 20000"}
  - select: {compute: {twice: "v * 2"}}
  - write: {path: "${out}/rows.geojsonl"}
  - {input: rows, sort: {by: [v, name]}}
  - head: 1000
  - write: {path: "${out}/lowest.csv"}
  - {input: rows, filter: {where: "v < 30000"}}
  - tiles: {path: "${out}/rows.pmtiles", max-zoom: 6}
"""


def write_input(folder, rows):
    generator = random.Random(20)
    with open(os.path.join(folder, "rows.csv"), "w", newline="") as out:
        out.write("name,lat,lon,v,note\n")
        for k in range(rows):
            note = '"two\nlines, ""quoted"""' if k % 7 == 0 else "plain"
            out.write(f"p{k},{generator.uniform(-80, 80):.6f},"
                      f"{generator.uniform(-180, 180):.6f},{generator.randrange(100000)},{note}\n")


def outputs(folder):
    result = {}
    for name in sorted(os.listdir(folder)):
        if ".part-" not in name and ".share-" not in name:
            with open(os.path.join(folder, name), "rb") as f:
                result[name] = f.read()
    return result


def one_run(geopipe, folder):
    subprocess.run([geopipe, "run", "pipeline.yaml", "--var", "out=one", "-q"], cwd=folder,
                   check=True)
    return outputs(os.path.join(folder, "one"))


def kill_a_worker_running_a_shard(client, done):
    """Waits for a shard task to be running, then kills its worker's process."""
    while not done.is_set():
        for address, keys in client.processing().items():
            if any(str(key).startswith("geopipe-shard") for key in keys):
                time.sleep(0.5)
                pid = client.run(os.getpid, workers=[address])[address]
                os.kill(pid, signal.SIGKILL)
                return pid
        time.sleep(0.05)
    return None


def main():
    geopipe = os.path.realpath(sys.argv[1])
    folder = tempfile.mkdtemp(prefix="geopipe-dask-")
    try:
        with open(os.path.join(folder, "pipeline.yaml"), "w") as f:
            f.write(PIPELINE)
        write_input(folder, 300_000)
        expected = one_run(geopipe, folder)
        cluster = geopipe_dask.local_cluster(2)
        client = Client(cluster)
        try:
            for shards in (1, 2, 3, 7):
                out = f"dask-{shards}"
                geopipe_dask.run("pipeline.yaml", client, shards=shards, geopipe=geopipe,
                                 variables={"out": out}, cwd=folder)
                assert outputs(os.path.join(folder, out)) == expected, f"{shards} shards differ"
                print(f"ok: {shards} shards on 2 workers give the bytes of one run")

            done = threading.Event()
            killed = []
            killer = threading.Thread(
                target=lambda: killed.append(kill_a_worker_running_a_shard(client, done)))
            killer.start()
            geopipe_dask.run("pipeline.yaml", client, shards=4, geopipe=geopipe,
                             variables={"out": "killed"}, cwd=folder)
            done.set()
            killer.join()
            assert killed and killed[0] is not None, "no worker was killed while running a shard"
            assert outputs(os.path.join(folder, "killed")) == expected, "the retried run differs"
            print(f"ok: worker process {killed[0]} killed during a shard; the result is exact")

            with open(os.path.join(folder, "rows.csv"), "a") as f:
                f.write("bad,95,0,1,x\n")
            try:
                geopipe_dask.run("pipeline.yaml", client, shards=2, geopipe=geopipe,
                                 variables={"out": "bad"}, cwd=folder, retries=0)
                raise AssertionError("a bad input did not fail")
            except GeopipeError as error:
                assert error.status == 65, error
                assert "rows.csv:" in error.stderr and "out of range" in error.stderr, error
                assert not os.path.exists(os.path.join(folder, "bad", "rows.geojsonl"))
            print("ok: a data error in a shard fails the run with geopipe's message, status 65")
        finally:
            client.close()
            cluster.close()
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
