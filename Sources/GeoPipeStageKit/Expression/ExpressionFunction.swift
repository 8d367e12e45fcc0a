import GeoPipeCore
import GeoPipeGeometry

/// The functions expressions can call, with SQL's behaviour (SQLite's where the dialects
/// differ): a null argument gives null unless the function is about nulls (`coalesce`,
/// `nullif`), and an argument of the wrong kind gives null.
public enum ExpressionFunction: String, CaseIterable, Sendable {
  case lower, upper, length, substr, trim, replace
  case coalesce, nullif
  case abs, round, floor, ceil, min, max
  case toNumber = "to_number"
  case toText = "to_text"
  case areaM2 = "area_m2"
  case lengthM = "length_m"
  case geometryType = "geometry_type"
  case x, y
  case numPoints = "num_points"

  /// How the function is called, for help and errors (`substr(text, start[, count])`).
  public var signature: String {
    switch self {
    case .lower, .upper, .length: "\(rawValue)(text)"
    case .substr: "substr(text, start[, count])"
    case .trim: "trim(text[, characters])"
    case .replace: "replace(text, from, to)"
    case .coalesce: "coalesce(value, ...)"
    case .nullif: "nullif(value, other)"
    case .abs, .floor, .ceil: "\(rawValue)(number)"
    case .round: "round(number[, decimals])"
    case .min, .max: "\(rawValue)(value, value, ...)"
    case .toNumber, .toText: "\(rawValue)(value)"
    case .areaM2, .lengthM, .geometryType, .x, .y, .numPoints: "\(rawValue)()"
    }
  }

  /// How many arguments the function takes.
  var arity: ClosedRange<Int> {
    switch self {
    case .lower, .upper, .length, .abs, .floor, .ceil, .toNumber, .toText: 1...1
    case .substr: 2...3
    case .trim, .round: 1...2
    case .replace: 3...3
    case .coalesce: 1...Int.max
    case .nullif: 2...2
    case .min, .max: 2...Int.max
    case .areaM2, .lengthM, .geometryType, .x, .y, .numPoints: 0...0
    }
  }

  /// The error for a call with `count` arguments, or nil when the count is right.
  func arityProblem(_ count: Int) -> String? {
    guard !arity.contains(count) else { return nil }
    let expected: String
    switch (arity.lowerBound, arity.upperBound) {
    case (0, 0): expected = "no arguments"
    case (let low, let high) where low == high:
      expected = low == 1 ? "1 argument" : "\(low) arguments"
    case (let low, Int.max): expected = "at least \(low) argument\(low == 1 ? "" : "s")"
    case (let low, let high): expected = "\(low) to \(high) arguments"
    }
    let found = count == 1 ? "1" : "\(count)"
    var message = "\(rawValue) takes \(expected) (\(signature)), found \(found)"
    if self == .min || self == .max {
      message += "; it compares its arguments, one feature at a time"
    }
    return message
  }

  /// The function's value for the arguments; each argument is evaluated when needed.
  func apply(_ arguments: [Expression], _ feature: Feature) -> JSONValue {
    func argument(_ k: Int) -> JSONValue { arguments[k].value(in: feature) }
    func text(_ k: Int) -> String? { argument(k).expressionText }
    switch self {
    case .lower: return text(0).map { .string($0.lowercased()) } ?? .null
    case .upper: return text(0).map { .string($0.uppercased()) } ?? .null
    case .length: return text(0).map { .integer(Int64($0.unicodeScalars.count)) } ?? .null
    case .substr:
      guard let string = text(0), let start = Self.integer(argument(1)) else { return .null }
      var count: Int64?
      if arguments.count == 3 {
        guard let given = Self.integer(argument(2)) else { return .null }
        count = given
      }
      return .string(Self.substring(string, start: start, count: count))
    case .trim:
      guard let string = text(0) else { return .null }
      var characters: String = " "
      if arguments.count == 2 {
        guard let given = text(1) else { return .null }
        characters = given
      }
      return .string(Self.trim(string, characters))
    case .replace:
      guard let string = text(0), let from = text(1), let to = text(2) else { return .null }
      return .string(Self.replace(string, from, to))
    case .coalesce:
      for expression in arguments {
        let value = expression.value(in: feature)
        if !value.isNull { return value }
      }
      return .null
    case .nullif:
      let value = argument(0)
      return ComparisonOperator.equal.compare(value, argument(1)) == true ? .null : value
    case .abs:
      switch NumericValue(argument(0)) {
      case .integer(let n)? where n != .min: return .integer(n < 0 ? -n : n)
      case let number?: return .double(Swift.abs(number.double))
      case nil: return .null
      }
    case .round:
      guard let number = NumericValue(argument(0)) else { return .null }
      var places: Int64 = 0
      if arguments.count == 2 {
        guard let given = Self.integer(argument(1)) else { return .null }
        places = given
      }
      return Self.round(number, places: places)
    case .floor, .ceil:
      switch NumericValue(argument(0)) {
      case .integer(let n)?: return .integer(n)
      case .double(let x)?: return .double(self == .floor ? x.rounded(.down) : x.rounded(.up))
      case nil: return .null
      }
    case .min, .max:
      return Self.extreme(arguments.map { $0.value(in: feature) }, greatest: self == .max)
    case .toNumber: return NumericValue(argument(0))?.json ?? .null
    case .toText: return text(0).map(JSONValue.string) ?? .null
    case .areaM2, .lengthM, .geometryType, .x, .y, .numPoints:
      guard let geometry = feature.geometry else { return .null }
      return measure(geometry)
    }
  }

