import GeoPipeCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension FeatureReaders {
  /// Opens the share of `path` that one shard reads (`ReadOptions.share`).
  ///
  /// A format splits its files when it has an `openShare` (GeoJSONSeq and CSV by bytes at
  /// record boundaries, a FeatureCollection by where its features begin), as does a database
  /// whose format has one (a PostgreSQL table by blocks); standard input is refused, and other
  /// inputs (gzip, formats that do not split, unknown extensions) are read whole by the shard
  /// whose share holds their start.
  static func openShare(_ path: String, share: InputShare, options given: ReadOptions) throws
    -> any FeatureReader
  {
    var options = given
    options.share = nil
    if path == "-" {
      throw GeoPipeError.usage(
        "standard input cannot be split into shards: give the input's path")
    }
    let database = FeatureFormats.addressed(by: path)
    let format = database ?? options.format ?? FeatureFormats.reading(path)
    if let openShare = format?.openShare, try database != nil || !isCompressed(path) {
      if share.isEmpty { return EmptyFeatureReader() }
      return try openShare(path, options, share)
    }
    return share.readsWhole ? try open(path, options: options) : EmptyFeatureReader()
  }

  /// Opens `path` as any input is opened and hands the reader to `restrict` when it is an `R`,
  /// which narrows it to a shard's share; an input that opens as another reader (content of
  /// another format) is read whole by the shard whose share holds its start.
  public static func openShare<R: FeatureReader>(
    _ path: String, options: ReadOptions, share: InputShare, as type: R.Type,
    restrict: (R) throws -> any FeatureReader
  ) throws -> any FeatureReader {
    let reader = try open(path, options: options)
    guard let opened = reader as? R else {
      return share.readsWhole ? reader : EmptyFeatureReader()
    }
    return try restrict(opened)
  }

  /// The size in bytes of each input a source reads, as shards weigh them: for a URL,
  /// `databaseShareSize` when its format splits, else 0.
  public static func shareSizes(_ paths: [String]) throws -> [Int] {
    try paths.map { path in
      if path == "-" {
        throw GeoPipeError.usage(
          "standard input cannot be split into shards: give the input's path")
      }
      if let database = FeatureFormats.addressed(by: path) {
        return database.openShare == nil ? 0 : databaseShareSize
      }
      var info = stat()
      guard stat(path, &info) == 0 else {
        throw GeoPipeError(
          "cannot open '\(path)': \(String(cString: strerror(errno)))", status: .noInput)
      }
      return Int(info.st_size)
    }
  }

  /// What a database input (a table) weighs, in bytes of files, when shares are cut.
  ///
  /// 1 GiB; the format maps its share onto its own units (a table's blocks).
  public static let databaseShareSize = 1 << 30

  private static func isCompressed(_ path: String) throws -> Bool {
    let file = try FileRangeByteSource(path: path, range: 0..<2)
    var magic = [UInt8](repeating: 0, count: 2)
    let n = try magic.withUnsafeMutableBytes { try file.read(into: $0) }
    return n == 2 && magic[0] == 0x1F && magic[1] == 0x8B
  }

  /// GeoJSONSeq: the records that begin in the share.
  ///
  /// A record begins at the start of the
  /// file or after a line feed; in an RS-delimited file (RFC 8142) at each RS.
  static func openSequenceShare(_ path: String, options: ReadOptions, share: InputShare) throws
    -> any FeatureReader
  {
    let scan = try RecordScan(path: path)
    let separated = try scan.byte(at: 0) == 0x1E
    func isStart(_ position: Int, _ byte: UInt8, _ previous: UInt8?) -> Bool {
      separated ? byte == 0x1E : position == 0 || previous == 0x0A
    }
    let from = try scan.firstStart(atOrAfter: share.lower, isStart: isStart)
    let to = try scan.firstStart(atOrAfter: share.upper, isStart: isStart)
    let lines = try scan.lineFeeds(before: from)
    let buffer = try InputBuffer(
      source: FileRangeByteSource(path: path, range: from..<to), name: path, line: lines + 1,
      maxRecordSize: options.maxRecordSize)
    var single = options
    single.threads = 1
    return GeoJSONReader(buffer: buffer, options: single)
  }

  /// CSV: the header, then the rows that begin in the share.
  ///
  /// Where a row begins is found by
  /// reading the file from the header on as the CSV reader does (a line break inside quotes
  /// ends no row), so every shard finds the same boundaries.
  static func openCSVShare(_ path: String, options: ReadOptions, share: InputShare) throws
    -> any FeatureReader
  {
    var text = options
    text.format = .csv
    let opened = try open(path, options: text)
    guard let reader = opened as? CSVReader else {
      return share.readsWhole ? opened : EmptyFeatureReader()
    }
    let scan = try RecordScan(path: path)
    var state = CSVRowBoundaries(delimiter: reader.delimiter)
    state.lineFeeds = reader.rowsLine - 1
    let from = try state.advance(scan, from: reader.rowsOffset, to: max(share.lower, 0))
    let line = state.lineFeeds + 1
    let to = try state.advance(scan, from: from, to: share.upper)
    try reader.continueReading(
      rows: InputBuffer(
        source: FileRangeByteSource(path: path, range: from..<to), name: path, line: line,
        maxRecordSize: options.maxRecordSize))
    return reader
  }

  /// A FeatureCollection (or any GeoJSON text): every feature is parsed, and those that begin
  /// in the share are kept.
  static func openGeoJSONShare(_ path: String, options: ReadOptions, share: InputShare) throws
    -> any FeatureReader
  {
    var single = options
    single.threads = 1
    let reader = try open(path, options: single)
    guard let geoJSON = reader as? GeoJSONReader else {
      return share.readsWhole ? reader : EmptyFeatureReader()
    }
    return PositionFilteringReader(geoJSON, share: share)
  }
}

