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
  /// The property columns, in order; other properties are left out.
  ///
  /// By default the columns are every property of every feature, in the order first seen.
  public var columns: [String]?
  /// Coordinate columns or WKT.
  public var geometryFormat = CSVGeometryFormat.auto
  /// The field delimiter.
  public var delimiter: UInt8 = 0x2C
  /// Where rows wait until the header is known (the output's folder); the system's temporary
  /// folder when nil.
  public var scratchFolder: String?

  /// Default options.
  public init() {}
}

/// Writes features as CSV (RFC 4180): geometry columns first, then the properties.
///
/// Without a list of columns the columns are the union of all features' properties in the
/// order they are first seen: rows wait in a scratch file and the header is written when the
/// last feature has been seen, each row padded with empty cells for the columns that appeared
/// after it. Strings are written as they are, numbers as their JSON text, null as an empty
/// cell, and arrays and objects as JSON. Fields are quoted when they contain the delimiter, a
/// quote or a line break.
public final class CSVWriter: BufferedFeatureWriter, FeatureWriter {
  private let options: CSVWriteOptions
  private let precision: Int?
  private var columns: [String] = []
  private var columnIndex: [String: Int] = [:]
  private var useWKT = false
  private var started = false
  private var index = 0
  /// Rows of the union layout, waiting for the header.
  private var scratch: ScratchFile?
  private var scratchBytes = 0
  /// Where in the scratch file the rows with each column count start (counts only grow).
  private var segments: [(offset: Int, columns: Int)] = []
  private var slots: [JSONValue?] = []

  /// Creates a writer.
  public init(sink: ByteSink, options: WriteOptions = WriteOptions()) {
    self.options = options.csv
    precision = options.precision
    if let chosen = options.csv.columns {
      columns = chosen
      for (k, name) in chosen.enumerated() where columnIndex[name] == nil { columnIndex[name] = k }
    }
    super.init(sink: sink)
  }

  /// Writes one row (and, with fixed columns, the header before the first).
  public func write(_ feature: Feature) throws {
    if !started { try start(with: feature) }
    let isUnion = options.columns == nil
    if isUnion, let properties = feature.properties {
      let before = columns.count
      for key in properties.keys where columnIndex[key] == nil {
        columnIndex[key] = columns.count
        columns.append(key)
      }
      if columns.count != before {
        segments.append((scratchBytes + text.bytes.count, columns.count))
      }
    }
    try writeGeometry(of: feature)
    slots.removeAll(keepingCapacity: true)
    slots.append(contentsOf: repeatElement(nil, count: columns.count))
    for member in feature.properties?.members ?? [] {
      if let k = columnIndex[member.key], slots[k] == nil { slots[k] = member.value }
    }
    for slot in slots {
      text.bytes.append(options.delimiter)
      if let value = slot { cell(value) }
    }
    text.bytes.append(0x0A)
    index += 1
    if isUnion {
      if text.bytes.count >= 1 << 20 { try spill() }
    } else {
      try flushIfFull()
    }
  }

  /// Writes the header (and the waiting rows), flushes and commits.
  ///
  /// Without features the output is empty, unless the columns were given.
  public func finish() throws {
    if options.columns != nil {
      if !started { try start(with: Feature()) }
    } else if started {
      try copyRows()
    }
    try flush()
    try sink.commit()
  }

  // MARK: Layout

  private func start(with feature: Feature) throws {
    started = true
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
    if options.columns != nil {
      writeHeader()
    } else {
      scratch = try ScratchFile(
        in: options.scratchFolder ?? ScratchFile.temporaryFolder, for: "the CSV output")
      segments = [(0, 0)]
    }
  }

  private func writeHeader() {
    var names = useWKT ? ["geometry"] : ["longitude", "latitude"]
    names += columns
    for (k, name) in names.enumerated() {
      if k > 0 { text.bytes.append(options.delimiter) }
      field(name)
    }
    text.bytes.append(0x0A)
  }

  private func writeGeometry(of feature: Feature) throws {
    if useWKT {
      if let geometry = feature.geometry { field(WKTWriter.string(geometry, precision: precision)) }
      return
    }
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

  // MARK: Rows waiting for the header

  /// Moves buffered rows to the scratch file.
  private func spill() throws {
    guard let scratch, !text.bytes.isEmpty else { return }
    try text.bytes.withUnsafeBytes { try scratch.write($0) }
    scratchBytes += text.bytes.count
    text.bytes.removeAll(keepingCapacity: true)
  }

  /// Writes the header, then the waiting rows, padding rows written before the last columns
  /// appeared with empty cells.
  private func copyRows() throws {
    var pending = text.bytes
    text.bytes.removeAll(keepingCapacity: true)
    writeHeader()
    let total = columns.count
    // The last segment has every column: it is copied as it is.
    let full = segments.last?.offset ?? 0
    var offset = 0
    var segment = 0
    var quoted = false
    let delimiter = options.delimiter
    func copy(_ block: UnsafeRawBufferPointer) throws {
      var k = 0
      while k < block.count {
        if offset + k >= full {
          text.bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: block[k...]))
          break
        }
        while segment + 1 < segments.count && segments[segment + 1].offset <= offset + k {
          segment += 1
        }
        let c = block[k]
        if c == 0x22 {
          quoted.toggle()
        } else if c == 0x0A && !quoted {
          let missing = total - segments[segment].columns
          text.bytes.append(contentsOf: repeatElement(delimiter, count: missing))
        }
        text.bytes.append(c)
        k += 1
      }
      offset += block.count
      try flushIfFull()
    }
    try scratch?.readAll(copy)
    try pending.withUnsafeBytes(copy)
    pending = []
    scratch = nil
  }

  // MARK: Cells

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
