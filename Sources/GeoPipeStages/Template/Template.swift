import Foundation
import GeoPipeCore

/// A text with `{property}` fields, filled in per feature (`"{name}, {admin1}"`).
///
/// A field names a property, bare (`{name}`) or double-quoted when the name holds `:`, `{` or
/// `}` (`{"geopipe:priority"}`), optionally followed by a number format after a colon:
/// `{population:,}` groups thousands (1,234,567), `{area:.1f}` fixes the decimals,
/// `{share:.0%}` multiplies by 100 and appends `%`; they combine (`{x:,.2f}`). `{{` and `}}`
/// are literal braces. A missing or null property renders empty, and the render says so.
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
    var parts: [Part] = []
    var literal = ""
    let chars = Array(text)
    var k = 0
    while k < chars.count {
      let c = chars[k]
      if c == "}" {
        guard k + 1 < chars.count, chars[k + 1] == "}" else {
          throw TemplateError(message: "unmatched '}' (write '}}' for a literal brace)", offset: k)
        }
        literal.append("}")
        k += 2
        continue
      }
      guard c == "{" else {
        literal.append(c)
        k += 1
        continue
      }
      if k + 1 < chars.count, chars[k + 1] == "{" {
        literal.append("{")
        k += 2
        continue
      }
      let start = k
      k += 1
      var name = ""
      if k < chars.count, chars[k] == "\"" {
        k += 1
        while k < chars.count, chars[k] != "\"" {
          name.append(chars[k])
          k += 1
        }
        guard k < chars.count else {
          throw TemplateError(message: "unclosed '\"' in a template field", offset: start)
        }
        k += 1
      } else {
        while k < chars.count, chars[k] != "}", chars[k] != ":", chars[k] != "{" {
          name.append(chars[k])
          k += 1
        }
        name = name.trimmingCharacters(in: .whitespaces)
      }
      var formatText: String?
      if k < chars.count, chars[k] == ":" {
        k += 1
        var spec = ""
        while k < chars.count, chars[k] != "}" {
          spec.append(chars[k])
          k += 1
        }
        formatText = spec
      }
      guard k < chars.count, chars[k] == "}" else {
        throw TemplateError(
          message: "unclosed '{' (close the field with '}', or write '{{' for a literal brace)",
          offset: start)
      }
      k += 1
      guard !name.isEmpty else {
        throw TemplateError(message: "empty template field '{}'", offset: start)
      }
      var format: NumberFormat?
      if let formatText {
        guard let parsed = NumberFormat(formatText) else {
          throw TemplateError(
            message: "unknown number format '\(formatText)' (use ',', '.2f', ',.1f' or '.0%')",
            offset: start)
        }
        format = parsed
      }
      if !literal.isEmpty { parts.append(.text(literal)) }
      literal = ""
      parts.append(.field(name: name, format: format))
    }
    if !literal.isEmpty { parts.append(.text(literal)) }
    self.parts = parts
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

  /// Whether `text` holds something a template would read as a field.
  ///
  /// An unescaped `{` or `}` counts. Options that must be constants reject such values.
  public static func containsField(_ text: String) -> Bool {
    guard let template = try? Template(text) else { return text.contains("{") }
    return !template.isConstant
  }

  /// A value as a template shows it: strings as they are, whole numbers without a fraction,
  /// other numbers in their shortest form, arrays and objects as compact JSON-like text.
  public static func text(of value: JSONValue, format: NumberFormat? = nil) -> String {
    if let format, let number = value.numberValue ?? value.stringValue.flatMap(Double.init) {
      return format.format(number, integer: value.integerValue)
    }
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
  static func displayText(_ x: Double) -> String {
    if x == x.rounded(), abs(x) < 9_007_199_254_740_992 { return String(Int64(x)) }
    return "\(x)"
  }
}

/// A number format in a template field: `,` groups thousands, `.N` fixes N decimals (with `f`
/// optional), `%` shows a fraction as a percentage.
public struct NumberFormat: Sendable, Equatable {
  /// Whether thousands are grouped with commas.
  public var grouping: Bool
  /// Fixed number of decimals, or nil to keep the value's own digits.
  public var decimals: Int?
  /// Whether the value is multiplied by 100 and followed by `%`.
  public var percent: Bool

  /// Parses a format such as `,`, `.2f`, `,.1f`, `.0%` or `d`; nil when it is not one.
  public init?(_ text: String) {
    var rest = Substring(text)
    grouping = rest.first == ","
    if grouping { rest = rest.dropFirst() }
    percent = false
    decimals = nil
    if rest.first == "." {
      rest = rest.dropFirst()
      let digits = rest.prefix { $0.isASCII && $0.isNumber }
      guard let n = Int(digits), n <= 20 else { return nil }
      decimals = n
      rest = rest.dropFirst(digits.count)
      guard rest == "f" || rest == "%" || rest.isEmpty else { return nil }
    } else if rest == "d" {
      decimals = 0
      rest = ""
    }
    if rest == "%" {
      percent = true
    } else if !(rest.isEmpty || rest == "f") {
      return nil
    }
    if !grouping && decimals == nil && !percent && text != "f" { return nil }
  }

  /// Formats a number; `integer` is the exact value when the input was an integer.
  public func format(_ x: Double, integer: Int64? = nil) -> String {
    let value = percent ? x * 100 : x
    var text: String
    if let decimals {
      text = String(format: "%.\(decimals)f", value)
    } else if let integer, !percent {
      text = String(integer)
    } else {
      text = Template.displayText(value)
    }
    if grouping { text = Self.group(text) }
    return percent ? text + "%" : text
  }

  private static func group(_ text: String) -> String {
    guard !text.contains("e") else { return text }
    var sign = ""
    var body = Substring(text)
    if body.first == "-" {
      sign = "-"
      body = body.dropFirst()
    }
    let whole = body.prefix { $0 != "." }
    let fraction = body.dropFirst(whole.count)
    var grouped = ""
    for (k, digit) in whole.enumerated() {
      if k > 0 && (whole.count - k) % 3 == 0 { grouped.append(",") }
      grouped.append(digit)
    }
    return sign + grouped + fraction
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

extension JSONValue {
  /// The exact integer when the value is a 64-bit integer.
  var integerValue: Int64? {
    if case .integer(let n) = self { n } else { nil }
  }
}
