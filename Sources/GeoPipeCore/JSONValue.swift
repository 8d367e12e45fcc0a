/// A JSON value that keeps what a text said: integers stay integers, floats stay floats.
///
/// Integers that fit in 64 bits are `.integer`; integer literals too large for that keep
/// their digits in `.bigInteger`, so they survive a round trip unchanged. A number with a
/// fraction or an exponent is `.double`, written back in its shortest round-trip form (so
/// `1.0` stays `1.0` and `-0.0` keeps its sign). Objects keep their members in order.
public enum JSONValue: Hashable, Sendable {
  case null
  case bool(Bool)
  case integer(Int64)
  /// An integer literal outside the 64-bit range, kept as its decimal digits.
  case bigInteger(String)
  case double(Double)
  /// A number with a fraction or exponent beyond the range of a double (`1e400`), kept as its
  /// text so that it is written back unchanged.
  case bigNumber(String)
  case string(String)
  case array([JSONValue])
  case object(JSONObject)

  /// The value as a Double when it is a number of any kind.
  public var numberValue: Double? {
    switch self {
    case .integer(let value): Double(value)
    case .double(let value): value
    case .bigInteger(let digits), .bigNumber(let digits): Double(digits)
    default: nil
    }
  }

  /// The string payload, when the value is a string.
  public var stringValue: String? {
    if case .string(let value) = self { value } else { nil }
  }

  /// True for `.null`.
  public var isNull: Bool {
    if case .null = self { true } else { false }
  }

  /// The JSON type name used in messages and summaries: `string`, `integer`, `number`, ...
  public var typeName: String {
    switch self {
    case .null: "null"
    case .bool: "boolean"
    case .integer, .bigInteger: "integer"
    case .double, .bigNumber: "number"
    case .string: "string"
    case .array: "array"
    case .object: "object"
    }
  }
}

/// One member of a JSON object.
public struct JSONMember: Hashable, Sendable {
  /// The member's name.
  public var key: String
  /// The member's value.
  public var value: JSONValue

  /// Creates a member.
  public init(_ key: String, _ value: JSONValue) {
    self.key = key
    self.value = value
  }
}

/// A JSON object whose members keep the order they were read or added in.
///
/// Lookups are linear: feature properties are small, and an ordered array is both faster to
/// build than a dictionary and keeps the order that users expect to see in their output.
public struct JSONObject: Hashable, Sendable, RandomAccessCollection, ExpressibleByDictionaryLiteral
{
  /// The members in order.
  public private(set) var members: [JSONMember]

  /// Creates an object from members whose keys are known to be distinct.
  public init(members: [JSONMember] = []) {
    self.members = members
  }

  /// Creates an object from a literal; later duplicates replace earlier values.
  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    members = []
    for (key, value) in elements { self[key] = value }
  }

  /// The first index.
  public var startIndex: Int { members.startIndex }
  /// One past the last index.
  public var endIndex: Int { members.endIndex }
  /// The member at `position`.
  public subscript(position: Int) -> JSONMember { members[position] }

  /// The member names in order.
  public var keys: [String] { members.map(\.key) }

  /// The value for `key`; setting `nil` removes the member, setting a new key appends it.
  public subscript(key: String) -> JSONValue? {
    get { members.first { $0.key == key }?.value }
    set {
      if let index = members.firstIndex(where: { $0.key == key }) {
        if let newValue { members[index].value = newValue } else { members.remove(at: index) }
      } else if let newValue {
        members.append(JSONMember(key, newValue))
      }
    }
  }

  /// Appends a member without checking for an existing key (the caller knows it is new).
  public mutating func appendUnchecked(_ key: String, _ value: JSONValue) {
    members.append(JSONMember(key, value))
  }

  /// Reserves room for `count` members.
  public mutating func reserveCapacity(_ count: Int) {
    members.reserveCapacity(count)
  }
}
