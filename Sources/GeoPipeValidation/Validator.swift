import GeoPipeCore
import GeoPipeIO
import Synchronization

/// Validates files one feature at a time: memory holds one feature plus the ids and unique
/// values seen so far in the current file.
///
/// A bad feature is reported and stepped over wherever the format allows: GeoJSONSeq and CSV
/// resume at the next record, a FeatureCollection after a feature that is well-formed JSON;
/// a syntax error inside a FeatureCollection is reported and ends that file.
public final class Validator {
  /// What to check.
  public let options: ValidationOptions
  private let validity: (any ValidityChecker)?

  /// Whether any rule that GEOS validity reports is enabled.
  private let checksValidity: Bool

  /// Told when a file is opened (0 features, 0 bytes), every 1024 features after and at its
  /// end, how many features of the file have been read and how many of its bytes, for a
  /// progress display.
  public var progress: ((_ features: Int, _ bytes: Int) -> Void)?

  /// Creates a validator; without a validity checker the GEOS rules are not run.
  public init(options: ValidationOptions, validity: (any ValidityChecker)? = nil) {
    self.options = options
    self.validity = validity
    checksValidity = Rule.all.contains { Rule.fromGEOS.contains($0) && options.isEnabled($0) }
  }

  /// Validates the file at `path`, handing each finding to `report` in file order; `report`
  /// returns false to stop early.
  ///
  /// Throws only when the file cannot be opened (exit 66) or, with `--fix`, when the repaired
  /// copy cannot be written; problems in its content are findings.
  public func validate(path: String, report: (Finding) throws -> Bool) throws -> FileSummary {
    try withoutActuallyEscaping(report) { report in try validate(path, report) }
  }

  private func validate(_ path: String, _ report: @escaping (Finding) throws -> Bool) throws
    -> FileSummary
  {
    var run = FileRun(path: path, options: options, report: report)
    let queue = DiagnosticQueue()
    var read = ReadOptions()
    read.onError = .skip
    read.checkRanges = options.geographic
    read.format = options.format
    read.csv = options.csv
    read.diagnostics = { diagnostic in queue.append(diagnostic) }
    let name = path == "-" ? "<stdin>" : path
    let reader: any FeatureReader
    do {
      reader = try FeatureReaders.open(path, options: read)
    } catch let error as GeoPipeError where error.status == .dataError {
      _ = try run.emit(
        Finding(
          Rule.forInput(error.problem), error.message,
          at: error.location ?? SourceLocation(file: name, line: 1, column: 1)))
      return run.summary
    }
    progress?(0, 0)
    var repair = try options.fix ? Repair(input: path, reader: reader, validity: validity) : nil
    do {
      if try readAll(reader, name: name, queue: queue, run: &run, repair: &repair) {
        try repair?.finish(summary: &run.summary)
      } else if repair != nil {
        repair?.abort()
        run.summary.fixSkipped =
          run.stopped ? "validation stopped at --max-findings" : "it cannot be read to the end"
      }
    } catch {
      repair?.abort()
      throw error
    }
    return run.summary
  }

  /// Reads and checks every feature; false when the file could not be read to its end or the
  /// report asked to stop (`run.stopped`).
  private func readAll(
    _ reader: any FeatureReader, name: String, queue: DiagnosticQueue, run: inout FileRun,
    repair: inout Repair?
  ) throws -> Bool {
    while true {
      let feature: Feature?
      do {
        feature = try reader.next()
      } catch let error as GeoPipeError where error.status != .noInput {
        guard try run.skipped(queue.take()) else { return false }
        if error.location != nil { run.summary.features += 1 }
        _ = try run.emit(
          Finding(
            Rule.forInput(error.problem), error.message,
            at: error.location ?? SourceLocation(file: name, line: 1, column: 1),
            feature: error.location == nil ? nil : run.summary.features - 1))
        return false
      }
      guard try run.skipped(queue.take()) else { return false }
      repair?.dropped = run.summary.features - run.readable
      guard let feature else {
        progress?(run.summary.features, reader.bytesRead)
        return true
      }
      let location = reader.lastFeatureLocation ?? SourceLocation(file: name, line: 1, column: 1)
      let index = run.summary.features
      run.summary.features += 1
      if let progress, run.summary.features & 1023 == 0 {
        progress(run.summary.features, reader.bytesRead)
      }
      run.knownValid = false
      run.readable += 1
      guard try check(feature, at: location, index: index, run: &run) else { return false }
      try repair?.write(feature, knownValid: run.knownValid)
    }
  }

