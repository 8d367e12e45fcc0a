import GeoPipeCore
import GeoPipeStageKit

/// Aggregates over a cluster's member points (`--aggregate population:sum`, `--count-by kind`).
///
/// Members are visited in input order, so results do not depend on how the cluster formed:
/// sums of integers are exact (64-bit, then a double beyond that), sums of other numbers are
/// added in input order. Values that are not numbers (numeric text counts as a number) are
/// skipped, and `count` counts the members whose value is a number.
struct ClusterAggregates {
  /// One `PROPERTY:FUNCTION`.
  struct Field {
    var property: String
    var function: String
    var outputName: String { "\(property)_\(function)" }
  }

  static let functions = ["sum", "min", "max", "mean", "count"]

  let fields: [Field]
  let countBy: String?

  /// Parses `population:sum,population:max`.
  init(_ specs: [String], countBy: String?) throws {
    fields = try specs.map { spec in
      guard let colon = spec.lastIndex(of: ":") else {
        throw GeoPipeError.usage(
          "invalid value '\(spec)' for --aggregate: expected PROPERTY:FUNCTION, FUNCTION one of "
            + Self.functions.joined(separator: ", "))
      }
      let function = String(spec[spec.index(after: colon)...])
      guard Self.functions.contains(function), colon != spec.startIndex else {
        throw GeoPipeError.usage(
          "invalid value '\(spec)' for --aggregate: expected PROPERTY:FUNCTION, FUNCTION one of "
            + Self.functions.joined(separator: ", "))
      }
      return Field(property: String(spec[..<colon]), function: function)
    }
    self.countBy = countBy
  }

  var isEmpty: Bool { fields.isEmpty && countBy == nil }

  /// The aggregate properties of a cluster whose members are `members` (input order).
  func properties(of members: [Feature]) -> [JSONMember] {
    var result: [JSONMember] = []
    for field in fields {
      var count = 0
      var integerSum: Int64 = 0
      var exact = true
      var doubleSum = 0.0
      var minimum: JSONValue?
      var maximum: JSONValue?
      var minimumNumber = Double.infinity
      var maximumNumber = -Double.infinity
      for member in members {
        guard let value = member.properties?[field.property],
          let number = Self.number(value)
        else { continue }
        count += 1
        if number < minimumNumber {
          minimumNumber = number
          minimum = Self.numeric(value)
        }
        if number > maximumNumber {
          maximumNumber = number
          maximum = Self.numeric(value)
        }
        if exact, let n = Self.integer(value) {
          let (sum, overflow) = integerSum.addingReportingOverflow(n)
          if overflow {
            exact = false
            doubleSum = Double(integerSum) + Double(n)
          } else {
            integerSum = sum
          }
        } else {
          if exact { doubleSum = Double(integerSum) }
          exact = false
          doubleSum += number
        }
      }
      let value: JSONValue
      switch field.function {
      case "count": value = .integer(Int64(count))
      case "sum": value = count == 0 ? .null : exact ? .integer(integerSum) : .double(doubleSum)
      case "mean":
        value =
          count == 0 ? .null : .double((exact ? Double(integerSum) : doubleSum) / Double(count))
      case "min": value = minimum ?? .null
      default: value = maximum ?? .null
      }
      result.append(JSONMember(field.outputName, value))
    }
    if let countBy {
      var counts = JSONObject()
      for member in members {
        guard let value = member.properties?[countBy], !value.isNull else { continue }
        let key = Template.text(of: value)
        if case .integer(let n)? = counts[key] {
          counts[key] = .integer(n + 1)
        } else {
          counts.appendUnchecked(key, .integer(1))
        }
      }
      result.append(JSONMember("\(countBy)_counts", .object(counts)))
    }
    return result
  }

  /// A number, or numeric text, as a Double.
  static func number(_ value: JSONValue) -> Double? {
    if let x = value.numberValue { return x }
    if case .string(let text) = value, let x = Double(text), x.isFinite { return x }
    return nil
  }

  /// The exact integer of an integer value or integer text.
  static func integer(_ value: JSONValue) -> Int64? {
    switch value {
    case .integer(let n): n
    case .string(let text): Int64(text)
    default: nil
    }
  }

  /// A value as a JSON number (numeric text becomes a number).
  static func numeric(_ value: JSONValue) -> JSONValue {
    if case .string = value {
      if let n = integer(value) { return .integer(n) }
      if let x = number(value) { return .double(x) }
    }
    return value
  }
}
