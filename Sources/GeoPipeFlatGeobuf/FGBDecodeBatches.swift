import GeoPipeCore
import GeoPipeIO

/// FlatGeobuf features decoded on worker threads, in file order (`BatchedDecoding`): the
/// reading thread cuts the file into batches of records, checking each record's size, and
/// copies their bytes; workers decode them with the messages the reading thread would give.
final class FGBDecodeBatches {
  struct Batch: Sendable {
    /// The features' bytes, one after another, without their size prefixes.
    var bytes: [UInt8] = []
    /// Where each feature's bytes begin in `bytes`, and where the last one ends.
    var starts: [Int] = [0]
    /// The file offset of each feature's record.
    var offsets: [Int] = []
    /// The index of the first feature.
    var firstIndex: Int
  }

  private let decoding: BatchedDecoding<Batch>
  private let batchFeatures = 1024
  private let batchBytes = 1 << 20

  init(workers: Int, decoder: FGBFeatureDecoder, name: String) {
    decoding = BatchedDecoding(workers: workers) { batch in
      Self.decode(batch, decoder: decoder, name: name)
    }
  }

  /// The next feature, cutting more batches from `reader`'s input as the workers need them.
  func next(slicing reader: FlatGeobufReader) throws -> Feature? {
    try decoding.next { cut(reader) }
  }

  /// The next features, a decoded batch at a time.
  func nextBatch(slicing reader: FlatGeobufReader) throws -> [Feature]? {
    try decoding.nextBatch { cut(reader) }
  }

  private func cut(_ reader: FlatGeobufReader) -> (batch: Batch?, failure: (any Error)?) {
    guard let input = reader.sequentialInput else { return (nil, nil) }
    var batch = Batch(firstIndex: reader.index)
    var failure: (any Error)?
    do {
      while batch.offsets.count < batchFeatures && batch.bytes.count < batchBytes {
        guard let size = try reader.nextRecord(input) else { break }
        batch.offsets.append(reader.featureOffset)
        batch.bytes.append(contentsOf: input.bytes(4 + size)[4...])
        batch.starts.append(batch.bytes.count)
        input.consume(4 + size)
        reader.index += 1
      }
    } catch {
      failure = error
    }
    return (batch.offsets.isEmpty ? nil : batch, failure)
  }

  private static func decode(_ batch: Batch, decoder: FGBFeatureDecoder, name: String)
    -> DecodedBatch
  {
    var decoder = decoder
    var decoded = DecodedBatch()
    decoded.features.reserveCapacity(batch.offsets.count)
    batch.bytes.withUnsafeBytes { bytes in
      for k in batch.offsets.indices {
        do {
          decoded.features.append(
            try decoder.decode(
              UnsafeRawBufferPointer(rebasing: bytes[batch.starts[k]..<batch.starts[k + 1]])))
        } catch {
          let failure = error as? FlatBufferError ?? FlatBufferError("\(error)", at: 0)
          decoded.failure = FlatGeobufReader.featureError(
            name, index: batch.firstIndex + k, offset: batch.offsets[k] + 4 + failure.offset,
            failure.message)
          return
        }
      }
    }
    return decoded
  }
}
