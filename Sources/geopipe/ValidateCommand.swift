import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeStageKit
import GeoPipeStages
import GeoPipeValidation

/// `geopipe validate FILE...`: the CI gate for datasets.
enum ValidateCommand {

  static let abstract = "Check datasets and report every problem (exit 1 on errors): the CI gate."

  static let options: [OptionSpec] = [
    OptionSpec(
      "path", .path, required: true, positional: true,
      help: "The files to validate, one or more ('-' for standard input)."),
    OptionSpec(
      "format", .choice(of: ReportFormat.self), default: ReportFormat.text.rawValue,
      help: "text: file:line:column: error[GP012]: ...; json; github: workflow annotations; "
        + "junit: JUnit XML; sarif: SARIF 2.1.0."),
    OptionSpec(
      "schema", .path,
      help: "A JSON Schema for feature properties (type, required, properties, enum, minimum, "
        + "maximum, pattern, x-unique)."),
    OptionSpec(
      "select", .list, help: "Run only these rules (codes such as GP010 or names)."),
    OptionSpec("ignore", .list, help: "Leave out these rules (codes or names)."),
    OptionSpec("warnings-as-errors", .flag, help: "Report warnings as errors (and exit 1)."),
    OptionSpec(
      "max-findings", .integer,
      help: "Stop after this many findings (the exit status still counts them)."),
    OptionSpec(
      "fix", .flag,
      help: "Also write a repaired copy NAME.fixed.EXT beside each file: made valid (GEOS), "
        + "rewound, without repeated positions, split at the antimeridian."),
  ]

  static let inputOptions: [OptionSpec] =
    [
      OptionSpec(
        "input-format", .choice(["auto"] + Formats.readable.map(\.name)),
        default: "auto", help: "The input format; by default detected from the first bytes."),
      OptionSpec(
        "crs", .string,
        help: "The files' coordinates are in this CRS, not WGS84 degrees: range and antimeridian "
          + "checks are off."),
    ] + StageRegistry.csvInputOptions

  /// The global options.
  ///
  /// A progress line is drawn when standard error is a terminal and the report goes elsewhere
  /// (on a terminal the report shows how far it is), or with --progress.
  static let globalOptions = Help.globalOptions

  static let discussion = """
    Reads each file once, streaming, and reports every problem it finds: a bad feature is
    reported and stepped over (GeoJSONSeq and CSV resume at the next record; a syntax error
    inside a FeatureCollection is reported and ends that file). Each check has a stable rule
    code and a default severity; see docs/validate.md for the table.
      GP001-GP006  syntax, structure, non-finite or out-of-range coordinates, too few
                   points, unclosed rings (errors)
      GP010-GP019  GEOS validity, with GEOS's reason and location (errors)
      GP020-GP023  RFC 7946 winding, unsplit antimeridian crossings, repeated positions,
                   empty geometries (warnings)
      GP024, GP030 duplicate feature ids, --schema property rules (errors)
    Exit status: 0 when there are no errors (warnings allowed), 1 when there is any error
    finding, 66 when a file cannot be opened, 64 for a bad command line.
    """

  static let examples = [
    "geopipe validate data/*.geojson",
    "geopipe validate --format github --schema schema.json datasets/*.geojson",
    "geopipe validate --ignore GP020,GP022 --warnings-as-errors places.csv",
    "geopipe validate --format junit --max-findings 1000 big.geojsonl > report.xml",
    "geopipe validate --fix parcels.geojson",
  ]

  static let entry = CommandEntry(
    name: "validate", abstract: abstract, discussion: discussion, examples: examples,
    groups: [
      ("OPTIONS", options), ("INPUT OPTIONS", inputOptions), ("GLOBAL OPTIONS", globalOptions),
    ],
    parse: parse, run: { _, values in run(values) })

  static func run(_ values: OptionValues) -> Int32 {
    let options: ValidationOptions
    do {
      options = try Self.validationOptions(values)
    } catch {
      let failure = error as? GeoPipeError ?? GeoPipeError.usage("\(error)")
      CommandEntry.printUsageError(failure, command: "validate")
      return failure.status.rawValue
    }
    let format = values.choice("format", as: ReportFormat.self) ?? .text
    return validate(values.list("path") ?? [], options: options, format: format, values: values)
  }

