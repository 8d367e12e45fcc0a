import GeoPipeCore
import GeoPipeIO

/// FlatGeobuf features decoded on worker threads, in file order.
///
/// The reading thread cuts the file into batches of records (checking each record's size as
/// it reads it alone) and copies their bytes; workers decode the batches. A decoding error
/// comes after the features before it, with the same message the reading thread would give.
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

  struct Decoded: Sendable {
    // Optional, so that each feature can be moved out with take() instead of copied.
    var features: [Feature?] = []
    var failure: GeoPipeError?
  }

  private let pool: OrderedTaskPool<Batch, Decoded>
  private let capacity: Int
  private var current: [Feature?] = []
  private var position = 0
  private var currentFailure: GeoPipeError?
  private var slicingEnded = false
  private var sliceFailure: (any Error)?
  private let batchFeatures = 1024
  private let batchBytes = 1 << 20

  init(workers: Int, decoder: FGBFeatureDecoder, name: String) {
    pool = OrderedTaskPool(workers: workers) { batch in
      Self.decode(batch, decoder: decoder, name: name)
    }
    capacity = 2 * workers + 1
  }

  deinit {
    pool.cancel()
  }

  /// The next feature, cutting more batches from `reader`'s input as the workers need them.
  func next(slicing reader: FlatGeobufReader) throws -> Feature? {
    while true {
      if position < current.count {
        let feature = current[position].take()
        position += 1
        return feature
      }
      if let failure = currentFailure {
        currentFailure = nil
        slicingEnded = true
        pool.cancel()
        throw failure
      }
      slice(reader)
      guard pool.inFlight > 0, let decoded = pool.next(waiting: true) else {
        if let failure = sliceFailure {
          sliceFailure = nil
          throw failure
        }
        return nil
      }
      current = decoded.features
      position = 0
      currentFailure = decoded.failure
    }
  }

  /// Submits batches until the workers have enough to do or the input ends.
  private func slice(_ reader: FlatGeobufReader) {
    guard let input = reader.sequentialInput else { return }
    while !slicingEnded && pool.inFlight < capacity {
      var batch = Batch(firstIndex: reader.index)
      do {
        while batch.offsets.count < batchFeatures && batch.bytes.count < batchBytes {
          guard let size = try reader.nextRecord(input) else {
            slicingEnded = true
            break
          }
          batch.offsets.append(reader.featureOffset)
          batch.bytes.append(contentsOf: input.bytes(4 + size)[4...])
          batch.starts.append(batch.bytes.count)
          input.consume(4 + size)
          reader.index += 1
        }
      } catch {
        sliceFailure = error
        slicingEnded = true
      }
      if !batch.offsets.isEmpty { pool.submit(batch) }
    }
  }

  private static func decode(_ batch: Batch, decoder: FGBFeatureDecoder, name: String) -> Decoded {
    var decoder = decoder
    var decoded = Decoded()
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