  private func measure(_ geometry: Geometry) -> JSONValue {
    switch self {
    case .areaM2: return .double(Self.area(geometry))
    case .lengthM: return .double(Self.length(geometry))
    case .geometryType: return .string(geometry.typeName)
    case .x, .y:
      guard case .point(let position) = geometry else { return .null }
      return .double(self == .x ? position.x : position.y)
    default:
      var count: Int64 = 0
      geometry.forEachXY { _, _ in count += 1 }
      return .integer(count)
    }
  }

  // MARK: Helpers

  /// A whole number from a number or numeric text, truncated toward zero as SQLite does.
  private static func integer(_ value: JSONValue) -> Int64? {
    switch NumericValue(value) {
    case .integer(let n)?: return n
    case .double(let x)?: return Int64(exactly: x.rounded(.towardZero)) ?? (x < 0 ? .min : .max)
    case nil: return nil
    }
  }

  /// SQLite's `substr`: characters counted from 1, a negative start counts from the end, and
  /// a negative count takes the characters before the start.
  private static func substring(_ text: String, start: Int64, count: Int64?) -> String {
    let scalars = text.unicodeScalars
    let length = Int64(scalars.count)
    var p1 = Swift.max(-1_000_000_000, Swift.min(start, 1_000_000_000))
    // Without a count, SQLite takes up to its longest string (a billion bytes).
    var p2 =
      count.map { Swift.min(Swift.abs($0 == .min ? .max : $0), 1_000_000_000) }
      ?? 1_000_000_000
    let takesBefore = (count ?? 0) < 0
    if p1 < 0 {
      p1 += length
      if p1 < 0 {
        p2 = Swift.max(0, p2 + p1)
        p1 = 0
      }
    } else if p1 > 0 {
      p1 -= 1
    } else if p2 > 0 {
      p2 -= 1
    }
    if takesBefore {
      p1 -= p2
      if p1 < 0 {
        p2 += p1
        p1 = 0
      }
    }
    p1 = Swift.min(p1, length)
    p2 = Swift.max(0, Swift.min(p2, length - p1))
    let from = scalars.index(scalars.startIndex, offsetBy: Int(p1))
    let to = scalars.index(from, offsetBy: Int(p2))
    return String(scalars[from..<to])
  }

  /// Removes the characters of `characters` from both ends.
  private static func trim(_ text: String, _ characters: String) -> String {
    let drop = Set(characters.unicodeScalars)
    var scalars = Substring(text).unicodeScalars
    while let first = scalars.first, drop.contains(first) { scalars.removeFirst() }
    while let last = scalars.last, drop.contains(last) { scalars.removeLast() }
    return String(scalars)
  }

  /// Replaces every occurrence of `from` (compared byte by byte, as SQLite does); an empty
  /// `from` leaves the text as it is.
  private static func replace(_ text: String, _ from: String, _ to: String) -> String {
    let bytes = Array(text.utf8)
    let target = Array(from.utf8)
    guard !target.isEmpty, bytes.count >= target.count else { return text }
    var result: [UInt8] = []
    result.reserveCapacity(bytes.count)
    var k = 0
    while k < bytes.count {
      if k + target.count <= bytes.count, bytes[k..<(k + target.count)].elementsEqual(target) {
        result.append(contentsOf: to.utf8)
        k += target.count
      } else {
        result.append(bytes[k])
        k += 1
      }
    }
    return String(decoding: result, as: UTF8.self)
  }

  /// `round`: an integer stays an integer (rounded to tens, hundreds … by negative places);
  /// a float is rounded half away from zero on its shortest decimal form, as SQLite does, so
  /// `round(2.675, 2)` is 2.68.
  private static func round(_ number: NumericValue, places: Int64) -> JSONValue {
    switch number {
    case .integer(let n):
      guard places < 0 else { return .integer(n) }
      guard places > -19 else { return .integer(0) }
      var scale: Int64 = 1
      for _ in 0..<(-places) { scale *= 10 }
      let remainder = n % scale
      var result = n - remainder
      if Swift.abs(remainder) * 2 >= scale {
        let (away, overflow) = result.addingReportingOverflow(n < 0 ? -scale : scale)
        guard !overflow else { return .double(roundDecimal(Double(n), places: places)) }
        result = away
      }
      return .integer(result)
    case .double(let x):
      return .double(roundDecimal(x, places: places))
    }
  }

