import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeStageKit
import GeoPipeStages

/// One run of a stage's subcommand or of `convert`: its plan (`StageRegistry.commandPlan`,
/// `convertPlan`) run with standard output, progress and error records wired in.
struct Command {
  let name: String
  /// The stage, or nil for `convert`.
  let definition: StageDefinition?

  /// The option groups of a stage's subcommand, as shown in help and accepted by the parser.
  static func groups(for definition: StageDefinition) -> [(title: String, options: [OptionSpec])] {
    let own = Set(definition.options.map(\.name))
    var input = StageRegistry.standardInputOptions
    if definition.pathIsInput { input += StageRegistry.csvInputOptions }
    input = input.filter { !own.contains($0.name) }
    switch definition.role {
    case .source:
      return [
        ("OPTIONS", definition.options), ("OUTPUT OPTIONS", Help.stdoutOptions),
        ("GLOBAL OPTIONS", Help.globalOptions),
      ]
    case .transform:
      return [
        ("OPTIONS", definition.options), ("INPUT OPTIONS", input),
        ("OUTPUT OPTIONS", Help.stdoutOptions),
        ("GLOBAL OPTIONS", Help.globalOptions),
      ]
    case .sink:
      return [
        ("OPTIONS", definition.options), ("INPUT OPTIONS", input),
        ("GLOBAL OPTIONS", Help.globalOptions),
      ]
    }
  }

  /// The options of `convert`: read's and write's, with IN and OUT as positionals.
  static var convertGroups: [(title: String, options: [OptionSpec])] {
    guard let read = StageRegistry.definition(named: "read") else { return [] }
    var input = read.options.filter { $0.name != "path" }
    input.insert(
      OptionSpec(
        "input", .path, required: true, positional: true,
        help: "The input file ('-' for standard input)."), at: 0)
    var output = StageRegistry.outputOptions
    output.insert(
      OptionSpec(
        "output", .path, default: "-", positional: true,
        help: "The output file ('-' for standard output)."), at: 0)
    return [
      ("INPUT OPTIONS", input), ("OUTPUT OPTIONS", output), ("GLOBAL OPTIONS", Help.globalOptions),
    ]
  }

  static let convertDiscussion = """
    Reads IN in any supported format and writes OUT in the format its extension names:
    the same as 'geopipe read IN | geopipe write OUT' in one process. All options of read
    and write apply.
    """

  static let convertExamples = [
    "geopipe convert places.csv places.geojson",
    "geopipe convert --crs EPSG:2154 parcels.geojson parcels-wgs84.geojsonl",
    "geopipe convert big.geojson.gz big.csv --columns name,population",
  ]

  /// Threads for parsing and for encoding: the processors online, or GEOPIPE_THREADS.
  static var threads: Int {
    if let text = ProcessInfo.processInfo.environment["GEOPIPE_THREADS"], let n = Int(text), n > 0 {
      return n
    }
    return max(1, ProcessInfo.processInfo.activeProcessorCount)
  }

  /// The table entry of a stage's subcommand.
  static func entry(for definition: StageDefinition) -> CommandEntry {
    CommandEntry(
      name: definition.name, abstract: definition.abstract, discussion: definition.discussion,
      examples: definition.examples, groups: groups(for: definition),
      buffersAll: definition.buffersAll,
      usageError: { error, _ in
        usageError(error, name: definition.name, streamsFeatures: definition.role != .sink)
      },
      run: { _, values in Command(name: definition.name, definition: definition).run(values) })
  }

  /// The table entry of `convert`.
  static let convertEntry = CommandEntry(
    name: "convert", abstract: "Convert a file to another format (read + write).",
    discussion: convertDiscussion, examples: convertExamples, groups: convertGroups,
    usageError: { error, _ in usageError(error, name: "convert", streamsFeatures: false) },
    run: { _, values in Command(name: "convert", definition: nil).run(values) })

  /// Reports words that do not parse, ending a feature stream with an error record.
  private static func usageError(_ error: GeoPipeError, name: String, streamsFeatures: Bool)
    -> Int32
  {
    Terminal.printError(error.description)
    Terminal.printError("usage: see 'geopipe \(name) --help'")
    endOutput(nil, with: error, streamsFeatures: streamsFeatures)
    return error.status.rawValue
  }

