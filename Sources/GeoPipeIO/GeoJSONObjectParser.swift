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
  /// Where a legacy `crs` member (dropped) was.
  var crsIndex: Int?
  /// Finds a foreign member's key that repeats another's.
  var duplicates = DuplicateKeyFinder()
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
  /// Parses the members of a GeoJSON object from `{` to `}` into `parts` (fresh ones); at the top
  /// level it stops after the `[` of a `features` array, with `startsFeatureCollection` set.
  ///
  /// The caller owns the parts: returning so large a struct would copy it.
  mutating func parseGeoJSONObject(
    _ context: GeoJSONContext, into parts: inout GeoJSONParts, checkRanges: Bool, depth: Int
  ) throws {
    guard depth <= maxDepth else {
      throw ScanError("nesting deeper than \(maxDepth) levels", at: i)
    }
    parts.start = i
    try expect(0x7B, "'{'")
    if try peek() == 0x7D {
      i += 1
      return
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
          throw ScanError(
            "duplicate key \"\(keyName(member))\" in an object", at: keyIndex, structural: true)
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
          case .string, .integer, .bigInteger, .double, .bigNumber: parts.id = value
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
          return
        }
      } else {
        let key =
          raw.map {
            String(
              decoding: UnsafeBufferPointer(start: base + $0.lowerBound, count: $0.count),
              as: UTF8.self)
          } ?? decodedKey
        let value = try parseValue(depth: depth)
        if context != .geometry {
          if key == "crs" && context == .top {
            parts.crsIndex = keyIndex
          } else {
            try parts.duplicates.check(key, among: parts.foreign.members, at: keyIndex)
            parts.foreign.appendUnchecked(key, value)
          }
        }
      }
      let c = try peek()
      i += 1
      if c == 0x7D { return }
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
  func knownType(_ range: Range<Int>) -> (name: String, kind: GeometryKind?)? {
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
      return matches(range, "GeometryCollection")
        ? ("GeometryCollection", .geometryCollection) : nil
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
    guard try peek() == 0x5B else {
      throw ScanError("\"bbox\" must be an array of numbers", at: i, structural: true)
    }
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
      throw ScanError(
        "\"bbox\" must have 4 or 6 numbers, not \(values.count)", at: start, structural: true)
    }
    return values
  }
}
