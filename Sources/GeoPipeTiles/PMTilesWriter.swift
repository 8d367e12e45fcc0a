import GeoPipeIO
import GeoPipeMercator

/// A PMTiles v3 archive of gzipped vector tiles: a 127-byte header, a root directory within
/// the first 16 KiB, gzipped JSON metadata, leaf directories when the root would not fit, and
/// the tile data in tile-id order with identical small tiles stored once (see
/// `TileDeduplicator`).
///
/// Tile data goes to a scratch file while tiles arrive; `finish` writes the archive to a
/// temporary file beside its path (an `OutputFile`, with direct I/O) and renames it into place.
final class PMTilesWriter: TilesetWriter {
  struct Entry {
    var tileID: UInt64
    var offset: UInt64
    var length: UInt32
    var runLength: UInt32
  }

  private let output: OutputFile
  private var data: ScratchFile?
  private var entries: [Entry] = []
  private var offset: UInt64 = 0
  private var addressed: UInt64 = 0
  private var contents: UInt64 = 0
  private var seen = TileDeduplicator<(offset: UInt64, length: UInt32)>()
  private var buffer: [UInt8] = []
  private var lastID: UInt64?
  private var minZoom = Int.max
  private var maxZoom = 0

  /// Checks `path` and opens the archive and the scratch file beside it; errors are
  /// `GeoPipeError`s (exit 73).
  init(path: String) throws {
    // Direct I/O: the archive is a copy of the scratch file behind a header, written past the
    // page cache (see `OutputFile`).
    output = try OutputFile(path: path, direct: true)
    do {
      data = try ScratchFile(in: OutputPath.parent(of: path), for: path)
    } catch {
      output.abort()
      throw error
    }
  }

  func writeTile(_ tile: TileID, data bytes: [UInt8]) throws {
    let id = PMTilesID.id(z: tile.z, x: tile.x, y: tile.y)
    if let lastID, id <= lastID { throw TilesError("tiles must arrive in tile-id order") }
    lastID = id
    minZoom = min(minZoom, tile.z)
    maxZoom = max(maxZoom, tile.z)
    addressed += 1
    let length = UInt32(bytes.count)
    if let known = seen.location(of: bytes) {
      // A run: the same content as the previous tile at the next id.
      if var last = entries.last, last.offset == known.offset,
        last.tileID + UInt64(last.runLength) == id
      {
        last.runLength += 1
        entries[entries.count - 1] = last
      } else {
        entries.append(Entry(tileID: id, offset: known.offset, length: known.length, runLength: 1))
      }
      return
    }
    entries.append(Entry(tileID: id, offset: offset, length: length, runLength: 1))
    seen.remember(bytes, at: (offset, length))
    buffer.append(contentsOf: bytes)
    offset += UInt64(length)
    contents += 1
    if buffer.count >= 1 << 20 { try flush() }
  }

  private func flush() throws {
    guard let data, !buffer.isEmpty else { return }
    try buffer.withUnsafeBytes { try data.write($0) }
    buffer.removeAll(keepingCapacity: true)
  }

