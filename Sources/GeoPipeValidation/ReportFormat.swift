import GeoPipeCore
import GeoPipeIO

/// How `validate` prints its findings.
public enum ReportFormat: String, CaseIterable, Sendable {
  /// `file:line:column: error[GP012]: message`, then a summary line.
  case text
  /// One JSON object: `findings` (file, line, column, feature, rule, severity, message, ...)
  /// and `summary`.
  case json
  /// GitHub Actions workflow commands (`::error file=…,line=…,col=…::…`), capped per severity.
  case github
  /// A JUnit XML report: one test suite per file, one failing test case per error.
  case junit
  /// SARIF 2.1.0, for code-scanning dashboards.
  case sarif
}

/// The totals of a whole validation run.
public struct RunTotals: Sendable {
  /// Files validated (opened).
  public var files = 0
  /// Files that could not be opened.
  public var unopened = 0
  /// Features read.
  public var features = 0
  /// Error findings reported.
  public var errors = 0
  /// Warning findings reported.
  public var warnings = 0
  /// True when `--max-findings` stopped the run early.
  public var truncated = false

  /// Empty totals.
  public init() {}

  /// `3 files, 1204 features: 2 errors, 1 warning`.
  public var sentence: String {
    var text = "\(plural(files, "file")), \(plural(features, "feature")): "
    var parts: [String] = []
    if errors > 0 || warnings > 0 {
      parts.append("\(plural(errors, "error")), \(plural(warnings, "warning"))")
    }
    if unopened > 0 { parts.append("\(plural(unopened, "file")) could not be opened") }
    text += parts.isEmpty ? "no problems" : parts.joined(separator: "; ")
    if truncated { text += " (stopped at --max-findings)" }
    return text
  }
}

func plural(_ count: Int, _ noun: String) -> String {
  "\(count) \(noun)\(count == 1 ? "" : "s")"
}

/// Turns findings into text in one of the report formats, as they come where the format
/// allows (JUnit needs them grouped by file and holds them until the end).
public final class ReportWriter {
  /// GitHub shows at most 10 error and 10 warning annotations per step; more are dropped.
  public static let githubAnnotationLimit = 10

  private let format: ReportFormat
  private var started = false
  private var count = 0
  private var annotated: [Severity: Int] = [:]
  private var junitFiles: [(summary: FileSummary, findings: [Finding])] = []
  private var junitUnopened: [(path: String, message: String)] = []
  private var junitPending: [Finding] = []

  /// Creates a writer for `format`.
  public init(format: ReportFormat) {
    self.format = format
  }

  /// The text to print before any finding.
  public func header() -> String {
    switch format {
    case .json: "{\"findings\":["
    case .sarif: SARIF.header()
    default: ""
    }
  }

  /// The text for one finding.
  public func write(_ finding: Finding) -> String {
    defer { count += 1 }
    switch format {
    case .text: return finding.description + "\n"
    case .json: return (count > 0 ? "," : "") + "\n" + json(finding)
    case .sarif: return (count > 0 ? "," : "") + "\n" + SARIF.result(finding)
    case .github:
      let used = annotated[finding.severity, default: 0]
      guard used < Self.githubAnnotationLimit else { return finding.description + "\n" }
      annotated[finding.severity] = used + 1
      let command = finding.severity == .error ? "error" : "warning"
      let properties = [
        "file=\(escapeProperty(finding.location.file))", "line=\(finding.location.line)",
        "col=\(finding.location.column)",
        "title=\(escapeProperty("\(finding.rule.code) \(finding.rule.name)"))",
      ]
      return "::\(command) \(properties.joined(separator: ","))::\(escapeData(finding.message))\n"
    case .junit:
      junitPending.append(finding)
      return ""
    }
  }

  /// Records the end of a file (JUnit groups findings by file).
  public func fileFinished(_ summary: FileSummary) {
    guard format == .junit else { return }
    junitFiles.append((summary, junitPending))
    junitPending = []
  }

  /// The text for a file that could not be opened (exit 66).
  ///
  /// GitHub gets an error annotation and JUnit an error test case; text and JSON leave it to
  /// standard error and the summary.
  public func unopened(_ path: String, message: String) -> String {
    switch format {
    case .github:
      return "::error title=\(escapeProperty("geopipe validate"))::\(escapeData(message))\n"
    case .junit:
      junitUnopened.append((path, message))
      return ""
    default:
      return ""
    }
  }

  /// The text after the last finding: totals, closing brackets, the summary line.
  public func footer(_ totals: RunTotals) -> String {
    switch format {
    case .text:
      return "validate: \(totals.sentence)\n"
    case .json:
      var summary = JSONObject()
      summary.appendUnchecked("files", .integer(Int64(totals.files)))
      summary.appendUnchecked("unopened", .integer(Int64(totals.unopened)))
      summary.appendUnchecked("features", .integer(Int64(totals.features)))
      summary.appendUnchecked("errors", .integer(Int64(totals.errors)))
      summary.appendUnchecked("warnings", .integer(Int64(totals.warnings)))
      summary.appendUnchecked("truncated", .bool(totals.truncated))
      var writer = JSONTextWriter()
      writer.writeObject(summary)
      return (count > 0 ? "\n" : "") + "],\"summary\":"
        + String(decoding: writer.bytes, as: UTF8.self)
        + "}\n"
    case .sarif:
      return SARIF.footer(hasResults: count > 0)
    case .github:
      var text = "validate: \(totals.sentence)"
      let hidden =
        max(0, totals.errors - Self.githubAnnotationLimit)
        + max(0, totals.warnings - Self.githubAnnotationLimit)
      if hidden > 0 {
        text +=
          "; \(plural(hidden, "finding")) beyond the first \(Self.githubAnnotationLimit) "
          + "of each severity are in the log only"
      }
      return "::notice title=geopipe validate::\(escapeData(text))\n"
    case .junit:
      return JUnit.document(junitFiles, unopened: junitUnopened, totals: totals)
    }
  }

  private func json(_ finding: Finding) -> String {
    var object = JSONObject()
    object.appendUnchecked("file", .string(finding.location.file))
    object.appendUnchecked("line", .integer(Int64(finding.location.line)))
    object.appendUnchecked("column", .integer(Int64(finding.location.column)))
    object.appendUnchecked("feature", finding.feature.map { .integer(Int64($0)) } ?? .null)
    object.appendUnchecked("rule", .string(finding.rule.code))
    object.appendUnchecked("name", .string(finding.rule.name))
    object.appendUnchecked("severity", .string(finding.severity.rawValue))
    object.appendUnchecked("message", .string(finding.message))
    if let reason = finding.reason { object.appendUnchecked("reason", .string(reason)) }
    if let position = finding.position {
      object.appendUnchecked("position", .array(position.map { .double($0) }))
    }
    var writer = JSONTextWriter()
    writer.writeObject(object)
    return String(decoding: writer.bytes, as: UTF8.self)
  }

  /// Escapes a workflow command's message (`%`, CR and LF).
  func escapeData(_ text: String) -> String {
    text.replacing("%", with: "%25").replacing("\r", with: "%0D").replacing("\n", with: "%0A")
  }

  /// Escapes a workflow command's property value (also `:` and `,`).
  func escapeProperty(_ text: String) -> String {
    escapeData(text).replacing(":", with: "%3A").replacing(",", with: "%2C")
  }
}
