import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipePipeline
import GeoPipeStageKit
import GeoPipeStages

/// `geopipe run FILE` and `geopipe check FILE`.
struct PipelineCommand {
  let name: String

  static let abstracts = [
    "run": "Run a pipeline definition file (YAML or JSON).",
    "check": "Check pipeline definition files without running them.",
    "plan": "Print how a pipeline file runs as shards and a merge (for Dask, Spark, Kubernetes).",
    "merge": "Merge the parts of a sharded run into the outputs one run writes.",
  ]

  static func options(for name: String) -> [(title: String, options: [OptionSpec])] {
    let variables = OptionSpec(
      "var", .pairs,
      help: "Set a variable, replacing the file's value: NAME=VALUE (repeatable). A name the file "
        + "neither declares under 'vars:' nor uses is an error.")
    if name == "check" {
      let paths = OptionSpec(
        "path", .path, required: true, positional: true, variadic: true,
        help: "The pipeline files: YAML, or JSON when a name ends in .json.")
      return [("OPTIONS", [paths, variables]), ("GLOBAL OPTIONS", Help.globalOptions)]
    }
    let path = OptionSpec(
      "path", .path, required: true, positional: true,
      help: "The pipeline file: YAML, or JSON when its name ends in .json.")
    let stdout = name == "plan" ? [] : Help.stdoutOptions
    return [
      ("OPTIONS", [path, variables] + shardOptions(for: name) + stdout),
      ("GLOBAL OPTIONS", Help.globalOptions),
    ]
  }

  static let discussions = [
    "run": """
    Checks the file as 'geopipe check' does, then runs it: sources are read once, in file
    order, and features stream through the stages (a stage read by several stages is not
    read twice). Nothing is written when the check fails (exit 78). When the last stage is
    not a writer, its features go to standard output as GeoJSONSeq. See docs/pipelines.md
    for the file format.
    With --shard i/N it runs shard i of N (numbered from 0): each read stage reads its share
    of its inputs (GeoJSONSeq and CSV by byte ranges cut at record boundaries, a
    FeatureCollection by where its features begin, FlatGeobuf and shapefiles by feature
    number, GeoPackage tables by fid ranges, GeoParquet by row group, PostgreSQL tables by
    block ranges; other inputs whole, by one shard), the
    stages that work feature by feature run on it, and the features that the rest of the
    pipeline needs are written as numbered parts beside its outputs (or in --parts). Run
    every shard, in any order and on any machines that see the same files, then 'geopipe
    merge FILE --shards N': the outputs are then byte for byte those of one run. See
    'geopipe plan' and docs/scaling.md.
    """,
    "plan": """
    Prints what 'run --shard' and 'merge' do for the file: the map side (the read stages,
    split by their inputs, and the stages that work feature by feature downstream of them:
    filter, select, style, geocode, reverse-geocode, simplify without --percentage or
    --shared-borders, reproject, circle, buffer, join, clip, explode, head, which runs
    again in the merge, and sort, whose sorted parts the merge reads with a k-way merge),
    the parts each shard writes, the tiles round (a tiles stage whose tiles depend only on
    the features in them is split by tile: each shard prepares its features for the tiler,
    and each of N shares reads all the shards' prepared features and writes its tiles, with
    'merge --tile-share J'), and the merge side (writers; copies
    of the shares' tiles; and as a single reduce over the features of all shards in shard
    order: dedupe, dissolve, cluster, other tiles, render, info and the rest, each with the
    reason when it is not obvious). --json prints the same for an engine that schedules the
    tasks: the commands to run, the parts of each shard and share, and each merge step.
    """,
    "merge": """
    Checks the file, checks that every shard's parts (and every share of the tiles) exist
    (exit 66 naming the first missing one), then reads the parts in shard order (sorted parts
    with a k-way merge) and runs the merge side of the plan, and copies the shares' tiles
    into their tilesets: writers commit their outputs atomically, as one run does, and the
    outputs are byte for byte those of 'geopipe run FILE'. The parts are left in place
    (remove them once the merge has succeeded); merging again gives the same outputs. With
    --tile-share J it instead writes share J of the tiles of each tiles stage the plan splits
    by tile, from the features parts of every shard (run each share after all the shards,
    before the merge; a features part that is damaged, of another shard or prepared with
    other tiles options is refused, exit 65).
    """,
    "check": """
    Reports every problem in each file at once, each as file:line:column: error: ...:
    YAML syntax, unknown stages and options (with suggestions), values of the wrong type,
    missing options, duplicate keys and ids, inputs naming no earlier stage, stages with no
    input, undefined variables, {property} templates where a constant is needed, and what a
    run would refuse before reading anything (an output whose format its name does not tell,
    an unknown CRS). Exits 78 when any file has errors, 64 when a --var names a variable no
    file has, 66 when a file cannot be read, 0 otherwise.
    """,
  ]

