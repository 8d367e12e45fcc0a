import GeoPipeCore

/// Appends JSON text to a byte buffer: strings escaped per RFC 8259 §7, numbers in their
/// shortest round-trip form.
public struct JSONTextWriter {
  /// The text written so far.
  public var bytes: [UInt8] = []

  /// Creates an empty writer.
  public init() {}

  /// Appends ASCII text as it is.
  @inline(__always)
  public mutating func raw(_ text: StaticString) {
    bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  /// Appends a quoted, escaped string.
  public mutating func writeString(_ string: String) {
    bytes.append(0x22)
    var text = string
    text.withUTF8 { utf8 in
      var runStart = 0
      for k in 0..<utf8.count {
        let c = utf8[k]
        guard c < 0x20 || c == 0x22 || c == 0x5C else { continue }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<k]))
        runStart = k + 1
        switch c {
        case 0x22: raw("\\\"")
        case 0x5C: raw("\\\\")
        case 0x0A: raw("\\n")
        case 0x0D: raw("\\r")
        case 0x09: raw("\\t")
        case 0x08: raw("\\b")
        case 0x0C: raw("\\f")
        default:
          raw("\\u00")
          bytes.append(hexDigit(c >> 4))
          bytes.append(hexDigit(c & 0xF))
        }
      }
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
    }
    bytes.append(0x22)
  }

  private func hexDigit(_ value: UInt8) -> UInt8 { value < 10 ? 0x30 + value : 0x61 + value - 10 }

  /// Appends an integer.
  public mutating func writeInteger(_ value: Int64) {
    if value >= 0 && value < 10 {
      bytes.append(0x30 + UInt8(value))
      return
    }
    var magnitude = value.magnitude
    var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
    var count = 0
    withUnsafeMutableBytes(of: &digits) { scratch in
      while magnitude > 0 {
        scratch[23 - count] = 0x30 + UInt8(magnitude % 10)
        magnitude /= 10
        count += 1
      }
      if value < 0 { bytes.append(0x2D) }
      bytes.append(contentsOf: scratch[(24 - count)...])
    }
  }

  /// Appends a double as a JSON float: shortest round-trip digits, always with a fraction or
  /// an exponent so it reads back as a float (`1.0`, `-0.0`, `1e-05`).
  public mutating func writeFloat(_ value: Double) {
    bytes.append(contentsOf: value.description.utf8)
  }

  /// Appends a coordinate: shortest round-trip digits, with a whole number written without
  /// `.0` (`12`, `-0`); `precision` rounds to that many decimals first.
  @inline(__always)
  public mutating func writeCoordinate(_ value: Double, precision: Int? = nil) {
    var v = value
    if let precision {
      let scale = powersOfTen[min(max(precision, 0), 15)]
      let rounded = (v * scale).rounded() / scale
      if rounded.isFinite { v = rounded }
    }
    let text = v.description
    if text.hasSuffix(".0") {
      bytes.append(contentsOf: text.utf8.dropLast(2))
    } else {
      bytes.append(contentsOf: text.utf8)
    }
  }

  /// Appends any JSON value.
  public mutating func writeValue(_ value: JSONValue) {
    switch value {
    case .null: raw("null")
    case .bool(let b): if b { raw("true") } else { raw("false") }
    case .integer(let n): writeInteger(n)
    case .bigInteger(let digits): bytes.append(contentsOf: digits.utf8)
    case .double(let d):
      if d.isFinite { writeFloat(d) } else { raw("null") }
    case .string(let s): writeString(s)
    case .array(let items):
      bytes.append(0x5B)
      for (k, item) in items.enumerated() {
        if k > 0 { bytes.append(0x2C) }
        writeValue(item)
      }
      bytes.append(0x5D)
    case .object(let object): writeObject(object)
    }
  }

  /// Appends an object's members in order.
  public mutating func writeObject(_ object: JSONObject) {
    bytes.append(0x7B)
    var first = true
    for member in object.members {
      if !first { bytes.append(0x2C) }
      first = false
      writeString(member.key)
      bytes.append(0x3A)
      writeValue(member.value)
    }
    bytes.append(0x7D)
  }
}

private let powersOfTen: [Double] = (0...15).map { k in
  var value = 1.0
  for _ in 0..<k { value *= 10 }
  return value
}
