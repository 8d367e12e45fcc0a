import GeoPipeCore

/// A growable window over a byte source that parsers scan in place.
///
/// Parsers work on `bytes[start..<end]` and call `refill(keepingFrom:)` when a record is cut
/// at the end of the window: the bytes from that index on move to the front and more are read
/// behind them, so the record can be parsed again from its start. The buffer grows only when
/// one record is larger than it, and never past `maxRecordSize` (a longer record is an error);
/// parsers skip whitespace between records before they ask for more, so that whitespace never
/// grows it. Bytes that leave the window are counted (lines, and
/// characters since the last line break), so any index still in the window maps to a
/// 1-based line and column.
public final class InputBuffer {
  /// The input's name for messages.
  public let name: String
  /// The window's storage; valid bytes are `0..<end`.
  public private(set) var bytes: UnsafeMutablePointer<UInt8>
  /// How many bytes in `bytes` are valid.
  public private(set) var end = 0
  /// True once the source has no more bytes.
  public private(set) var isAtEOF = false
  /// Bytes consumed from the source so far (for progress).
  public private(set) var bytesRead = 0
  /// The most bytes one record (or token) may take; the window never grows past it.
  public let maxRecordSize: Int

  private let source: ByteSource
  /// What holds the bytes, when the window does not.
  private let owner: BatchText?
  private var capacity: Int
  // Line accounting for bytes that have left the window.
  private var linesBefore = 0
  private var columnBefore = 0

  // The last location computed, so that locations asked for in increasing order cost only
  // the bytes between them.
  private var cachedIndex = 0
  private var cachedLine = 0
  private var cachedColumn = 0

  /// Creates a window of `capacity` bytes over `source` and reads the first bytes.
  ///
  /// `line` and `column` (1-based) say where the source's first byte stands in the file it
  /// was cut from, so that a part of a file parsed on its own reports true locations. A record
  /// longer than `maxRecordSize` bytes is an error.
  public init(
    source: ByteSource, name: String, capacity: Int = 1 << 22, line: Int = 1, column: Int = 1,
    maxRecordSize: Int = ReadOptions.defaultMaxRecordSize
  ) throws {
    self.source = source
    owner = nil
    self.name = name
    self.maxRecordSize = max(maxRecordSize, 1)
    // One byte more than a record may take, so that a parser can see what follows it.
    self.capacity = max(min(capacity, self.maxRecordSize + 1), 16)
    linesBefore = line - 1
    columnBefore = column - 1
    cachedLine = linesBefore
    cachedColumn = columnBefore
    bytes = .allocate(capacity: self.capacity + 1)
    try fill()
  }

  /// Creates a window over the whole of `text`, a part of a file cut out to be parsed on its
  /// own, with `line` and `column` (1-based) saying where it starts in that file.
  ///
  /// The window reads the text where it is and keeps it alive.
  init(text: BatchText, name: String, line: Int, column: Int) {
    source = MemoryByteSource([])
    owner = text
    self.name = name
    capacity = text.count
    linesBefore = line - 1
    columnBefore = column - 1
    cachedLine = linesBefore
    cachedColumn = columnBefore
    bytes = text.bytes
    maxRecordSize = .max
    end = text.count
    bytesRead = text.count
    isAtEOF = true
  }

  deinit {
    // Bytes that another object owns are never reallocated: that window is at the end already.
    if owner == nil { bytes.deallocate() }
  }

