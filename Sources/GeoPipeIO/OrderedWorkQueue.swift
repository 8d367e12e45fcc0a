import Foundation

/// Runs a function over a stream of inputs on several threads and hands the results back in
/// input order, with a bounded number of items in flight.
///
/// One producer thread calls `produce` until it returns nil; `workers` threads apply `work`;
/// the consumer calls `next()`. `cancel()` (also on deinit) stops the threads.
final class OrderedWorkQueue<Input: Sendable, Output: Sendable>: @unchecked Sendable {
  private let condition = NSCondition()
  private var inputs: [(Int, Input)] = []
  private var outputs: [Int: Output] = [:]
  private var produced = 0
  private var consumed = 0
  private var producerFinished = false
  private var cancelled = false
  private let capacity: Int

  init(
    workers: Int, capacity: Int, produce: @escaping @Sendable () -> Input?,
    work: @escaping @Sendable (Input) -> Output
  ) {
    self.capacity = capacity
    Thread.detachNewThread { [self] in
      while let input = produce() {
        condition.lock()
        while produced - consumed >= capacity && !cancelled { condition.wait() }
        if cancelled {
          condition.unlock()
          return
        }
        inputs.append((produced, input))
        produced += 1
        condition.broadcast()
        condition.unlock()
      }
      condition.lock()
      producerFinished = true
      condition.broadcast()
      condition.unlock()
    }
    for _ in 0..<max(workers, 1) {
      Thread.detachNewThread { [self] in
        while true {
          condition.lock()
          while inputs.isEmpty && !producerFinished && !cancelled { condition.wait() }
          if cancelled || inputs.isEmpty {
            condition.unlock()
            return
          }
          let (index, input) = inputs.removeFirst()
          condition.unlock()
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

  /// The next result in input order, or nil when every input has been handed back.
  func next() -> Output? {
    condition.lock()
    defer { condition.unlock() }
    while true {
      if let output = outputs.removeValue(forKey: consumed) {
        consumed += 1
        condition.broadcast()
        return output
      }
      if cancelled || (producerFinished && consumed == produced) { return nil }
      condition.wait()
    }
  }

  /// Stops producing and working; threads end after their current item.
  func cancel() {
    condition.lock()
    cancelled = true
    inputs.removeAll()
    condition.broadcast()
    condition.unlock()
  }
}
