import GeoPipeCore
import GeoPipeIO

/// The property columns a GeoParquet writer has seen, in the order first seen, with the kinds
/// of their values; and the tagged encoding of a feature's properties in the scratch file.
struct PropertyColumns {
  /// The kinds a value can have in the scratch file, one bit each in a column's mask.
  enum Kind: UInt8 {
    case null = 0
    case boolean = 1
    case integer = 2
    case double = 3
    case string = 4
    /// Arrays, objects and numbers beyond 64 bits: JSON text.
    case json = 5
  }

  /// The Parquet type a column is written as.
  enum ColumnType {
    case boolean, int64, double, string, json

    var physical: PhysicalType {
      switch self {
      case .boolean: .boolean
      case .int64: .int64
      case .double: .double
      case .string, .json: .byteArray
      }
    }
  }

  private(set) var names: [String] = []
  private(set) var index: [String: Int] = [:]
  private var masks: [UInt8] = []
  /// Whether a column holds an integer that a double cannot hold exactly.
  private var wideIntegers: [Bool] = []
  private var lastKeys: [String] = []
  private var lastColumns: [Int] = []

  var count: Int { names.count }

  /// Appends the tagged properties to `out`: a count, then per property its column, its kind
  /// and its value.
  mutating func append(_ properties: JSONObject, to out: inout [UInt8]) throws {
    guard properties.count <= Int(UInt16.max) else {
      throw GeoPipeError.data("a feature has more than 65535 properties", at: nil)
    }
    out.append(UInt8(properties.count & 0xFF))
    out.append(UInt8(properties.count >> 8))
    let sameKeys =
      properties.count == lastKeys.count
      && zip(properties.members, lastKeys).allSatisfy { $0.key == $1 }
    if !sameKeys {
      lastKeys = properties.keys
      lastColumns = []
      for key in lastKeys {
        if let known = index[key] {
          lastColumns.append(known)
        } else {
          guard names.count < Int(UInt16.max) else {
            throw GeoPipeError.data("the features have more than 65535 properties", at: nil)
          }
          index[key] = names.count
          lastColumns.append(names.count)
          names.append(key)
          masks.append(0)
          wideIntegers.append(false)
        }
      }
    }
    for (k, member) in properties.members.enumerated() {
      let column = lastColumns[k]
      out.append(UInt8(column & 0xFF))
      out.append(UInt8(column >> 8))
      let kind: Kind
      switch member.value {
      case .null: kind = .null
      case .bool(let b):
        kind = .boolean
        out.append(Kind.boolean.rawValue)
        out.append(b ? 1 : 0)
      case .integer(let v):
        kind = .integer
        out.append(Kind.integer.rawValue)
        ColumnChunkEncoder.append(v, to: &out)
        if v.magnitude > 1 << 53 { wideIntegers[column] = true }
      case .double(let v):
        kind = .double
        out.append(Kind.double.rawValue)
        ColumnChunkEncoder.append(v.bitPattern, to: &out)
      case .string(let text):
        kind = .string
        out.append(Kind.string.rawValue)
        Self.appendText(Array(text.utf8), to: &out)
      case .bigInteger, .bigNumber, .array, .object:
        kind = .json
        out.append(Kind.json.rawValue)
        var writer = JSONTextWriter()
        writer.writeValue(member.value)
        Self.appendText(writer.bytes, to: &out)
      }
      if kind == .null { out.append(Kind.null.rawValue) }
      masks[column] |= 1 << kind.rawValue
    }
  }

  /// The type column `k` is written as: one kind as itself, integers and floats together as
  /// DOUBLE (when every integer converts exactly), anything else as JSON text.
  func type(_ k: Int) -> ColumnType {
    let mask = masks[k] & ~(1 << Kind.null.rawValue)
    let integer: UInt8 = 1 << Kind.integer.rawValue
    let double: UInt8 = 1 << Kind.double.rawValue
    switch mask {
    case 0, 1 << Kind.string.rawValue: return .string
    case 1 << Kind.boolean.rawValue: return .boolean
    case integer: return .int64
    case double: return .double
    case integer | double: return wideIntegers[k] ? .json : .double
    default: return .json
    }
  }

  /// Notes on columns whose values were converted: mixed kinds as JSON text.
  func notes() -> [String] {
    (0..<count).compactMap { k in
      let mask = masks[k] & ~(1 << Kind.null.rawValue)
      guard type(k) == .json, mask != 1 << Kind.json.rawValue else { return nil }
      return "column \(names[k]) holds values of several kinds: written as JSON text"
    }
  }

  private static func appendText(_ bytes: [UInt8], to out: inout [UInt8]) {
    ColumnChunkEncoder.append(UInt32(bytes.count), to: &out)
    out += bytes
  }
}