  /// Runs the command on its parsed options and returns its exit status.
  func run(_ values: OptionValues) -> Int32 {
    let quiet = values.flag("quiet")
    // Sources and transforms stream features to standard output; so does a sink whose output
    // path is `-` (`write -`, `convert IN -`).
    let streamsFeatures =
      if let definition {
        definition.role != .sink || (!definition.pathIsInput && values.string("path") == "-")
      } else {
        values.string("output") == "-"
      }
    // A signal ends such output with an error record too, as a failure does (`endOutput`).
    if !Terminal.stdoutIsTerminal && (streamsFeatures || Terminal.stdoutIsPipe) {
      SignalRecord.arm()
    }
    let context = Self.context(quiet: quiet)
    let counters = context.counters
    let progressMode = ProgressLine.mode(requested: values.flag("progress"), quiet: quiet)
    // `read` takes several paths; a progress line has a total only for one.
    let inputPaths =
      definition == nil
      ? values.string("input").map { [$0] }
      : (definition?.role == .source || definition?.pathIsInput == true
        ? values.list("path") ?? values.string("path").map { [$0] } : nil)
    let inputPath = inputPaths?.count == 1 ? inputPaths?.first : nil
    let readsStandardInput =
      definition.map { $0.role != .source && !$0.pathIsInput } == true
      || inputPaths?.contains("-") == true
    if readsStandardInput && Terminal.stdinIsTerminal && !quiet {
      let instead =
        inputPath == nil
        ? "or pipe them in: geopipe read FILE | geopipe \(name) ..."
        : "or give a file: geopipe \(name) FILE"
      Terminal.printError(
        "\(name): waiting for features on standard input (end with Ctrl-D), \(instead)")
    }
    let progress = progressMode.map {
      ProgressLine(
        counters: counters, label: name, total: inputPath.flatMap(ProgressLine.size(of:)), mode: $0)
    }
    var stdoutWriter: GeoJSONSeqWriter?
    do {
      let plan =
        if let definition {
          StageRegistry.commandPlan(definition, values: values)
        } else {
          StageRegistry.convertPlan(
            input: values.string("input") ?? "-", output: values.string("output") ?? "-",
            values: values)
        }
      let runner = try PlanRunner(plan, context: context)
      if plan.standardOutput != nil { stdoutWriter = try Self.standardOutputWriter(values) }
      progress?.start()
      let writer = stdoutWriter
      let result = try runner.run(standardOutput: { feature in try writer?.write(feature) })
      try stdoutWriter?.finish()
      progress?.stop()
      if !quiet {
        for warning in result.warnings { Terminal.printError(warning.description) }
      }
      return 0
    } catch is BrokenPipe {
      progress?.stop()
      return 0
    } catch let error as GeoPipeError {
      progress?.stop()
      Terminal.printError(error.description)
      if error.status == .usage { Terminal.printError("usage: see 'geopipe \(name) --help'") }
      Self.endOutput(stdoutWriter, with: error, streamsFeatures: streamsFeatures)
      return error.status.rawValue
    } catch {
      progress?.stop()
      let wrapped = GeoPipeError("\(error)", status: .ioError)
      Terminal.printError(wrapped.description)
      Self.endOutput(stdoutWriter, with: wrapped, streamsFeatures: streamsFeatures)
      return wrapped.status.rawValue
    }
  }

  /// What stages share: diagnostics on standard error (none with --quiet but errors), reports
  /// on standard output, and the thread count.
  static func context(quiet: Bool) -> StageContext {
    let printer = DiagnosticPrinter(quiet: quiet)
    return StageContext(
      diagnostics: { printer.report($0) },
      standardOutput: { bytes in
        let out = try OutputFile(path: "-")
        try bytes.withUnsafeBytes { try out.write($0) }
      }, threads: Command.threads)
  }

  /// The GeoJSONSeq writer for features on standard output (`--rs`, `--rewind`).
  ///
  /// Rings keep their direction unless `--rewind`: standard output usually feeds another
  /// command, and what a stage computes can depend on which way a ring runs (GEOS's
  /// topology-preserving simplifier does); `write` winds them for files.
  static func standardOutputWriter(_ values: OptionValues) throws -> GeoJSONSeqWriter {
    var options = WriteOptions()
    options.recordSeparator = values.flag("rs")
    options.rewind = values.flag("rewind")
    options.threads = Command.threads
    return GeoJSONSeqWriter(sink: try OutputFile(path: "-"), options: options)
  }

  /// Ends a stream on standard output with an error record, so that a geopipe stage reading it
  /// fails too instead of committing a truncated result.
  ///
  /// Commands that do not stream features write one only when standard output is a pipe, where
  /// another stage may read.
  static func endOutput(
    _ writer: GeoJSONSeqWriter?, with error: GeoPipeError, streamsFeatures: Bool
  ) {
    guard !Terminal.stdoutIsTerminal, streamsFeatures || Terminal.stdoutIsPipe else { return }
    do {
      try writer?.flushNow()
      let record = ErrorRecord.encode(error)
      try record.withUnsafeBytes { try OutputFile(path: "-").write($0) }
    } catch {}
  }
}