  /// Runs the per-feature rules; false when the report asked to stop.
  private func check(
    _ feature: Feature, at location: SourceLocation, index: Int, run: inout FileRun
  )
    throws -> Bool
  {
    func emit(_ rule: Rule, _ message: String, reason: String? = nil, position: [Double]? = nil)
      throws -> Bool
    {
      try run.emit(
        Finding(
          rule, message, at: location, feature: index, reason: reason, position: position))
    }
    if let geometry = feature.geometry {
      for issue in GeometryChecks.issues(in: geometry, geographic: options.geographic)
      where options.isEnabled(issue.rule) {
        guard try emit(issue.rule, issue.message, position: issue.position) else { return false }
      }
      run.knownValid = !needsValidity(geometry) || GeometryChecks.isEmpty(geometry)
      if let validity, checksValidity, !run.knownValid {
        if let issue = try validity.invalidity(of: geometry) {
          guard try emit(issue.rule, issue.message, reason: issue.reason, position: issue.position)
          else { return false }
        } else {
          run.knownValid = true
        }
      }
    }
    if let id = feature.id, options.isEnabled(.duplicateID) {
      if let first = run.ids[id] {
        guard
          try emit(
            .duplicateID,
            "id \(PropertySchema.render(id)) was already used by feature \(first.feature) "
              + "(line \(first.line))")
        else { return false }
      } else {
        run.ids[id] = (index, location.line)
      }
    }
    if let schema = options.schema, options.isEnabled(.schema) {
      for message in schema.problems(in: feature.properties) {
        guard try emit(.schema, message) else { return false }
      }
      for key in schema.uniqueKeys {
        guard let value = feature.properties?[key], !value.isNull else { continue }
        if let first = run.unique[key, default: [:]][value] {
          guard
            try emit(
              .schema,
              "property \"\(key)\" is \(PropertySchema.render(value)), already used by feature "
                + "\(first.feature) (line \(first.line)); it must be unique (x-unique)")
          else { return false }
        } else {
          run.unique[key, default: [:]][value] = (index, location.line)
        }
      }
    }
    return true
  }

  /// Whether GEOS has anything to say: points are valid whenever their numbers are finite,
  /// which the reader has already checked.
  private func needsValidity(_ geometry: Geometry) -> Bool {
    switch geometry {
    case .point, .multiPoint: false
    default: true
    }
  }
}

/// The state of one file's validation.
struct FileRun {
  var summary: FileSummary
  let options: ValidationOptions
  let report: (Finding) throws -> Bool
  let name: String
  /// Features that could be read (the rest were stepped over).
  var readable = 0
  /// Whether the report asked to stop.
  var stopped = false
  /// Whether the last feature's geometry is known to be valid (so `--fix` need not ask GEOS
  /// again when it does not change it).
  var knownValid = false
  var ids: [JSONValue: (feature: Int, line: Int)] = [:]
  var unique: [String: [JSONValue: (feature: Int, line: Int)]] = [:]

  init(path: String, options: ValidationOptions, report: @escaping (Finding) throws -> Bool) {
    summary = FileSummary(path: path)
    self.options = options
    self.report = report
    name = path == "-" ? "<stdin>" : path
  }

  /// Reports a finding if its rule is enabled; false when the report asked to stop.
  mutating func emit(_ finding: Finding) throws -> Bool {
    guard options.isEnabled(finding.rule) else { return true }
    var finding = finding
    if options.warningsAsErrors { finding.severity = .error }
    if finding.severity == .error { summary.errors += 1 } else { summary.warnings += 1 }
    if try !report(finding) { stopped = true }
    return !stopped
  }

  /// Reports the features a reader stepped over; false when the report asked to stop.
  mutating func skipped(_ diagnostics: [ReadDiagnostic]) throws -> Bool {
    for diagnostic in diagnostics where diagnostic.problem != nil {
      let index = summary.features
      summary.features += 1
      var message = diagnostic.message
      if message.hasPrefix("skipped: ") { message.removeFirst("skipped: ".count) }
      let suffix = " (feature \(index))"
      if message.hasSuffix(suffix) { message.removeLast(suffix.count) }
      var finding = Finding(
        Rule.forInput(diagnostic.problem), message,
        at: diagnostic.location ?? SourceLocation(file: name, line: 1, column: 1), feature: index)
      // Other empty geometries are valid GeoJSON; an empty Point is not, and readers reject it.
      if diagnostic.problem == .emptyPoint { finding.severity = .error }
      guard try emit(finding) else { return false }
    }
    return true
  }
}

/// Collects what a reader reports while it reads (on the reading thread).
final class DiagnosticQueue: Sendable {
  private let items = Mutex<[ReadDiagnostic]>([])

  func append(_ diagnostic: ReadDiagnostic) { items.withLock { $0.append(diagnostic) } }

  func take() -> [ReadDiagnostic] {
    items.withLock { items in
      defer { items = [] }
      return items
    }
  }
}
