import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeStageKit

/// What a geometry stage's worker made of one feature.
enum FeatureOutcome: Sendable {
  /// Pass this feature on.
  case emit(Feature)
  /// Drop the feature and count it under `reason` (a note on standard error at the end).
  case drop(reason: String)
  /// Pass these features on in place of the one given (none, one or several).
  case emitAll([Feature])
}

/// Runs a per-feature function on every processor and emits the results in input order.
///
/// Features are grouped into batches of a few thousand positions; each batch goes to a worker,
/// which borrows a per-thread state (such as a GEOS context) from a small pool, so each state
/// is only ever used by one thread at a time and there are never more of them than workers.
/// The first error, in input order, stops the run; later results are discarded.
final class OrderedFeatureMap<State>: Stage {
  typealias Work =
    @Sendable (_ feature: Feature, _ index: Int, _ state: State) throws ->
    FeatureOutcome

  private struct Batch: Sendable {
    var first: Int
    var features: [Feature]
  }

  private struct Result: Sendable {
    var outcomes: [FeatureOutcome]
    var error: GeoPipeError?
  }

  private let pool: OrderedTaskPool<Batch, Result>?
  private let states: StatePool<State>
  private let work: Work
  private let limit: Int
  private let report: ([String: Int]) -> Void
  private var batch = Batch(first: 0, features: [])
  private var batchPositions = 0
  private var next = 0
  private var dropped: [String: Int] = [:]

  /// Creates the map; `report` is called at the end with how many features were dropped for
  /// each reason.
  init(
    threads: Int, makeState: @escaping @Sendable () throws -> State,
    report: @escaping ([String: Int]) -> Void, work: @escaping Work
  ) {
    let states = StatePool(make: makeState)
    self.states = states
    self.work = work
    self.report = report
    limit = 4 * max(threads, 1)
    pool =
      threads > 1
      ? OrderedTaskPool(workers: threads) { batch in Self.run(batch, states: states, work: work) }
      : nil
  }

  func process(_ feature: Feature, emit: Emit) throws {
    batch.features.append(feature)
    batchPositions += feature.geometry?.positionCount ?? 1
    next += 1
    if batchPositions >= 16_384 || batch.features.count >= 1024 { try submit(emit: emit) }
  }

  func finish(emit: Emit) throws {
    try submit(emit: emit)
    guard let pool else { return finishReport() }
    pool.close()
    while let result = pool.next(waiting: true) { try deliver(result, emit: emit) }
    finishReport()
  }

  func abort() {
    pool?.cancel()
  }

  private func submit(emit: Emit) throws {
    guard !batch.features.isEmpty else { return }
    let full = batch
    batch = Batch(first: next, features: [])
    batchPositions = 0
    guard let pool else {
      return try deliver(Self.run(full, states: states, work: work), emit: emit)
    }
    pool.submit(full)
    while let result = pool.next(waiting: pool.inFlight >= limit) {
      try deliver(result, emit: emit)
    }
  }

  private func deliver(_ result: Result, emit: Emit) throws {
    for outcome in result.outcomes {
      switch outcome {
      case .emit(let feature): try emit(feature)
      case .drop(let reason): dropped[reason, default: 0] += 1
      case .emitAll(let features): for feature in features { try emit(feature) }
      }
    }
    if let error = result.error {
      pool?.cancel()
      throw error
    }
  }

  private func finishReport() {
    if !dropped.isEmpty { report(dropped) }
  }

  private static func run(_ batch: Batch, states: StatePool<State>, work: Work) -> Result {
    var outcomes: [FeatureOutcome] = []
    outcomes.reserveCapacity(batch.features.count)
    let state: State
    do {
      state = try states.take()
    } catch {
      return Result(outcomes: [], error: GeoPipeError("\(error)", status: .ioError))
    }
    defer { states.put(state) }
    for (offset, feature) in batch.features.enumerated() {
      do {
        outcomes.append(try work(feature, batch.first + offset, state))
      } catch let error as GeoPipeError {
        return Result(outcomes: outcomes, error: error)
      } catch {
        return Result(
          outcomes: outcomes,
          error: GeoPipeError.data("feature \(batch.first + offset): \(error)", at: nil))
      }
    }
    return Result(outcomes: outcomes, error: nil)
  }
}

/// Per-thread states (GEOS contexts, projection caches) lent to one batch at a time.
private final class StatePool<State>: @unchecked Sendable {
  private let lock = NSLock()
  private var idle: [State] = []
  private let make: @Sendable () throws -> State

  init(make: @escaping @Sendable () throws -> State) {
    self.make = make
  }

  func take() throws -> State {
    lock.lock()
    if let state = idle.popLast() {
      lock.unlock()
      return state
    }
    lock.unlock()
    return try make()
  }

  func put(_ state: State) {
    lock.lock()
    idle.append(state)
    lock.unlock()
  }
}

/// The `report` of an `OrderedFeatureMap` that notes on standard error how many features
/// `stage` dropped, for each reason.
func notingDrops(by stage: String, to diagnostics: @escaping @Sendable (ReadDiagnostic) -> Void)
  -> ([String: Int]) -> Void
{
  { dropped in
    for (reason, count) in dropped.sorted(by: { $0.key < $1.key }) {
      diagnostics(
        ReadDiagnostic(
          severity: .note,
          message: "\(stage): dropped \(count) feature\(count == 1 ? "" : "s") \(reason)"))
    }
  }
}
