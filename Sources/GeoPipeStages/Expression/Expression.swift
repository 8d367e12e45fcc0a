import GeoPipeCore

/// A parsed `--where` expression, evaluated against each feature's properties.
///
/// The language: comparisons (`=`, `!=`, `<`, `<=`, `>`, `>=`), `and`, `or`, `not`,
/// parentheses, `in (…)`, `is null` / `is not null`, string literals in single quotes, numbers,
/// `true`, `false`, and property names bare (`population`) or in double quotes
/// (`"marker-color"`, `"geopipe:priority"`). A string that holds a number compares numerically
/// with a number; a comparison whose sides cannot be compared is false. A missing property is
/// null: it matches only `is null`.
public indirect enum Expression: Sendable, Equatable {
  case literal(JSONValue)
  case property(String)
  case compare(Expression, ComparisonOperator, Expression)
  case isNull(Expression, negated: Bool)
  case within(Expression, [Expression], negated: Bool)
  case and(Expression, Expression)
  case or(Expression, Expression)
  case not(Expression)

  /// Parses an expression; errors give the character column within it.
  public static func parse(_ text: String) throws -> Expression {
    var parser = ExpressionParser(text)
    return try parser.parseAll()
  }

  /// Whether a feature matches.
  public func matches(_ feature: Feature) -> Bool {
    switch self {
    case .and(let a, let b): a.matches(feature) && b.matches(feature)
    case .or(let a, let b): a.matches(feature) || b.matches(feature)
    case .not(let a): !a.matches(feature)
    case .isNull(let a, let negated): (a.value(in: feature)?.isNull ?? true) != negated
    case .within(let a, let list, let negated):
      list.contains { Expression.compare(a.value(in: feature), .equal, $0.value(in: feature)) }
        != negated
    case .compare(let a, let op, let b):
      Expression.compare(a.value(in: feature), op, b.value(in: feature))
    case .literal(let value): value == .bool(true)
    case .property: value(in: feature) == .bool(true)
    }
  }

  private func value(in feature: Feature) -> JSONValue? {
    switch self {
    case .literal(let value): value
    case .property(let name): feature.properties?[name]
    default: .bool(matches(feature))
    }
  }

  /// Compares two values: numbers numerically (a numeric string counts as a number), strings
  /// by Unicode scalars, booleans for equality; anything else (null, mixed kinds) is false.
  static func compare(_ a: JSONValue?, _ op: ComparisonOperator, _ b: JSONValue?) -> Bool {
    guard let a, let b, !a.isNull, !b.isNull else { return false }
    if let x = a.numberValue, let y = b.numberValue { return op.holds(x, y) }
    if case .string(let s) = a, case .string(let t) = b { return op.holds(s, t) }
    if let x = numeric(a), let y = numeric(b) { return op.holds(x, y) }
    if case .bool(let p) = a, case .bool(let q) = b {
      switch op {
      case .equal: return p == q
      case .notEqual: return p != q
      default: return false
      }
    }
    return false
  }

  private static func numeric(_ value: JSONValue) -> Double? {
    if let number = value.numberValue { return number }
    guard case .string(let text) = value else { return nil }
    let trimmed = text.trimmingCharacters(in: " \t")
    guard !trimmed.isEmpty, let number = Double(trimmed), number.isFinite else { return nil }
    return number
  }
}

/// The comparison operators of `--where`.
public enum ComparisonOperator: String, Sendable {
  case equal = "="
  case notEqual = "!="
  case less = "<"
  case lessOrEqual = "<="
  case greater = ">"
  case greaterOrEqual = ">="

  func holds<T: Comparable>(_ a: T, _ b: T) -> Bool {
    switch self {
    case .equal: a == b
    case .notEqual: a != b
    case .less: a < b
    case .lessOrEqual: a <= b
    case .greater: a > b
    case .greaterOrEqual: a >= b
    }
  }
}

extension String {
  func trimmingCharacters(in set: String) -> String {
    let drop = Set(set)
    var slice = Substring(self)
    while let first = slice.first, drop.contains(first) { slice.removeFirst() }
    while let last = slice.last, drop.contains(last) { slice.removeLast() }
    return String(slice)
  }
}
