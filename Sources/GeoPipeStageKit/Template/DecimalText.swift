import Foundation
import GeoPipeCore

/// A number as decimal text: exact digits for integers, the shortest round-trip form for
/// doubles, so that formats add or move digits without inventing any.
struct DecimalText {
  /// The value.
  var value: Double
  /// The number written out (`-1234`, `0.07`, `1e-05`).
  var digits: String

  init(_ value: Double, integer: Int64? = nil) {
    self.init(value: value, digits: integer.map { String($0) } ?? Template.displayText(value))
  }

  private init(value: Double, digits: String) {
    self.value = value
    self.digits = digits
  }

  /// Reads a number, or a string holding a decimal number (`"2587183"`, `" 0.25"`).
  init?(_ json: JSONValue) {
    switch json {
    case .integer(let n): self.init(Double(n), integer: n)
    case .double(let x): self.init(x)
    case .bigInteger(let text), .bigNumber(let text):
      guard let x = Double(text) else { return nil }
      self.init(value: x, digits: text)
    case .string(let text):
      guard let number = Self.number(in: text) else { return nil }
      self = number
    default: return nil
    }
  }

  /// A decimal number in text (`-12`, `3.5`, `1e6`), spaces and tabs around it allowed.
  ///
  /// Unlike `Double(_:)`, it refuses hexadecimal, `nan` and `inf`.
  static func number(in text: String) -> DecimalText? {
    let trimmed = text.trimmingCharacters(in: " \t")
    guard !trimmed.isEmpty,
      trimmed.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }),
      let x = Double(trimmed), x.isFinite
    else { return nil }
    if let n = Int64(trimmed) { return DecimalText(x, integer: n) }
    var number = DecimalText(x)
    if trimmed.allSatisfy({ $0.isNumber || $0 == "-" }) { number.digits = trimmed }
    return number
  }

  /// The number multiplied by 10^places, by moving the decimal point in its digits.
  ///
  /// 0.07 shows as 7 and not as 7.000000000000001, as multiplying the double would give.
  func shifted(by places: Int) -> String {
    var body = Substring(digits)
    var sign = ""
    if body.first == "-" {
      sign = "-"
      body = body.dropFirst()
    }
    var exponent = 0
    if let e = body.firstIndex(where: { $0 == "e" || $0 == "E" }) {
      exponent = Int(body[body.index(after: e)...].drop { $0 == "+" }) ?? 0
      body = body[..<e]
    }
    let whole = body.prefix { $0 != "." }
    var all = Array(whole) + Array(body.dropFirst(whole.count + 1))
    var point = whole.count + exponent + places
    while let first = all.first, first == "0" {
      all.removeFirst()
      point -= 1
    }
    while let last = all.last, last == "0", all.count > point {
      all.removeLast()
    }
    guard !all.isEmpty else { return "0" }
    // Beyond these the plain form has too many zeros; the double's own form reads better.
    guard point > -7 && point <= 21 else {
      return Template.displayText(value * pow10(places))
    }
    let text: String
    if point <= 0 {
      text = "0." + String(repeating: "0", count: -point) + String(all)
    } else if point >= all.count {
      text = String(all) + String(repeating: "0", count: point - all.count)
    } else {
      text = String(all[..<point]) + "." + String(all[point...])
    }
    return sign + text
  }

  private func pow10(_ n: Int) -> Double {
    (0..<n).reduce(1.0) { product, _ in product * 10 }
  }
}
