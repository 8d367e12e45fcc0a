import GeoPipeCore

/// The members of one GeoJSON object, gathered in any order before it is interpreted.
struct GeoJSONParts {
  var start = 0
  var type: String?
  /// The geometry kind named by `type`, when it names one.
  var kind: GeometryKind?
  var typeIndex = 0
  var id: JSONValue?
  var idIndex = 0
  var geometry: Geometry?
  var properties: JSONObject?
  var bbox: [Double]?
  /// Coordinates parsed with their type known, or kept as JSON until the type is seen.
  var typedGeometry: Geometry?
  var looseCoordinates: JSONValue?
  var coordinatesIndex = 0
  var geometries: [Geometry]?
  var foreign = JSONObject()
  var seen: UInt16 = 0
  /// Set when the object's `features` array begins: the reader streams it from there.
  var startsFeatureCollection = false
  var droppedCRS = false
}

/// Which object is being parsed decides which members mean something.
enum GeoJSONContext {
  case top, feature, geometry
}

private enum Member: UInt16 {
  case type = 1, id = 2, geometry = 4, properties = 8, bbox = 16, coordinates = 32
  case geometries = 64, features = 128
}

extension JSONScanner {
  /// Parses the members of a GeoJSON object from `{` to `}`; at the top level it stops after
  /// the `[` of a `features` array, with `startsFeatureCollection` set.
  mutating func parseGeoJSONObject(
    _ context: GeoJSONContext, checkRanges: Bool, depth: Int
  ) throws -> GeoJSONParts {
    guard depth <= maxDepth else { throw ScanError("nesting deeper than \(maxDepth) levels", at: i) }
    var parts = GeoJSONParts()
    parts.start = i
    try expect(0x7B, "'{'")
    if try peek() == 0x7D {
      i += 1
      return parts
    }
    while true {
      guard try peek() == 0x22 else { throw unexpected("a string key") }
      let keyIndex = i
      var decodedKey = ""
      let raw = try scanString(decoded: &decodedKey)
      try expect(0x3A, "':' after an object key")
      let member = raw.flatMap { recognise($0, context) }
      if let member {
        if parts.seen & member.rawValue != 0 {
          throw ScanError("duplicate key \"\(keyName(member))\" in an object", at: keyIndex, structural: true)
        }
        parts.seen |= member.rawValue
        switch member {
        case .type:
          guard try peek() == 0x22 else {
            throw ScanError("\"type\" must be a string", at: i, structural: true)
          }
          parts.typeIndex = i
          var decoded = ""
          if let raw = try scanString(decoded: &decoded) {
            if let known = knownType(raw) {
              parts.type = known.name
              parts.kind = known.kind
            } else {
              parts.type = String(
                decoding: UnsafeBufferPointer(start: base + raw.lowerBound, count: raw.count),
                as: UTF8.self)
            }
          } else {
            parts.type = decoded
            parts.kind = GeometryKind(rawValue: decoded)
          }
        case .id:
          parts.idIndex = i
          let value = try parseValue(depth: depth)
          switch value {
          case .string, .integer, .bigInteger, .double: parts.id = value
          default:
            throw ScanError(
              "a feature \"id\" must be a string or a number, not \(value.typeName)",
              at: parts.idIndex, structural: true)
          }
        case .geometry:
          if try peek() == 0x6E {
            _ = try parseValue(depth: depth)
          } else {
            parts.geometry = try parseGeometryObject(checkRanges: checkRanges, depth: depth + 1)
          }
        case .properties:
          if try peek() == 0x6E {
            _ = try parseValue(depth: depth)
          } else {
            guard try peek() == 0x7B else {
              throw ScanError("\"properties\" must be an object or null", at: i, structural: true)
            }
            parts.properties = try parseObject(depth: depth + 1)
          }
        case .bbox:
          parts.bbox = try parseBBox()
        case .coordinates:
          parts.coordinatesIndex = i
          if let kind = parts.kind, kind != .geometryCollection {
            parts.typedGeometry = try parseCoordinates(of: kind, checkRanges: checkRanges)
          } else {
            parts.looseCoordinates = try parseValue(depth: depth)
          }
        case .geometries:
          parts.geometries = try parseGeometryArray(checkRanges: checkRanges, depth: depth + 1)
        case .features:
          try expect(0x5B, "'[' to start the \"features\" array")
          parts.startsFeatureCollection = true
          return parts
        }
      } else {
        let key = raw.map { String(decoding: UnsafeBufferPointer(start: base + $0.lowerBound, count: $0.count), as: UTF8.self) } ?? decodedKey
        let value = try parseValue(depth: depth)
        if context != .geometry {
          if key == "crs" && context == .top {
            parts.droppedCRS = true
          } else {
            try Self.checkDuplicate(key, in: parts.foreign, at: keyIndex)
            parts.foreign.appendUnchecked(key, value)
          }
        }
      }
      let c = try peek()
      i += 1
      if c == 0x7D { return parts }
      guard c == 0x2C else {
        i -= 1
        throw unexpected("',' or '}' after an object member")
      }
    }
  }

