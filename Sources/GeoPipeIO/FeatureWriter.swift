import GeoPipeCore

/// Writes features to a sink in one format.
public protocol FeatureWriter: AnyObject {
  /// Writes one feature.
  func write(_ feature: Feature) throws
  /// Writes features in order, as many calls of `write(_:)` would.
  func write(contentsOf features: [Feature]) throws
  /// Writes what follows the last feature, flushes, and commits the output.
  func finish() throws
  /// Discards the output (an atomic file is removed).
  func abort()
}

extension FeatureWriter {
  /// One feature at a time.
  public func write(contentsOf features: [Feature]) throws {
    for feature in features { try write(feature) }
  }
}

/// Opens outputs in any registered format (`FeatureFormats`).
public enum FeatureWriters {
  /// The format to write `path` in: the one whose URL scheme it starts with, else `given`, else the one its extension names (ignoring a
  /// `.gz` suffix), else GeoJSON for standard output; nil when the name tells nothing.
  public static func format(for path: String, given: FeatureFormat? = nil) -> FeatureFormat? {
    FeatureFormats.addressed(by: path) ?? given ?? FeatureFormats.writing(path)
      ?? (path == "-" ? .geoJSON : nil)
  }

  /// The error for a path whose format cannot be told.
  public static func unknownFormat(_ path: String) -> GeoPipeError {
    GeoPipeError.usage(
      "cannot tell the output format of '\(path)' from its extension: use --output-format "
        + "(\(names(FeatureFormats.writable)))")
  }

  /// Format names as a list in prose, each as `--output-format` takes it ("geojson, csv or kml").
  public static func names(_ formats: [FeatureFormat]) -> String {
    let names = formats.map(\.name)
    guard names.count > 1 else { return names.first ?? "" }
    return names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
  }

  /// Opens `path` (`-` for standard output) for writing in `format` (see `format(for:given:)`).
  ///
  /// The path is checked (and its missing folders made) first, so that a folder given as the
  /// output is the error reported whatever its name says; a failure after that removes them.
  public static func open(
    _ path: String, format given: FeatureFormat? = nil, options: WriteOptions = WriteOptions()
  ) throws -> any FeatureWriter {
    if let format = FeatureFormats.addressed(by: path) {
      guard let create = format.createURL else {
        throw GeoPipeError.usage("geopipe does not write \(format.title)")
      }
      return try create(path, options)
    }
    let file = try OutputFile(path: path)
    guard let format = format(for: path, given: given) else { throw unknownFormat(path) }
    guard let create = format.create else {
      if let scheme = format.schemes.first {
        throw GeoPipeError.usage("\(format.title) is written to a \(scheme):// URL, not a file")
      }
      throw GeoPipeError.usage("geopipe does not write \(format.title)")
    }
    return try create(FormatOutput(path: path, file: file), options)
  }
}

/// Output settings shared by the writers.
public struct WriteOptions: Sendable {
  /// Rewind polygon rings to RFC 7946 (off with `--no-rewind`).
  public var rewind = true
  /// Round coordinates to this many decimals.
  public var precision: Int?
  /// RS-delimited GeoJSONSeq (RFC 8142).
  public var recordSeparator = false
  /// CSV settings.
  public var csv = CSVWriteOptions()
  /// The URN of the coordinates' CRS when it is not WGS84: a GeoJSON FeatureCollection then
  /// carries it as a legacy `crs` member (see `GeoJSONCRS`).
  public var crsURN: String?
  /// The CRS of the coordinates (`write --crs`) when it is not WGS84.
  ///
  /// Nil for WGS84. Formats that record a CRS and can only record WGS84 refuse another.
  public var crs: String?
  /// The coordinates' CRS as ESRI's WKT 1, when not WGS84, for formats that store it (a
  /// shapefile's `.prj`).
  public var crsWKT: String?
  /// Threads that encode GeoJSON; above 1, batches of features are encoded in parallel and
  /// written in order.
  public var threads = 1
  /// The layer (table) name, for formats that name theirs; by default from the file name.
  public var layer: String?
  /// Values of the options formats add to `write` (`FeatureFormat.writeOptions`).
  public var formatOptions = FormatOptionValues()
  /// Receives notes and warnings about the output (renamed fields, features left out).
  public var diagnostics: @Sendable (ReadDiagnostic) -> Void = { _ in }

  /// Default options.
  public init() {}
}

