import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeSQLite

/// Rows of a GeoPackage table made into features on worker threads (`BatchedDecoding`): the
/// thread of its own steps the statement and copies each row's cells, workers decode the
/// geometries and make the properties, and the reading thread only takes the features.
final class GeoPackageBatches {
  /// Rows copied from the statement: per cell a tag byte, then 8 bytes of number or a 4-byte
  /// length and the bytes of text or a blob.
  struct Batch: Sendable {
    var bytes: [UInt8] = []
    /// The 1-based number of each row, for errors.
    var rows: [Int] = []

    /// Appends the statement's current row of `count` columns; returns the bytes of its blobs.
    mutating func append(_ statement: SQLiteStatement, columns count: Int, row: Int) -> Int {
      rows.append(row)
      var blobBytes = 0
      for k in 0..<Int32(count) {
        switch GeoPackageCell(statement, k) {
        case .null: bytes.append(0)
        case .integer(let n):
          bytes.append(1)
          withUnsafeBytes(of: n) { bytes.appendBytes($0) }
        case .real(let x):
          bytes.append(2)
          withUnsafeBytes(of: x) { bytes.appendBytes($0) }
        case .text(let text): append(3, text)
        case .blob(let blob):
          append(4, blob)
          blobBytes += blob.count
        }
      }
      return blobBytes
    }

    private mutating func append(_ tag: UInt8, _ value: UnsafeRawBufferPointer) {
      bytes.append(tag)
      withUnsafeBytes(of: UInt32(value.count)) { bytes.appendBytes($0) }
      bytes.appendBytes(value)
    }
  }

  private let decoding: BatchedDecoding<Batch>
  private let bytes = BlobBytes()
  private static let batchRows = 1024
  private static let batchBytes = 1 << 20
  /// Starts the cutting thread; nil once started (at the first feature asked for).
  private var start: (() -> Void)?

  /// The bytes of the blobs of the rows read, counted on the cutting thread.
  private final class BlobBytes: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    /// The bytes counted so far.
    var total: Int { lock.withLock { count } }

    /// Counts a batch's bytes.
    func add(_ more: Int) { lock.withLock { count += more } }
  }

  /// Prepares to read `statement` on a thread of its own, `step` (which moves it to its next
  /// row, false at the end) called there alone, and to decode its rows on `workers` threads;
  /// the reading starts when the first feature is asked for.
  init(
    workers: Int, layout: GeoPackageRowLayout, name: String, statement: SQLiteStatement,
    step: @escaping (SQLiteStatement) throws -> Bool
  ) {
    decoding = BatchedDecoding(workers: workers) { batch in
      Self.decode(batch, layout: layout, name: name)
    }
    let bytes = bytes
    let columns = layout.columnCount
    // Stepping a statement that has ended would run it again.
    var ended = false
    var row = 0
    let cut = {
      guard !ended else { return (Batch?.none, (any Error)?.none) }
      var batch = Batch()
      var failure: (any Error)?
      var blobBytes = 0
      do {
        while batch.rows.count < Self.batchRows && batch.bytes.count < Self.batchBytes {
          guard try step(statement) else {
            ended = true
            break
          }
          row += 1
          blobBytes += batch.append(statement, columns: columns, row: row)
        }
      } catch {
        failure = error
      }
      bytes.add(blobBytes)
      return (batch.rows.isEmpty ? nil : batch, failure)
    }
    start = { [decoding] in decoding.startCutting(cut) }
  }

  /// The bytes of the blobs of the rows read so far.
  var bytesRead: Int { bytes.total }

  /// The next feature.
  func next() throws -> Feature? {
    startIfNeeded()
    return try decoding.next { (nil, nil) }
  }

  /// The next features, a decoded batch at a time.
  func nextBatch() throws -> [Feature]? {
    startIfNeeded()
    return try decoding.nextBatch { (nil, nil) }
  }

  private func startIfNeeded() {
    if let start {
      self.start = nil
      start()
    }
  }

  private static func decode(_ batch: Batch, layout: GeoPackageRowLayout, name: String)
    -> DecodedBatch
  {
    var decoded = DecodedBatch()
    decoded.features.reserveCapacity(batch.rows.count)
    var cells = [GeoPackageCell](repeating: .null, count: layout.columnCount)
    batch.bytes.withUnsafeBytes { bytes in
      var at = 0
      for row in batch.rows {
        for k in cells.indices {
          let tag = bytes[at]
          at += 1
          switch tag {
          case 1, 2:
            let value = bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)
            cells[k] =
              tag == 1 ? .integer(Int64(bitPattern: value)) : .real(Double(bitPattern: value))
            at += 8
          case 3, 4:
            let count = Int(bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self))
            let value = UnsafeRawBufferPointer(rebasing: bytes[(at + 4)..<(at + 4 + count)])
            cells[k] = tag == 3 ? .text(value) : .blob(value)
            at += 4 + count
          default: cells[k] = .null
          }
        }
        do {
          decoded.features.append(try layout.feature(row: row) { cells[$0] })
        } catch {
          let message = (error as? GeoPackageRowError)?.message ?? "\(error)"
          decoded.failure = GeoPipeError.data("\(name): \(message)", at: nil, problem: .structure)
          return
        }
      }
    }
    return decoded
  }
}
