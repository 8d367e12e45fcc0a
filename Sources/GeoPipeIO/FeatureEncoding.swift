import Foundation
import GeoPipeCore

/// Encodes features as GeoJSON text, on worker threads when asked, keeping their order.
///
/// In parallel, batches of features are encoded by a pool of workers and a writer thread hands
/// the encoded batches to the sink in order, so the thread that reads and delivers features
/// neither copies their text nor waits for the file system.
final class FeatureEncoding {
  /// Encodes one feature; `first` is true for the first feature of the output.
  typealias Encode =
    @Sendable (_ feature: Feature, _ first: Bool, _ text: inout JSONTextWriter) ->
    Void
  private let encode: Encode
  private let pool: OrderedTaskPool<Batch, [UInt8]>?
  private let drain: Drain?
  private var batch: [Feature] = []
  private let batchSize = 1024
  private let limit: Int
  /// Features taken so far.
  private(set) var count = 0
  private var batchesSubmitted = 0

  struct Batch: Sendable {
    var features: [Feature]
    var startsOutput: Bool
  }

  init(threads: Int, sink: ByteSink, encode: @escaping Encode) {
    self.encode = encode
    guard threads > 1 else {
      pool = nil
      drain = nil
      limit = 1
      return
    }
    let pool = OrderedTaskPool<Batch, [UInt8]>(workers: threads) { batch in
      var text = JSONTextWriter()
      text.bytes.reserveCapacity(batch.features.count * 256)
      for (k, feature) in batch.features.enumerated() {
        encode(feature, batch.startsOutput && k == 0, &text)
      }
      return text.bytes
    }
    self.pool = pool
    drain = Drain(pool: pool, sink: sink)
    limit = threads + 2
  }

  deinit {
    pool?.cancel()
  }

  /// Whether features are encoded on worker threads (and written by the writer thread).
  var isParallel: Bool { pool != nil }

  /// Encodes a feature into `text` on this thread.
  func encode(_ feature: Feature, into text: inout JSONTextWriter) {
    encode(feature, count == 0, &text)
    count += 1
  }

  /// Queues a feature for the workers; throws what writing an earlier batch failed with.
  func submit(_ feature: Feature) throws {
    guard let pool, let drain else { return }
    batch.append(feature)
    count += 1
    guard batch.count >= batchSize else { return }
    submitBatch(pool, drain)
    pool.waitForRoom(below: limit)
    try drain.check()
  }

  /// Queues features for the workers: an array as large as a batch goes to them as it is,
  /// after the features queued before it.
  func submit(contentsOf features: [Feature]) throws {
    guard let pool, let drain else { return }
    guard features.count >= batchSize / 2 else {
      for feature in features { try submit(feature) }
      return
    }
    if !batch.isEmpty { submitBatch(pool, drain) }
    count += features.count
    submit(features, pool, drain)
    pool.waitForRoom(below: limit)
    try drain.check()
  }

  /// Encodes and writes everything queued, and waits until it is written.
  func flush() throws {
    guard let pool, let drain else { return }
    if !batch.isEmpty { submitBatch(pool, drain) }
    try drain.wait(until: batchesSubmitted)
  }

  /// Stops the workers and waits until the writer thread no longer touches the sink.
  func cancel() {
    guard let pool, let drain else { return }
    pool.cancel()
    drain.waitUntilStopped()
  }

  /// Hands the queued features to the workers and starts a new queue.
  private func submitBatch(_ pool: OrderedTaskPool<Batch, [UInt8]>, _ drain: Drain) {
    submit(batch, pool, drain)
    batch = []
    batch.reserveCapacity(batchSize)
  }

  /// Hands `features` to the workers as the next batch of the output.
  private func submit(
    _ features: [Feature], _ pool: OrderedTaskPool<Batch, [UInt8]>, _ drain: Drain
  ) {
    pool.submit(Batch(features: features, startsOutput: batchesSubmitted == 0))
    batchesSubmitted += 1
    drain.start()
  }
}

/// The writer thread of a parallel encoding: takes encoded batches in order and writes them.
private final class Drain: @unchecked Sendable {
  private let pool: OrderedTaskPool<FeatureEncoding.Batch, [UInt8]>
  private let sink: ByteSink
  private let condition = NSCondition()
  private var written = 0
  private var failure: (any Error)?
  private var started = false
  private var running = false

  init(pool: OrderedTaskPool<FeatureEncoding.Batch, [UInt8]>, sink: ByteSink) {
    self.pool = pool
    self.sink = sink
  }

  /// Starts the thread, once.
  func start() {
    condition.lock()
    defer { condition.unlock() }
    guard !started else { return }
    started = true
    running = true
    Thread.detachNewThread { [self] in run() }
  }

  /// Throws the error a write failed with, if one did.
  func check() throws {
    condition.lock()
    defer { condition.unlock() }
    if let failure { throw failure }
  }

  /// Waits until `batches` batches are written (or a write failed).
  func wait(until batches: Int) throws {
    condition.lock()
    defer { condition.unlock() }
    while written < batches && failure == nil && running { condition.wait() }
    if let failure { throw failure }
  }

  /// Waits until the thread has ended (after the pool was cancelled).
  func waitUntilStopped() {
    condition.lock()
    defer { condition.unlock() }
    while running { condition.wait() }
  }

  private func run() {
    while let encoded = pool.next(waiting: true) {
      var error: (any Error)?
      if failureIsNil {
        do {
          try encoded.withUnsafeBytes { try sink.write($0) }
        } catch let failed {
          error = failed
        }
      }
      condition.lock()
      written += 1
      if let error, failure == nil { failure = error }
      condition.broadcast()
      condition.unlock()
    }
    condition.lock()
    running = false
    condition.broadcast()
    condition.unlock()
  }

  private var failureIsNil: Bool {
    condition.lock()
    defer { condition.unlock() }
    return failure == nil
  }
}
