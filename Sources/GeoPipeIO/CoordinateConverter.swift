import GeoPipeCore

/// Turns a `coordinates` value that was read before its `type` into a geometry.
///
/// This is the rare path (a geometry whose `coordinates` member comes first); errors point at
/// the start of the `coordinates` value.
struct CoordinateConverter {
  let index: Int
  let checkRanges: Bool

  func geometry(_ kind: GeometryKind, from value: JSONValue) throws -> Geometry {
    switch kind {
    case .point:
      if case .array(let items) = value, items.isEmpty {
        throw fail(
          "empty Point: \"coordinates\": [] has no position, and RFC 7946 cannot express an empty point",
          .emptyPoint)
      }
      return .point(try position(value))
    case .multiPoint: return .multiPoint(try positions(value, minimum: 0, ring: false))
    case .lineString:
      let line = try positions(value, minimum: 0, ring: false)
      if line.count == 1 {
        throw fail("a LineString needs at least two positions, found 1", .tooFewPositions)
      }
      return .lineString(line)
    case .multiLineString:
      return .multiLineString(try list(value).map { try positions($0, minimum: 2, ring: false) })
    case .polygon:
      return .polygon(try list(value).map { try positions($0, minimum: 4, ring: true) })
    case .multiPolygon:
      return .multiPolygon(
        try list(value).map { try list($0).map { try positions($0, minimum: 4, ring: true) } })
    case .geometryCollection:
      throw fail("a GeometryCollection has \"geometries\", not \"coordinates\"")
    }
  }

  private func fail(_ message: String, _ problem: InputProblem = .structure) -> ScanError {
    ScanError(message, at: index, structural: true, problem: problem)
  }

  private func list(_ value: JSONValue) throws -> [JSONValue] {
    guard case .array(let items) = value else { throw fail("expected an array of coordinates") }
    return items
  }

  private func positions(_ value: JSONValue, minimum: Int, ring: Bool) throws -> CoordinateArray {
    var array = CoordinateArray()
    for item in try list(value) { array.append(try position(item)) }
    if array.count < minimum {
      let what =
        ring
        ? "a polygon ring needs at least four positions" : "a line needs at least two positions"
      throw fail("\(what), found \(array.count)", .tooFewPositions)
    }
    if ring, let first = array.first, let last = array.last, first != last {
      throw fail("polygon ring is not closed: its first and last positions differ", .unclosedRing)
    }
    return array
  }

  private func position(_ value: JSONValue) throws -> Position {
    let items = try list(value)
    guard items.count >= 2 else {
      throw fail("a position needs at least two numbers, found \(items.count)")
    }
    guard items.count <= 4 else { throw fail("a position has at most four numbers") }
    var numbers: [Double] = []
    for item in items {
      guard let number = item.numberValue, number.isFinite else {
        throw fail("a position must contain only finite numbers", .nonFiniteCoordinate)
      }
      numbers.append(number)
    }
    if checkRanges {
      if !(numbers[0] >= -180 && numbers[0] <= 180) {
        throw fail("longitude \(numbers[0]) is out of range [-180, 180]", .coordinateOutOfRange)
      }
      if !(numbers[1] >= -90 && numbers[1] <= 90) {
        throw fail("latitude \(numbers[1]) is out of range [-90, 90]", .coordinateOutOfRange)
      }
    }
    return Position(
      x: numbers[0], y: numbers[1], z: numbers.count > 2 ? numbers[2] : .nan,
      m: numbers.count > 3 ? numbers[3] : .nan)
  }
}
