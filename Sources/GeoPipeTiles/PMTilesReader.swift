import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeMercator

/// A PMTiles v3 archive of vector tiles, read with `pread`: the 127-byte header, the JSON
/// metadata, the root directory, and leaf directories one at a time as the tiles reach them.
///
/// Directories may be gzipped or not; tiles are handed out as stored. Every offset and length
/// is checked against its section and the file before it is read.
final class PMTilesReader: TilesetReader {
  typealias Entry = PMTilesDirectory.Entry

  /// Where a part of the archive lies.
  struct Section {
    var offset: UInt64
    var length: UInt64
  }

  /// The parts the header points at, in its order.
  struct Sections {
    var root: Section
    var metadata: Section
    var leaves: Section
    var tiles: Section
  }

  let path: String
  let metadata: TilesetMetadata
  let entries: JSONObject
  let tileFormat: String
  private let file: Int32
  private let sections: Sections
  private let internalCompression: UInt8
  private let decompressor: GzipDecompressor
  private let root: [Entry]
  private var stack: [(entries: [Entry], index: Int, run: UInt32)] = []
  private var lastID: UInt64?
  private var lastData: (offset: UInt64, bytes: [UInt8])?

  /// Directories nest at most this deep (the root, then leaves of leaves).
  private static let maxDepth = 4

  /// The header's tile types (PMTiles v3 §3.2) that are read, as MBTiles `format` names them.
  static let tileFormats: [UInt8: String] = [1: "pbf", 2: "png", 3: "jpg", 4: "webp"]