  private static func roundDecimal(_ x: Double, places: Int64) -> Double {
    guard x.isFinite, x != 0 else { return x }
    // The shortest decimal digits of |x| and where its decimal point falls among them.
    let text = String(Swift.abs(x))
    let parts = text.split(separator: "e", maxSplits: 1)
    let exponent = parts.count == 2 ? Int(parts[1]) ?? 0 : 0
    let mantissa = parts[0].split(separator: ".", omittingEmptySubsequences: false)
    let whole = mantissa[0]
    var digits = Array(whole.utf8) + (mantissa.count == 2 ? Array(mantissa[1].utf8) : [])
    var point = whole.count + exponent
    while digits.count > 1, digits.first == UInt8(ascii: "0") {
      digits.removeFirst()
      point -= 1
    }
    let keep = Int64(point) + places
    guard keep < Int64(digits.count) else { return x }
    guard keep >= 0 else { return x < 0 ? -0.0 : 0 }
    let roundsUp = digits[Int(keep)] >= UInt8(ascii: "5")
    var kept = Array(digits[0..<Int(keep)])
    if roundsUp {
      var k = kept.count - 1
      while k >= 0, kept[k] == UInt8(ascii: "9") {
        kept[k] = UInt8(ascii: "0")
        k -= 1
      }
      if k >= 0 { kept[k] += 1 } else { kept.insert(UInt8(ascii: "1"), at: 0) }
    }
    if kept.isEmpty { kept = [UInt8(ascii: "0")] }
    let scaled = String(decoding: kept, as: UTF8.self) + "e\(-places)"
    let magnitude = Double(scaled) ?? Swift.abs(x)
    return x < 0 ? -magnitude : magnitude
  }

  /// SQLite's `min`/`max` of several arguments: null when any is null; numbers (numeric text
  /// included) before other text; null for booleans, arrays and objects.
  private static func extreme(_ values: [JSONValue], greatest: Bool) -> JSONValue {
    var best: JSONValue?
    var bestNumber: NumericValue?
    for value in values {
      if value.isNull { return .null }
      let number = NumericValue(value)
      if number == nil, value.stringValue == nil { return .null }
      guard let current = best else {
        best = value
        bestNumber = number
        continue
      }
      let better: Bool
      switch (number, bestNumber) {
      case (let a?, let b?):
        better = ComparisonOperator.compare(a, b, greatest: greatest)
      case (.some, nil): better = !greatest
      case (nil, .some): better = greatest
      case (nil, nil):
        better = ComparisonOperator(rawValue: greatest ? ">" : "<")?.compare(value, current) == true
      }
      if better {
        best = value
        bestNumber = number
      }
    }
    return bestNumber?.json ?? best ?? .null
  }

  /// The geodesic area in square metres of a geometry's polygons (holes taken out).
  private static func area(_ geometry: Geometry) -> Double {
    func polygonArea(_ rings: [CoordinateArray]) -> Double {
      guard let exterior = rings.first else { return 0 }
      return rings.dropFirst().reduce(Geodesic.wgs84.area(of: exterior)) {
        $0 - Geodesic.wgs84.area(of: $1)
      }
    }
    switch geometry {
    case .polygon(let rings): return polygonArea(rings)
    case .multiPolygon(let polygons): return polygons.reduce(0) { $0 + polygonArea($1) }
    case .geometryCollection(let members): return members.reduce(0) { $0 + area($1) }
    case .point, .multiPoint, .lineString, .multiLineString: return 0
    }
  }

  /// The geodesic length in metres of a geometry's lines (polygons' rings are not lines).
  private static func length(_ geometry: Geometry) -> Double {
    func lineLength(_ line: CoordinateArray) -> Double {
      var total = 0.0
      var previous: (Double, Double)?
      line.forEachXY { x, y in
        if let (px, py) = previous {
          total += Geodesic.wgs84.distance(lon1: px, lat1: py, lon2: x, lat2: y)
        }
        previous = (x, y)
      }
      return total
    }
    switch geometry {
    case .lineString(let line): return lineLength(line)
    case .multiLineString(let lines): return lines.reduce(0) { $0 + lineLength($1) }
    case .geometryCollection(let members): return members.reduce(0) { $0 + length($1) }
    case .point, .multiPoint, .polygon, .multiPolygon: return 0
    }
  }
}

extension ComparisonOperator {
  /// Whether `a` is beyond `b`: greater with `greatest`, else less.
  fileprivate static func compare(_ a: NumericValue, _ b: NumericValue, greatest: Bool) -> Bool {
    switch (a, b) {
    case (.integer(let x), .integer(let y)): greatest ? x > y : x < y
    default: greatest ? a.double > b.double : a.double < b.double
    }
  }
}
