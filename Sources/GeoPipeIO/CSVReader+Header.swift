import GeoPipeCore

/// The header: the delimiter, column names, and which columns hold the geometry.
extension CSVReader {
  func readHeader() throws {
    delimiter = options.csv.delimiter ?? detectDelimiter()
    guard try readRecord() else { return }
    let recordStart = fields.first?.lowerBound ?? 0
    header = try fields.indices.map { try text(of: $0) }
    var seen: [String: Int] = [:]
    for (k, name) in header.enumerated() {
      if seen[name] != nil {
        throw GeoPipeError.data(
          "duplicate column name \"\(name)\": column names must be distinct",
          at: buffer.location(of: fields[k].lowerBound))
      }
      seen[name] = k
    }
    geometrySource = try chooseGeometryColumns(at: recordStart)
    let used: Set<Int> =
      switch geometrySource {
      case .none: []
      case .latLon(let lat, let lon): [lat, lon]
      case .wkt(let column): [column]
      }
    propertyColumns = header.indices.filter { !used.contains($0) }
  }

  private func detectDelimiter() -> UInt8 {
    let candidates: [UInt8] = [0x2C, 0x3B, 0x09, 0x7C]
    var counts = [Int](repeating: 0, count: candidates.count)
    var inQuotes = false
    var k = 0
    while k < buffer.end {
      let c = buffer.bytes[k]
      if c == 0x22 { inQuotes.toggle() }
      if !inQuotes {
        if c == 0x0A || c == 0x0D { break }
        if let slot = candidates.firstIndex(of: c) { counts[slot] += 1 }
      }
      k += 1
    }
    var best = 0
    for slot in counts.indices where counts[slot] > counts[best] { best = slot }
    return candidates[best]
  }

  private func column(named name: String, option: String, at index: Int) throws -> Int {
    if let exact = header.firstIndex(of: name) { return exact }
    let lowered = name.lowercased()
    if let loose = header.firstIndex(where: { $0.lowercased() == lowered }) { return loose }
    throw GeoPipeError(
      "\(option) names column \"\(name)\", which is not in the header "
        + "(columns: \(header.map { "\"\($0)\"" }.joined(separator: ", ")))",
      at: buffer.location(of: index), status: .usage)
  }

  /// The one column whose name says `axis` best (see `CoordinateName`), if any.
  private func find(_ axis: CoordinateName.Axis, option: String, at index: Int) throws -> Int? {
    let ranks = header.map { CoordinateName.rank($0, as: axis) }
    guard let best = ranks.compactMap({ $0 }).min() else { return nil }
    let matches = header.indices.filter { ranks[$0] == best }
    guard matches.count == 1 else {
      let list = matches.map { "\"\(header[$0])\"" }.joined(separator: ", ")
      throw GeoPipeError.data(
        "ambiguous \(axis.rawValue) columns \(list): choose one with \(option)",
        at: buffer.location(of: index))
    }
    return matches.first
  }

  private func find(_ names: [String], what: String, option: String, at index: Int) throws -> Int? {
    let matches = header.indices.filter {
      names.contains(header[$0].trimmingSpaces().lowercased())
    }
    guard matches.count <= 1 else {
      let list = matches.map { "\"\(header[$0])\"" }.joined(separator: ", ")
      throw GeoPipeError.data(
        "ambiguous \(what) columns \(list): choose one with \(option)",
        at: buffer.location(of: index))
    }
    return matches.first
  }

  /// Warns when no coordinate columns were found although some names look like coordinates,
  /// saying which: the features are read without geometry.
  private func warnAboutMissedCoordinates(lat: Int?, lon: Int?, at index: Int) {
    let considered = header.indices.filter {
      $0 == lat || $0 == lon || CoordinateName.looksLikeCoordinate(header[$0])
    }
    guard !considered.isEmpty else { return }
    let list = considered.map { "\"\(header[$0])\"" }.joined(separator: ", ")
    let found: String
    if let lat {
      found = "found the latitude column \"\(header[lat])\" but no longitude column"
    } else if let lon {
      found = "found the longitude column \"\(header[lon])\" but no latitude column"
    } else {
      found = "found no coordinate columns"
    }
    options.diagnostics(
      ReadDiagnostic(
        severity: .warning,
        message: "\(found), so the features have no geometry (columns considered: \(list)); "
          + "name the coordinate columns with --lat and --lon",
        location: buffer.location(of: index)))
  }

  private func chooseGeometryColumns(at index: Int) throws -> GeometrySource {
    let csv = options.csv
    if let name = csv.geometryColumn {
      return .wkt(try column(named: name, option: "--geometry", at: index))
    }
    if csv.latitudeColumn != nil || csv.longitudeColumn != nil {
      guard let latName = csv.latitudeColumn, let lonName = csv.longitudeColumn else {
        throw GeoPipeError.usage("--lat and --lon go together: name both columns")
      }
      return .latLon(
        lat: try column(named: latName, option: "--lat", at: index),
        lon: try column(named: lonName, option: "--lon", at: index))
    }
    let lat = try find(.latitude, option: "--lat", at: index)
    let lon = try find(.longitude, option: "--lon", at: index)
    let wkt = try find(
      ["wkt", "geometry", "geom"], what: "geometry", option: "--geometry", at: index)
    if let lat, let lon {
      if let wkt {
        throw GeoPipeError.data(
          "both coordinate columns (\"\(header[lon])\", \"\(header[lat])\") and a geometry column "
            + "(\"\(header[wkt])\") were found: choose with --lat/--lon or --geometry",
          at: buffer.location(of: index))
      }
      return .latLon(lat: lat, lon: lon)
    }
    if let wkt { return .wkt(wkt) }
    warnAboutMissedCoordinates(lat: lat, lon: lon, at: index)
    return .none
  }
}