  /// Opens the archive and reads its header, metadata and root directory; raster tiles
  /// (PNG, JPEG, WebP) only when `rasterAllowed`.
  init(path: String, rasterAllowed: Bool = false) throws {
    self.path = path
    file = open(path, O_RDONLY | O_CLOEXEC)
    guard file >= 0 else {
      throw GeoPipeError(
        "cannot open '\(path)': \(String(cString: strerror(errno)))", status: .noInput)
    }
    do {
      var info = stat()
      guard fstat(file, &info) == 0 else { throw TilesError("cannot read its size") }
      let size = UInt64(info.st_size)
      let header = try Self.read(file, at: 0, count: 127, fileSize: size)
      guard header.starts(with: Array("PMTiles".utf8)) else {
        throw TilesError("it does not start with the PMTiles magic number")
      }
      guard header[7] == 3 else {
        throw TilesError("it is PMTiles version \(header[7]); only version 3 is read")
      }
      func u64(_ at: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(header[at + $1]) << (8 * UInt64($1)) }
      }
      func degrees(_ at: Int) -> Double {
        let bits = (0..<4).reduce(UInt32(0)) { $0 | UInt32(header[at + $1]) << (8 * UInt32($1)) }
        return Double(Int32(bitPattern: bits)) / 1e7
      }
      var found: [Section] = []
      for (k, name) in ["root directory", "metadata", "leaf directories", "tile data"].enumerated()
      {
        let (offset, length) = (u64(8 + 16 * k), u64(16 + 16 * k))
        guard offset <= size, length <= size - offset else {
          throw TilesError("its \(name) (\(length) bytes at \(offset)) lies past its \(size) bytes")
        }
        found.append(Section(offset: offset, length: length))
      }
      let sections = Sections(root: found[0], metadata: found[1], leaves: found[2], tiles: found[3])
      self.sections = sections
      internalCompression = header[97]
      guard let format = Self.tileFormats[header[99]], header[99] == 1 || rasterAllowed else {
        throw TilesError(
          "its tiles are of type \(header[99]), not \(rasterAllowed ? "vector (MVT, type 1) or raster (PNG, JPEG, WebP: types 2 to 4)" : "vector tiles (MVT, type 1)")"
        )
      }
      tileFormat = format
      for (name, compression) in [("directories", header[97]), ("tiles", header[98])]
      where compression > 2 {
        throw TilesError(
          "its \(name) are compressed with \(compression == 3 ? "brotli" : compression == 4 ? "zstd" : "method \(compression)"); "
            + "only gzip and none are read")
      }
      decompressor = try GzipDecompressor()
      var entries = JSONObject()
      let meta = try Self.unpack(
        Self.read(
          file, at: sections.metadata.offset, count: sections.metadata.length,
          fileSize: size), compression: internalCompression, decompressor: decompressor)
      if !meta.isEmpty {
        guard case .object(let object) = try JSONText.parse(meta, name: "metadata") else {
          throw TilesError("its metadata is not a JSON object")
        }
        entries = object
      }
      entries["minzoom"] = .integer(Int64(header[100]))
      entries["maxzoom"] = .integer(Int64(header[101]))
      entries["bounds"] = .array([102, 106, 110, 114].map { .double(degrees($0)) })
      entries["center"] = .array([
        .double(degrees(119)), .double(degrees(123)), .integer(Int64(header[118])),
      ])
      self.entries = entries
      metadata = TilesetMetadata(
        entries: entries, minZoom: Int(header[100]), maxZoom: Int(header[101]))
      root = try Self.directory(
        file, sections.root, fileSize: size, compression: internalCompression,
        decompressor: decompressor, sections: sections)
      stack = [(root, 0, 0)]
    } catch {
      close(file)
      if let error = error as? GeoPipeError { throw error }
      throw GeoPipeError("cannot read '\(path)' as PMTiles: \(error)", status: .dataError)
    }
  }

  deinit { close(file) }

  func next() throws -> (tile: TileID, data: [UInt8])? {
    do {
      while let top = stack.last {
        guard top.index < top.entries.count else {
          stack.removeLast()
          continue
        }
        let entry = top.entries[top.index]
        if entry.runLength == 0 {
          stack[stack.count - 1].index += 1
          guard stack.count < Self.maxDepth else {
            throw TilesError("leaf directories nest more than \(Self.maxDepth) deep")
          }
          stack.append((try leaf(entry), 0, 0))
          continue
        }
        let id = entry.tileID + UInt64(top.run)
        stack[stack.count - 1].run += 1
        if top.run + 1 == entry.runLength {
          stack[stack.count - 1].index += 1
          stack[stack.count - 1].run = 0
        }
        if let lastID, id <= lastID {
          throw TilesError("the directories list tile id \(id) after \(lastID)")
        }
        lastID = id
        guard let tile = PMTilesID.tile(id) else {
          throw TilesError("tile id \(id) is past zoom \(TileID.maxZoom)")
        }
        return (tile, try tileData(entry))
      }
      return nil
    } catch let error as TilesError {
      throw GeoPipeError("\(path): \(error)", status: .dataError)
    }
  }

  func data(of tile: TileID) throws -> [UInt8]? {
    let id = PMTilesID.id(z: tile.z, x: tile.x, y: tile.y)
    do {
      var directory = root
      for _ in 0..<Self.maxDepth {
        // The last entry whose id is at most `id`.
        var low = 0
        var high = directory.count
        while low < high {
          let middle = (low + high) / 2
          if directory[middle].tileID <= id { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let entry = directory[low - 1]
        if entry.runLength > 0 {
          return id - entry.tileID < UInt64(entry.runLength) ? try tileData(entry) : nil
        }
        directory = try leaf(entry)
      }
      throw TilesError("leaf directories nest more than \(Self.maxDepth) deep")
    } catch let error as TilesError {
      throw GeoPipeError("\(path): tile \(tile): \(error)", status: .dataError)
    }
  }

  private func leaf(_ entry: Entry) throws -> [Entry] {
    let leaves = sections.leaves
    return try Self.directory(
      file, Section(offset: leaves.offset + entry.offset, length: UInt64(entry.length)),
      fileSize: UInt64.max,
      compression: internalCompression, decompressor: decompressor, sections: sections)
  }

  private func tileData(_ entry: Entry) throws -> [UInt8] {
    if let lastData, lastData.offset == entry.offset { return lastData.bytes }
    let bytes = try Self.read(
      file, at: sections.tiles.offset + entry.offset, count: UInt64(entry.length),
      fileSize: UInt64.max)
    lastData = (entry.offset, bytes)
    return bytes
  }

  private static func directory(
    _ file: Int32, _ section: Section, fileSize: UInt64,
    compression: UInt8, decompressor: GzipDecompressor,
    sections: Sections
  ) throws -> [Entry] {
    let bytes = try unpack(
      read(file, at: section.offset, count: section.length, fileSize: fileSize),
      compression: compression, decompressor: decompressor)
    return try PMTilesDirectory.parse(
      bytes, sectionLength: sections.tiles.length,
      leafLength: sections.leaves.length)
  }

  /// Directory or metadata bytes uncompressed: gzip when the header says so, or (compression
  /// unknown) when they start with the gzip magic number.
  static func unpack(_ bytes: [UInt8], compression: UInt8, decompressor: GzipDecompressor)
    throws -> [UInt8]
  {
    guard compression == 2 || (compression == 0 && GzipDecompressor.isGzip(bytes)) else {
      return bytes
    }
    do {
      return try decompressor.decompress(bytes, limit: 1 << 28)
    } catch let error as GeoPipeError {
      throw TilesError(error.message)
    }
  }

  /// `count` bytes at `offset`, all of them or an error.
  private static func read(_ file: Int32, at offset: UInt64, count: UInt64, fileSize: UInt64)
    throws -> [UInt8]
  {
    guard count <= 1 << 30, offset <= fileSize, count <= fileSize - offset else {
      throw TilesError("\(count) bytes at offset \(offset) lie past the end of the file")
    }
    var bytes = [UInt8](repeating: 0, count: Int(count))
    var done = 0
    while done < bytes.count {
      let n = bytes.withUnsafeMutableBytes { buffer in
        buffer.baseAddress.map {
          pread(file, $0 + done, buffer.count - done, off_t(offset) + off_t(done))
        } ?? 0
      }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else {
        throw TilesError(
          n == 0
            ? "the file ends before offset \(offset + UInt64(done))"
            : "cannot read it: \(String(cString: strerror(errno)))")
      }
      done += n
    }
    return bytes
  }
}
