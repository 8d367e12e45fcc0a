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

/// A reader that decodes features in batches and can hand a batch over whole, so that a
/// writer taking every feature as it comes (`FeatureWriter.write(contentsOf:)`) gets them
/// without a copy of each.
public protocol BatchFeatureReader: FeatureReader {
  /// Whether this reader decodes on worker threads now, so that its batches are worth taking
  /// whole (read on one thread, each batch would be a single feature).
  var decodesInBatches: Bool { get }
  /// The next features in input order, at least one, or nil at the end of the input. An error
  /// after some features is thrown by the call after the one that returns them, as `next()`
  /// would throw it after them.
  func nextBatch() throws -> [Feature]?
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

/// Opens inputs in any registered format (`FeatureFormats`).
public enum FeatureReaders {
  /// Opens `path` (`-` for standard input), decompressing gzip transparently.
  ///
  /// The format is `options.format`, else the readable format the file's extension names
  /// (`FeatureFormats.reading`), whose content must agree with it, else the one its first
  /// bytes show: a registered format that recognises them (a GeoPackage, a FlatGeobuf file),
  /// or for text a UTF-8 BOM, RS (RFC 8142) or `{` for GeoJSON and other text for CSV. JSON
  /// arrays and formats geopipe does not read are refused by name, as is content that
  /// contradicts the extension.
  public static func open(_ path: String, options: ReadOptions = ReadOptions()) throws
    -> any FeatureReader
  {
    if let share = options.share { return try openShare(path, share: share, options: options) }
    if let format = FeatureFormats.addressed(by: path) {
      guard let open = format.openURL else {
        throw GeoPipeError.usage("geopipe does not read \(format.title)")
      }
      return try open(path, options)
    }
    let file = try FileByteSource(path: path)
    let name = path == "-" ? "<stdin>" : path
    return try open(
      source: file, name: name, path: path, options: options,
      expected: path == "-" ? nil : FeatureFormats.reading(path))
  }

  /// Opens a byte source (see `open(_:options:)`); `expected` is the format its name says, and
  /// `path` the file it comes from, for formats read by seeking.
  public static func open(
    source: ByteSource, name: String, path: String = "-", options: ReadOptions = ReadOptions(),
    expected: FeatureFormat? = nil
  ) throws -> any FeatureReader {
    let peekable = PeekableByteSource(source)
    let magic = try peekable.peek(2)
    let compressed = magic.count == 2 && magic[0] == 0x1F && magic[1] == 0x8B
    let decoded = compressed ? PeekableByteSource(try GzipByteSource(peekable)) : peekable
    // JSON needs no more than its first byte to be told (and a slow producer on a pipe is not
    // kept waiting); other content is looked at further for the formats that recognise it.
    var head = try decoded.peek(1)
    if let first = head.first, ![0x7B, 0x1E, 0x5B, 0x21].contains(first) {
      head = try decoded.peek(512)
      // An XML prolog (a doctype with its declarations, long comments) can hide the root
      // element past 512 bytes: look further for it.
      if head.count == 512, XMLRoot.name(of: head) == nil, head.contains(0x3C),
        XMLRoot.name(of: try decoded.peek(1 << 16)) != nil
      {
        head = try decoded.peek(1 << 16)
      }
    }
    let input = FormatInput(
      path: path, name: name, source: decoded, head: head, isCompressed: compressed)
    let recognized = FeatureFormats.readable.first { $0.recognize?(head) == true }
    if let layer = options.layer, (options.format ?? recognized ?? expected)?.layers == nil {
      try checkSingleLayer(layer, path: path)
    }
    if let chosen = options.format {
      guard let open = chosen.open else {
        if let scheme = chosen.schemes.first {
          throw GeoPipeError.usage("\(chosen.title) is read from a \(scheme):// URL, not a file")
        }
        throw GeoPipeError.usage("geopipe does not read \(chosen.title)")
      }
      return try open(input, options)
    }
    if let recognized, let open = recognized.open {
      if let expected, expected != recognized {
        throw GeoPipeError.data(
          "expected \(expected.title) (the file name ends in .\(fileExtension(name))), but the "
            + "file is \(recognized.title); use --input-format \(recognized.name) to read it as "
            + "such", at: SourceLocation(file: name, line: 1, column: 1))
      }
      return try open(input, options)
    }
    if let expected, expected.recognize != nil {
      throw contradiction(head, name: name, expected: expected)
    }
    return try openText(input, options: options, expected: expected?.text)
  }

  /// A file of a single-layer format has one layer, named after the file (as `geopipe layers`
  /// shows): `--layer` naming another is an error, not ignored.
  static func checkSingleLayer(_ layer: String, path: String) throws {
    var base = Substring(path)
    if let slash = base.lastIndex(of: "/") { base = base[base.index(after: slash)...] }
    if base.lowercased().hasSuffix(".gz") { base = base.dropLast(3) }
    if let dot = base.lastIndex(of: "."), dot != base.startIndex { base = base[..<dot] }
    guard path == "-" || layer != base else { return }
    let name = path == "-" ? "standard input" : "'\(path)'"
    throw GeoPipeError.usage(
      "\(name) has one layer\(path == "-" ? "" : ", '\(base)'"); --layer '\(layer)' names none "
        + "(--layer picks a layer of a GeoPackage or a zip of shapefiles)")
  }

  /// The format `open` would read `path` with, and its layers when the format lists them (a
  /// GeoPackage's tables, a zip's shapefiles); nil layers for single-layer formats, whose one
  /// layer is described by reading it.
  public static func layers(_ path: String, options: ReadOptions = ReadOptions()) throws -> (
    format: FeatureFormat?, layers: [LayerInfo]?
  ) {
    let peekable = PeekableByteSource(try FileByteSource(path: path))
    let magic = try peekable.peek(2)
    let compressed = magic.count == 2 && magic[0] == 0x1F && magic[1] == 0x8B
    let decoded = compressed ? PeekableByteSource(try GzipByteSource(peekable)) : peekable
    let head = try decoded.peek(512)
    let name = path == "-" ? "<stdin>" : path
    let format =
      options.format
      ?? FeatureFormats.readable.first { $0.recognize?(head) == true }
      ?? (path == "-" ? nil : FeatureFormats.reading(path))
    guard let format, let layers = format.layers else { return (format, nil) }
    let input = FormatInput(
      path: path, name: name, source: decoded, head: head, isCompressed: compressed)
    return (format, try layers(input, options))
  }

  /// Opens a text input: GeoJSON, GeoJSONSeq or CSV, `format` when given, else detected from
  /// the first bytes and checked against `expected`.
  static func openText(
    _ input: FormatInput, options given: ReadOptions, as format: TextFormat? = nil,
    expected: TextFormat? = nil
  ) throws -> any FeatureReader {
    var options = given
    let name = input.name
    let buffer = try InputBuffer(
      source: input.source, name: name, maxRecordSize: options.maxRecordSize)
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
    let head = Array(
      UnsafeBufferPointer(start: buffer.bytes, count: min(buffer.end, firstByte + 4096)))
    let format =
      try format
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
