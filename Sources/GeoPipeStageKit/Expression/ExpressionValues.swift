import GeoPipeCore
import GeoPipeIO

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

  /// Compares two values: null on either side is unknown (nil); numbers compare numerically
  /// (a numeric string counts as a number against a number), strings by their characters,
  /// booleans, arrays and objects for equality; values of kinds that cannot be compared are
  /// unequal and neither is less.
  func compare(_ a: JSONValue, _ b: JSONValue) -> Bool? {
    switch (a, b) {
    case (.null, _), (_, .null): return nil
    case (.integer(let x), .integer(let y)): return holds(x, y)
    case (.string(let s), .string(let t)): return holds(s, t)
    default: break
    }
    if let x = Self.numeric(a), let y = Self.numeric(b) { return holds(x, y) }
    switch (a, b) {
    case (.bool(let p), .bool(let q)):
      return self == .equal ? p == q : self == .notEqual ? p != q : false
    case (.array, .array), (.object, .object):
      return self == .equal ? a == b : self == .notEqual ? a != b : false
    default:
      return self == .notEqual
    }
  }

  private static func numeric(_ value: JSONValue) -> Double? {
    if let number = value.numberValue { return number }
    guard case .string(let text) = value else { return nil }
    return NumericValue.parse(text).map(\.double)
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

extension JSONValue {
  /// The value as text, as `||`, `like` and `to_text` see it: a string as it is, a number as
  /// JSON writes it, `true`/`false`, an array or object as compact JSON; nil for null.
  public var expressionText: String? {
    switch self {
    case .null: return nil
    case .string(let text): return text
    case .integer(let n): return String(n)
    case .bigInteger(let digits), .bigNumber(let digits): return digits
    case .bool(let flag): return flag ? "true" : "false"
    case .double, .array, .object:
      var writer = JSONTextWriter()
      writer.writeValue(self)
      return String(decoding: writer.bytes, as: UTF8.self)
    }
  }

  /// The value as a condition: a boolean as it is, null as unknown (nil), a number (or a
  /// string holding one) true unless zero, anything else false, as SQLite reads values.
  var truth: Bool? {
    switch self {
    case .bool(let flag): return flag
    case .null: return nil
    default: return NumericValue(self).map { $0.double != 0 } ?? false
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
