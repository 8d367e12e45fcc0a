import GeoPipeCore

/// Writes features to a sink in one format.
public protocol FeatureWriter: AnyObject {
  /// Writes one feature.
  func write(_ feature: Feature) throws
  /// Writes what follows the last feature, flushes, and commits the output.
  func finish() throws
  /// Discards the output (an atomic file is removed).
  func abort()
}

/// Opens outputs in any registered format (`FeatureFormats`).
public enum FeatureWriters {
  /// The format to write `path` in: `given`, else the one its extension names (ignoring a
  /// `.gz` suffix), else GeoJSON for standard output; nil when the name tells nothing.
  public static func format(for path: String, given: FeatureFormat? = nil) -> FeatureFormat? {
    given ?? FeatureFormats.writing(path) ?? (path == "-" ? .geoJSON : nil)
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
    let file = try OutputFile(path: path)
    guard let format = format(for: path, given: given) else { throw unknownFormat(path) }
    guard let create = format.create else {
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
  /// The coordinates' CRS when it is not WGS84 (`EPSG:3857`, or a WKT/PROJ definition), for
  /// formats that record it.
  public var crs: String?
  /// Threads that encode GeoJSON; above 1, batches of features are encoded in parallel and
  /// written in order.
  public var threads = 1
  /// The layer (table) name, for formats that name theirs; by default from the file name.
  public var layer: String?
  /// Values of the options formats add to `write` (`FeatureFormat.writeOptions`).
  public var formatOptions = FormatOptionValues()

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

  /// Appends encoded text, flushing when the buffer is full.
  func append(_ encoded: [UInt8]) throws {
    text.bytes.append(contentsOf: encoded)
    try flushIfFull()
  }

  func flush() throws {
    guard !text.bytes.isEmpty else { return }
    try text.bytes.withUnsafeBytes { try sink.write($0) }
    text.bytes.removeAll(keepingCapacity: true)
  }

  /// Discards the output.
  public func abort() { sink.abort() }
}

/// Encodes features as GeoJSON text, on worker threads when asked, keeping their order.
final class FeatureEncoding {
  typealias Encode = @Sendable (Feature, inout JSONTextWriter) -> Void
  private let encode: Encode
  private let pool: OrderedTaskPool<[Feature], [UInt8]>?
  private var batch: [Feature] = []
  private let batchSize = 1024
  private let limit: Int

  init(threads: Int, encode: @escaping Encode) {
    self.encode = encode
    pool =
      threads > 1
      ? OrderedTaskPool(workers: threads) { features in
        var text = JSONTextWriter()
        text.bytes.reserveCapacity(features.count * 256)
        for feature in features { encode(feature, &text) }
        return text.bytes
      } : nil
    limit = threads + 1
  }

  deinit {
    pool?.cancel()
  }

  /// Whether features are encoded on worker threads.
  var isParallel: Bool { pool != nil }

  /// Encodes a feature into `text` on this thread.
  func encode(_ feature: Feature, into text: inout JSONTextWriter) {
    encode(feature, &text)
  }

  /// Queues a feature for the workers, and hands over whatever encoded text is ready, in
  /// order, with `output`.
  func submit(_ feature: Feature, output: ([UInt8]) throws -> Void) throws {
    guard let pool else { return }
    batch.append(feature)
    guard batch.count >= batchSize else { return }
    pool.submit(batch)
    batch = []
    batch.reserveCapacity(batchSize)
    while let encoded = pool.next(waiting: pool.inFlight >= limit) { try output(encoded) }
  }

  /// Encodes what is queued and hands over all remaining text.
  func flush(output: ([UInt8]) throws -> Void) throws {
    guard let pool else { return }
    if !batch.isEmpty {
      pool.submit(batch)
      batch = []
    }
    while pool.inFlight > 0, let encoded = pool.next(waiting: true) { try output(encoded) }
  }
}

/// Writes one compact Feature per line, or RS-delimited (RFC 8142).
public final class GeoJSONSeqWriter: BufferedFeatureWriter, FeatureWriter {
  private let encoding: FeatureEncoding

  /// Creates a writer.
  public init(sink: ByteSink, options: WriteOptions = WriteOptions()) {
    let encoder = GeoJSONEncoder(rewind: options.rewind, precision: options.precision)
    let separator = options.recordSeparator
    encoding = FeatureEncoding(threads: options.threads) { feature, text in
      if separator { text.bytes.append(0x1E) }
      encoder.encode(feature, into: &text)
      text.bytes.append(0x0A)
    }
    super.init(sink: sink)
  }

  /// Writes one feature and a line break.
  public func write(_ feature: Feature) throws {
    if encoding.isParallel {
      try encoding.submit(feature) { try append($0) }
    } else {
      encoding.encode(feature, into: &text)
      try flushIfFull()
    }
  }

  /// Flushes and commits.
  public func finish() throws {
    try encoding.flush { try append($0) }
    try flush()
    try sink.commit()
  }

  /// Writes out what is buffered, so a consumer downstream sees it now.
  public func flushNow() throws {
    try encoding.flush { try append($0) }
    try flush()
  }
}

/// Writes a FeatureCollection, one feature per line.
public final class GeoJSONWriter: BufferedFeatureWriter, FeatureWriter {
  private let encoding: FeatureEncoding
  private var started = false
  /// Members written after the features array (the input collection's `name` and the like).
  public var collectionMembers = JSONObject()

  /// Creates a writer.
  public init(sink: ByteSink, options: WriteOptions = WriteOptions()) {
    let encoder = GeoJSONEncoder(rewind: options.rewind, precision: options.precision)
    encoding = FeatureEncoding(threads: options.threads) { feature, text in
      text.raw(",\n")
      encoder.encode(feature, into: &text)
    }
    super.init(sink: sink)
    text.raw("{\"type\":\"FeatureCollection\"")
    if let urn = options.crsURN { GeoJSONCRS.writeMember(urn, into: &text) }
    text.raw(",\"features\":[")
  }

  /// Writes one feature.
  public func write(_ feature: Feature) throws {
    if encoding.isParallel {
      try encoding.submit(feature) { try appendFeatures($0) }
      return
    }
    let before = text.bytes.count
    encoding.encode(feature, into: &text)
    if !started {
      // The first feature has no comma before it.
      started = true
      text.bytes.remove(at: before)
    }
    try flushIfFull()
  }

  /// Closes the collection, flushes and commits.
  public func finish() throws {
    try encoding.flush { try appendFeatures($0) }
    text.raw(started ? "\n]" : "]")
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

  /// Appends encoded features, each led by ",\n"; the first one's comma is dropped.
  private func appendFeatures(_ encoded: [UInt8]) throws {
    if started {
      try append(encoded)
    } else {
      started = true
      try append(Array(encoded.dropFirst()))
    }
  }
}
