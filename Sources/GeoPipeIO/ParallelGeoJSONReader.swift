import Foundation
import GeoPipeCore
import Synchronization

/// Reads GeoJSON on several threads: one cuts the input into batches of features
/// (`GeoJSONSplitter`), others parse the batches, and features come out in input order, with
/// the same errors, locations and warnings as the single-threaded `GeoJSONReader`.
public final class ParallelGeoJSONReader: FeatureReader {
  private struct Result: Sendable {
    // Optional, so that the consumer can move each feature out with take() instead of copying.
    var features: [Feature?] = []
    var skipped = 0
    var diagnostics: [ReadDiagnostic] = []
    var failure: GeoPipeError?
  }

  /// Bad features skipped under `--on-error skip`.
  public private(set) var skippedCount = 0
  /// Bytes consumed from the input so far.
  public var bytesRead: Int { progress.value.load(ordering: .relaxed) }
  /// The CRS the input's `crs` member names, when not WGS84.
  public var declaredCRS: String? { options.declaredCRS }

  private let pool: OrderedTaskPool<GeoJSONSplitter.Piece, Result>
  private let options: ReadOptions
  private let progress = ByteCounter()
  private let box: SplitterBox

  /// The FeatureCollection's foreign members, complete once every feature has been read.
  public var collectionMembers: JSONObject { box.collectionMembers }
  // The current batch and the next feature in it.
  private var current: [Feature?] = []
  private var position = 0
  private var pendingFailure: GeoPipeError?
  private var finished = false

  /// Reads `buffer` with `workers` parsing threads.
  init(buffer: InputBuffer, options: ReadOptions, workers: Int, batchBytes: Int = 1 << 20) {
    self.options = options
    let splitter = GeoJSONSplitter(buffer: buffer, options: options, batchBytes: batchBytes)
    let box = SplitterBox(splitter, progress: progress)
    self.box = box
    let name = buffer.name
    let batchOptions = options
    let pool = OrderedTaskPool<GeoJSONSplitter.Piece, Result>(workers: workers) { piece in
      ParallelGeoJSONReader.parse(piece, name: name, options: batchOptions)
    }
    self.pool = pool
    // The splitter runs on a thread of its own, a bounded number of batches ahead.
    let capacity = 2 * workers + 1
    Thread.detachNewThread {
      while !pool.isCancelled, let piece = box.next() {
        pool.waitForRoom(below: capacity)
        pool.submit(piece)
      }
      pool.close()
    }
  }

  private static func parse(_ piece: GeoJSONSplitter.Piece, name: String, options: ReadOptions)
    -> Result
  {
    var result = Result()
    switch piece {
    case .failure(let error):
      result.failure = error
    case .batch(let batch):
      let collector = DiagnosticCollector()
      var local = options
      local.diagnostics = { collector.append($0) }
      do {
        let buffer = InputBuffer(
          text: batch.text, name: name, line: batch.line, column: batch.column)
        let reader =
          batch.startsAfterComma
          ? GeoJSONReader(
            batchAfterComma: buffer, firstFeature: batch.firstFeature, options: local)
          : GeoJSONReader(
            batch: buffer, inCollection: batch.inCollection,
            startsCollection: batch.startsCollection, firstFeature: batch.firstFeature,
            options: local)
        result.features.reserveCapacity(batch.featureCount)
        while let feature = try reader.next() { result.features.append(feature) }
        result.skipped = reader.skippedCount
      } catch let error as GeoPipeError {
        result.failure = error
      } catch {
        result.failure = GeoPipeError("\(error)", status: .ioError)
      }
      result.diagnostics = collector.items
    }
    return result
  }

  /// The next feature, or nil at the end of the input.
  public func next() throws -> Feature? {
    while position == current.count {
      if let failure = pendingFailure {
        pendingFailure = nil
        finished = true
        pool.cancel()
        throw failure
      }
      guard !finished, var result = pool.next(waiting: true) else {
        finished = true
        return nil
      }
      for diagnostic in result.diagnostics { options.diagnostics(diagnostic) }
      skippedCount += result.skipped
      // Take the array without copying it (a copy would retain every feature's storage).
      swap(&current, &result.features)
      position = 0
      pendingFailure = result.failure
    }
    let feature = current[position].take()
    position += 1
    return feature
  }

  deinit {
    pool.cancel()
  }
}

/// Owns the splitter on the producer thread.
private final class SplitterBox: @unchecked Sendable {
  private let splitter: GeoJSONSplitter
  private let progress: ByteCounter
  private var done = false
  private let members = Mutex(JSONObject())

  /// The splitter's collection members as of the last piece it cut.
  var collectionMembers: JSONObject { members.withLock { $0 } }

  init(_ splitter: GeoJSONSplitter, progress: ByteCounter) {
    self.splitter = splitter
    self.progress = progress
  }

  func next() -> GeoJSONSplitter.Piece? {
    guard !done else { return nil }
    defer {
      progress.value.store(splitter.bytesRead, ordering: .relaxed)
      let current = splitter.collectionMembers
      members.withLock { $0 = current }
    }
    do {
      guard let piece = try splitter.next() else {
        done = true
        return nil
      }
      if case .failure = piece { done = true }
      return piece
    } catch let error as GeoPipeError {
      done = true
      return .failure(error)
    } catch {
      done = true
      return .failure(GeoPipeError("\(error)", status: .ioError))
    }
  }
}

/// Gathers a batch's diagnostics so they can be reported in input order.
private final class DiagnosticCollector: @unchecked Sendable {
  private let lock = Mutex<[ReadDiagnostic]>([])

  func append(_ diagnostic: ReadDiagnostic) { lock.withLock { $0.append(diagnostic) } }
  var items: [ReadDiagnostic] { lock.withLock { $0 } }
}

/// A byte count shared between threads.
private final class ByteCounter: Sendable {
  let value = Atomic<Int>(0)
}
