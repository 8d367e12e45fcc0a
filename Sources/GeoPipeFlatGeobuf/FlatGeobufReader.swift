import GeoPipeCore
import GeoPipeIO

/// Reads a FlatGeobuf 3.x file: the header, then the features in file order.
///
/// Features are read one at a time through a buffer, skipping the index. With a bounding box
/// (`ReadOptions.bbox`), a file with an index in WGS84, given by path and not compressed, is
/// read by offset instead: the index is searched a node run at a time and only the features
/// it finds are read, in file order, so the bytes read (`bytesRead`) follow the box's share of
/// the file, as a client reading by HTTP range requests would. Every offset and length is
/// checked against the bytes there are; a corrupt file is a data error naming the file, the
/// feature and its byte offset.
public final class FlatGeobufReader: BatchFeatureReader {
  let name: String
  let header: FGBHeader
  var decoder: FGBFeatureDecoder
  private var source: Source
  /// The file offset where the features begin.
  private let featuresStart: Int
  /// The index of the feature being read (sliced, when decoding in batches).
  var index = 0
  /// The file offset of the feature being read.
  var featureOffset = 0
  private let maxRecordSize: Int
  /// Features decoded on worker threads, a batch at a time; nil when decoding here.
  var batches: FGBDecodeBatches?

  private enum Source {
    case sequential(SequentialInput)
    case positional(PositionalInput, hits: [PackedRTree.Hit], next: Int)
  }

  /// The CRS the header declares, when it is not WGS84.
  public let declaredCRS: String?
  /// Bad features are not skipped: the buffers after a corrupt one cannot be trusted.
  public var skippedCount: Int { 0 }
  /// FlatGeobuf has no collection members.
  public var collectionMembers: JSONObject { JSONObject() }

  /// Bytes read from the input so far (with a bounding box and an index, only those of the
  /// header, the index nodes visited and the features found).
  public var bytesRead: Int {
    switch source {
    case .sequential(let input): input.bytesRead
    case .positional(let input, _, _): input.bytesRead
    }
  }

  /// The header's features count (0 when the writer did not know it).
  public var featuresCount: Int { Int(clamping: header.featuresCount) }

  /// Opens an input and reads its header.
  public init(input: FormatInput, options: ReadOptions) throws {
    name = input.name
    maxRecordSize = options.maxRecordSize
    let useIndex = options.bbox != nil && input.path != "-" && !input.isCompressed
    if useIndex {
      let file = try PositionalInput(path: input.path, name: name)
      let start = try file.read(12, at: 0)
      let headerSize = try Self.headerSize(start, name: name)
      let bytes = try file.read(headerSize, at: 12)
      header = try Self.decodeHeader(bytes, name: name, count: headerSize)
      let indexSize = try Self.indexSize(header, name: name)
      featuresStart = 12 + headerSize + indexSize
      if let box = options.bbox, indexSize > 0, header.declaredCRS == nil {
        let hits = try Self.search(
          file, header: header, box: box, indexStart: 12 + headerSize, name: name)
        source = .positional(file, hits: hits, next: 0)
      } else {
        // No index to use: read on from the features' start.
        let sequential = SequentialInput(source: try FileByteSource(path: input.path))
        _ = try sequential.skip(featuresStart)
        source = .sequential(sequential)
      }
    } else {
      let sequential = SequentialInput(source: input.source)
      let headerSize = try Self.headerSize(
        Array(sequential.bytes(try sequential.fill(12))), name: name)
      sequential.consume(12)
      guard try sequential.fill(headerSize) == headerSize else {
        throw Self.error(name, "the file ends inside its header")
      }
      header = try Self.decodeHeader(
        Array(sequential.bytes(headerSize)), name: name, count: headerSize)
      sequential.consume(headerSize)
      let indexSize = try Self.indexSize(header, name: name)
      guard try sequential.skip(indexSize) == indexSize else {
        throw Self.error(name, "the file ends inside its index")
      }
      featuresStart = 12 + headerSize + indexSize
      source = .sequential(sequential)
    }
    decoder = FGBFeatureDecoder(header: header)
    declaredCRS = header.declaredCRS
    if options.threads > 1, decoder.headerHasColumns, case .sequential = source {
      batches = FGBDecodeBatches(workers: options.threads, decoder: decoder, name: name)
    }
  }

