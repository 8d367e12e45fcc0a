"""Run geopipe pipeline files as shards and a merge on a Dask cluster."""

from .runner import plan, run

__all__ = ["plan", "run"]
