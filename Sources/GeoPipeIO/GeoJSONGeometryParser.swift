import GeoPipeCore

/// Geometry objects and coordinates, parsed straight into contiguous coordinate arrays and
/// checked as RFC 7946 §3.1 asks.
extension JSONScanner {
  /// Parses a geometry object (or throws a structural error saying what is wrong with it).
  ///
  /// The common shape, `type` before `coordinates`, is parsed straight into coordinate arrays
  /// without gathering members first.
  mutating func parseGeometryObject(checkRanges: Bool, depth: Int) throws -> Geometry {
    guard try peek() == 0x7B else {
      throw ScanError("a geometry must be an object or null", at: i, structural: true)
    }
    let start = i
    i += 1
    guard try peek() == 0x22 else {
      i = start
      return try parseGeometryGathering(checkRanges: checkRanges, depth: depth)
    }
    let keyStart = i
    var ignored = ""
    guard let key = try scanString(decoded: &ignored), matches(key, "type") else {
      i = start
      return try parseGeometryGathering(checkRanges: checkRanges, depth: depth)
    }
    try expect(0x3A, "':' after an object key")
    guard try peek() == 0x22, let typeRange = try scanString(decoded: &ignored),
      let kind = knownType(typeRange)?.kind, kind != .geometryCollection
    else {
      i = start
      return try parseGeometryGathering(checkRanges: checkRanges, depth: depth)
    }
    _ = keyStart
    var geometry: Geometry?
    while true {
      let c = try peek()
      i += 1
      if c == 0x7D { break }
      guard c == 0x2C else {
        i -= 1
        throw unexpected("',' or '}' after an object member")
      }
      guard try peek() == 0x22 else { throw unexpected("a string key") }
      let memberStart = i
      var decodedKey = ""
      let raw = try scanString(decoded: &decodedKey)
      try expect(0x3A, "':' after an object key")
      let name =
        raw.map { matches($0, "coordinates") ? "coordinates" : (matches($0, "type") ? "type" : "") }
        ?? decodedKey
      if name == "coordinates" || name == "type" {
        if name == "type" || geometry != nil {
          throw ScanError(
            "duplicate key \"\(name)\" in an object", at: memberStart, structural: true)
        }
        geometry = try parseCoordinates(of: kind, checkRanges: checkRanges)
      } else {
        try skipValue(depth: depth)
      }
    }
    guard let geometry else {
      throw ScanError("\(kind.rawValue) has no \"coordinates\" member", at: start, structural: true)
    }
    return geometry
  }

  /// Parses a geometry whose members come in another order, gathering them first.
  private mutating func parseGeometryGathering(checkRanges: Bool, depth: Int) throws -> Geometry {
    var parts = GeoJSONParts()
    try parseGeoJSONObject(.geometry, into: &parts, checkRanges: checkRanges, depth: depth)
    return try makeGeometry(parts, checkRanges: checkRanges)
  }

  mutating func parseGeometryArray(checkRanges: Bool, depth: Int) throws -> [Geometry] {
    guard try peek() == 0x5B else {
      throw ScanError("\"geometries\" must be an array", at: i, structural: true)
    }
    i += 1
    var members: [Geometry] = []
    if try peek() == 0x5D {
      i += 1
      return members
    }
    while true {
      members.append(try parseGeometryObject(checkRanges: checkRanges, depth: depth + 1))
      let c = try peek()
      i += 1
      if c == 0x5D { return members }
      guard c == 0x2C else {
        i -= 1
        throw unexpected("',' or ']' after a geometry")
      }
    }
  }

  /// Interprets gathered members as a geometry.
  func makeGeometry(_ parts: GeoJSONParts, checkRanges: Bool) throws -> Geometry {
    guard let type = parts.type else {
      throw ScanError("geometry has no \"type\" member", at: parts.start, structural: true)
    }
    guard let kind = parts.kind else {
      let hint =
        GeometryKind(caseInsensitive: type).map { " (did you mean \"\($0.rawValue)\"?)" } ?? ""
      throw ScanError(
        "unknown geometry type \"\(type)\"\(hint)", at: parts.typeIndex, structural: true)
    }
    if kind == .geometryCollection {
      guard let members = parts.geometries else {
        throw ScanError(
          "GeometryCollection has no \"geometries\" member", at: parts.start, structural: true)
      }
      return .geometryCollection(members)
    }
    if let typed = parts.typedGeometry { return typed }
    guard let loose = parts.looseCoordinates else {
      throw ScanError("\(type) has no \"coordinates\" member", at: parts.start, structural: true)
    }
    return try CoordinateConverter(index: parts.coordinatesIndex, checkRanges: checkRanges)
      .geometry(kind, from: loose)
  }

  /// Parses `coordinates` for a known geometry type straight into coordinate arrays.
  mutating func parseCoordinates(of kind: GeometryKind, checkRanges: Bool) throws -> Geometry {
    switch kind {
    case .point:
      if try peek() == 0x5B {
        var probe = self
        probe.i += 1
        if try probe.peek() == 0x5D { throw emptyPoint(at: i) }
      }
      return .point(try parsePosition(checkRanges: checkRanges))
    case .multiPoint: return .multiPoint(try parsePositions(minimum: 0, ring: false, checkRanges))
    case .lineString: return .lineString(try parseLine(checkRanges))
    case .multiLineString:
      return .multiLineString(
        try parseList { s in try s.parsePositions(minimum: 2, ring: false, checkRanges) })
    case .polygon:
      return .polygon(
        try parseList { s in try s.parsePositions(minimum: 4, ring: true, checkRanges) })
    case .multiPolygon:
      return .multiPolygon(
        try parseList { s in
          try s.parseList { r in try r.parsePositions(minimum: 4, ring: true, checkRanges) }
        })
    case .geometryCollection:
      throw ScanError(
        "a GeometryCollection has \"geometries\", not \"coordinates\"", at: i, structural: true)
    }
  }

