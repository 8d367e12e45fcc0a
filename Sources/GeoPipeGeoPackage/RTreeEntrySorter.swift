import GeoPipeCore
import GeoPipeIO

/// An R-tree entry waiting to be sorted by its key: a feature's id and box, keyed by the box's
/// position on a Hilbert curve (the order entries are packed in); or a feature's id as key and
/// the leaf that holds it as `id` (the order the R-tree's `_rowid` table is written in).
struct RTreeEntry {
  var key: Int64
  var id: Int64
  var box: GeoPackageRTree.Box
}

/// Sorts R-tree entries by their key in bounded memory: entries gather in a
/// buffer of `chunk` entries, a full buffer is sorted and written to a scratch file as a run,
/// and the runs are merged at the end (a layer that fits one buffer is sorted in memory).
final class RTreeEntrySorter {
  private let chunk: Int
  private let folder: String
  private let output: String
  private var buffer: [RTreeEntry] = []
  private var scratch: ScratchFile?
  /// The runs in the scratch file: where each starts and how many entries it holds.
  private var runs: [(offset: Int, count: Int)] = []
  private var written = 0

  /// A sorter that spills runs of `chunk` entries to a scratch file in `folder`, for the
  /// output `output` (named in errors).
  init(folder: String, output: String, chunk: Int = 1 << 18) {
    self.folder = folder
    self.output = output
    self.chunk = max(chunk, 2)
  }

  func append(_ entry: RTreeEntry) throws {
    buffer.append(entry)
    if buffer.count >= chunk { try spill() }
  }

  /// Calls `body` with every entry, in key order (ties in the order appended).
  func sorted(_ body: (RTreeEntry) throws -> Void) throws {
    guard !runs.isEmpty else {
      sortBuffer()
      for entry in buffer { try body(entry) }
      return
    }
    if !buffer.isEmpty { try spill() }
    buffer = []
    guard let scratch else { return }
    try merge(scratch, body)
  }

  private func sortBuffer() {
    // Stable: the index breaks ties, so equal positions keep the order they came in.
    var keyed = buffer.enumerated().map { ($0.element.key, $0.offset) }
    keyed.sort { $0 < $1 }
    let original = buffer
    for (k, key) in keyed.enumerated() { buffer[k] = original[key.1] }
  }

  private func spill() throws {
    sortBuffer()
    if scratch == nil { scratch = try ScratchFile(in: folder, for: output) }
    try buffer.withUnsafeBytes { try scratch?.write($0) }
    runs.append((written, buffer.count))
    written += buffer.count * MemoryLayout<RTreeEntry>.stride
    buffer.removeAll(keepingCapacity: true)
  }

  /// Merges the runs, each read through a buffer of its own; a run's cursor is its next entry.
  private func merge(_ scratch: ScratchFile, _ body: (RTreeEntry) throws -> Void) throws {
    let entrySize = MemoryLayout<RTreeEntry>.stride
    let blockEntries = 4096
    final class Cursor {
      var next: Int
      let end: Int
      var block: [RTreeEntry] = []
      var position = 0
      init(offset: Int, count: Int, size: Int) {
        next = offset
        end = offset + count * size
      }
    }
    func refill(_ cursor: Cursor) throws -> Bool {
      let remaining = (cursor.end - cursor.next) / entrySize
      guard remaining > 0 else { return false }
      let n = min(remaining, blockEntries)
      cursor.block = try [RTreeEntry](unsafeUninitializedCapacity: n) { entries, initialized in
        let bytes = UnsafeMutableRawBufferPointer(entries)
        let read = try scratch.read(
          at: cursor.next, into: UnsafeMutableRawBufferPointer(rebasing: bytes[..<(n * entrySize)]))
        guard read == n * entrySize else {
          throw GeoPipeError(
            "cannot write '\(output)': its scratch file ended early", status: .ioError)
        }
        initialized = n
      }
      cursor.next += n * entrySize
      cursor.position = 0
      return true
    }
    var cursors: [Cursor] = []
    for run in runs {
      let cursor = Cursor(offset: run.offset, count: run.count, size: entrySize)
      if try refill(cursor) { cursors.append(cursor) }
    }
    // A binary heap of cursor indices by (head's key, run index).
    func key(_ c: Int) -> (Int64, Int) {
      (cursors[c].block[cursors[c].position].key, c)
    }
    var heap = Array(cursors.indices)
    func siftDown(_ start: Int) {
      var k = start
      while true {
        let left = 2 * k + 1
        guard left < heap.count else { return }
        var least = left
        if left + 1 < heap.count && key(heap[left + 1]) < key(heap[left]) { least = left + 1 }
        guard key(heap[least]) < key(heap[k]) else { return }
        heap.swapAt(k, least)
        k = least
      }
    }
    for k in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(k) }
    while let top = heap.first {
      let cursor = cursors[top]
      try body(cursor.block[cursor.position])
      cursor.position += 1
      if cursor.position == cursor.block.count, try !refill(cursor) {
        heap[0] = heap[heap.count - 1]
        heap.removeLast()
      }
      if !heap.isEmpty { siftDown(0) }
    }
  }
}
