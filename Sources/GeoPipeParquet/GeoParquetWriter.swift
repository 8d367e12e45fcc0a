import GeoPipeCore
import GeoPipeGeometry
import GeoPipeIO

/// Writes GeoParquet 1.1: a WKB `geometry` column, a `bbox` covering struct column, and a
/// column per property, typed from the union of all features' values.
///
/// Parquet's schema is in the footer but every row group must hold every column with one type,
/// so features wait in a scratch file beside the output (their geometry as WKB, their
/// properties tagged with their kinds) until the input ends; `finish()` then types the columns
/// and writes the row groups. Memory holds one row group's columns.
public final class GeoParquetWriter: FeatureWriter {
  /// Features per row group unless `--row-group-size` says otherwise.
  public static let defaultRowGroupSize = 65_536
  /// Encoded bytes after which a row group ends early.
  static let rowGroupBytes = 128 << 20

  private let output: FormatOutput
  private let scratch: ScratchFile
  private let rowGroupSize: Int
  private let codec: Codec
  private let covering: Bool
  private let precision: Int?
  private let crsJSON: String?
  private let diagnostics: @Sendable (ReadDiagnostic) -> Void
  private var pending: [UInt8] = []
  private var recordSizes: [Int] = []

  private var columns = PropertyColumns()
  private var count = 0
  private var idCount = 0
  private var extent = BBox.empty
  private var geometryTypes: [String] = []
  private var finished = false

  /// Creates a writer; a CRS other than WGS84 (`--crs`) is recorded as PROJJSON.
  public init(output: FormatOutput, options: WriteOptions) throws {
    if output.isCompressed {
      throw GeoPipeError.usage(
        "GeoParquet cannot be written gzip-compressed (its pages are compressed): drop the .gz")
    }
    self.output = output
    let folder =
      output.path == "-" ? ScratchFile.temporaryFolder : OutputPath.parent(of: output.path)
    scratch = try ScratchFile(in: folder, for: output.path)
    let size = options.formatOptions.integer("row-group-size") ?? Self.defaultRowGroupSize
    guard size > 0 else { throw GeoPipeError.usage("--row-group-size must be at least 1") }
    rowGroupSize = size
    let name = options.formatOptions.string("compression") ?? "zstd"
    guard let codec = PageCodec.compressionNames.first(where: { $0.0 == name })?.1 else {
      throw GeoPipeError.usage("unknown --compression '\(name)'")
    }
    self.codec = codec
    covering = !options.formatOptions.flag("no-covering")
    precision = options.precision
    diagnostics = options.diagnostics
    if let crs = options.crs {
      guard let json = CoordinateTransformer.projJSON(crs) else {
        throw GeoPipeError.usage(
          "GeoParquet records a CRS as PROJJSON, and PROJ cannot describe '\(crs)' so")
      }
      crsJSON = json
    } else {
      self.crsJSON = nil
    }
    pending.reserveCapacity(1 << 20)
  }

  /// Queues one feature (in the scratch file).
  public func write(_ feature: Feature) throws {
    let start = pending.count
    pending.append(contentsOf: repeatElement(0, count: 4))
    if var geometry = feature.geometry {
      if let precision { geometry.round(toDecimals: precision) }
      var box = BBox.empty
      geometry.forEachXY { x, y in box.extend(x: x, y: y) }
      extent.extend(box)
      let type = geometry.typeName + (geometry.hasZ ? " Z" : "")
      if !geometryTypes.contains(type) { geometryTypes.append(type) }
      pending.append(1)
      for value in [box.west, box.south, box.east, box.north] {
        ColumnChunkEncoder.append(value.bitPattern, to: &pending)
      }
      let lengthAt = pending.count
      pending.append(contentsOf: repeatElement(0, count: 4))
      WKBWriter.append(geometry, to: &pending)
      Self.set32(&pending, at: lengthAt, pending.count - lengthAt - 4)
    } else {
      pending.append(0)
    }
    if feature.id != nil { idCount += 1 }
    try columns.append(feature.properties ?? JSONObject(), to: &pending)
    Self.set32(&pending, at: start, pending.count - start - 4)
    recordSizes.append(pending.count - start)
    count += 1
    if pending.count >= 1 << 20 { try flushPending() }
  }

  /// Types the columns, writes the row groups and the footer, and commits the file.
  public func finish() throws {
    guard !finished else { return }
    finished = true
    try flushPending()
    if idCount > 0 {
      diagnostics(
        ReadDiagnostic(
          severity: .warning,
          message: "\(idCount) feature ids were not written: GeoParquet has no feature id "
            + "(copy them into a property to keep them)"))
    }
    for note in columns.notes() { diagnostics(ReadDiagnostic(severity: .note, message: note)) }
    let layout = ParquetLayout(properties: columns, covering: covering)
    var file = try ParquetFileWriter(sink: output.file, codec: codec, layout: layout)
    try file.start()
    let sizes = recordSizes
    try scratch.withMappedBytes { all in
      var offset = 0
      var row = 0
      while row < sizes.count {
        var rows = 0
        var bytes = 0
        while row + rows < sizes.count, rows < rowGroupSize, bytes < Self.rowGroupBytes {
          bytes += sizes[row + rows]
          rows += 1
        }
        try file.writeRowGroup(
          UnsafeRawBufferPointer(rebasing: all[offset..<offset + bytes]), rows: rows)
        offset += bytes
        row += rows
      }
    }
    try file.finish(geo: geoMetadata(layout))
    try output.file.commit()
  }

  /// Discards the output.
  public func abort() {
    finished = true
    output.file.abort()
  }

  private func flushPending() throws {
    guard !pending.isEmpty else { return }
    try pending.withUnsafeBytes { try scratch.write($0) }
    pending.removeAll(keepingCapacity: true)
  }

  /// The `geo` metadata (GeoParquet 1.1).
  private func geoMetadata(_ layout: ParquetLayout) -> String {
    var w = JSONTextWriter()
    w.raw("{\"version\":\"1.1.0\",\"primary_column\":")
    w.writeString(layout.geometryName)
    w.raw(",\"columns\":{")
    w.writeString(layout.geometryName)
    w.raw(":{\"encoding\":\"WKB\",\"geometry_types\":[")
    for (k, type) in geometryTypes.enumerated() {
      if k > 0 { w.raw(",") }
      w.writeString(type)
    }
    w.raw("]")
    if !extent.isEmpty {
      w.raw(",\"bbox\":[")
      for (k, v) in [extent.west, extent.south, extent.east, extent.north].enumerated() {
        if k > 0 { w.raw(",") }
        w.writeFloat(v)
      }
      w.raw("]")
    }
    if let crsJSON {
      w.raw(",\"crs\":")
      w.bytes += Array(crsJSON.utf8)
    }
    if layout.covering {
      w.raw(",\"covering\":{\"bbox\":{")
      for (k, key) in ["xmin", "ymin", "xmax", "ymax"].enumerated() {
        if k > 0 { w.raw(",") }
        w.writeString(key)
        w.raw(":[")
        w.writeString(layout.coveringName)
        w.raw(",")
        w.writeString(key)
        w.raw("]")
      }
      w.raw("}}")
    }
    w.raw("}}}")
    return String(decoding: w.bytes, as: UTF8.self)
  }

  static func set32(_ bytes: inout [UInt8], at offset: Int, _ value: Int) {
    for k in 0..<4 { bytes[offset + k] = UInt8(truncatingIfNeeded: value >> (8 * k)) }
  }
}
