import Foundation
import GeoPipeCore

/// Features a batch of records decoded into, and the error that stopped it, if one did.
public struct DecodedBatch: Sendable {
  /// The features, in record order (optional, so each can be moved out instead of copied).
  public var features: [Feature?] = []
  /// The error of the record after the last feature; nothing after it was decoded.
  public var failure: GeoPipeError?

  /// An empty batch.
  public init() {}
}

/// Records decoded into features on worker threads, in input order.
///
/// The reading thread cuts its input into batches of records (checking what it must read
/// alone, such as each record's size) and worker threads decode them; or, after
/// `startCutting(_:)`, a thread of its own cuts them while the reading thread only takes the
/// features. The features come out in input order, and an error after the features before it,
/// as a reader on one thread would give them: a decoding error when its batch is reached, a
/// cutting error once every batch before it is out.
public final class BatchedDecoding<Batch: Sendable> {
  private let pool: OrderedTaskPool<Batch, DecodedBatch>
  private let capacity: Int
  private var current: [Feature?] = []
  private var position = 0
  private var currentFailure: GeoPipeError?
  private var cuttingEnded = false
  private var cuttingFailure: (any Error)?
  /// The thread that cuts the batches, after `startCutting(_:)`.
  private var cutter: Cutter?

  /// Starts `workers` threads that decode batches with `decode`.
  public init(workers: Int, decode: @escaping @Sendable (Batch) -> DecodedBatch) {
    pool = OrderedTaskPool(workers: workers, work: decode)
    capacity = 2 * workers + 1
  }

  deinit {
    pool.cancel()
    // The cutting thread may be using what `cut` reads (a statement, a file): wait for it.
    cutter?.finished.wait()
  }

  /// Cuts every batch with `cut` on a thread of its own, as far ahead of the features taken as
  /// the workers can use; `next(cutting:)` then only takes features (its `cut` is not called).
  ///
  /// `cut` has the contract of `next(cutting:)`'s and is called on that thread alone, until it
  /// returns no batch or an error, or this object is released (which waits for the call under
  /// way to return).
  public func startCutting(_ cut: @escaping () -> (batch: Batch?, failure: (any Error)?)) {
    let cutter = Cutter(cut)
    self.cutter = cutter
    cuttingEnded = true
    let pool = pool
    let capacity = capacity
    Thread.detachNewThread {
      cutter.run(into: pool, capacity: capacity)
    }
  }

  /// The next feature, cutting more batches with `cut` whenever the workers need them.
  ///
  /// `cut` returns the records it read (nil when none) and the error that stopped it, if one
  /// did; that error is thrown once every feature before it is out.
  public func next(cutting cut: () -> (batch: Batch?, failure: (any Error)?)) throws -> Feature? {
    while true {
      if position < current.count {
        let feature = current[position].take()
        position += 1
        return feature
      }
      guard try refill(cutting: cut) else { return nil }
    }
  }

  /// The features of the rest of the current batch (or of the next one), at once.
  ///
  /// They are moved out rather than copied; nil at the end. An error after features comes on
  /// the next call, as with `next(cutting:)`.
  public func nextBatch(cutting cut: () -> (batch: Batch?, failure: (any Error)?)) throws
    -> [Feature]?
  {
    while true {
      if position < current.count {
        var features: [Feature] = []
        features.reserveCapacity(current.count - position)
        while position < current.count {
          if let feature = current[position].take() { features.append(feature) }
          position += 1
        }
        if !features.isEmpty { return features }
        continue
      }
      guard try refill(cutting: cut) else { return nil }
    }
  }

  /// Once the current batch is out: throws the error after it, if there is one, else makes
  /// the next decoded batch current and returns true, or false at the end of the input.
  private func refill(cutting cut: () -> (batch: Batch?, failure: (any Error)?)) throws -> Bool {
    if let failure = currentFailure {
      currentFailure = nil
      cuttingEnded = true
      pool.cancel()
      throw failure
    }
    while !cuttingEnded && pool.inFlight < capacity {
      let (batch, failure) = cut()
      if let batch { pool.submit(batch) }
      if batch == nil || failure != nil {
        cuttingFailure = failure
        cuttingEnded = true
      }
    }
    guard cutter != nil || pool.inFlight > 0, let decoded = pool.next(waiting: true) else {
      if let failure = cuttingFailure ?? cutter?.takeFailure() {
        cuttingFailure = nil
        throw failure
      }
      return false
    }
    current = decoded.features
    position = 0
    currentFailure = decoded.failure
    return true
  }

  /// The thread of `startCutting(_:)`: cuts batches into the pool until the input or the pool
  /// ends, then closes the pool.
  private final class Cutter: @unchecked Sendable {
    /// Signalled when the thread has stopped calling `cut`.
    let finished = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var cut: (() -> (batch: Batch?, failure: (any Error)?))?
    private var failure: (any Error)?

    init(_ cut: @escaping () -> (batch: Batch?, failure: (any Error)?)) {
      self.cut = cut
    }

    /// Cuts batches while the pool has room for them, then closes it.
    func run(into pool: OrderedTaskPool<Batch, DecodedBatch>, capacity: Int) {
      while let cut {
        pool.waitForRoom(below: capacity)
        if pool.isCancelled { break }
        let (batch, error) = cut()
        if let batch { pool.submit(batch) }
        if batch == nil || error != nil {
          lock.withLock { failure = error }
          break
        }
      }
      // Released here, so that what it holds (a statement) goes with its owner.
      cut = nil
      pool.close()
      finished.signal()
    }

    /// The error that stopped the cutting, once.
    func takeFailure() -> (any Error)? {
      lock.withLock {
        defer { failure = nil }
        return failure
      }
    }
  }
}
