import GeoPipeCore
import GeoPipeIO

#if canImport(Glibc)
import GeoPipeStageKit
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Sorted runs of features kept in temporary files, and their k-way merge, for `sort` inputs
/// larger than its memory budget.
///
/// Runs are GeoJSONSeq written and read back by the GeoJSONSeq writer and the GeoJSON reader,
/// so features come back exactly as they went in. Every run holds features that came in after
/// those of the runs before it; merging only neighbouring runs, and taking the earlier run's
/// feature on a tie, keeps the sort stable.
struct SortRuns {
  /// At most this many runs (and the features in memory) are merged at once.
  let fanIn: Int
  private let order: SortOrder
  /// Where the runs are written.
  let directory: String
  /// Runs in input order, each with its level: how many merges its features went through.
  private var runs: [(level: Int, file: SpillFile)] = []

  /// Creates an empty set of runs that go to files in `directory`.
  init(order: SortOrder, directory: String, fanIn: Int) {
    self.order = order
    self.directory = directory
    self.fanIn = max(fanIn, 2)
  }

  /// Whether no run has been written.
  var isEmpty: Bool { runs.isEmpty }

  /// The folder for temporary files: `$TMPDIR`, else `/tmp`.
  static var temporaryDirectory: String {
    guard let value = getenv("TMPDIR").map({ String(cString: $0) }), !value.isEmpty else {
      return "/tmp"
    }
    var path = value
    while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
    return path
  }

  /// Writes sorted features as a new run.
  ///
  /// When the newest `fanIn` runs have gone through the same number of merges, they are
  /// merged into one: files stay few (so do open descriptors) and each feature is rewritten
  /// only about log(runs) times.
  mutating func append(_ features: some Sequence<Feature>) throws {
    runs.append((0, try write(features)))
    while runs.count >= fanIn {
      let level = runs[runs.count - 1].level
      guard runs.suffix(fanIn).allSatisfy({ $0.level == level }) else { break }
      try mergeNewest(fanIn, level: level + 1)
    }
  }

  /// Merges every run and the features still in memory (sorted, and later than every run),
  /// emitting features in order.
  mutating func merge(withLast memory: some Sequence<Feature>, emit: Emit) throws {
    // Merge the newest runs first until one last merge can take every run and memory.
    while runs.count + 1 > fanIn {
      let count = min(fanIn, runs.count + 2 - fanIn)
      try mergeNewest(count, level: runs[runs.count - count].level + 1)
    }
    var iterator = memory.makeIterator()
    var sources = try runs.map { try Self.reader(of: $0.file) }
    sources.append { iterator.next() }
    runs = []
    try Self.merge(sources, order: order, emit: emit)
  }

  /// Closes and forgets every run.
  mutating func removeAll() {
    runs = []
  }

  private mutating func mergeNewest(_ count: Int, level: Int) throws {
    let sources = try runs.suffix(count).map { try Self.reader(of: $0.file) }
    runs.removeLast(count)
    let file = try SpillFile(directory: directory)
    let writer = GeoJSONSeqWriter(sink: file, options: Self.writeOptions)
    try Self.merge(sources, order: order) { try writer.write($0) }
    try writer.finish()
    runs.append((level, file))
  }

  private func write(_ features: some Sequence<Feature>) throws -> SpillFile {
    let file = try SpillFile(directory: directory)
    let writer = GeoJSONSeqWriter(sink: file, options: Self.writeOptions)
    for feature in features { try writer.write(feature) }
    try writer.finish()
    return file
  }

  /// Emits the features of sorted sequences in order; on a tie the earlier sequence's goes
  /// first.
  private static func merge(
    _ sources: [() throws -> Feature?], order: SortOrder, emit: Emit
  ) throws {
    let merge = try SortedMerge(order: order, sources: sources)
    while let feature = try merge.next() { try emit(feature) }
  }

  /// Reads a run back from the start, exactly as written.
  private static func reader(of run: SpillFile) throws -> () throws -> Feature? {
    var options = ReadOptions()
    // The features were checked when first read; read them back exactly as written.
    options.checkRanges = false
    let buffer = try InputBuffer(
      source: SpillFileSource(run), name: "sort run", capacity: 1 << 16)
    let reader = GeoJSONReader(buffer: buffer, options: options)
    return { try reader.next() }
  }

  /// Features are written as they are: rings keep their winding, coordinates their digits.
  private static let writeOptions: WriteOptions = {
    var options = WriteOptions()
    options.rewind = false
    return options
  }()
}