  /// The layer `geopipe layers` describes.
  var layer: LayerInfo {
    LayerInfo(
      name: header.name ?? "", geometryType: header.geometryType.name,
      count: header.featuresCount > 0 ? Int(clamping: header.featuresCount) : nil,
      crs: header.crsDescription,
      fields: header.columns.map { ($0.name, $0.type.name) },
      bounds: header.envelope.count == 4
        ? BBox(
          west: header.envelope[0], south: header.envelope[1], east: header.envelope[2],
          north: header.envelope[3]) : nil)
  }

  /// Whether features are decoded on worker threads.
  public var decodesInBatches: Bool { batches != nil }

  /// The next features in file order, a decoded batch at a time when decoding in batches.
  public func nextBatch() throws -> [Feature]? {
    if let batches { return try batches.nextBatch(slicing: self) }
    return try next().map { [$0] }
  }

  /// The next feature in file order (of those the index found, with a bounding box).
  public func next() throws -> Feature? {
    if let batches { return try batches.next(slicing: self) }
    switch source {
    case .sequential(let input):
      guard let size = try nextRecord(input) else { return nil }
      let feature = try decodeFeature(
        UnsafeRawBufferPointer(rebasing: input.bytes(4 + size)[4...]))
      input.consume(4 + size)
      index += 1
      return feature
    case .positional(let file, let hits, let next):
      guard next < hits.count else { return nil }
      source = .positional(file, hits: hits, next: next + 1)
      let hit = hits[next]
      index = hit.index
      guard hit.offset < file.size - featuresStart else {
        featureOffset = featuresStart
        throw featureError("the index points past the end of the file (offset \(hit.offset))")
      }
      featureOffset = featuresStart + hit.offset
      // Where features follow their leaves, the next leaf's offset is where this one ends.
      var guess = 4
      if let end = hit.nextOffset, end > hit.offset + 4 { guess = end - hit.offset }
      var bytes = try file.read(guess, at: featureOffset)
      guard bytes.count >= 4 else { throw featureError("the file ends inside the feature") }
      let size = Int(
        UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16
          | UInt32(bytes[3]) << 24)
      try checkSize(size)
      if bytes.count < 4 + size {
        bytes += try file.read(4 + size - bytes.count, at: featureOffset + bytes.count)
        guard bytes.count == 4 + size else {
          throw featureError("the feature's \(size) bytes run past the end of the file")
        }
      }
      return try bytes.withUnsafeBytes { raw in
        try decodeFeature(UnsafeRawBufferPointer(rebasing: raw[4..<4 + size]))
      }
    }
  }

  /// Fills the input with the next feature's record (its size and bytes) and returns the size,
  /// or nil at the end of the file; the caller consumes the record.
  func nextRecord(_ input: SequentialInput) throws -> Int? {
    featureOffset = input.offset
    let available = try input.fill(4)
    if available == 0 {
      if header.featuresCount > 0, UInt64(index) < header.featuresCount {
        throw featureError(
          "the file ends after \(index) of the header's \(header.featuresCount) features")
      }
      return nil
    }
    if header.featuresCount > 0, UInt64(index) >= header.featuresCount {
      throw featureError(
        "the file holds more than the header's \(header.featuresCount) features")
    }
    guard available == 4 else { throw featureError("the file ends inside the feature") }
    let size = Int(input.bytes(4).loadUnaligned(as: UInt32.self).littleEndian)
    try checkSize(size)
    guard try input.fill(4 + size) == 4 + size else {
      throw featureError("the feature's \(size) bytes run past the end of the file")
    }
    return size
  }

  /// The sequential input, when the features are read in file order.
  var sequentialInput: SequentialInput? {
    if case .sequential(let input) = source { return input }
    return nil
  }

