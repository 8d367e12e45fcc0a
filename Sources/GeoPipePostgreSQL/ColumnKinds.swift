import GeoPipeCore

/// The kinds of value a property (or the feature ids) has held, and the PostgreSQL type that
/// holds them all.
struct ColumnKinds: OptionSet {
  let rawValue: UInt8
  static let integer = ColumnKinds(rawValue: 1)
  static let real = ColumnKinds(rawValue: 2)
  static let boolean = ColumnKinds(rawValue: 4)
  static let text = ColumnKinds(rawValue: 8)
  static let json = ColumnKinds(rawValue: 16)

  /// The column type: bigint for integers, double precision for numbers (integers and
  /// reals), boolean, text (also for a column of nulls only), jsonb for objects and arrays;
  /// nil for any other mixture.
  var columnType: String? {
    switch self {
    case .integer: "bigint"
    case .real, [.integer, .real]: "double precision"
    case .boolean: "boolean"
    case .text, []: "text"
    case .json: "jsonb"
    default: nil
    }
  }

}

extension ColumnKinds {
  /// The kind of a value, as it is sent in a COPY field (its tag in the scratch file); nil
  /// for null.
  init?(_ value: JSONValue) {
    switch value {
    case .null: return nil
    case .bool: self = .boolean
    case .integer: self = .integer
    case .double, .bigInteger, .bigNumber: self = .real
    case .string: self = .text
    case .array, .object: self = .json
    }
  }

  /// The kind's name in messages.
  var name: String {
    switch self {
    case .integer: "an integer"
    case .real: "a number"
    case .boolean: "a boolean"
    case .text: "a string"
    default: "an object or array"
    }
  }
}
