"""`geopipe-dask run FILE --scheduler ADDRESS | --local-workers N`."""

import argparse
import sys

from .runner import GeopipeError, local_cluster, run


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="geopipe-dask",
        description="Run a geopipe pipeline file as shards and a merge on a Dask cluster.")
    commands = parser.add_subparsers(dest="command", required=True)
    runner = commands.add_parser(
        "run", help="run every shard of a pipeline file, then the merge",
        epilog="example: geopipe-dask run Pipelines/demo.yaml --local-workers 2")
    runner.add_argument("pipeline", help="the pipeline file (a path every worker sees)")
    where = runner.add_mutually_exclusive_group(required=True)
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="the address of a running Dask scheduler (tcp://host:8786)")
    where.add_argument("--local-workers", metavar="N", type=int,
                       help="start a local cluster of N worker processes, one thread each")
    runner.add_argument("--shards", type=int,
                        help="how many shards (default: the cluster's worker threads)")
    runner.add_argument("--var", action="append", default=[], metavar="NAME=VALUE",
                        help="set a pipeline variable (repeatable)")
    runner.add_argument("--parts", metavar="FOLDER",
                        help="the folder for the shards' parts (default: beside the outputs)")
    runner.add_argument("--geopipe", default="geopipe",
                        help="the geopipe binary on the workers (default: geopipe on PATH)")
    runner.add_argument("--retries", type=int, default=3,
                        help="how many times a failed task is run again (default 3)")
    runner.add_argument("--ship-gazetteer", metavar="FILE",
                        help="upload this gazetteer to every worker once and geocode with it")
    arguments = parser.parse_args(argv)
    variables = {}
    for item in arguments.var:
        name, separator, value = item.partition("=")
        if not separator:
            parser.error(f"--var {item}: expected NAME=VALUE")
        variables[name] = value
    from distributed import Client
    cluster = None
    if arguments.local_workers is not None:
        cluster = local_cluster(arguments.local_workers)
        client = Client(cluster)
    else:
        client = Client(arguments.scheduler)
    try:
        report = run(
            arguments.pipeline, client, shards=arguments.shards, geopipe=arguments.geopipe,
            variables=variables, parts=arguments.parts, retries=arguments.retries,
            gazetteer=arguments.ship_gazetteer)
        sys.stderr.write(report)
        return 0
    except GeopipeError as error:
        sys.stderr.write(f"geopipe-dask: {error}\n")
        return error.status if 0 < error.status < 256 else 1
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


if __name__ == "__main__":
    sys.exit(main())
