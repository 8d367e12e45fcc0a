"""Runs a geopipe pipeline file as shards on Spark, then the merge on the driver.

    spark-submit integrations/spark/geopipe_spark.py PIPELINE --shards N [--var NAME=VALUE]...
    python integrations/spark/geopipe_spark.py PIPELINE --shards N --master 'local[2,4]'

One Spark task per shard (an RDD of shard numbers in N partitions, `mapPartitions` running
`geopipe run PIPELINE --shard i/N`); Spark retries failed tasks (spark.task.maxFailures), and
each shard writes its parts atomically, so a task run twice leaves the same part. When the
plan has a tiles round (a `tiles` step split by tile), a second job runs its N shares the same
way (`geopipe merge PIPELINE --shards N --tile-share j`). Then the driver runs
`geopipe merge PIPELINE --shards N`. Executors need the geopipe binary and must see the
pipeline file, its inputs and the parts' folder at the same paths.
"""

import argparse
import json
import os
import subprocess
import sys


def plan_commands(geopipe, pipeline, shards, extra, cwd):
    """The rounds of commands the plan gives (the shards, then the shares of the tiles when
    there are any) and the merge command."""
    plan = subprocess.run(
        [geopipe, "plan", pipeline, "--shards", str(shards), "--json"] + extra,
        cwd=cwd, capture_output=True, text=True)
    if plan.returncode != 0:
        sys.exit(f"geopipe plan failed:\n{plan.stderr}")
    layout = json.loads(plan.stdout)
    rounds = [[[geopipe] + shard["command"][1:] for shard in layout["map"]["shards"]]]
    if "tiles" in layout:
        rounds.append([[geopipe] + share["command"][1:] for share in layout["tiles"]["shares"]])
    return rounds, [geopipe] + layout["merge"]["command"][1:]


def run_partition(commands, cwd):
    def run(indices):
        for index in indices:
            done = subprocess.run(commands[index], cwd=cwd, capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(
                    f"{' '.join(commands[index][1:])} exited with status "
                    f"{done.returncode}:\n{done.stderr}")
            yield index
    return run


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pipeline")
    parser.add_argument("--shards", type=int, required=True)
    parser.add_argument("--var", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--parts", metavar="FOLDER")
    parser.add_argument("--geopipe", default="geopipe")
    parser.add_argument("--master", help="the Spark master when not run by spark-submit")
    arguments = parser.parse_args(argv)
    extra = [item for name in arguments.var for item in ("--var", name)]
    if arguments.parts:
        extra += ["--parts", arguments.parts]
    cwd = os.getcwd()
    geopipe = os.path.abspath(arguments.geopipe) if os.sep in arguments.geopipe \
        else arguments.geopipe
    rounds, merge = plan_commands(geopipe, arguments.pipeline, arguments.shards, extra, cwd)

    from pyspark.sql import SparkSession
    builder = SparkSession.builder.appName("geopipe " + arguments.pipeline)
    if arguments.master:
        builder = builder.master(arguments.master)
    spark = builder.getOrCreate()
    try:
        for commands in rounds:
            rdd = spark.sparkContext.parallelize(range(len(commands)), len(commands))
            finished = rdd.mapPartitions(run_partition(commands, cwd)).collect()
            assert sorted(finished) == list(range(len(commands)))
    finally:
        spark.stop()
    done = subprocess.run(merge, cwd=cwd)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