  private func recognise(_ range: Range<Int>, _ context: GeoJSONContext) -> Member? {
    guard range.count >= 2 && range.count <= 11 else { return nil }
    switch base[range.lowerBound] {
    case 0x74: return matches(range, "type") ? .type : nil
    case 0x69: return context != .geometry && matches(range, "id") ? .id : nil
    case 0x67:
      if context != .geometry && matches(range, "geometry") { return .geometry }
      return context != .feature && matches(range, "geometries") ? .geometries : nil
    case 0x70: return context != .geometry && matches(range, "properties") ? .properties : nil
    case 0x62: return matches(range, "bbox") ? .bbox : nil
    case 0x63: return context != .feature && matches(range, "coordinates") ? .coordinates : nil
    case 0x66: return context == .top && matches(range, "features") ? .features : nil
    default: return nil
    }
  }

  /// Recognises the common `type` values without building a string.
  private func knownType(_ range: Range<Int>) -> (name: String, kind: GeometryKind?)? {
    switch range.count {
    case 5: return matches(range, "Point") ? ("Point", .point) : nil
    case 7:
      if matches(range, "Feature") { return ("Feature", nil) }
      return matches(range, "Polygon") ? ("Polygon", .polygon) : nil
    case 10:
      if matches(range, "LineString") { return ("LineString", .lineString) }
      return matches(range, "MultiPoint") ? ("MultiPoint", .multiPoint) : nil
    case 12: return matches(range, "MultiPolygon") ? ("MultiPolygon", .multiPolygon) : nil
    case 15: return matches(range, "MultiLineString") ? ("MultiLineString", .multiLineString) : nil
    case 17: return matches(range, "FeatureCollection") ? ("FeatureCollection", nil) : nil
    case 18:
      return matches(range, "GeometryCollection") ? ("GeometryCollection", .geometryCollection) : nil
    default: return nil
    }
  }

  private func keyName(_ member: Member) -> String {
    switch member {
    case .type: "type"
    case .id: "id"
    case .geometry: "geometry"
    case .properties: "properties"
    case .bbox: "bbox"
    case .coordinates: "coordinates"
    case .geometries: "geometries"
    case .features: "features"
    }
  }

  private mutating func parseBBox() throws -> [Double] {
    let start = i
    guard try peek() == 0x5B else { throw ScanError("\"bbox\" must be an array of numbers", at: i, structural: true) }
    i += 1
    var values: [Double] = []
    if try peek() != 0x5D {
      while true {
        let c = try peek()
        guard c == 0x2D || (c >= 0x30 && c <= 0x39) else {
          throw ScanError("\"bbox\" must be an array of numbers", at: i, structural: true)
        }
        values.append(try parseDouble().value)
        let next = try peek()
        i += 1
        if next == 0x5D { break }
        guard next == 0x2C else {
          i -= 1
          throw unexpected("',' or ']' in \"bbox\"")
        }
      }
    } else {
      i += 1
    }
    guard values.count == 4 || values.count == 6 else {
      throw ScanError("\"bbox\" must have 4 or 6 numbers, not \(values.count)", at: start, structural: true)
    }
    return values
  }