  static let examples = [
    "run": [
      "geopipe run Pipelines/demo.yaml",
      "geopipe run Pipelines/csv-to-geojson.yaml --var input=Fixtures/places/places.csv --var out=/tmp",
      "geopipe run Pipelines/filter-select-style.yaml --var min_population=5000000 --var out=/tmp",
      "geopipe run Pipelines/filter-select-style.yaml --shard 2/4",
      "JOB_COMPLETION_INDEX=2 GEOPIPE_SHARDS=4 geopipe run Pipelines/demo.yaml --shard env",
    ],
    "check": [
      "geopipe check Pipelines/*.yaml",
      "geopipe check --var input=x.csv Pipelines/csv-to-geojson.json",
    ],
    "plan": [
      "geopipe plan Pipelines/filter-select-style.yaml --shards 4",
      "geopipe plan Pipelines/clusters.yaml --shards 16 --json",
    ],
    "merge": [
      "geopipe merge Pipelines/filter-select-style.yaml --shards 4",
      "geopipe merge Pipelines/branching.yaml --shards 8 --parts /shared/parts --var out=/shared/out",
      "geopipe merge Pipelines/demo.yaml --shards 2 --tile-share 1",
    ],
  ]

  /// The table entries of `run` and `check`.
  static let entries = ["run", "check", "plan", "merge"].map { name in
    CommandEntry(
      name: name, abstract: abstracts[name] ?? "", discussion: discussions[name] ?? "",
      examples: examples[name] ?? [], groups: options(for: name),
      run: { _, values in PipelineCommand(name: name).run(values) })
  }

  func run(_ values: OptionValues) -> Int32 {
    let quiet = values.flag("quiet")
    var overrides: [String: String] = [:]
    for pair in values.pairs("var") { overrides[pair.key] = pair.value }
    if name == "check" {
      return check(values.list("path") ?? [], overrides: overrides, quiet: quiet)
    }
    if name == "run", values.has("parts"), !values.has("shard") {
      Terminal.printError("error: --parts is for the parts of a shard: give --shard i/N too")
      Terminal.printError("usage: see 'geopipe run --help'")
      return ExitStatus.usage.rawValue
    }
    let path = values.string("path") ?? ""
    let (loaded, status) = load(path, overrides: overrides)
    guard let pipeline = loaded else { return status.rawValue }
    if !pipeline.unknownVariables.isEmpty {
      for message in pipeline.unknownVariableMessages { Terminal.printError("error: " + message) }
      Terminal.printError("usage: see 'geopipe \(name) --help'")
      return ExitStatus.usage.rawValue
    }
    guard let plan = report(pipeline, quiet: quiet) else { return ExitStatus.config.rawValue }
    if name != "run" || values.has("shard") { return runShards(plan, values: values, quiet: quiet) }
    return execute(plan.stagePlan, values: values, quiet: quiet)
  }

