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

/// The output formats geopipe writes.
public enum OutputFormat: String, CaseIterable, Sendable {
  /// A GeoJSON FeatureCollection.
  case geojson
  /// One Feature per line (GeoJSONSeq; RS-delimited with `--rs`).
  case geojsonseq
  /// Delimited text with coordinate or WKT columns.
  case csv

  /// The format a file name implies, ignoring a `.gz` suffix; nil when the name says nothing.
  public static func inferred(from path: String) -> (format: OutputFormat, rs: Bool)? {
    var name = path.lowercased()
    if name.hasSuffix(".gz") { name.removeLast(3) }
    guard let dot = name.lastIndex(of: ".") else { return nil }
    switch name[name.index(after: dot)...] {
    case "geojson", "json": return (.geojson, false)
    case "geojsons": return (.geojsonseq, true)
    case "geojsonl", "geojsonseq", "ndjson", "jsonl", "ldjson": return (.geojsonseq, false)
    case "csv", "tsv", "txt": return (.csv, false)
    default: return nil
    }
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
  private let encoder: GeoJSONEncoder
  private let recordSeparator: Bool

  /// Creates a writer.
  public init(sink: ByteSink, options: WriteOptions = WriteOptions()) {
    encoder = GeoJSONEncoder(rewind: options.rewind, precision: options.precision)
    recordSeparator = options.recordSeparator
    super.init(sink: sink)
  }

  /// Writes one feature and a line break.
  public func write(_ feature: Feature) throws {
    if recordSeparator { text.bytes.append(0x1E) }
    encoder.encode(feature, into: &text)
    text.bytes.append(0x0A)
    try flushIfFull()
  }

  /// Flushes and commits.
  public func finish() throws {
    try flush()
    try sink.commit()
  }

  /// Writes out what is buffered, so a consumer downstream sees it now.
  public func flushNow() throws { try flush() }
}

/// Writes a FeatureCollection, one feature per line.
public final class GeoJSONWriter: BufferedFeatureWriter, FeatureWriter {
  private let encoder: GeoJSONEncoder
  private var count = 0

  /// Creates a writer.
  public init(sink: ByteSink, options: WriteOptions = WriteOptions()) {
    encoder = GeoJSONEncoder(rewind: options.rewind, precision: options.precision)
    super.init(sink: sink)
    text.raw("{\"type\":\"FeatureCollection\",\"features\":[")
  }

  /// Writes one feature.
  public func write(_ feature: Feature) throws {
    text.raw(count == 0 ? "\n" : ",\n")
    count += 1
    encoder.encode(feature, into: &text)
    try flushIfFull()
  }

  /// Closes the collection, flushes and commits.
  public func finish() throws {
    text.raw(count == 0 ? "]}\n" : "\n]}\n")
    try flush()
    try sink.commit()
  }
}
