import Foundation
import GeoPipeCore
import GeoPipeStageKit
import GeoPipeStages

/// A pipeline definition file (YAML, or JSON with the same schema), loaded and checked.
///
/// ```swift
/// let pipeline = try Pipeline(path: "Pipelines/demo.yaml", overrides: ["input": "x.csv"])
/// guard let plan = pipeline.plan else { print(pipeline.diagnostics) ... }
/// try PipelineRunner.run(plan, context: context)
/// ```
public struct Pipeline: Sendable {
  /// The file's path as given.
  public let path: String
  /// The checked plan, nil when the file has errors.
  public let plan: PipelinePlan?
  /// Errors and warnings in file order.
  public let diagnostics: [PipelineDiagnostic]
  /// The overrides naming a variable the file neither declares nor uses.
  ///
  /// They are a usage error, since setting them would change nothing; the plan is nil when
  /// there are any. Known only for a file without errors.
  public let unknownVariables: [String]
  /// A message for each of `unknownVariables`, with a suggestion.
  public let unknownVariableMessages: [String]

  /// Reads and checks a pipeline file; `overrides` replace its `vars` (`--var name=value`).
  ///
  /// Throws only when the file cannot be read; everything wrong inside it is a diagnostic.
  public init(
    path: String, overrides: [String: String] = [:],
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws {
    guard let data = FileManager.default.contents(atPath: path) else {
      var isDirectory: ObjCBool = false
      let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
      throw GeoPipeError(
        exists
          ? (isDirectory.boolValue
            ? "\(path) is a folder, not a pipeline file" : "cannot read \(path): permission denied")
          : "\(path): no such file", status: .noInput)
    }
    self.init(
      path: path, bytes: [UInt8](data), overrides: overrides, environment: environment)
  }

  /// Checks a pipeline file's contents; `path` names it in messages and sets `pipeline_dir`.
  public init(
    path: String, bytes: [UInt8], overrides: [String: String] = [:],
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) {
    self.path = path
    let isJSON = path.lowercased().hasSuffix(".json")
    let (root, syntaxProblems) =
      isJSON
      ? JSONDocumentReader.read(String(decoding: bytes, as: UTF8.self)) : YAMLReader.read(bytes)
    var checker = PipelineChecker(
      variables: Variables(
        values: ["pipeline_dir": Self.folder(of: path)], environment: environment),
      overrides: overrides)
    var plan: PipelinePlan?
    var unknown: [String] = []
    var messages: [String] = []
    if root != nil || syntaxProblems.isEmpty {
      plan = checker.check(root)
    }
    // Only a file without errors is known to have been read through: a stage with an
    // error may hold references that were never looked at.
    if plan != nil && syntaxProblems.isEmpty && checker.problems.isEmpty {
      let known = checker.knownVariables
      for (name, suggestion) in checker.unknownOverrides() {
        var message = "--var \(name): \(path) has no variable '\(name)'"
        if let suggestion { message += "; did you mean '\(suggestion)'?" }
        message +=
          known.isEmpty
          ? " (it has no variables)" : " (its variables: \(known.joined(separator: ", ")))"
        unknown.append(name)
        messages.append(message)
      }
    }
    unknownVariables = unknown
    unknownVariableMessages = messages
    let errors = (syntaxProblems + checker.problems).map {
      PipelineDiagnostic(file: path, severity: .error, problem: $0)
    }
    let warnings = checker.warnings.map {
      PipelineDiagnostic(file: path, severity: .warning, problem: $0)
    }
    diagnostics = (errors + warnings).sorted { $0.position < $1.position }
    self.plan = errors.isEmpty && unknown.isEmpty ? plan : nil
  }

  /// The errors alone.
  public var errors: [PipelineDiagnostic] { diagnostics.filter { $0.severity == .error } }

  /// The folder holding `path`, as `${pipeline_dir}` gives it.
  static func folder(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }
}

/// An error or warning about a pipeline file, printed `file:line:column: error: message`.
public struct PipelineDiagnostic: Sendable, Equatable, CustomStringConvertible {
  /// How bad it is.
  public enum Severity: String, Sendable {
    case error, warning
  }

  /// The file.
  public var file: String
  /// Error or warning.
  public var severity: Severity
  /// Where in the file.
  public var position: TextPosition
  /// What is wrong.
  public var message: String

  init(file: String, severity: Severity, problem: DocumentProblem) {
    self.file = file
    self.severity = severity
    position = problem.position
    message = problem.message
  }

  /// `file:line:column: error: message`.
  public var description: String {
    "\(file):\(position.line):\(position.column): \(severity.rawValue): \(message)"
  }
}
