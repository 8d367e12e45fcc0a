import Foundation

/// A number format in a template field: `,` groups thousands, `.N` fixes N decimals (with `f`
/// optional), `%` shows a fraction as a percentage, `d` rounds to a whole number.
public struct NumberFormat: Sendable, Equatable {
  /// Whether thousands are grouped with commas.
  public var grouping: Bool
  /// Fixed number of decimals, or nil to keep the value's own digits.
  public var decimals: Int?
  /// Whether the value is multiplied by 100 and followed by `%`.
  public var percent: Bool

  /// Parses a format such as `,`, `.2f`, `,.1f`, `.0%`, `%` or `d`; nil when it is not one.
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
    format(DecimalText(x, integer: integer))
  }

  func format(_ number: DecimalText) -> String {
    var text: String
    if let decimals {
      text = String(format: "%.\(decimals)f", percent ? number.value * 100 : number.value)
    } else {
      text = percent ? number.shifted(by: 2) : number.digits
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