/// A reader of nothing: a shard's share of an input that holds none of its records.
public final class EmptyFeatureReader: FeatureReader {
  /// Creates the reader.
  public init() {}
  /// Nothing is read.
  public var bytesRead: Int { 0 }
  /// Nothing is skipped.
  public var skippedCount: Int { 0 }
  /// There are no members.
  public var collectionMembers: JSONObject { JSONObject() }
  /// Always nil.
  public func next() throws -> Feature? { nil }
}

/// The next `count` features of another reader, for a shard of a format whose records are
/// numbered (the reader has stepped past those before the shard's).
public final class RecordRangeReader: FeatureReader {
  private let upstream: any FeatureReader
  private var remaining: Int

  /// Passes on at most `count` features of `upstream`.
  public init(_ upstream: any FeatureReader, count: Int) {
    self.upstream = upstream
    remaining = count
  }

  /// The upstream reader's bytes.
  public var bytesRead: Int { upstream.bytesRead }
  /// The upstream reader's skipped features.
  public var skippedCount: Int { upstream.skippedCount }
  /// The upstream reader's members.
  public var collectionMembers: JSONObject { upstream.collectionMembers }
  /// Where the last feature begins.
  public var lastFeatureLocation: SourceLocation? { upstream.lastFeatureLocation }
  /// The upstream reader's CRS.
  public var declaredCRS: String? { upstream.declaredCRS }

  /// The next feature of the range, nil after its last.
  public func next() throws -> Feature? {
    guard remaining > 0 else { return nil }
    remaining -= 1
    return try upstream.next()
  }
}

/// The features of a GeoJSON reader that begin in a share.
final class PositionFilteringReader: FeatureReader {
  private let upstream: GeoJSONReader
  private let share: InputShare

  init(_ upstream: GeoJSONReader, share: InputShare) {
    self.upstream = upstream
    self.share = share
  }

  var bytesRead: Int { upstream.bytesRead }
  var skippedCount: Int { upstream.skippedCount }
  var collectionMembers: JSONObject { upstream.collectionMembers }
  var lastFeatureLocation: SourceLocation? { upstream.lastFeatureLocation }
  var declaredCRS: String? { upstream.declaredCRS }

  func next() throws -> Feature? {
    while let feature = try upstream.next() {
      guard let position = upstream.lastFeatureOffset else {
        throw GeoPipeError(
          "\(upstream.lastFeatureLocation?.file ?? "input"): cannot tell where a feature begins, "
            + "so it cannot be given to one shard", status: .dataError)
      }
      if share.contains(position) { return feature }
    }
    return nil
  }
}

/// The bytes of a file in a range, read with `pread`.
final class FileRangeByteSource: ByteSource {
  private let fd: Int32
  private let name: String
  private var offset: Int
  private let end: Int

  init(path: String, range: Range<Int>) throws {
    let opened = open(path, O_RDONLY | O_CLOEXEC)
    guard opened >= 0 else {
      throw GeoPipeError(
        "cannot open '\(path)': \(String(cString: strerror(errno)))", status: .noInput)
    }
    fd = opened
    name = path
    offset = range.lowerBound
    end = range.upperBound
  }

  deinit { close(fd) }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    let wanted = min(buffer.count, end - offset)
    guard wanted > 0 else { return 0 }
    while true {
      let n = pread(fd, buffer.baseAddress, wanted, off_t(offset))
      if n >= 0 {
        offset += n
        return n
      }
      if errno == EINTR { continue }
      throw GeoPipeError(
        "cannot read '\(name)': \(String(cString: strerror(errno)))", status: .ioError)
    }
  }
}