  func finish(metadata: TilesetMetadata) throws {
    try flush()
    seen = TileDeduplicator()
    let compressor = try GzipCompressor()
    let (root, leaves) = try Self.directories(entries, compressor: compressor)
    var json = JSONTextWriter()
    json.raw("{\"name\":")
    json.writeString(metadata.name)
    json.raw(",\"format\":\"pbf\",\"type\":\"overlay\",\"description\":")
    json.writeString(metadata.description)
    json.raw(",\"attribution\":")
    json.writeString(metadata.attribution)
    json.raw(",")
    // The vector_layers member of the layer JSON, without its outer braces.
    json.bytes.append(contentsOf: Array(metadata.json.utf8).dropFirst().dropLast())
    json.raw("}")
    let meta = try compressor.compress(json.bytes)

    var header: [UInt8] = []
    header.append(contentsOf: Array("PMTiles".utf8))
    header.append(3)
    let rootOffset: UInt64 = 127
    let metaOffset = rootOffset + UInt64(root.count)
    let leafOffset = metaOffset + UInt64(meta.count)
    let dataOffset = leafOffset + UInt64(leaves.count)
    for value in [
      rootOffset, UInt64(root.count), metaOffset, UInt64(meta.count), leafOffset,
      UInt64(leaves.count), dataOffset, offset, addressed, UInt64(entries.count), contents,
    ] {
      Self.append(value, bytes: 8, to: &header)
    }
    header.append(1)  // clustered: tile data in tile-id order
    header.append(2)  // internal compression: gzip
    header.append(2)  // tile compression: gzip
    header.append(1)  // tile type: MVT
    let minZoom = entries.isEmpty ? metadata.minZoom : self.minZoom
    let maxZoom = entries.isEmpty ? metadata.maxZoom : self.maxZoom
    header.append(UInt8(minZoom))
    header.append(UInt8(maxZoom))
    for degrees in [metadata.west, metadata.south, metadata.east, metadata.north] {
      Self.append(
        UInt64(bitPattern: Int64(Int32((degrees * 1e7).rounded()))), bytes: 4, to: &header)
    }
    header.append(UInt8(minZoom))
    let center = metadata.center
    for degrees in [center.longitude, center.latitude] {
      Self.append(
        UInt64(bitPattern: Int64(Int32((degrees * 1e7).rounded()))), bytes: 4, to: &header)
    }
    do {
      try (header + root + meta + leaves).withUnsafeBytes { try output.write($0) }
      try data?.readAll { try output.write($0) }
      data = nil
      try output.commit()
    } catch {
      abort()
      throw error
    }
  }

  func abort() {
    data = nil
    output.abort()
  }

  // MARK: Directories

  /// The root directory and the leaf directories, both compressed: every entry in the root
  /// when it fits in the first 16 KiB with the header, else leaves of a growing size, as the
  /// reference writer does.
  static func directories(_ entries: [Entry], compressor: GzipCompressor) throws -> (
    root: [UInt8], leaves: [UInt8]
  ) {
    let root = try compressor.compress(serialize(entries))
    if root.count <= 16_384 - 127 { return (root, []) }
    var leafSize = max(4096, entries.count / 3500)
    while true {
      var leaves: [UInt8] = []
      var rootEntries: [Entry] = []
      var start = 0
      while start < entries.count {
        let slice = Array(entries[start..<min(start + leafSize, entries.count)])
        let leaf = try compressor.compress(serialize(slice))
        rootEntries.append(
          Entry(
            tileID: slice[0].tileID, offset: UInt64(leaves.count), length: UInt32(leaf.count),
            runLength: 0))
        leaves += leaf
        start += leafSize
      }
      let root = try compressor.compress(serialize(rootEntries))
      if root.count <= 16_384 - 127 { return (root, leaves) }
      leafSize += leafSize / 5
    }
  }

  /// A directory's bytes before compression: the count, then tile-id deltas, run lengths,
  /// lengths and offsets (0 for "right after the previous entry", else offset + 1), each a
  /// column of varints.
  static func serialize(_ entries: [Entry]) -> [UInt8] {
    var w = ProtobufWriter()
    w.varint(UInt64(entries.count))
    var last: UInt64 = 0
    for entry in entries {
      w.varint(entry.tileID - last)
      last = entry.tileID
    }
    for entry in entries { w.varint(UInt64(entry.runLength)) }
    for entry in entries { w.varint(UInt64(entry.length)) }
    for (k, entry) in entries.enumerated() {
      if k > 0, entry.offset == entries[k - 1].offset + UInt64(entries[k - 1].length) {
        w.varint(0)
      } else {
        w.varint(entry.offset + 1)
      }
    }
    return w.bytes
  }

  static func append(_ value: UInt64, bytes: Int, to out: inout [UInt8]) {
    for k in 0..<bytes { out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(k)))) }
  }
}