/// A temporary file without a name: created in a folder and unlinked at once, so that it goes
/// away when closed, however the process ends.
private final class SpillFile: ByteSink {
  private var fd: Int32
  private let directory: String

  /// Creates the file in `directory`.
  init(directory: String) throws {
    self.directory = directory
    var template = Array("\(directory)/geopipe-sort-XXXXXX".utf8CString)
    let opened = template.withUnsafeMutableBufferPointer { buffer in
      buffer.baseAddress.map { mkstemp($0) } ?? -1
    }
    guard opened >= 0 else {
      throw GeoPipeError(
        "sort: cannot create a temporary file in '\(directory)': "
          + "\(String(cString: strerror(errno))) (set TMPDIR to a folder with room)",
        status: .cannotCreate)
    }
    template.withUnsafeBufferPointer { buffer in
      if let path = buffer.baseAddress { _ = unlink(path) }
    }
    _ = fcntl(opened, F_SETFD, FD_CLOEXEC)
    fd = opened
  }

  deinit {
    abort()
  }

  /// Appends all bytes, retrying short writes and EINTR.
  func write(_ bytes: UnsafeRawBufferPointer) throws {
    guard let base = bytes.baseAddress else { return }
    let code = writeAll(fd, base, count: bytes.count)
    if code != 0 {
      throw GeoPipeError(
        "sort: cannot write a temporary file in '\(directory)': "
          + "\(String(cString: strerror(code))) (set TMPDIR to a folder with room)",
        status: .ioError)
    }
  }

  /// Nothing to do: the file is read back, then closed.
  func commit() throws {}

  /// Closes the file, which frees its space.
  func abort() {
    if fd >= 0 { close(fd) }
    fd = -1
  }

  /// Reads bytes from `offset`; 0 at the end.
  func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    while true {
      let n = pread(fd, buffer.baseAddress, buffer.count, off_t(offset))
      if n >= 0 { return n }
      if errno == EINTR { continue }
      throw GeoPipeError(
        "sort: cannot read a temporary file in '\(directory)': \(String(cString: strerror(errno)))",
        status: .ioError)
    }
  }
}

/// Reads a spill file from its start.
private final class SpillFileSource: ByteSource {
  private let file: SpillFile
  private var offset = 0

  init(_ file: SpillFile) {
    self.file = file
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    let n = try file.read(at: offset, into: buffer)
    offset += n
    return n
  }
}

extension Feature {
  /// A cheap estimate of the bytes a feature takes in memory, for `sort`'s budget.
  ///
  /// It counts the feature itself, the heap blocks behind it (object members, arrays,
  /// coordinates, strings too long to be stored inline) and their headers.
  var estimatedSize: Int {
    var size = 256
    if let geometry { size += geometry.estimatedSize }
    if let properties { size += JSONValue.estimatedSize(of: properties) }
    if let bbox { size += 32 + bbox.count * 8 }
    if let id { size += id.heapSize }
    if !foreignMembers.isEmpty { size += JSONValue.estimatedSize(of: foreignMembers) }
    return size
  }
}

extension Geometry {
  fileprivate var estimatedSize: Int {
    switch self {
    case .point: 64
    case .multiPoint(let c), .lineString(let c): 64 + c.storage.count * 8
    case .multiLineString(let lines), .polygon(let lines):
      lines.reduce(64) { $0 + 64 + $1.storage.count * 8 }
    case .multiPolygon(let polygons):
      polygons.reduce(64) { total, rings in
        rings.reduce(total + 48) { $0 + 64 + $1.storage.count * 8 }
      }
    case .geometryCollection(let members): members.reduce(64) { $0 + $1.estimatedSize }
    }
  }
}

extension JSONValue {
  /// Bytes on the heap beyond the value itself: strings longer than 15 bytes (shorter ones
  /// are stored inline), arrays and objects.
  fileprivate var heapSize: Int {
    switch self {
    case .null, .bool, .integer, .double: 0
    case .string(let text), .bigInteger(let text), .bigNumber(let text):
      text.utf8.count > 15 ? 32 + text.utf8.count : 0
    case .array(let items): items.reduce(32) { $0 + 24 + $1.heapSize }
    case .object(let object): JSONValue.estimatedSize(of: object)
    }
  }

  fileprivate static func estimatedSize(of object: JSONObject) -> Int {
    object.members.reduce(48) { $0 + 48 + JSONValue.string($1.key).heapSize + $1.value.heapSize }
  }
}
