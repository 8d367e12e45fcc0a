import GeoPipeCore

extension JSONScanner {
  /// Parses the members of a FeatureCollection after its `features` array, through the
  /// closing `}`, adding its foreign members to `members`; returns where a legacy `crs` member
  /// was, if there was one.
  mutating func parseCollectionTail(typeSeen: Bool, members: inout JSONObject) throws -> Int? {
    var typeSeen = typeSeen
    var crsIndex: Int?
    var duplicates = DuplicateKeyFinder()
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
      } else if key != "bbox" {
        try duplicates.check(key, among: members.members, at: valueIndex)
        members.appendUnchecked(key, value)
      }
    }
  }

  /// Whether the object at the current index is a FeatureCollection, judged by its `type` or a
  /// `features` member, reading no further than needed.
  ///
  /// The index is left unchanged.
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

/// The legacy `crs` member of GeoJSON 2008, in the named-CRS form GDAL writes and reads:
/// `"crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::5070"}}`.
///
/// RFC 7946 removed it (coordinates are WGS84 longitude/latitude), but a file of projected
/// coordinates must say what they are: `write --crs X --allow-non-wgs84` writes it, and
/// reading a file whose member names another CRS reprojects it to WGS84.
public enum GeoJSONCRS {
  /// The URN for a CRS given as `AUTHORITY:CODE` (`EPSG:5070` → `urn:ogc:def:crs:EPSG::5070`)
  /// or already as a URN; nil for other spellings (PROJ strings, WKT), which the member cannot
  /// carry.
  public static func urn(for crs: String) -> String? {
    if crs.lowercased().hasPrefix("urn:ogc:def:crs:") { return crs }
    let parts = crs.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty,
      parts[0].allSatisfy({ $0.isLetter }),
      parts[1].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "_" })
    else { return nil }
    return "urn:ogc:def:crs:\(parts[0].uppercased())::\(parts[1])"
  }

  /// `AUTHORITY:CODE` for a URN (`urn:ogc:def:crs:EPSG::5070` and
  /// `urn:ogc:def:crs:EPSG:8.9:5070` → `EPSG:5070`); other names as they are.
  public static func shortName(_ name: String) -> String {
    guard name.lowercased().hasPrefix("urn:ogc:def:crs:") else { return name }
    let parts = name.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count >= 6 else { return name }
    return "\(parts[4]):\(parts[parts.count - 1])"
  }

  /// Whether a name means WGS84 longitude/latitude (EPSG:4326, OGC:CRS84 and their URNs).
  public static func isWGS84(_ name: String) -> Bool {
    ["epsg:4326", "epsg:4979", "ogc:crs84", "ogc:crs84h", "crs84", "wgs84"].contains(
      shortName(name).lowercased())
  }

  /// The note a reader gives at a `crs` member.
  static func note(declared: String?) -> String {
    guard let declared else {
      return "dropped the legacy \"crs\" member: GeoJSON coordinates are WGS84 (RFC 7946 §4)"
    }
    return "the legacy \"crs\" member says the coordinates are in \(declared): reprojecting "
      + "them to WGS84 longitude/latitude"
  }

  /// Writes `,"crs":{…}` naming `urn`.
  static func writeMember(_ urn: String, into text: inout JSONTextWriter) {
    text.raw(",\"crs\":{\"type\":\"name\",\"properties\":{\"name\":")
    text.writeString(urn)
    text.raw("}}")
  }

  /// The CRS a FeatureCollection's `crs` member names before its `features`, found in the
  /// first bytes of an input (`AUTHORITY:CODE` for a URN); nil when there is none, when it
  /// names WGS84, or when the bytes are not such a collection.
  static func declared(in bytes: UnsafePointer<UInt8>, count: Int) -> String? {
    var s = JSONScanner(base: bytes, end: count, isFinal: true, at: 0)
    do {
      s.skipWhitespace()
      try s.expect(0x7B, "'{'")
      while try s.peek() == 0x22 {
        let key = try s.parseString()
        try s.expect(0x3A, "':'")
        if key == "features" { return nil }
        if key == "crs" {
          let value = try s.parseValue(depth: 1)
          guard case .object(let crs) = value, case .object(let properties)? = crs["properties"],
            let name = properties["name"]?.stringValue
          else { return nil }
          return isWGS84(name) ? nil : shortName(name)
        }
        try s.skipValue(depth: 1)
        guard try s.peek() == 0x2C else { return nil }
        s.i += 1
      }
    } catch {}
    return nil
  }
}
