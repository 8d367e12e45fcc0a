"""Submitting a pipeline's shards and its merge to a Dask cluster.

geopipe owns the contract (which shards there are, which parts each writes, how the merge
turns the parts into exactly what one run writes); Dask owns scheduling, placement, retries
and the dashboard. Each task runs the geopipe binary in a subprocess.
"""

import json
import os
import signal
import subprocess
import sys

GAZETTEER_VARIABLE = "GEOPIPE_GAZETTEER"

#: Dask settings for a cluster whose tasks wait on geopipe processes. By default every worker
#: samples its threads' Python stacks every 10 ms (here always the wait for geopipe), every
#: process ticks its event loop every 20 ms and watches memory every 100 ms, and the scheduler
#: looks for work to steal every 100 ms: together about 14% of a core while idle, taken from
#: geopipe on a small machine; with these settings, under 2%. Nothing geopipe needs is lost:
#: a task's work is in its subprocess, and a plan has no more tasks in a round than shards.
QUIET_SETTINGS = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.scheduler.work-stealing": False,
}


def local_cluster(workers):
    """A LocalCluster of `workers` worker processes of one thread each, with QUIET_SETTINGS."""
    import dask
    from distributed import LocalCluster
    with dask.config.set(QUIET_SETTINGS):
        return LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)


class GeopipeError(RuntimeError):
    """geopipe exited with a failure status."""

    def __init__(self, command, status, stderr):
        self.command = command
        self.status = status
        self.stderr = stderr
        super().__init__(
            f"{' '.join(command)} exited with status {status}:\n{stderr.strip()}")


def plan(pipeline, shards, geopipe="geopipe", variables=None, parts=None, cwd=None):
    """The plan `geopipe plan PIPELINE --shards N --json` prints, as a dictionary."""
    command = [geopipe, "plan", pipeline, "--shards", str(shards), "--json"]
    command += _passed_on(variables, parts)
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise GeopipeError(command, done.returncode, done.stderr)
    return json.loads(done.stdout)


def run(pipeline, client, shards=None, geopipe="geopipe", variables=None, parts=None,
        cwd=None, retries=3, gazetteer=None):
    """Runs every shard of `pipeline` on `client`'s cluster, then the shares of the tiles
    when the plan has them, then the merge.

    `shards` defaults to the number of worker threads. A task that fails, or whose worker
    dies, is run again (up to `retries` times for failures; worker losses are Dask's
    `allowed-failures`): shards write their parts atomically and the merge commits its outputs
    atomically, so a task run twice leaves the same files. `gazetteer`, a local file, is
    uploaded to every worker once and handed to geopipe as GEOPIPE_GAZETTEER.

    Returns the merge's standard error (what it wrote).
    """
    if shards is None:
        shards = max(1, sum(client.nthreads().values()))
    cwd = os.path.abspath(cwd or os.getcwd())
    layout = plan(pipeline, shards, geopipe, variables, parts, cwd)
    environment = {}
    if gazetteer is not None:
        client.upload_file(os.path.abspath(gazetteer), load=False)
        environment[GAZETTEER_VARIABLE] = {"uploaded": os.path.basename(gazetteer)}
    tasks = []
    for shard in layout["map"]["shards"]:
        command = _resolved(shard["command"], geopipe)
        tasks.append(client.submit(
            _run_geopipe, command, cwd, environment, key=f"geopipe-shard-{shard['shard']}-of-{shards}",
            retries=retries, pure=False))
    # The tiles round, when the plan has one: each share of the tile space reads every
    # shard's features, so it starts once all shards are done.
    if "tiles" in layout:
        tasks = [
            client.submit(
                _run_after, _resolved(share["command"], geopipe), cwd, environment, tasks,
                key=f"geopipe-tiles-{share['share']}-of-{shards}", retries=retries, pure=False)
            for share in layout["tiles"]["shares"]]
    merge = client.submit(
        _run_after, _resolved(layout["merge"]["command"], geopipe), cwd, environment, tasks,
        key=f"geopipe-merge-of-{shards}", retries=retries, pure=False)
    return merge.result()


def _resolved(command, geopipe):
    return [geopipe] + list(command[1:])


def _passed_on(variables, parts):
    arguments = []
    for name, value in (variables or {}).items():
        arguments += ["--var", f"{name}={value}"]
    if parts is not None:
        arguments += ["--parts", parts]
    return arguments


def _run_after(command, cwd, environment, results):
    # The results of the round before are passed in so that Dask runs this task after all of
    # them.
    del results
    return _run_geopipe(command, cwd, environment)


def _worker_environment(environment):
    result = dict(os.environ)
    for name, value in environment.items():
        if isinstance(value, dict) and "uploaded" in value:
            from distributed import get_worker
            value = os.path.join(get_worker().local_directory, value["uploaded"])
        result[name] = value
    return result


def _die_with_parent():
    # A geopipe process outlives a worker that is killed unless told to die with it.
    if sys.platform.startswith("linux"):
        import ctypes
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _run_geopipe(command, cwd, environment):
    done = subprocess.run(
        command, cwd=cwd, env=_worker_environment(environment), capture_output=True, text=True,
        preexec_fn=_die_with_parent)
    if done.returncode != 0:
        raise GeopipeError(command, done.returncode, done.stderr)
    return done.stderr
