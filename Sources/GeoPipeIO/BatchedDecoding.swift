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
/// alone, such as each record's size) and worker threads decode them. The features come out in
/// input order, and an error after the features before it, as a reader on one thread would
/// give them: a decoding error when its batch is reached, a cutting error once every batch
/// before it is out.
public final class BatchedDecoding<Batch: Sendable> {
  private let pool: OrderedTaskPool<Batch, DecodedBatch>
  private let capacity: Int
  private var current: [Feature?] = []
  private var position = 0
  private var currentFailure: GeoPipeError?
  private var cuttingEnded = false
  private var cuttingFailure: (any Error)?

  /// Starts `workers` threads that decode batches with `decode`.
  public init(workers: Int, decode: @escaping @Sendable (Batch) -> DecodedBatch) {
    pool = OrderedTaskPool(workers: workers, work: decode)
    capacity = 2 * workers + 1
  }

  deinit {
    pool.cancel()
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
      guard pool.inFlight > 0, let decoded = pool.next(waiting: true) else {
        if let failure = cuttingFailure {
          cuttingFailure = nil
          throw failure
        }
        return nil
      }
      current = decoded.features
      position = 0
      currentFailure = decoded.failure
    }
  }
}