/// Reads a file in blocks to find where records begin.
struct RecordScan {
  let path: String
  let size: Int
  private static let blockSize = 1 << 20

  init(path: String) throws {
    self.path = path
    size = try FeatureReaders.shareSizes([path])[0]
  }

  /// The byte at `position`, nil past the end.
  func byte(at position: Int) throws -> UInt8? {
    guard position < size else { return nil }
    var result: UInt8?
    try forEachBlock(from: position, to: position + 1) { block, _ in
      result = block.first
      return false
    }
    return result
  }

  /// Calls `body` with the file's bytes from `from` on, a block at a time with the block's
  /// offset, until it returns false or `to` (or the end) is reached.
  func forEachBlock(
    from: Int, to: Int = .max, _ body: (UnsafeRawBufferPointer, Int) throws -> Bool
  ) throws {
    let source = try FileRangeByteSource(path: path, range: from..<max(from, min(to, size)))
    let block = UnsafeMutableRawBufferPointer.allocate(
      byteCount: Self.blockSize, alignment: 8)
    defer { block.deallocate() }
    var offset = from
    while true {
      let n = try source.read(into: block)
      guard n > 0 else { return }
      guard try body(UnsafeRawBufferPointer(rebasing: block[..<n]), offset) else { return }
      offset += n
    }
  }

  /// The first position at or after `target` where `isStart` (given the byte there and the
  /// one before) says a record begins; the file's size when none does.
  func firstStart(
    atOrAfter target: Int, isStart: (Int, UInt8, UInt8?) -> Bool
  ) throws -> Int {
    guard target < size else { return size }
    let from = max(target, 0)
    var previous = from > 0 ? try byte(at: from - 1) : nil
    var found = size
    try forEachBlock(from: from) { block, offset in
      for (k, byte) in block.enumerated() {
        if isStart(offset + k, byte, previous) {
          found = offset + k
          return false
        }
        previous = byte
      }
      return true
    }
    return found
  }

  /// How many line feeds come before `position`.
  func lineFeeds(before position: Int) throws -> Int {
    var count = 0
    try forEachBlock(from: 0, to: position) { block, _ in
      for byte in block where byte == 0x0A { count += 1 }
      return true
    }
    return count
  }
}

/// Finds where CSV rows begin as `CSVReader` reads them: a quote opens a quoted field only at
/// the start of a field, a doubled quote inside one is a quote, and a row ends at LF, CR or
/// CRLF outside quotes.
struct CSVRowBoundaries {
  private enum State {
    case fieldStart
    case unquoted
    case quoted
    case quoteInQuoted
    case afterCR
  }

  let delimiter: UInt8
  private var state = State.fieldStart
  /// Line feeds passed so far.
  var lineFeeds = 0

  init(delimiter: UInt8) {
    self.delimiter = delimiter
  }

  /// Reads from `from`, a row's start, to the first row start at or after `target`, and
  /// returns it (the file's size when no row starts there).
  mutating func advance(_ scan: RecordScan, from: Int, to target: Int) throws -> Int {
    if from >= target || from >= scan.size { return min(from, scan.size) }
    var found = scan.size
    var state = self.state
    var lineFeeds = self.lineFeeds
    let d = delimiter
    try scan.forEachBlock(from: from) { block, offset in
      for (k, c) in block.enumerated() {
        if state == .afterCR {
          if c == 0x0A {
            lineFeeds += 1
            state = .fieldStart
            if offset + k + 1 >= target {
              found = offset + k + 1
              return false
            }
            continue
          }
          state = .fieldStart
          if offset + k >= target {
            found = offset + k
            return false
          }
        }
        var rowEnds = false
        switch (state, c) {
        case (.quoted, 0x22): state = .quoteInQuoted
        case (.quoted, 0x0A):
          lineFeeds += 1
        case (.quoted, _): break
        case (.fieldStart, 0x22), (.quoteInQuoted, 0x22): state = .quoted
        case (_, 0x0A):
          lineFeeds += 1
          rowEnds = true
        case (_, 0x0D): state = .afterCR
        case (_, _) where c == d: state = .fieldStart
        default: state = .unquoted
        }
        if rowEnds {
          state = .fieldStart
          if offset + k + 1 >= target {
            found = offset + k + 1
            return false
          }
        }
      }
      return true
    }
    if found == scan.size && state == .afterCR { state = .fieldStart }
    self.state = state
    self.lineFeeds = lineFeeds
    return found
  }
}
