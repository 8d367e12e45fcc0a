"""Times a pipeline file run through geopipe-dask on LocalClusters of 1 and 2 worker processes.

Each cluster (`geopipe_dask.local_cluster`, the one `geopipe-dask run --local-workers`
starts: one thread per worker, Dask's background sampling turned down; `GEOPIPE_THREADS=1`
so that each geopipe process uses one thread) is started before the clock starts, as a user's
cluster would be running, and the disk's pending writes are synced; the time is that of
`geopipe_dask.run`: `geopipe plan`, every shard (one per worker) and the merge.
With `--repeat R`, each worker count runs R times, the counts taking turns; prints one line
per worker count: `WORKERS BEST ALL`, the best time and every time (comma-separated).

Usage: python dask_scaling.py [--repeat R] GEOPIPE PIPELINE OUT_PREFIX [WORKERS...]
The outputs of the run on k workers go to the folder OUT_PREFIX-k (the pipeline's `out`
variable).
"""

import os
import shutil
import sys
import time

from distributed import Client

import geopipe_dask


def timed_run(geopipe, pipeline, out, workers):
    shutil.rmtree(out, ignore_errors=True)
    with geopipe_dask.local_cluster(workers) as cluster, Client(cluster) as client:
        client.wait_for_workers(workers)
        # The disk writes of the run before (and of removing its outputs) are not this run's.
        os.sync()
        time.sleep(1)
        start = time.perf_counter()
        geopipe_dask.run(pipeline, client, shards=workers, geopipe=geopipe,
                         variables={"out": out})
        return time.perf_counter() - start


def main():
    arguments = sys.argv[1:]
    repeat = 1
    if len(arguments) >= 2 and arguments[0] == "--repeat":
        repeat = int(arguments[1])
        arguments = arguments[2:]
    if len(arguments) < 3:
        sys.exit(__doc__)
    geopipe, pipeline, prefix = (os.path.abspath(path) for path in arguments[:3])
    os.environ["GEOPIPE_THREADS"] = "1"
    counts = [int(n) for n in arguments[3:]] or [1, 2]
    times = {workers: [] for workers in counts}
    # Interleaved, so that a slow spell of the machine falls on both sides.
    for _ in range(repeat):
        for workers in counts:
            times[workers].append(timed_run(geopipe, pipeline, f"{prefix}-{workers}", workers))
    for workers in counts:
        runs = ",".join(f"{seconds:.2f}" for seconds in times[workers])
        print(workers, f"{min(times[workers]):.2f}", runs, flush=True)


if __name__ == "__main__":
    main()
