"""Run geopipe pipeline files as shards and a merge on a Dask cluster."""

from .runner import QUIET_SETTINGS, local_cluster, plan, run

__all__ = ["QUIET_SETTINGS", "local_cluster", "plan", "run"]
