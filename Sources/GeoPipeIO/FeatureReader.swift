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
  /// The format is taken from `options.format`, else from the file's extension
  /// (`InputFormat(fileExtensionOf:)`), whose content must agree with it; else it is detected
  /// from the first bytes: a UTF-8 BOM, RS (RFC 8142) or `{` is GeoJSON, other text is CSV.
  /// JSON arrays, KML, GPX, GeoPackages, shapefiles, archives and other formats geopipe does
  /// not read are refused by name, as is content that contradicts the extension.
  public static func open(_ path: String, options: ReadOptions = ReadOptions()) throws
    -> any FeatureReader
  {
    let file = try FileByteSource(path: path)
    let name = path == "-" ? "<stdin>" : path
    return try open(
      source: file, name: name, options: options,
      expected: path == "-" ? nil : InputFormat(fileExtensionOf: path))
  }

  /// Opens a byte source (see `open(_:options:)`); `expected` is the format its name says.
  public static func open(
    source: ByteSource, name: String, options given: ReadOptions = ReadOptions(),
    expected: InputFormat? = nil
  ) throws -> any FeatureReader {
    var options = given
    let peekable = PeekableByteSource(source)
    var head = try peekable.peek(2)
    var input: ByteSource = peekable
    if head.count == 2 && head[0] == 0x1F && head[1] == 0x8B {
      input = try GzipByteSource(peekable)
    }
    let buffer = try InputBuffer(
      source: input, name: name, maxRecordSize: options.maxRecordSize)
    if buffer.end >= 3 && buffer.bytes[0] == 0xEF && buffer.bytes[1] == 0xBB
      && buffer.bytes[2] == 0xBF
    {
      buffer.skipPrefix(3)
    }
    // Leading whitespace says nothing about the format: look past a window full of it.
    var firstByte = 0
    while true {
      while firstByte < buffer.end && [0x20, 0x09, 0x0A, 0x0D].contains(buffer.bytes[firstByte]) {
        firstByte += 1
      }
      guard firstByte == buffer.end, let shift = try buffer.refill(keepingFrom: buffer.end) else {
        break
      }
      firstByte -= shift
    }
    head = Array(
      UnsafeBufferPointer(start: buffer.bytes, count: min(buffer.end, firstByte + 4096)))
    let format =
      try options.format
      ?? detect(head, name: name, location: buffer.location(of: firstByte), expected: expected)
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
