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