  private func decodeFeature(_ bytes: UnsafeRawBufferPointer) throws -> Feature {
    do {
      return try decoder.decode(bytes)
    } catch let error as FlatBufferError {
      throw featureError(error.message, at: featureOffset + 4 + error.offset)
    }
  }

  private func checkSize(_ size: Int) throws {
    guard size <= maxRecordSize else {
      throw featureError(
        "the feature's size, \(size) bytes, is over the --max-record-size limit "
          + "(\(maxRecordSize) bytes)")
    }
  }

  func featureError(_ message: String, at offset: Int? = nil) -> GeoPipeError {
    Self.featureError(name, index: index, offset: offset ?? featureOffset, message)
  }

  static func featureError(_ name: String, index: Int, offset: Int, _ message: String)
    -> GeoPipeError
  {
    error(name, "feature \(index) (byte \(offset)): \(message)")
  }

  private static func error(_ name: String, _ message: String) -> GeoPipeError {
    GeoPipeError.data("\(name): \(message)", at: nil)
  }

  private static func headerSize(_ start: [UInt8], name: String) throws -> Int {
    guard start.count == 12, FGBHeader.recognizes(start) else {
      throw error(name, "not a FlatGeobuf 3 file (its first bytes are not fgb\\x03fgb)")
    }
    let size = Int(
      UInt32(start[8]) | UInt32(start[9]) << 8 | UInt32(start[10]) << 16
        | UInt32(start[11]) << 24)
    guard size >= 4, size <= ReadOptions.defaultMaxRecordSize else {
      throw error(name, "the header size \(size) is impossible")
    }
    return size
  }

  private static func decodeHeader(_ bytes: [UInt8], name: String, count: Int) throws -> FGBHeader {
    guard bytes.count == count else { throw error(name, "the file ends inside its header") }
    do {
      return try bytes.withUnsafeBytes { try FGBHeader(decoding: FlatBuffer(bytes: $0)) }
    } catch let failure as FlatBufferError {
      throw error(name, "header (byte \(12 + failure.offset)): \(failure.message)")
    }
  }

  private static func indexSize(_ header: FGBHeader, name: String) throws -> Int {
    guard header.indexNodeSize > 0, header.featuresCount > 0 else { return 0 }
    guard header.featuresCount <= UInt64(Int.max),
      let size = PackedRTree.size(
        items: Int(header.featuresCount), nodeSize: Int(header.indexNodeSize))
    else {
      throw error(
        name,
        "the header's index of \(header.featuresCount) features with node size "
          + "\(header.indexNodeSize) is impossible")
    }
    return size
  }

  /// The index's leaves that meet `box` (both sides of the antimeridian when it crosses it).
  private static func search(
    _ file: PositionalInput, header: FGBHeader, box: BBox, indexStart: Int, name: String
  ) throws -> [PackedRTree.Hit] {
    let boxes =
      box.crossesAntimeridian
      ? [[box.west, box.south, 180, box.north], [-180, box.south, box.east, box.north]]
      : [[box.west, box.south, box.east, box.north]]
    var hits: [PackedRTree.Hit] = []
    do {
      for query in boxes {
        hits += try PackedRTree.search(
          items: Int(header.featuresCount), nodeSize: Int(header.indexNodeSize), box: query
        ) { first, count in
          let bytes = try file.read(
            count * PackedRTree.nodeBytes, at: indexStart + first * PackedRTree.nodeBytes)
          guard bytes.count == count * PackedRTree.nodeBytes else {
            throw FlatBufferError("the file ends inside its index", at: first * 40)
          }
          return bytes
        }
      }
    } catch let failure as FlatBufferError {
      throw error(name, "index (byte \(indexStart + failure.offset)): \(failure.message)")
    }
    if boxes.count > 1 {
      hits.sort { $0.offset < $1.offset }
      var seen = Set<Int>()
      hits = hits.filter { seen.insert($0.offset).inserted }
    }
    return hits
  }
}
