"""Runs a geopipe pipeline file as shards on Spark, then the merge on the driver.

    spark-submit integrations/spark/geopipe_spark.py PIPELINE --shards N [--var NAME=VALUE]...
    python integrations/spark/geopipe_spark.py PIPELINE --shards N --master 'local[2,4]'

One Spark task per shard (an RDD of shard numbers in N partitions, `mapPartitions` running
`geopipe run PIPELINE --shard i/N`); Spark retries failed tasks (spark.task.maxFailures), and
each shard writes its parts atomically, so a task run twice leaves the same part. Then the
driver runs `geopipe merge PIPELINE --shards N`. Executors need the geopipe binary and must
see the pipeline file, its inputs and the parts' folder at the same paths.
"""

import argparse
import json
import os
import subprocess
import sys


def shard_commands(geopipe, pipeline, shards, extra, cwd):
    plan = subprocess.run(
        [geopipe, "plan", pipeline, "--shards", str(shards), "--json"] + extra,
        cwd=cwd, capture_output=True, text=True)
    if plan.returncode != 0:
        sys.exit(f"geopipe plan failed:\n{plan.stderr}")
    layout = json.loads(plan.stdout)
    shards = [[geopipe] + shard["command"][1:] for shard in layout["map"]["shards"]]
    return shards, [geopipe] + layout["merge"]["command"][1:]


def run_partition(commands, cwd):
    def run(indices):
        for index in indices:
            done = subprocess.run(commands[index], cwd=cwd, capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(
                    f"shard {index} exited with status {done.returncode}:\n{done.stderr}")
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
    shards, merge = shard_commands(geopipe, arguments.pipeline, arguments.shards, extra, cwd)

    from pyspark.sql import SparkSession
    builder = SparkSession.builder.appName("geopipe " + arguments.pipeline)
    if arguments.master:
        builder = builder.master(arguments.master)
    spark = builder.getOrCreate()
    try:
        rdd = spark.sparkContext.parallelize(range(len(shards)), len(shards))
        finished = rdd.mapPartitions(run_partition(shards, cwd)).collect()
        assert sorted(finished) == list(range(len(shards)))
    finally:
        spark.stop()
    done = subprocess.run(merge, cwd=cwd)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
