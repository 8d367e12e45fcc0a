import Foundation
import GeoPipeCore
import GeoPipeIO

/// A type a property is converted to in tiles (tippecanoe's `-T name:type`).
public enum TileAttributeType: String, CaseIterable, Hashable, Sendable {
  /// Text: a number or boolean as its JSON text.
  case string
  /// A floating-point number: a string is read as a number.
  case float
  /// An integer: a number (or a string read as one) rounded to the nearest.
  case int
  /// A boolean: false for `false`, `0`, `"false"`, `"0"`, `"null"` and `""`; true otherwise.
  case bool

  /// `value` converted to this type; nil when it is not a number (for float and int), which
  /// then stays out of the tile.
  func convert(_ value: JSONValue) -> JSONValue? {
    switch self {
    case .string:
      if case .string = value { return value }
      var w = JSONTextWriter()
      w.writeValue(value)
      return .string(String(decoding: w.bytes, as: UTF8.self))
    case .float:
      return Self.number(value).map { .double($0) }
    case .int:
      guard let x = Self.number(value)?.rounded(), abs(x) < 9.0e18 else { return nil }
      return .integer(Int64(x))
    case .bool:
      switch value {
      case .bool: return value
      case .string(let s): return .bool(!["false", "0", "null", ""].contains(s))
      default: return .bool((Self.number(value) ?? 1) != 0)
      }
    }
  }

  private static func number(_ value: JSONValue) -> Double? {
    switch value {
    case .string(let s):
      Double(s.trimmingCharacters(in: .whitespaces)).flatMap { $0.isFinite ? $0 : nil }
    case .bool(let b): b ? 1 : 0
    default: value.numberValue
    }
  }
}