  /// Checks every file, reporting the problems of each; a `--var` is an error only when no
  /// file has the variable.
  private func check(_ paths: [String], overrides: [String: String], quiet: Bool) -> Int32 {
    var invalid = false
    var unreadable: ExitStatus?
    // The names no file read so far has; nil until a file is read.
    var unknown: Set<String>?
    var messages: [String] = []
    for path in paths {
      var (loaded, status) = load(path, overrides: overrides)
      if let pipeline = loaded {
        unknown = (unknown ?? Set(overrides.keys)).intersection(pipeline.unknownVariables)
      }
      if let pipeline = loaded, !pipeline.unknownVariables.isEmpty {
        messages = pipeline.unknownVariableMessages
        // Check the file with the variables it has; another file may have the others.
        let known = overrides.filter { !pipeline.unknownVariables.contains($0.key) }
        (loaded, status) = load(path, overrides: known)
      }
      guard let pipeline = loaded else {
        unreadable = unreadable ?? status
        continue
      }
      if let plan = report(pipeline, quiet: quiet) {
        if !quiet { Terminal.printError("\(path): ok, \(plan.steps.count) stages") }
      } else {
        invalid = true
      }
    }
    if let unknown, !unknown.isEmpty {
      if paths.count == 1 {
        for message in messages { Terminal.printError("error: " + message) }
      } else {
        for name in unknown.sorted() {
          Terminal.printError("error: --var \(name): none of the files has a variable '\(name)'")
        }
      }
      Terminal.printError("usage: see 'geopipe \(name) --help'")
      return ExitStatus.usage.rawValue
    }
    if invalid { return ExitStatus.config.rawValue }
    return unreadable?.rawValue ?? 0
  }

  /// Reads and checks one file; a file that cannot be read is reported here, with its status.
  func load(_ path: String, overrides: [String: String]) -> (Pipeline?, ExitStatus) {
    do {
      return (try Pipeline(path: path, overrides: overrides), .success)
    } catch let error as GeoPipeError {
      Terminal.printError(error.description)
      return (nil, error.status)
    } catch {
      Terminal.printError("error: \(error)")
      return (nil, .ioError)
    }
  }

  /// Prints a file's errors (and warnings unless quiet); returns its plan, nil when it has
  /// errors.
  func report(_ pipeline: Pipeline, quiet: Bool) -> PipelinePlan? {
    for diagnostic in pipeline.diagnostics where diagnostic.severity == .error || !quiet {
      Terminal.printError(diagnostic.description)
    }
    let count = pipeline.errors.count
    guard count == 0, let plan = pipeline.plan else {
      if count > 0 && !quiet {
        Terminal.printError("\(count) error\(count == 1 ? "" : "s") in \(pipeline.path)")
      }
      return nil
    }
    return plan
  }

  func execute(
    _ plan: StagePlan, values: OptionValues, quiet: Bool, shard: Shard? = nil,
    tileShare: Shard? = nil
  ) -> Int32 {
    var context = Command.context(quiet: quiet)
    context.shard = shard
    context.tileShare = tileShare
    let counters = context.counters
    let progress = ProgressLine.mode(requested: values.flag("progress"), quiet: quiet).map {
      ProgressLine(counters: counters, label: "run", total: nil, mode: $0)
    }
    var writer: GeoJSONSeqWriter?
    let streamsFeatures = plan.standardOutput != nil
    do {
      if streamsFeatures { writer = try Command.standardOutputWriter(values) }
      progress?.start()
      let output = writer
      let result = try PlanRunner.run(
        plan, context: context,
        standardOutput: output.map { out in { try out.write($0) } })
      try writer?.finish()
      progress?.stop()
      if !quiet {
        for warning in result.warnings { Terminal.printError(warning.description) }
        for (step, count) in zip(plan.steps, result.received)
        where step.definition.role == .sink && !step.definition.pathIsInput {
          guard let path = step.values.string("path"), path != "-" else { continue }
          if let tileShare {
            // A share of the tiles reads the shards' prepared features, not features.
            Terminal.printError("wrote \(path): share \(tileShare) of the tiles")
            continue
          }
          Terminal.printError("wrote \(path): \(count) feature\(count == 1 ? "" : "s")")
        }
      }
      return 0
    } catch is BrokenPipe {
      progress?.stop()
      return 0
    } catch {
      progress?.stop()
      let failure = error as? GeoPipeError ?? GeoPipeError("\(error)", status: .ioError)
      Terminal.printError(failure.description)
      Command.endOutput(writer, with: failure, streamsFeatures: streamsFeatures)
      return failure.status.rawValue
    }
  }
}
