import GeoPipeCore

/// A parsed expression over a feature's properties: a `--where` condition or a
/// `select --compute` value.
///
/// The language: comparisons (`=`, `!=`, `<`, `<=`, `>`, `>=`), `and`, `or`, `not`,
/// parentheses, `in (…)`, `is null` / `is not null`, arithmetic (`+`, `-`, `*`, `/` and a
/// leading `-`), string literals in single quotes, numbers, `true`, `false`, `null`, and
/// property names bare (`population`) or in double quotes (`"marker-color"`,
/// `"geopipe:priority"`).
///
/// A string that holds a number counts as that number in comparisons with numbers and in
/// arithmetic; a comparison whose sides cannot be compared is false. A missing property is
/// null: it matches only `is null`. Arithmetic on integers stays integer while the result is
/// exact (`+`, `-`, `*` without overflow); `/` always gives a float. Any other operand (null,
/// missing, a boolean, a word), a division by zero or a result beyond the range of a double
/// gives null. The value of a comparison or of `and`, `or`, `not` is a boolean.
public indirect enum Expression: Sendable, Equatable {
  case literal(JSONValue)
  case property(String)
  case compare(Expression, ComparisonOperator, Expression)
  case isNull(Expression, negated: Bool)
  case within(Expression, [Expression], negated: Bool)
  case and(Expression, Expression)
  case or(Expression, Expression)
  case not(Expression)
  case arithmetic(Expression, ArithmeticOperator, Expression)
  case negate(Expression)

  /// Parses a `--where` condition; errors are usage errors that give the character column.
  public static func parse(_ text: String) throws -> Expression {
    do {
      return try parseCondition(text)
    } catch {
      throw GeoPipeError.usage("--where: column \(error.offset + 1): \(error.message)")
    }
  }

  /// Parses a condition: the whole expression must be a comparison, a test, a property, or
  /// those joined by `and`, `or`, `not`.
  public static func parseCondition(_ text: String) throws(ExpressionError) -> Expression {
    var parser = ExpressionParser(text)
    return try parser.parseAll(condition: true)
  }

  /// Parses an expression that computes a value (`population / 1000`, `rank <= 3`).
  public static func parseValue(_ text: String) throws(ExpressionError) -> Expression {
    var parser = ExpressionParser(text)
    return try parser.parseAll(condition: false)
  }

  /// Whether a feature matches: the expression's value is `true`.
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
    case .literal, .property, .arithmetic, .negate: value(in: feature) == .bool(true)
    }
  }

  /// The expression's value for a feature; a missing property gives null.
  public func evaluate(_ feature: Feature) -> JSONValue {
    value(in: feature) ?? .null
  }

  /// The properties the expression reads, in the order they appear (repeats included).
  public var propertyNames: [String] {
    switch self {
    case .literal: []
    case .property(let name): [name]
    case .compare(let a, _, let b), .and(let a, let b), .or(let a, let b),
      .arithmetic(let a, _, let b):
      a.propertyNames + b.propertyNames
    case .isNull(let a, _), .not(let a), .negate(let a): a.propertyNames
    case .within(let a, let list, _): a.propertyNames + list.flatMap(\.propertyNames)
    }
  }

  /// Whether the expression is a condition: a comparison, a test, a property, or those joined
  /// by `and`, `or`, `not`.
  var isCondition: Bool {
    switch self {
    case .compare, .isNull, .within, .property: true
    case .and(let a, let b), .or(let a, let b): a.isCondition && b.isCondition
    case .not(let a): a.isCondition
    case .literal, .arithmetic, .negate: false
    }
  }

  private func value(in feature: Feature) -> JSONValue? {
    switch self {
    case .literal(let value): value
    case .property(let name): feature.properties?[name]
    case .arithmetic(let a, let op, let b):
      op.apply(NumericValue(a.value(in: feature)), NumericValue(b.value(in: feature)))
    case .negate(let a): NumericValue(a.value(in: feature)).map { $0.negated.json } ?? .null
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
    return NumericValue.parse(text).map(\.double)
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

/// The arithmetic operators of expressions.
public enum ArithmeticOperator: String, Sendable {
  case add = "+"
  case subtract = "-"
  case multiply = "*"
  case divide = "/"

  /// The result for two operands, null when either is not a number or the result is not a
  /// finite number.
  func apply(_ a: NumericValue?, _ b: NumericValue?) -> JSONValue {
    guard let a, let b else { return .null }
    if self != .divide, case .integer(let x) = a, case .integer(let y) = b {
      let (result, overflow) =
        switch self {
        case .add: x.addingReportingOverflow(y)
        case .subtract: x.subtractingReportingOverflow(y)
        default: x.multipliedReportingOverflow(by: y)
        }
      if !overflow { return .integer(result) }
    }
    let x = a.double
    let y = b.double
    let result: Double
    switch self {
    case .add: result = x + y
    case .subtract: result = x - y
    case .multiply: result = x * y
    case .divide:
      guard y != 0 else { return .null }
      result = x / y
    }
    return result.isFinite ? .double(result) : .null
  }
}

/// A number an expression computes with: an exact 64-bit integer or a finite double.
public enum NumericValue: Equatable, Sendable {
  /// An exact integer.
  case integer(Int64)
  /// A finite double.
  case double(Double)

  /// The number a value stands for: a JSON number, or a string that holds one (spaces and
  /// tabs around it allowed); nil for anything else.
  public init?(_ value: JSONValue?) {
    switch value {
    case .integer(let n)?: self = .integer(n)
    case .double(let x)?: self = .double(x)
    case .bigInteger(let digits)?, .bigNumber(let digits)?:
      guard let x = Double(digits), x.isFinite else { return nil }
      self = .double(x)
    case .string(let text)?:
      guard let number = NumericValue.parse(text) else { return nil }
      self = number
    default: return nil
    }
  }

  /// The number in a text, as `--where` reads numeric strings: an integer when the text is
  /// one that fits in 64 bits, else any finite double.
  public static func parse(_ text: String) -> NumericValue? {
    let trimmed = text.trimmingCharacters(in: " \t")
    guard !trimmed.isEmpty else { return nil }
    if let n = Int64(trimmed) { return .integer(n) }
    guard let x = Double(trimmed), x.isFinite else { return nil }
    return .double(x)
  }

  /// The value as a double.
  public var double: Double {
    switch self {
    case .integer(let n): Double(n)
    case .double(let x): x
    }
  }

  /// The number with its sign flipped (a float for the one integer without a negation).
  public var negated: NumericValue {
    switch self {
    case .integer(let n) where n != .min: .integer(-n)
    case .integer(let n): .double(-Double(n))
    case .double(let x): .double(-x)
    }
  }

  /// The number as a JSON value.
  public var json: JSONValue {
    switch self {
    case .integer(let n): .integer(n)
    case .double(let x): .double(x)
    }
  }
}

/// What is wrong with an expression's text, and where.
public struct ExpressionError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What is wrong.
  public var message: String
  /// The character offset (0-based) in the expression where the problem starts.
  public var offset: Int

  /// Creates an error.
  public init(message: String, offset: Int) {
    self.message = message
    self.offset = offset
  }

  /// `column N: message`.
  public var description: String { "column \(offset + 1): \(message)" }
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
