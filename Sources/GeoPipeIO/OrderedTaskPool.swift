import Foundation

/// Worker threads that apply one function to submitted inputs and hand the results back in
/// submission order.
///
/// Used to parse batches of features and to encode them on every processor while the output
/// stays in input order, so that results do not depend on the number of threads.
public final class OrderedTaskPool<Input: Sendable, Output: Sendable>: @unchecked Sendable {
  private let condition = NSCondition()
  private var inputs: [(Int, Input)] = []
  private var outputs: [Int: Output] = [:]
  private var submitted = 0
  private var consumed = 0
  private var closed = false
  private var cancelled = false

  /// Starts `workers` threads applying `work`.
  public init(workers: Int, work: @escaping @Sendable (Input) -> Output) {
    for _ in 0..<max(workers, 1) {
      Thread.detachNewThread { [self] in
        while let (index, input) = take() {
          let output = work(input)
          condition.lock()
          outputs[index] = output
          condition.broadcast()
          condition.unlock()
        }
      }
    }
  }

  deinit {
    cancel()
  }

  /// Inputs submitted whose results have not been taken yet.
  public var inFlight: Int {
    condition.lock()
    defer { condition.unlock() }
    return submitted - consumed
  }

  /// Whether `cancel()` was called.
  public var isCancelled: Bool {
    condition.lock()
    defer { condition.unlock() }
    return cancelled
  }

  /// Queues an input; never blocks.
  public func submit(_ input: Input) {
    condition.lock()
    inputs.append((submitted, input))
    submitted += 1
    condition.broadcast()
    condition.unlock()
  }

  /// Blocks until fewer than `limit` results are outstanding (or the pool is cancelled).
  public func waitForRoom(below limit: Int) {
    condition.lock()
    while submitted - consumed >= limit && !cancelled { condition.wait() }
    condition.unlock()
  }

  /// Says no more inputs will come, so `next(waiting:)` can return nil at the end.
  public func close() {
    condition.lock()
    closed = true
    condition.broadcast()
    condition.unlock()
  }

  /// The next result in submission order.
  ///
  /// With `waiting`, blocks until it is ready; returns nil when nothing is outstanding (or, without
  /// `waiting`, when it is not ready yet).
  public func next(waiting: Bool) -> Output? {
    condition.lock()
    defer { condition.unlock() }
    while true {
      if let output = outputs.removeValue(forKey: consumed) {
        consumed += 1
        condition.broadcast()
        return output
      }
      if cancelled || !waiting || (consumed == submitted && closed) { return nil }
      condition.wait()
    }
  }

  /// Stops the workers after their current input and drops what is queued.
  public func cancel() {
    condition.lock()
    cancelled = true
    inputs.removeAll()
    condition.broadcast()
    condition.unlock()
  }

  private func take() -> (Int, Input)? {
    condition.lock()
    defer { condition.unlock() }
    while inputs.isEmpty && !cancelled && !closed { condition.wait() }
    if cancelled || inputs.isEmpty { return nil }
    return inputs.removeFirst()
  }
}
