import GeoPipeCore

/// How the CSV writer lays out geometry.
public enum CSVGeometryFormat: String, CaseIterable, Sendable {
  /// `longitude,latitude` columns when the first feature is a point (or has no geometry),
  /// else a WKT `geometry` column.
  case auto
  /// `longitude,latitude` columns; other geometry types are an error.
  case xy
  /// A WKT `geometry` column.
  case wkt
}

/// CSV output settings.
public struct CSVWriteOptions: Sendable {
  /// The property columns, in order; by default the first feature's properties.
  public var columns: [String]?
  /// Drop properties that are not columns instead of failing.
  public var ignoreExtraProperties = false
  /// Coordinate columns or WKT.
  public var geometryFormat = CSVGeometryFormat.auto
  /// The field delimiter.
  public var delimiter: UInt8 = 0x2C

  /// Default options.
  public init() {}
}

/// Writes features as CSV (RFC 4180): geometry columns first, then the properties.
///
/// Strings are written as they are, numbers as their JSON text, null as an empty cell, and
/// arrays and objects as JSON. Fields are quoted when they contain the delimiter, a quote or a
/// line break.
public final class CSVWriter: BufferedFeatureWriter, FeatureWriter {
  private let options: CSVWriteOptions
  private let precision: Int?
  private var columns: [String]?
  private var useWKT = false
  private var index = 0

  /// Creates a writer.
  public init(sink: ByteSink, options: WriteOptions = WriteOptions()) {
    self.options = options.csv
    precision = options.precision
    super.init(sink: sink)
  }

  /// Writes one row (and the header before the first).
  public func write(_ feature: Feature) throws {
    if columns == nil { writeHeader(for: feature) }
    let columns = self.columns ?? []
    if !options.ignoreExtraProperties, let properties = feature.properties {
      for member in properties.members where !columns.contains(member.key) {
        throw GeoPipeError.data(
          "feature \(index) has a property \"\(member.key)\" that is not a CSV column "
            + "(columns come from the first feature): use --columns or --ignore-extra-properties",
          at: nil)
      }
    }
    if useWKT {
      if let geometry = feature.geometry { field(WKTWriter.string(geometry, precision: precision)) }
    } else {
      switch feature.geometry {
      case .point(let p)?:
        text.writeCoordinate(p.x, precision: precision)
        text.bytes.append(options.delimiter)
        text.writeCoordinate(p.y, precision: precision)
      case nil:
        text.bytes.append(options.delimiter)
      case let other?:
        throw GeoPipeError.data(
          "feature \(index) is a \(other.typeName), but the CSV has longitude/latitude columns "
            + "(chosen from the first feature): use --geometry-format wkt", at: nil)
      }
    }
    for column in columns {
      text.bytes.append(options.delimiter)
      if let value = feature.properties?[column] { cell(value) }
    }
    text.bytes.append(0x0A)
    index += 1
    try flushIfFull()
  }

  /// Writes the header if there were no features, flushes and commits.
  public func finish() throws {
    if columns == nil && options.columns != nil { writeHeader(for: Feature()) }
    try flush()
    try sink.commit()
  }

  private func writeHeader(for feature: Feature) {
    let chosen = options.columns ?? feature.properties?.keys ?? []
    columns = chosen
    switch options.geometryFormat {
    case .wkt: useWKT = true
    case .xy: useWKT = false
    case .auto:
      if case .point? = feature.geometry {
        useWKT = false
      } else {
        useWKT = feature.geometry != nil
      }
    }
    var names = useWKT ? ["geometry"] : ["longitude", "latitude"]
    names += chosen
    for (k, name) in names.enumerated() {
      if k > 0 { text.bytes.append(options.delimiter) }
      field(name)
    }
    text.bytes.append(0x0A)
  }

  private func cell(_ value: JSONValue) {
    switch value {
    case .null: break
    case .string(let s): field(s)
    case .bool, .integer, .bigInteger, .double, .bigNumber:
      text.writeValue(value)
    case .array, .object:
      var json = JSONTextWriter()
      json.writeValue(value)
      field(String(decoding: json.bytes, as: UTF8.self))
    }
  }

  private func field(_ value: String) {
    let d = options.delimiter
    let needsQuotes = value.utf8.contains { $0 == d || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }
    guard needsQuotes else {
      text.bytes.append(contentsOf: value.utf8)
      return
    }
    text.bytes.append(0x22)
    for c in value.utf8 {
      if c == 0x22 { text.bytes.append(0x22) }
      text.bytes.append(c)
    }
    text.bytes.append(0x22)
  }
}
