import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipePipeline
import GeoPipeStages

/// `geopipe run FILE` and `geopipe check FILE`.
struct PipelineCommand {
  let name: String
  let words: [String]

  static let abstracts = [
    "run": "Run a pipeline definition file (YAML or JSON).",
    "check": "Check a pipeline definition file without running it.",
  ]

  static func options(for name: String) -> [(title: String, options: [OptionSpec])] {
    var own = [
      OptionSpec(
        "path", .path, required: true, positional: true,
        help: "The pipeline file: YAML, or JSON when its name ends in .json."),
      OptionSpec(
        "var", .pairs,
        help: "Set a variable, replacing the file's value: NAME=VALUE (repeatable)."),
    ]
    if name == "check" {
      return [("OPTIONS", own), ("GLOBAL OPTIONS", Help.globalOptions)]
    }
    own += Help.stdoutOptions
    return [("OPTIONS", own), ("GLOBAL OPTIONS", Help.globalOptions)]
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
    Reports every problem in the file at once, each as file:line:column: error: ...:
    YAML syntax, unknown stages and options (with suggestions), values of the wrong type,
    missing options, duplicate keys and ids, inputs naming no earlier stage, stages with no
    input, undefined variables and {property} templates where a constant is needed. Exits
    78 when there are errors, 0 otherwise.
    """,
  ]

  static let examples = [
    "run": [
      "geopipe run Pipelines/demo.yaml",
      "geopipe run Pipelines/csv-to-geojson.yaml --var input=places.csv --var output=out.geojson",
      "geopipe run filter.yaml | geopipe write filtered.geojson",
    ],
    "check": [
      "geopipe check Pipelines/demo.yaml",
      "geopipe check --var input=x.csv pipeline.json",
    ],
  ]

  func help() -> String {
    Help.command(
      name: name, abstract: Self.abstracts[name] ?? "", discussion: Self.discussions[name] ?? "",
      examples: Self.examples[name] ?? [], groups: Self.options(for: name))
  }

  func run() -> Int32 {
    if words.contains("--help") || words.contains("-h") {
      print(help(), terminator: "")
      return 0
    }
    let values: OptionValues
    do {
      values = try ArgumentParser(options: Self.options(for: name).flatMap(\.options))
        .parse(words.map { $0 == "-q" ? "--quiet" : $0 })
    } catch {
      Terminal.printError((error as? GeoPipeError ?? GeoPipeError.usage("\(error)")).description)
      Terminal.printError("usage: see 'geopipe \(name) --help'")
      return ExitStatus.usage.rawValue
    }
    let quiet = values.flag("quiet")
    let path = values.string("path") ?? ""
    var overrides: [String: String] = [:]
    for pair in values.pairs("var") { overrides[pair.key] = pair.value }
    let pipeline: Pipeline
    do {
      pipeline = try Pipeline(path: path, overrides: overrides)
    } catch let error as GeoPipeError {
      Terminal.printError(error.description)
      return error.status.rawValue
    } catch {
      Terminal.printError("error: \(error)")
      return ExitStatus.ioError.rawValue
    }
    for diagnostic in pipeline.diagnostics where diagnostic.severity == .error || !quiet {
      Terminal.printError(diagnostic.description)
    }
    guard let plan = pipeline.plan else {
      let count = pipeline.errors.count
      if !quiet { Terminal.printError("\(count) error\(count == 1 ? "" : "s") in \(path)") }
      return ExitStatus.config.rawValue
    }
    if name == "check" {
      if !quiet { Terminal.printError("\(path): ok, \(plan.steps.count) stages") }
      return 0
    }
    return execute(plan, values: values, quiet: quiet)
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
      let received = try PipelineRunner.run(
        plan, context: context, counters: counters,
        standardOutput: output.map { out in { try out.write($0) } })
      try writer?.finish()
      progress?.stop()
      if !quiet {
        for (step, count) in zip(plan.steps, received)
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
