import GeoPipeCore

/// One problem found in a file: which rule, how bad, where, and what.
public struct Finding: Hashable, Sendable {
  /// The rule that found it.
  public var rule: Rule
  /// Its severity (the rule's default, raised by `--warnings-as-errors`).
  public var severity: Severity
  /// What is wrong, as a sentence.
  public var message: String
  /// File, line and column: the bad byte for read errors, else where the feature begins.
  public var location: SourceLocation
  /// The 0-based index of the feature in its file, when the finding is about one feature.
  public var feature: Int?
  /// GEOS's reason text, verbatim, for GEOS validity findings.
  public var reason: String?
  /// The position a geometry finding points at (longitude, latitude), when there is one.
  public var position: [Double]?

  /// Creates a finding with the rule's default severity.
  public init(
    _ rule: Rule, _ message: String, at location: SourceLocation, feature: Int? = nil,
    reason: String? = nil, position: [Double]? = nil
  ) {
    self.rule = rule
    severity = rule.severity
    self.message = message
    self.location = location
    self.feature = feature
    self.reason = reason
    self.position = position
  }

  /// `file:line:column: error[GP012]: message`, as compilers print.
  public var description: String {
    "\(location): \(severity.rawValue)[\(rule.code)]: \(message)"
  }
}

/// A problem in one geometry, before it is placed in a file.
public struct GeometryIssue: Hashable, Sendable {
  /// The rule that found it.
  public var rule: Rule
  /// What is wrong.
  public var message: String
  /// GEOS's reason text, for validity findings.
  public var reason: String?
  /// The position it points at, if any.
  public var position: [Double]?

  /// Creates an issue.
  public init(_ rule: Rule, _ message: String, reason: String? = nil, position: [Double]? = nil) {
    self.rule = rule
    self.message = message
    self.reason = reason
    self.position = position
  }
}

/// Formats a coordinate pair for messages: `(12.5, -3)`.
func describe(_ x: Double, _ y: Double) -> String {
  "(\(number(x)), \(number(y)))"
}

func number(_ value: Double) -> String {
  value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
}
