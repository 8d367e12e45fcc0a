import GeoPipeCore
import GeoPipeIO

/// Writes the repaired copy of one file for `--fix`: `name.fixed.ext` beside it, in the same
/// format, replaced atomically and only when the whole file could be read.
struct Repair {
  let path: String
  let validity: (any ValidityChecker)?
  let reader: any FeatureReader
  private var writer: (any FeatureWriter)?
  /// Features changed so far.
  var repaired = 0
  /// Unreadable features left out so far.
  var dropped = 0

  init(input: String, reader: any FeatureReader, validity: (any ValidityChecker)?) throws {
    guard input != "-" else {
      throw GeoPipeError.usage("--fix writes a copy beside each file; it cannot fix standard input")
    }
    path = Repair.fixedPath(for: input)
    self.reader = reader
    self.validity = validity
    var options = WriteOptions()
    options.rewind = true
    // The copy is in the input's format: CSV as read (its delimiter), else as the name says.
    let format: FeatureFormat =
      reader is CSVReader ? .csv : (FeatureFormats.writing(input) ?? .geoJSON)
    if let csv = reader as? CSVReader { options.csv.delimiter = csv.delimiter }
    writer = try FeatureWriters.open(path, format: format, options: options)
  }

  /// `places.geojson` → `places.fixed.geojson`; `a/b.csv.gz` → `a/b.fixed.csv.gz`.
  static func fixedPath(for input: String) -> String {
    let slash = input.lastIndex(of: "/").map { input.index(after: $0) } ?? input.startIndex
    var name = String(input[slash...])
    var suffix = ""
    if name.lowercased().hasSuffix(".gz") {
      suffix = String(name.suffix(3))
      name.removeLast(3)
    }
    if let dot = name.lastIndex(of: "."), dot != name.startIndex {
      suffix = String(name[dot...]) + suffix
      name = String(name[..<dot])
    }
    return String(input[..<slash]) + name + ".fixed" + suffix
  }

  /// Writes the repaired feature; `knownValid` says GEOS already found its geometry valid.
  mutating func write(_ feature: Feature, knownValid: Bool = false) throws {
    guard let writer else { return }
    var fixed = feature
    if let geometry = feature.geometry {
      let repairedGeometry = try Repair.repair(
        geometry, validity: validity, knownValid: knownValid)
      if repairedGeometry != geometry { repaired += 1 }
      fixed.geometry = repairedGeometry
    }
    try writer.write(fixed)
  }

  /// Commits the copy and records it in the summary.
  mutating func finish(summary: inout FileSummary) throws {
    guard let writer else { return }
    (writer as? GeoJSONWriter)?.collectionMembers = reader.collectionMembers
    try writer.finish()
    summary.fixedPath = path
    summary.repaired = repaired
    summary.dropped = dropped
    self.writer = nil
  }

  /// Discards the copy.
  mutating func abort() {
    writer?.abort()
    writer = nil
  }

  /// The geometry with consecutive duplicates dropped, split at the antimeridian, made valid
  /// by GEOS when it is invalid, and wound as RFC 7946 asks.
  static func repair(
    _ geometry: Geometry, validity: (any ValidityChecker)?, knownValid: Bool = false
  ) throws -> Geometry {
    var result = Antimeridian.split(GeometryRepair.droppingDuplicates(geometry))
    let unchanged = knownValid && result == geometry
    if let validity, !unchanged, !GeometryChecks.isEmpty(result),
      try validity.invalidity(of: result) != nil,
      let valid = try? validity.makeValid(result)
    {
      result = valid
    }
    return result.rewound()
  }
}