  /// Parses the words: any number of paths among the options.
  private static func parse(_ words: [String], _ specs: [OptionSpec]) throws -> OptionValues {
    let values = try ArgumentParser(
      options: specs.map { spec in
        guard spec.isPositional else { return spec }
        var paths = spec
        paths.isVariadic = true
        paths.isRequired = false
        return paths
      }
    ).parse(words)
    guard let paths = values.list("path"), !paths.isEmpty else {
      throw GeoPipeError.usage("missing PATH: name the files to validate")
    }
    if values.flag("fix"), paths.contains("-") {
      throw GeoPipeError.usage("--fix writes a copy beside each file; it cannot fix standard input")
    }
    if let limit = values.integer("max-findings"), limit < 1 {
      throw GeoPipeError.usage("--max-findings must be at least 1")
    }
    return values
  }

  static func validationOptions(_ values: OptionValues) throws -> ValidationOptions {
    var options = ValidationOptions()
    func rules(_ name: String) throws -> Set<Rule>? {
      guard let words = values.list(name) else { return nil }
      return Set(
        try words.map { word in
          guard let rule = Rule.named(word) else {
            let names = Rule.all.map(\.code) + Rule.all.map(\.name)
            let hint =
              Suggestions.closest(to: word, among: names).map { "; did you mean '\($0)'?" } ?? ""
            throw GeoPipeError.usage("--\(name): unknown rule '\(word)'\(hint)")
          }
          return rule
        })
    }
    options.selected = try rules("select")
    options.ignored = try rules("ignore") ?? []
    options.warningsAsErrors = values.flag("warnings-as-errors")
    options.fix = values.flag("fix")
    options.geographic = values.string("crs") == nil
    if let format = values.string("input-format"), format != "auto" {
      options.format = Formats.named(format)
    }
    options.csv.latitudeColumn = values.string("lat")
    options.csv.longitudeColumn = values.string("lon")
    options.csv.geometryColumn = values.string("geometry")
    options.csv.inferTypes = values.flag("infer-types")
    if let delimiter = values.string("delimiter") {
      options.csv.delimiter = delimiter == "tab" ? 0x09 : delimiter.utf8.first
    }
    if let schema = values.string("schema") {
      options.schema = try PropertySchema(contentsOf: schema)
    }
    return options
  }

  private static func validate(
    _ paths: [String], options: ValidationOptions, format: ReportFormat, values: OptionValues
  ) -> Int32 {
    let quiet = values.flag("quiet")
    let validity: GEOSValidityChecker
    do {
      validity = try GEOSValidityChecker()
    } catch {
      Terminal.printError("error: cannot start GEOS: \(error)")
      return ExitStatus.ioError.rawValue
    }
    let validator = Validator(options: options, validity: validity)
    let progress = Self.progress(
      for: validator, paths: paths, quiet: quiet, requested: values.flag("progress"))
    progress?.start()
    defer { progress?.stop() }
    let output: ReportOutput
    do {
      output = try ReportOutput()
    } catch {
      Terminal.printError("error: \(error)")
      return ExitStatus.ioError.rawValue
    }
    let run = ValidationRun(
      validator: validator, format: format, maxFindings: values.integer("max-findings"))
    let outcome = run.run(
      paths, to: output,
      fileValidated: { summary in
        // The notes go to standard error after the file's findings, also on a terminal.
        if !quiet, let note = summary.fixNote { Terminal.printError(note) }
      },
      fileFailed: { Terminal.printError($0.description) })
    if let error = outcome.outputError { Terminal.printError("error: \(error)") }
    return outcome.status.rawValue
  }

  /// A progress line (files, features, bytes): in place when standard error is a terminal and
  /// the report goes elsewhere, as a log with --progress; nil otherwise.
  private static func progress(
    for validator: Validator, paths: [String], quiet: Bool, requested: Bool
  ) -> ProgressLine? {
    let mode: ProgressLine.Mode
    if quiet {
      return nil
    } else if Terminal.stderrIsTerminal && !Terminal.stdoutIsTerminal {
      mode = .inPlace
    } else if requested {
      mode = .log
    } else {
      return nil
    }
    let counters = RunCounters()
    var file = 0
    var done = (features: 0, bytes: 0)
    var last = (features: 0, bytes: 0)
    validator.progress = { features, bytes in
      if features == 0 && bytes == 0 {
        // A file has been opened: count the one before as done.
        file = min(file + 1, paths.count)
        done = (done.features + last.features, done.bytes + last.bytes)
        counters.report("file \(file) of \(paths.count)")
      }
      last = (features, bytes)
      counters.features.store(done.features + features, ordering: .relaxed)
      counters.bytes.store(done.bytes + bytes, ordering: .relaxed)
    }
    return ProgressLine(counters: counters, label: "validate", total: nil, mode: mode)
  }
}
