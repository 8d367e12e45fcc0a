import GeoPipeCore
import GeoPipeIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A Parquet file opened for reading by offset: its footer, its schema, and its row groups'
/// column chunks decoded one row group at a time.
///
/// Every offset and length the footer gives is checked against the file's size; failures are
/// data errors naming the file, and the row group and column where there is one.
final class ParquetFile {
  let name: String
  private let storage: Storage
  let size: Int
  let metadata: FileMetaData
  let schema: ParquetSchema
  private let codec: PageCodec
  /// Bytes read so far.
  private(set) var bytesRead = 0

  /// The most rows a row group may have: memory holds one row group's columns.
  static let maxRows: Int64 = 1 << 26

  /// The `PAR1` magic that starts and ends a file.
  static let magic: [UInt8] = Array("PAR1".utf8)

  /// Opens `path` and reads its footer.
  convenience init(path: String, name: String) throws {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
      throw GeoPipeError(
        "cannot open \(name): \(String(cString: strerror(errno)))", status: .noInput)
    }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      close(fd)
      throw GeoPipeError("cannot read \(name)", status: .ioError)
    }
    try self.init(storage: .file(fd), size: Int(info.st_size), name: name)
  }

  /// Opens an input: a file by path, or other bytes (standard input, gzip) copied to a scratch
  /// file first, since Parquet is read from its end.
  convenience init(input: FormatInput) throws {
    if input.path != "-", !input.isCompressed {
      try self.init(path: input.path, name: input.name)
      return
    }
    let scratch = try ScratchFile(in: ScratchFile.temporaryFolder, for: input.name)
    let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { block.deallocate() }
    var size = 0
    while true {
      let n = try input.source.read(into: block)
      if n == 0 { break }
      try scratch.write(UnsafeRawBufferPointer(rebasing: block[0..<n]))
      size += n
    }
    try self.init(storage: .scratch(scratch), size: size, name: input.name)
  }

  private init(storage: Storage, size: Int, name: String) throws {
    do {
      codec = try PageCodec()
      (metadata, schema) = try Self.readFooter(storage: storage, size: size, name: name)
    } catch {
      if case .file(let fd) = storage { close(fd) }
      throw error
    }
    self.name = name
    self.storage = storage
    self.size = size
  }

  deinit {
    if case .file(let fd) = storage { close(fd) }
  }

  /// Where the bytes are.
  private enum Storage {
    case file(Int32)
    case scratch(ScratchFile)

    /// Reads `count` bytes at `offset` (fewer only at the end of the file).
    func read(_ count: Int, at offset: Int) throws -> [UInt8] {
      var bytes = [UInt8](repeating: 0, count: count)
      var done = 0
      switch self {
      case .scratch(let scratch):
        done = try bytes.withUnsafeMutableBytes { try scratch.read(at: offset, into: $0) }
      case .file(let fd):
        while done < count {
          let n = bytes.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return 0 }
            return pread(fd, base + done, count - done, off_t(offset + done))
          }
          if n < 0 {
            if errno == EINTR { continue }
            throw GeoPipeError(
              "read error: \(String(cString: strerror(errno)))", status: .ioError)
          }
          if n == 0 { break }
          done += n
        }
      }
      bytes.removeLast(count - done)
      return bytes
    }
  }

  private static func readFooter(storage: Storage, size: Int, name: String) throws -> (
    FileMetaData, ParquetSchema
  ) {
    func fail(_ message: String) -> GeoPipeError { .data("\(name): \(message)", at: nil) }
    guard size >= 12 else { throw fail("not a Parquet file (it is \(size) bytes long)") }
    let head = try storage.read(4, at: 0)
    let tail = try storage.read(8, at: size - 8)
    guard head == magic else { throw fail("not a Parquet file (it does not start with PAR1)") }
    guard Array(tail[4...]) == magic else {
      throw fail("the file does not end with PAR1: it is truncated or not Parquet")
    }
    let length = Int(
      UInt32(tail[0]) | UInt32(tail[1]) << 8 | UInt32(tail[2]) << 16
        | UInt32(tail[3]) << 24)
    guard length <= size - 12 else {
      throw fail("the footer's length, \(length) bytes, runs past the start of the file")
    }
    let footer = try storage.read(length, at: size - 8 - length)
    let metadata: FileMetaData
    do {
      metadata = try footer.withUnsafeBytes { raw in
        var reader = ThriftReader(raw)
        return try FileMetaData(decoding: &reader)
      }
    } catch let error as ThriftError {
      throw fail(
        "the footer is corrupt at byte \(size - 8 - length + error.offset): \(error.message)")
    }
    let schema: ParquetSchema
    do {
      schema = try ParquetSchema(metadata.schema)
    } catch let error as ParquetError {
      throw fail("the schema: \(error.message)")
    }
    for (g, group) in metadata.rowGroups.enumerated() {
      guard group.rowCount >= 0, group.rowCount <= maxRows else {
        throw fail(
          "row group \(g) has \(group.rowCount) rows, more than geopipe reads in one row "
            + "group (\(maxRows))")
      }
      guard group.columns.count == schema.leaves.count else {
        throw fail(
          "row group \(g) has \(group.columns.count) columns where the schema has "
            + "\(schema.leaves.count)")
      }
      for (c, column) in group.columns.enumerated() {
        let start = column.chunkStart
        guard start >= 4, column.compressedSize >= 0,
          start <= Int64(size - 8 - length), column.compressedSize <= Int64(size) - start
        else {
          throw fail(
            "row group \(g), column \(schema.leaves[c].path.joined(separator: ".")): the chunk "
              + "at byte \(start) of \(column.compressedSize) bytes is outside the file")
        }
      }
    }
    return (metadata, schema)
  }

  /// Decodes the chunks of `columns` (leaf indices) in row group `index`.
  func decode(rowGroup index: Int, columns: [Int]) throws -> [Int: DecodedColumn] {
    let group = metadata.rowGroups[index]
    var result: [Int: DecodedColumn] = [:]
    for c in columns {
      let meta = group.columns[c]
      let leaf = schema.leaves[c]
      do {
        let start = Int(meta.chunkStart)
        let bytes = try storage.read(Int(meta.compressedSize), at: start)
        bytesRead += bytes.count
        guard bytes.count == Int(meta.compressedSize) else {
          throw ParquetError("the chunk runs past the end of the file")
        }
        let decoder = ColumnChunkDecoder(
          leaf: leaf, meta: meta, codec: codec, fileOffset: start)
        result[c] = try bytes.withUnsafeBytes {
          try decoder.decode($0, rows: Int(group.rowCount))
        }
      } catch let error as ParquetError {
        throw chunkError(rowGroup: index, column: c, error.message)
      }
    }
    return result
  }

  /// A data error naming the file, the row group and the column.
  func chunkError(rowGroup: Int, column: Int, _ message: String) -> GeoPipeError {
    .data(
      "\(name): row group \(rowGroup), column \(schema.leaves[column].path.joined(separator: ".")):"
        + " \(message)", at: nil)
  }

  /// The value of a key-value metadata entry (`geo`).
  func keyValue(_ key: String) -> String? {
    metadata.keyValues.last { $0.key == key }?.value
  }
}

extension ColumnMetaData {
  /// Where the chunk's first page starts (some writers give a dictionary page offset of 0 for
  /// none).
  var chunkStart: Int64 {
    if let dictionary = dictionaryPageOffset, dictionary > 0 { return dictionary }
    return dataPageOffset
  }
}
