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
    return [
      ("OPTIONS", [path, variables] + Help.stdoutOptions), ("GLOBAL OPTIONS", Help.globalOptions),
    ]
  }

  static let discussions = [
    "run": """
    Checks the file as 'geopipe check' does, then runs it: sources are read once, in file
    order, and features stream through the stages (a stage read by several stages is not
    read twice). Nothing is written when the check fails (exit 78). When the last stage is
    not a writer, its features go to standard output as GeoJSONSeq. See docs/pipelines.md
    for the file format.
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
    ],
    "check": [
      "geopipe check Pipelines/*.yaml",
      "geopipe check --var input=x.csv Pipelines/csv-to-geojson.json",
    ],
  ]

  /// The table entries of `run` and `check`.
  static let entries = ["run", "check"].map { name in
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
    let path = values.string("path") ?? ""
    let (loaded, status) = load(path, overrides: overrides)
    guard let pipeline = loaded else { return status.rawValue }
    if !pipeline.unknownVariables.isEmpty {
      for message in pipeline.unknownVariableMessages { Terminal.printError("error: " + message) }
      Terminal.printError("usage: see 'geopipe \(name) --help'")
      return ExitStatus.usage.rawValue
    }
    guard let plan = report(pipeline, quiet: quiet) else { return ExitStatus.config.rawValue }
    return execute(plan, values: values, quiet: quiet)
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
  private func load(_ path: String, overrides: [String: String]) -> (Pipeline?, ExitStatus) {
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
  private func report(_ pipeline: Pipeline, quiet: Bool) -> PipelinePlan? {
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

  private func execute(_ plan: PipelinePlan, values: OptionValues, quiet: Bool) -> Int32 {
    let context = Command.context(quiet: quiet)
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
        plan.stagePlan, context: context,
        standardOutput: output.map { out in { try out.write($0) } })
      try writer?.finish()
      progress?.stop()
      if !quiet {
        for warning in result.warnings { Terminal.printError(warning.description) }
        for (step, count) in zip(plan.steps, result.received)
        where step.definition.role == .sink && !step.definition.pathIsInput {
          guard let path = step.values.string("path"), path != "-" else { continue }
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