  // MARK: Geometry

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
      let name = raw.map { matches($0, "coordinates") ? "coordinates" : (matches($0, "type") ? "type" : "") } ?? decodedKey
      if name == "coordinates" || name == "type" {
        if name == "type" || geometry != nil {
          throw ScanError("duplicate key \"\(name)\" in an object", at: memberStart, structural: true)
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
    let parts = try parseGeoJSONObject(.geometry, checkRanges: checkRanges, depth: depth)
    return try makeGeometry(parts, checkRanges: checkRanges)
  }

  private mutating func parseGeometryArray(checkRanges: Bool, depth: Int) throws -> [Geometry] {
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
      let hint = GeometryKind(caseInsensitive: type).map { " (did you mean \"\($0.rawValue)\"?)" } ?? ""
      throw ScanError("unknown geometry type \"\(type)\"\(hint)", at: parts.typeIndex, structural: true)
    }
    if kind == .geometryCollection {
      guard let members = parts.geometries else {
        throw ScanError("GeometryCollection has no \"geometries\" member", at: parts.start, structural: true)
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
    case .point: return .point(try parsePosition(checkRanges: checkRanges))
    case .multiPoint: return .multiPoint(try parsePositions(minimum: 0, ring: false, checkRanges))
    case .lineString: return .lineString(try parseLine(checkRanges))
    case .multiLineString:
      return .multiLineString(try parseList { s in try s.parsePositions(minimum: 2, ring: false, checkRanges) })
    case .polygon:
      return .polygon(try parseList { s in try s.parsePositions(minimum: 4, ring: true, checkRanges) })
    case .multiPolygon:
      return .multiPolygon(
        try parseList { s in
          try s.parseList { r in try r.parsePositions(minimum: 4, ring: true, checkRanges) }
        })
    case .geometryCollection:
      throw ScanError("a GeometryCollection has \"geometries\", not \"coordinates\"", at: i, structural: true)
    }
  }

  /// A LineString may be empty (`[]`), else needs two positions.
  private mutating func parseLine(_ checkRanges: Bool) throws -> CoordinateArray {
    _ = try peek()
    let start = i
    let line = try parsePositions(minimum: 0, ring: false, checkRanges)
    if line.count == 1 {
      throw ScanError("a LineString needs at least two positions, found 1", at: start, structural: true)
    }
    return line
  }

  private mutating func parseList<T>(_ element: (inout JSONScanner) throws -> T) throws -> [T] {
    guard try peek() == 0x5B else { throw ScanError("expected an array of coordinates", at: i, structural: true) }
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
  mutating func parsePositions(minimum: Int, ring: Bool, _ checkRanges: Bool) throws -> CoordinateArray {
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
      let what = ring ? "a polygon ring needs at least four positions" : "a line needs at least two positions"
      throw ScanError("\(what), found \(array.count)", at: start, structural: true)
    }
    if ring, let first = array.first, let last = array.last, first != last {
      throw ScanError(
        "polygon ring is not closed: its first and last positions differ", at: start, structural: true)
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
            throw ScanError("coordinates are nested too deeply for this geometry type", at: i, structural: true)
          }
          throw ScanError("a position must contain only numbers, found \(describeByte(at: i))", at: i, structural: true)
        }
        let (value, at) = try parseDouble()
        guard value.isFinite else {
          throw ScanError("coordinate is not a finite number", at: at, structural: true)
        }
        if checkRanges {
          if count == 0 && !(value >= -180 && value <= 180) {
            throw ScanError("longitude \(value) is out of range [-180, 180] (use --crs if these are not WGS84 degrees)", at: at, structural: true)
          }
          if count == 1 && !(value >= -90 && value <= 90) {
            throw ScanError("latitude \(value) is out of range [-90, 90] (use --crs if these are not WGS84 degrees)", at: at, structural: true)
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
      throw ScanError("a position needs at least two numbers, found \(count)", at: start, structural: true)
    }
    return Position(x: values.0, y: values.1, z: values.2, m: values.3)
  }
}

extension JSONScanner {
  /// Parses the members of a FeatureCollection after its `features` array, through the
  /// closing `}`; returns where a legacy `crs` member was, if there was one.
  mutating func parseCollectionTail(typeSeen: Bool) throws -> Int? {
    var typeSeen = typeSeen
    var crsIndex: Int?
    while true {
      let c = try peek()
      i += 1
      if c == 0x7D { return crsIndex }
      guard c == 0x2C else {
        i -= 1
        throw unexpected("',' or '}' after the \"features\" array")
      }
      guard try peek() == 0x22 else { throw unexpected("a string key") }
      let key = try parseString()
      try expect(0x3A, "':' after an object key")
      let valueIndex = i
      let value = try parseValue(depth: 1)
      if key == "type" {
        guard !typeSeen else {
          throw ScanError("duplicate key \"type\" in an object", at: valueIndex, structural: true)
        }
        guard value.stringValue == "FeatureCollection" else {
          throw ScanError(
            "an object with \"features\" must be a FeatureCollection", at: valueIndex,
            structural: true)
        }
        typeSeen = true
      } else if key == "crs" {
        crsIndex = valueIndex
      }
    }
  }

  /// Whether the object at the current index is a FeatureCollection, judged by its `type`
  /// or a `features` member, reading no further than needed. The index is left unchanged.
  mutating func isFeatureCollection() throws -> Bool {
    let start = i
    defer { i = start }
    try expect(0x7B, "'{'")
    if try peek() == 0x7D { return false }
    while true {
      guard try peek() == 0x22 else { throw unexpected("a string key") }
      var decoded = ""
      let raw = try scanString(decoded: &decoded)
      try expect(0x3A, "':' after an object key")
      let isType = raw.map { matches($0, "type") } ?? (decoded == "type")
      let isFeatures = raw.map { matches($0, "features") } ?? (decoded == "features")
      if isFeatures { return true }
      if try isType && peek() == 0x22 {
        var value = ""
        if let range = try scanString(decoded: &value) {
          return matches(range, "FeatureCollection")
        }
        return value == "FeatureCollection"
      }
      try skipValue(depth: 1)
      let c = try peek()
      i += 1
      if c == 0x7D { return false }
      guard c == 0x2C else {
        i -= 1
        throw unexpected("',' or '}' after an object member")
      }
    }
  }
}
