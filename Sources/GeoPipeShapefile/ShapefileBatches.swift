import GeoPipeCore
import GeoPipeIO

/// Shapefile records read in batches, their `.dbf` records decoded on worker threads
/// (`BatchedDecoding`): the reading thread reads the shapes and copies the records' bytes, and
/// workers, each with a code page of its own, turn the bytes into properties.
final class ShapefileBatches {
  struct Batch: Sendable {
    /// The record numbers.
    var records: [Int] = []
    /// Their shapes.
    var geometries: [Geometry?] = []
    /// Their `.dbf` records, one after another.
    var bytes: [UInt8] = []
  }

  /// The decoder the workers copy; it is only read.
  private struct Template: @unchecked Sendable {
    let decoder: DBaseRecordDecoder
  }

  private let decoding: BatchedDecoding<Batch>
  private let batchRecords = 1024

  init(workers: Int, decoder: DBaseRecordDecoder, name: String) {
    let template = Template(decoder: decoder)
    decoding = BatchedDecoding(workers: workers) { batch in
      Self.decode(batch, decoder: template.decoder.copy(), name: name)
    }
  }

  /// The next feature; `index` is the next record to read, `end` the record after the last.
  func next(table: ShapefileTable, index: inout Int, end: Int) throws -> Feature? {
    try decoding.next { cut(table, &index, end: end) }
  }

  /// The next features, a decoded batch at a time.
  func nextBatch(table: ShapefileTable, index: inout Int, end: Int) throws -> [Feature]? {
    try decoding.nextBatch { cut(table, &index, end: end) }
  }

  private func cut(_ table: ShapefileTable, _ index: inout Int, end: Int)
    -> (batch: Batch?, failure: (any Error)?)
  {
    var batch = Batch()
    var failure: (any Error)?
    do {
      while batch.records.count < batchRecords && index < end {
        let record = index
        index += 1
        guard let bytes = try table.dbfRecord(record) else { continue }
        batch.bytes.append(contentsOf: bytes)
        batch.geometries.append(try table.shape(record))
        batch.records.append(record)
      }
    } catch {
      failure = error
    }
    return (batch.records.isEmpty ? nil : batch, failure)
  }

  private static func decode(_ batch: Batch, decoder: DBaseRecordDecoder, name: String)
    -> DecodedBatch
  {
    var decoded = DecodedBatch()
    decoded.features.reserveCapacity(batch.records.count)
    let length = decoder.recordLength
    batch.bytes.withUnsafeBytes { bytes in
      for k in batch.records.indices {
        do {
          let properties = try decoder.decode(
            UnsafeRawBufferPointer(rebasing: bytes[k * length..<(k + 1) * length]))
          decoded.features.append(Feature(geometry: batch.geometries[k], properties: properties))
        } catch {
          let failure = error as? DBaseValueError ?? DBaseValueError(field: "", message: "\(error)")
          decoded.failure = ShapefileTable.failure(
            name, batch.records[k], "field '\(failure.field)': \(failure.message)")
          return
        }
      }
    }
    return decoded
  }
}