  /// Moves `bytes[keep..<end]` to the front and reads more behind them.
  ///
  /// Returns how far indices moved (the old index `keep` becomes 0), or nil at the end of
  /// the input, when nothing more could be read. Throws when the bytes kept, a record that has
  /// not ended yet, are more than `maxRecordSize`.
  public func refill(keepingFrom keep: Int) throws -> Int? {
    guard !isAtEOF else { return nil }
    if end - keep > maxRecordSize {
      throw GeoPipeError.data(
        "a record longer than \(Self.describeSize(maxRecordSize)) starts here (the "
          + "--max-record-size limit); raise the limit if records are meant to be this large",
        at: location(of: keep))
    }
    account(discarding: keep)
    cachedIndex = 0
    cachedLine = linesBefore
    cachedColumn = columnBefore
    let kept = end - keep
    if keep > 0 {
      (bytes).update(from: bytes + keep, count: kept)
    }
    end = kept
    if kept * 2 > capacity && capacity <= maxRecordSize {
      // One record fills most of the window: grow it, up to the longest record allowed.
      let grownCapacity = min(capacity * 2, maxRecordSize + 1)
      let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: grownCapacity + 1)
      grown.update(from: bytes, count: kept)
      bytes.deallocate()
      bytes = grown
      capacity = grownCapacity
    }
    try fill()
    return keep
  }

  /// A byte count for messages: "256 MiB", "1000 bytes".
  static func describeSize(_ count: Int) -> String {
    for (shift, unit) in [(30, "GiB"), (20, "MiB"), (10, "KiB")]
    where count >= 1 << shift && count % (1 << shift) == 0 {
      return "\(count >> shift) \(unit)"
    }
    return "\(count) bytes"
  }

  /// Drops `count` bytes at the front without counting them as characters (a BOM).
  public func skipPrefix(_ count: Int) {
    (bytes).update(from: bytes + count, count: end - count)
    end -= count
    cachedIndex = 0
  }

  /// The line and column of the byte at `index` in the window.
  public func location(of index: Int) -> SourceLocation {
    let index = min(max(index, 0), end)
    if index < cachedIndex {
      cachedIndex = 0
      cachedLine = linesBefore
      cachedColumn = columnBefore
    }
    Self.count(bytes, from: cachedIndex, to: index, line: &cachedLine, column: &cachedColumn)
    cachedIndex = index
    return SourceLocation(file: name, line: cachedLine + 1, column: cachedColumn + 1)
  }

  /// Reads until the window holds at least twice what it kept (so a record cut at the edge
  /// is parsed again only a logarithmic number of times), or is full, or the input ends.
  private func fill() throws {
    let target = min(capacity, 2 * end + (1 << 16))
    while end < target {
      let n: Int
      do {
        n = try source.read(
          into: UnsafeMutableRawBufferPointer(start: bytes + end, count: capacity - end))
      } catch var error as GeoPipeError where error.location == nil && error.status == .dataError {
        // Bad compressed data: say how far the text got before it broke.
        error.location = location(of: end)
        throw error
      }
      if n == 0 {
        isAtEOF = true
        break
      }
      end += n
      bytesRead += n
    }
    bytes[end] = 0
  }

  /// Counts the lines and trailing characters of `bytes[0..<count]` before they are dropped.
  private func account(discarding count: Int) {
    guard count > 0 else { return }
    // A location asked for inside the dropped bytes has already counted the bytes before it.
    var from = 0
    if cachedIndex <= count {
      from = cachedIndex
      linesBefore = cachedLine
      columnBefore = cachedColumn
    }
    Self.count(bytes, from: from, to: count, line: &linesBefore, column: &columnBefore)
  }

  /// Advances a 0-based line and column over `bytes[from..<to]`: each line break starts a
  /// new line, and every byte that does not continue a UTF-8 sequence is one character.
  static func count(
    _ bytes: UnsafePointer<UInt8>, from: Int, to: Int, line: inout Int, column: inout Int
  ) {
    guard from < to else { return }
    var lastBreak = -1
    var breaks = 0
    var i = from
    let raw = UnsafeRawPointer(bytes)
    // Sixteen bytes at a time: each line break subtracts 0xFF (adds one) in its lane of `tally`,
    // which is added up before a lane can overflow.
    var tally = SIMD16<UInt8>()
    var tallied = 0
    var lastBlock = -1
    while i + 16 <= to {
      let block = raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
      let (low, high) = unsafeBitCast(
        block .== SIMD16<UInt8>(repeating: 0x0A), to: (UInt64, UInt64).self)
      if low | high != 0 { lastBlock = i }
      tally &-= unsafeBitCast((low, high), to: SIMD16<UInt8>.self)
      tallied += 1
      if tallied == 255 {
        breaks += Self.sum(tally)
        tally = SIMD16()
        tallied = 0
      }
      i += 16
    }
    breaks += Self.sum(tally)
    if lastBlock >= 0 {
      var k = lastBlock + 15
      while bytes[k] != 0x0A { k -= 1 }
      lastBreak = k
    }
    while i < to {
      if bytes[i] == 0x0A {
        breaks += 1
        lastBreak = i
      }
      i += 1
    }
    line += breaks
    if lastBreak >= 0 { column = 0 }
    var j = max(lastBreak + 1, from)
    while j + 8 <= to {
      let word = raw.loadUnaligned(fromByteOffset: j, as: UInt64.self)
      // Continuation bytes are 10xxxxxx: bit 7 set and bit 6 clear.
      let continuation = word & ~(word << 1) & 0x8080_8080_8080_8080
      column += 8 - continuation.nonzeroBitCount
      j += 8
    }
    while j < to {
      if bytes[j] & 0xC0 != 0x80 { column += 1 }
      j += 1
    }
  }

  /// The sum of the lanes of `tally`.
  private static func sum(_ tally: SIMD16<UInt8>) -> Int {
    Int(SIMD16<UInt16>(truncatingIfNeeded: tally).wrappedSum())
  }
}
