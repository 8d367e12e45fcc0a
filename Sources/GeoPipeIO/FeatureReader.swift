import GeoPipeCore

/// A source of features that also reports how much input it has consumed.
public protocol FeatureReader: FeatureSource, AnyObject {
  /// The next feature, or nil at the end of the input.
  func next() throws -> Feature?
  /// Bytes consumed so far (decompressed), for progress.
  var bytesRead: Int { get }
  /// Bad features skipped under `--on-error skip`.
  var skippedCount: Int { get }
  /// Members of the input's FeatureCollection other than its features (such as a `name`),
  /// complete once the input has been read; empty for other inputs.
  var collectionMembers: JSONObject { get }
  /// Where the feature that `next()` returned last begins, when the reader knows.
  var lastFeatureLocation: SourceLocation? { get }
  /// The CRS the input says its coordinates are in, when not WGS84 (a GeoJSON `crs` member):
  /// they are then as written, and the caller reprojects them.
  var declaredCRS: String? { get }
}

extension FeatureReader {
  /// Readers that do not track feature positions say nothing.
  public var lastFeatureLocation: SourceLocation? { nil }
  /// Readers of WGS84 input declare nothing.
  public var declaredCRS: String? { nil }
}

extension CSVReader {
  /// CSV has no collection members.
  public var collectionMembers: JSONObject { JSONObject() }
}

extension GeoJSONReader: FeatureReader {}
extension CSVReader: FeatureReader {}

/// Opens inputs, detecting their format from their first bytes.
public enum FeatureReaders {
  /// Opens `path` (`-` for standard input), decompressing gzip transparently.
  ///
  /// The format is taken from `options.format`, else detected: gzip magic, a UTF-8 BOM, RS
  /// (RFC 8142) or `{` (GeoJSON); else CSV if the text looks like a delimited table. JSON
  /// arrays, SQLite databases, zip archives and other binary data are refused by name.
  public static func open(_ path: String, options: ReadOptions = ReadOptions()) throws
    -> any FeatureReader
  {
    let file = try FileByteSource(path: path)
    let name = path == "-" ? "<stdin>" : path
    return try open(source: file, name: name, options: options)
  }

  /// Opens a byte source (see `open(_:options:)`).
  public static func open(
    source: ByteSource, name: String, options given: ReadOptions = ReadOptions()
  )
    throws -> any FeatureReader
  {
    var options = given
    let peekable = PeekableByteSource(source)
    var head = try peekable.peek(2)
    var input: ByteSource = peekable
    if head.count == 2 && head[0] == 0x1F && head[1] == 0x8B {
      input = try GzipByteSource(peekable)
    }
    let buffer = try InputBuffer(source: input, name: name)
    head = Array(UnsafeBufferPointer(start: buffer.bytes, count: min(buffer.end, 4096)))
    if head.starts(with: [0xEF, 0xBB, 0xBF]) {
      buffer.skipPrefix(3)
      head.removeFirst(3)
    }
    let firstByte = head.firstIndex(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) ?? 0
    let format =
      try options.format ?? detect(head, name: name, location: buffer.location(of: firstByte))
    if format == .geojson, options.checkRanges,
      let crs = GeoJSONCRS.declared(in: buffer.bytes, count: buffer.end)
    {
      // Projected coordinates: the reader takes them as they are, the caller reprojects them.
      options.declaredCRS = crs
      options.checkRanges = false
    }
    switch format {
    case .geojson, .geojsonseq:
      // Skipping bad features needs the single-threaded reader's recovery.
      if options.threads > 1 && options.onError == .fail {
        return ParallelGeoJSONReader(
          buffer: buffer, options: options, workers: options.threads,
          batchBytes: options.batchBytes)
      }
      return GeoJSONReader(buffer: buffer, options: options)
    case .csv: return try CSVReader(buffer: buffer, options: options)
    }
  }

  /// The format that the first bytes of an input suggest, or an error naming what they are.
  static func detect(_ head: [UInt8], name: String, location: SourceLocation) throws -> InputFormat
  {
    guard let first = head.firstIndex(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else {
      return .geojson
    }
    switch head[first] {
    case 0x7B, 0x1E, 0x21: return .geojson
    case 0x5B:
      throw GeoPipeError.data(
        "the input is a JSON array; geopipe reads GeoJSON (a FeatureCollection, Features or "
          + "geometries) and CSV", at: location)
    default: break
    }
    let what: String? =
      if head.starts(with: Array("SQLite format 3\0".utf8)) {
        "an SQLite database (a GeoPackage or MBTiles file?)"
      } else if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
        "a zip archive: unzip it first"
      } else if head.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
        "a PNG image"
      } else if head.starts(with: Array("%PDF".utf8)) {
        "a PDF document"
      } else if head.starts(with: [0x00, 0x00, 0x27, 0x0A]) {
        "an ESRI shapefile (.shp)"
      } else if head.contains(0)
        || String(validating: head.prefix(validUTF8Prefix(head)), as: UTF8.self) == nil
      {
        "binary data"
      } else {
        nil
      }
    if let what {
      throw GeoPipeError.data(
        "the input is \(what), not GeoJSON or CSV (use --input-format to force a format)",
        at: location)
    }
    return .csv
  }

  /// The length of `bytes` without a UTF-8 sequence cut at its end.
  private static func validUTF8Prefix(_ bytes: [UInt8]) -> Int {
    var n = bytes.count
    var back = 0
    while n > 0 && back < 3 && bytes[n - 1] & 0xC0 == 0x80 {
      n -= 1
      back += 1
    }
    if n > 0 && bytes[n - 1] >= 0xC0 { n -= 1 } else { n += back }
    return n
  }
}

/// Lets the opener look at the first bytes of a source before choosing how to read it.
final class PeekableByteSource: ByteSource {
  private let upstream: ByteSource
  private var stash: [UInt8] = []
  private var offset = 0

  init(_ upstream: ByteSource) {
    self.upstream = upstream
  }

  /// Up to `count` bytes from the front, without consuming them.
  func peek(_ count: Int) throws -> [UInt8] {
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while stash.count < count {
      let n = try chunk.withUnsafeMutableBytes { try upstream.read(into: $0) }
      if n == 0 { break }
      stash.append(contentsOf: chunk[..<n])
    }
    return Array(stash.prefix(count))
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    if offset < stash.count {
      let n = min(buffer.count, stash.count - offset)
      stash.withUnsafeBytes { source in
        guard let from = source.baseAddress else { return }
        buffer.baseAddress?.copyMemory(from: from + offset, byteCount: n)
      }
      offset += n
      if offset == stash.count {
        stash = []
        offset = 0
      }
      return n
    }
    return try upstream.read(into: buffer)
  }
}
