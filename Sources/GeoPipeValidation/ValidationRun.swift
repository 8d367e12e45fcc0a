import GeoPipeCore
import GeoPipeIO

/// Validates files one after another into one report: what `geopipe validate` does.
///
/// Each file is read once, streaming; its findings go to the report as they are found. A file
/// that cannot be opened is reported and the run goes on; `maxFindings` stops the run after
/// that many findings (the totals still count them).
public struct ValidationRun {
  /// What checks each file.
  public let validator: Validator
  /// The report's format.
  public let format: ReportFormat
  /// Stop after this many findings (`--max-findings`); nil for no limit.
  public var maxFindings: Int?

  /// Creates a run.
  public init(validator: Validator, format: ReportFormat, maxFindings: Int? = nil) {
    self.validator = validator
    self.format = format
    self.maxFindings = maxFindings
  }

  /// How a run ended.
  public struct Outcome {
    /// What was validated and found.
    public var totals = RunTotals()
    /// The status of the worst failure to read a file other than opening it, if any.
    public var failure: ExitStatus?
    /// Writing the report failed (other than the reader of a pipe going away).
    public var outputError: (any Error)?
    /// The reader of the report went away (`| head`): the run stopped there.
    public var outputClosed = false

    /// The exit status.
    ///
    /// 74 when the report could not be written, 66 when a file could not be opened, a file's
    /// failure, else 1 when there is any error finding, else 0. When the report's reader went
    /// away, only the findings so far count.
    public var status: ExitStatus {
      if outputError != nil { return .ioError }
      if outputClosed { return totals.errors > 0 ? .findings : .success }
      if totals.unopened > 0 { return .noInput }
      if let failure { return failure }
      return totals.errors > 0 ? .findings : .success
    }
  }

  /// Validates `paths` in order, writing the report to `output`.
  ///
  /// `fileValidated` is called after each file's findings (the report flushed first, so that
  /// what it prints follows them); `fileFailed` with each error that stopped a file.
  public func run(
    _ paths: [String], to output: ReportOutput, fileValidated: (FileSummary) -> Void = { _ in },
    fileFailed: (GeoPipeError) -> Void
  ) -> Outcome {
    var outcome = Outcome()
    let report = ReportWriter(format: format)
    do {
      try output.write(report.header())
      for path in paths {
        if outcome.totals.truncated { break }
        do {
          let summary = try validator.validate(path: path) { finding in
            if finding.severity == .error {
              outcome.totals.errors += 1
            } else {
              outcome.totals.warnings += 1
            }
            try output.write(report.write(finding))
            if let maxFindings, outcome.totals.errors + outcome.totals.warnings >= maxFindings {
              outcome.totals.truncated = true
              return false
            }
            return true
          }
          outcome.totals.files += 1
          outcome.totals.features += summary.features
          report.fileFinished(summary)
          try output.flush()
          fileValidated(summary)
        } catch let error as GeoPipeError {
          try output.flush()
          fileFailed(error)
          if error.status == .noInput {
            outcome.totals.unopened += 1
            try output.write(report.unopened(path, message: error.message))
          } else {
            outcome.failure = error.status
          }
        }
      }
      try output.write(report.footer(outcome.totals))
      try output.flush()
    } catch is BrokenPipe {
      outcome.outputClosed = true
    } catch {
      outcome.outputError = error
    }
    return outcome
  }
}

extension FileSummary {
  /// What `--fix` did with the file, for standard error: the repaired copy written, or why
  /// there is none; nil when it was not asked.
  public var fixNote: String? {
    if let reason = fixSkipped { return "note: no repaired copy of \(path): \(reason)" }
    guard let fixedPath else { return nil }
    let kept = features - dropped
    var text = "wrote \(fixedPath): \(kept) feature\(kept == 1 ? "" : "s"), \(repaired) repaired"
    if dropped > 0 { text += ", \(dropped) unreadable left out" }
    return text
  }
}

/// Standard output in large writes (a report can have millions of lines).
public final class ReportOutput {
  private var buffer: [UInt8] = []
  private let file: OutputFile

  /// Opens standard output.
  public init() throws {
    file = try OutputFile(path: "-")
  }

  /// Appends text, writing when 64 KiB have gathered.
  public func write(_ text: String) throws {
    buffer.append(contentsOf: text.utf8)
    if buffer.count >= 1 << 16 { try flush() }
  }

  /// Writes what has gathered.
  public func flush() throws {
    try buffer.withUnsafeBytes { try file.write($0) }
    buffer.removeAll(keepingCapacity: true)
  }
}