  /// The error for `"coordinates": []` in a Point.
  func emptyPoint(at index: Int) -> ScanError {
    ScanError(
      "empty Point: \"coordinates\": [] has no position, and RFC 7946 cannot express an empty point",
      at: index, structural: true, problem: .emptyPoint)
  }

  /// A LineString may be empty (`[]`), else needs two positions.
  private mutating func parseLine(_ checkRanges: Bool) throws -> CoordinateArray {
    _ = try peek()
    let start = i
    let line = try parsePositions(minimum: 0, ring: false, checkRanges)
    if line.count == 1 {
      throw ScanError(
        "a LineString needs at least two positions, found 1", at: start, structural: true,
        problem: .tooFewPositions)
    }
    return line
  }

  private mutating func parseList<T>(_ element: (inout JSONScanner) throws -> T) throws -> [T] {
    guard try peek() == 0x5B else {
      throw ScanError("expected an array of coordinates", at: i, structural: true)
    }
    i += 1
    var list: [T] = []
    if try peek() == 0x5D {
      i += 1
      return list
    }
    while true {
      list.append(try element(&self))
      let c = try peek()
      i += 1
      if c == 0x5D { return list }
      guard c == 0x2C else {
        i -= 1
        throw unexpected("',' or ']' in coordinates")
      }
    }
  }

  /// Parses an array of positions; rings must have four positions and be closed.
  mutating func parsePositions(minimum: Int, ring: Bool, _ checkRanges: Bool) throws
    -> CoordinateArray
  {
    let first = try peek()
    let start = i
    guard first == 0x5B else {
      throw ScanError("expected an array of positions", at: i, structural: true)
    }
    i += 1
    var array = CoordinateArray()
    if try peek() != 0x5D {
      while true {
        array.append(try parsePosition(checkRanges: checkRanges))
        let c = try peek()
        i += 1
        if c == 0x5D { break }
        guard c == 0x2C else {
          i -= 1
          throw unexpected("',' or ']' after a position")
        }
      }
    } else {
      i += 1
    }
    if array.count < minimum {
      let what =
        ring
        ? "a polygon ring needs at least four positions" : "a line needs at least two positions"
      throw ScanError(
        "\(what), found \(array.count)", at: start, structural: true, problem: .tooFewPositions)
    }
    if ring, let first = array.first, let last = array.last, first != last {
      throw ScanError(
        "polygon ring is not closed: its first and last positions differ", at: start,
        structural: true, problem: .unclosedRing)
    }
    return array
  }

  /// Parses `[x, y]`, `[x, y, z]` or `[x, y, z, m]`.
  @inline(__always)
  mutating func parsePosition(checkRanges: Bool) throws -> Position {
    let first = try peek()
    let start = i
    guard first == 0x5B else {
      throw ScanError("expected a position (an array of numbers)", at: i, structural: true)
    }
    i += 1
    var values: (Double, Double, Double, Double) = (.nan, .nan, .nan, .nan)
    var count = 0
    if try peek() != 0x5D {
      while true {
        let c = try peek()
        guard c == 0x2D || (c >= 0x30 && c <= 0x39) else {
          if c == 0x5B {
            throw ScanError(
              "coordinates are nested too deeply for this geometry type", at: i, structural: true)
          }
          // NaN and Infinity are not JSON, but some writers emit them for missing numbers.
          throw ScanError(
            "a position must contain only numbers, found \(describeByte(at: i))", at: i,
            structural: true, problem: c == 0x4E || c == 0x49 ? .nonFiniteCoordinate : nil)
        }
        let (value, at) = try parseDouble()
        guard value.isFinite else {
          throw ScanError(
            "coordinate is not a finite number", at: at, structural: true,
            problem: .nonFiniteCoordinate)
        }
        if checkRanges {
          if count == 0 && !(value >= -180 && value <= 180) {
            throw ScanError(
              "longitude \(value) is out of range [-180, 180] (use --crs if these are not WGS84 degrees)",
              at: at, structural: true, problem: .coordinateOutOfRange)
          }
          if count == 1 && !(value >= -90 && value <= 90) {
            throw ScanError(
              "latitude \(value) is out of range [-90, 90] (use --crs if these are not WGS84 degrees)",
              at: at, structural: true, problem: .coordinateOutOfRange)
          }
        }
        switch count {
        case 0: values.0 = value
        case 1: values.1 = value
        case 2: values.2 = value
        case 3: values.3 = value
        default:
          throw ScanError("a position has at most four numbers", at: at, structural: true)
        }
        count += 1
        let next = try peek()
        i += 1
        if next == 0x5D { break }
        guard next == 0x2C else {
          i -= 1
          throw unexpected("',' or ']' in a position")
        }
      }
    } else {
      i += 1
    }
    guard count >= 2 else {
      throw ScanError(
        "a position needs at least two numbers, found \(count)", at: start, structural: true)
    }
    return Position(x: values.0, y: values.1, z: values.2, m: values.3)
  }
}
