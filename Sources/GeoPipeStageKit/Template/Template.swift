import Foundation
import GeoPipeCore

/// A text with `{property}` fields, filled in per feature (`"{name}, {admin1}"`).
///
/// A field names a property, bare (`{name}`) or double-quoted when the name holds `:`, `{` or
/// `}` (`{"geopipe:priority"}`, with `""` for a quote inside), optionally followed by a number
/// format after a colon: `{population:,}` groups thousands (1,234,567), `{area:.1f}` fixes the
/// decimals, `{share:.0%}` multiplies by 100 and appends `%`; they combine (`{x:,.2f}`). A
/// format applies to numbers and to strings that hold a decimal number (CSV columns); other
/// values show as they are. `{{` and `}}` are literal braces. A missing or null property
/// renders empty, and the render says so.
public struct Template: Sendable, Equatable {
  /// A piece of a template.
  public enum Part: Sendable, Equatable {
    /// Literal text.
    case text(String)
    /// A property, with an optional number format.
    case field(name: String, format: NumberFormat?)
  }

  /// The pieces in order.
  public let parts: [Part]

  /// Parses a template; an error names the character offset (0-based) where it went wrong.
  public init(_ text: String) throws(TemplateError) {
    var parser = TemplateParser(chars: Array(text))
    parts = try parser.parse()
  }

  /// Whether the template has no fields (its text is the same for every feature).
  public var isConstant: Bool {
    !parts.contains { if case .field = $0 { true } else { false } }
  }

  /// The property names the fields refer to, in order.
  public var propertyNames: [String] {
    parts.compactMap { if case .field(let name, _) = $0 { name } else { nil } }
  }

  /// The constant text of a template without fields (braces unescaped).
  public var constantText: String? {
    guard isConstant else { return nil }
    return parts.map { if case .text(let text) = $0 { text } else { "" } }.joined()
  }

  /// Fills in the fields from a feature's properties; `missing` counts the fields whose
  /// property was absent or null (they render empty).
  public func render(_ properties: JSONObject?, missing: inout Int) -> String {
    var out = ""
    for part in parts {
      switch part {
      case .text(let text): out += text
      case .field(let name, let format):
        guard let value = properties?[name], !value.isNull else {
          missing += 1
          continue
        }
        out += Template.text(of: value, format: format)
      }
    }
    return out
  }

  /// The first property a field names that is absent or null in `properties`.
  public func firstMissingProperty(in properties: JSONObject?) -> String? {
    propertyNames.first { name in properties?[name].map(\.isNull) ?? true }
  }

  /// Whether `text` holds something a template would read as a field.
  ///
  /// An unescaped `{` or `}` counts. Options that must be constants reject such values.
  public static func containsField(_ text: String) -> Bool {
    guard let template = try? Template(text) else { return text.contains("{") }
    return !template.isConstant
  }

  /// A value as a template shows it: strings as they are, whole numbers without a fraction,
  /// other numbers in their shortest form, arrays and objects as compact JSON-like text.
  ///
  /// With a format, numbers and strings holding a decimal number are formatted; integers keep
  /// all their digits.
  public static func text(of value: JSONValue, format: NumberFormat? = nil) -> String {
    if let format, let number = DecimalText(value) { return format.format(number) }
    switch value {
    case .null: return ""
    case .bool(let b): return b ? "true" : "false"
    case .integer(let n): return String(n)
    case .bigInteger(let digits), .bigNumber(let digits): return digits
    case .double(let x): return displayText(x)
    case .string(let s): return s
    case .array(let items): return "[" + items.map { text(of: $0) }.joined(separator: ",") + "]"
    case .object(let object):
      return "{" + object.map { "\($0.key):\(text(of: $0.value))" }.joined(separator: ",") + "}"
    }
  }

  /// A double for display: integral values up to 2^53 without ".0", others shortest round-trip.
  public static func displayText(_ x: Double) -> String {
    if x == x.rounded(), abs(x) < 9_007_199_254_740_992 { return String(Int64(x)) }
    return "\(x)"
  }
}

/// A template that cannot be parsed.
public struct TemplateError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What is wrong.
  public var message: String
  /// The character offset (0-based) in the template text.
  public var offset: Int

  /// A sentence for the user.
  public var description: String { message }
}

/// Reads a template's text into parts.
private struct TemplateParser {
  let chars: [Character]
  var k = 0

  mutating func parse() throws(TemplateError) -> [Template.Part] {
    var parts: [Template.Part] = []
    var literal = ""
    while k < chars.count {
      let c = chars[k]
      if c == "}" {
        guard next == "}" else {
          throw TemplateError(message: "unmatched '}' (write '}}' for a literal brace)", offset: k)
        }
        literal.append("}")
        k += 2
      } else if c == "{" && next == "{" {
        literal.append("{")
        k += 2
      } else if c == "{" {
        if !literal.isEmpty { parts.append(.text(literal)) }
        literal = ""
        parts.append(try field())
      } else {
        literal.append(c)
        k += 1
      }
    }
    if !literal.isEmpty { parts.append(.text(literal)) }
    return parts
  }

  private var next: Character? { k + 1 < chars.count ? chars[k + 1] : nil }

  /// Reads `{name}`, `{name:format}` or `{"quoted name"}` starting at the `{`.
  private mutating func field() throws(TemplateError) -> Template.Part {
    let start = k
    let unclosed = TemplateError(
      message: "unclosed '{' (close the field with '}', or write '{{' for a literal brace)",
      offset: start)
    k += 1
    var name = ""
    if k < chars.count, chars[k] == "\"" {
      let quote = k
      k += 1
      while true {
        guard k < chars.count else {
          throw TemplateError(message: "unclosed '\"' in a template field", offset: quote)
        }
        if chars[k] == "\"" {
          guard next == "\"" else { break }
          k += 1
        }
        name.append(chars[k])
        k += 1
      }
      k += 1
      while k < chars.count, chars[k] == " " { k += 1 }
      guard k < chars.count else { throw unclosed }
      guard chars[k] == "}" || chars[k] == ":" else {
        throw TemplateError(
          message: "expected '}' or ':' after the quoted property name", offset: k)
      }
    } else {
      while k < chars.count, chars[k] != "}", chars[k] != ":" {
        guard chars[k] != "{" else {
          throw TemplateError(
            message: "'{' inside a field (close the field with '}' first)", offset: k)
        }
        name.append(chars[k])
        k += 1
      }
      name = name.trimmingCharacters(in: .whitespaces)
      guard k < chars.count else { throw unclosed }
    }
    var format: NumberFormat?
    if chars[k] == ":" {
      k += 1
      let formatStart = k
      var spec = ""
      while k < chars.count, chars[k] != "}" {
        spec.append(chars[k])
        k += 1
      }
      guard k < chars.count else { throw unclosed }
      guard let parsed = NumberFormat(spec) else {
        throw TemplateError(
          message: "unknown number format '\(spec)' (use ',', '.2f', ',.1f', '.0%' or 'd')",
          offset: formatStart)
      }
      format = parsed
    }
    k += 1
    guard !name.isEmpty else {
      throw TemplateError(
        message: "empty template field: name a property, as in {name}", offset: start)
    }
    return .field(name: name, format: format)
  }
}