/// A buffered writer base: collects text and hands it to the sink in large blocks.
public class BufferedFeatureWriter {
  let sink: ByteSink
  var text = JSONTextWriter()
  private let flushThreshold = 1 << 20

  init(sink: ByteSink) {
    self.sink = sink
    text.bytes.reserveCapacity(flushThreshold + (1 << 16))
  }

  func flushIfFull() throws {
    if text.bytes.count >= flushThreshold { try flush() }
  }

  func flush() throws {
    guard !text.bytes.isEmpty else { return }
    try text.bytes.withUnsafeBytes { try sink.write($0) }
    text.bytes.removeAll(keepingCapacity: true)
  }

  /// Discards the output.
  public func abort() { sink.abort() }
}

/// Writes one compact Feature per line, or RS-delimited (RFC 8142).
public final class GeoJSONSeqWriter: BufferedFeatureWriter, FeatureWriter {
  private let encoding: FeatureEncoding

  /// Creates a writer.
  public init(sink: ByteSink, options: WriteOptions = WriteOptions()) {
    let encoder = GeoJSONEncoder(rewind: options.rewind, precision: options.precision)
    let separator = options.recordSeparator
    encoding = FeatureEncoding(threads: options.threads, sink: sink) { feature, _, text in
      if separator { text.bytes.append(0x1E) }
      encoder.encode(feature, into: &text)
      text.bytes.append(0x0A)
    }
    super.init(sink: sink)
  }

  /// Writes one feature and a line break.
  public func write(_ feature: Feature) throws {
    if encoding.isParallel {
      try encoding.submit(feature)
    } else {
      encoding.encode(feature, into: &text)
      try flushIfFull()
    }
  }

  /// Writes features, each with a line break; in parallel, the array goes to the encoders as
  /// it is.
  public func write(contentsOf features: [Feature]) throws {
    guard encoding.isParallel else {
      for feature in features { try write(feature) }
      return
    }
    try encoding.submit(contentsOf: features)
  }

  /// Flushes and commits.
  public func finish() throws {
    try encoding.flush()
    try flush()
    try sink.commit()
  }

  /// Writes out what is buffered, so a consumer downstream sees it now.
  public func flushNow() throws {
    try encoding.flush()
    try flush()
  }

  /// Discards the output.
  public override func abort() {
    encoding.cancel()
    super.abort()
  }
}

/// Writes a FeatureCollection, one feature per line.
public final class GeoJSONWriter: BufferedFeatureWriter, FeatureWriter {
  private let encoding: FeatureEncoding
  /// Members written after the features array (the input collection's `name` and the like).
  public var collectionMembers = JSONObject()

  /// Creates a writer.
  public init(sink: ByteSink, options: WriteOptions = WriteOptions()) {
    let encoder = GeoJSONEncoder(rewind: options.rewind, precision: options.precision)
    encoding = FeatureEncoding(threads: options.threads, sink: sink) { feature, first, text in
      // Every feature but the first has a comma before it.
      text.raw(first ? "\n" : ",\n")
      encoder.encode(feature, into: &text)
    }
    super.init(sink: sink)
    text.raw("{\"type\":\"FeatureCollection\"")
    if let urn = options.crsURN { GeoJSONCRS.writeMember(urn, into: &text) }
    text.raw(",\"features\":[")
  }

  /// Writes one feature.
  public func write(_ feature: Feature) throws {
    guard encoding.isParallel else {
      encoding.encode(feature, into: &text)
      try flushIfFull()
      return
    }
    // The collection's opening goes out before the writer thread writes the first features.
    if encoding.count == 0 { try flush() }
    try encoding.submit(feature)
  }

  /// Writes features; in parallel, the array goes to the encoders as it is.
  public func write(contentsOf features: [Feature]) throws {
    guard encoding.isParallel, !features.isEmpty else {
      for feature in features { try write(feature) }
      return
    }
    if encoding.count == 0 { try flush() }
    try encoding.submit(contentsOf: features)
  }

  /// Closes the collection, flushes and commits.
  public func finish() throws {
    try encoding.flush()
    text.raw(encoding.count > 0 ? "\n]" : "]")
    for member in collectionMembers.members
    where member.key != "type" && member.key != "features" && member.key != "crs" {
      text.bytes.append(0x2C)
      text.writeString(member.key)
      text.bytes.append(0x3A)
      text.writeValue(member.value)
    }
    text.raw("}\n")
    try flush()
    try sink.commit()
  }

  /// Discards the output.
  public override func abort() {
    encoding.cancel()
    super.abort()
  }
}
