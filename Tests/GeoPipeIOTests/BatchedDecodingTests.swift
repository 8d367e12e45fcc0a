import GeoPipeCore
import Testing

@testable import GeoPipeIO

/// Taking decoded features a batch at a time gives what taking them one at a time gives: the
/// same features in the same order, then the same error after the same feature.
@Suite struct BatchedDecodingTests {
  /// Batches of record numbers; a batch holding `failAt` stops decoding there.
  private func decoding(failAt: Int?) -> BatchedDecoding<[Int]> {
    BatchedDecoding(workers: 2) { records in
      var decoded = DecodedBatch()
      for record in records {
        if record == failAt {
          decoded.failure = GeoPipeError.data("record \(record) is bad", at: nil)
          break
        }
        decoded.features.append(Feature(id: .integer(Int64(record))))
      }
      return decoded
    }
  }

  /// Cuts `count` records into batches of 7; with `cutFailure`, cutting stops with an error
  /// after the records before it.
  private func cutter(count: Int, cutFailure: Bool = false)
    -> () -> (batch: [Int]?, failure: (any Error)?)
  {
    var next = 0
    return {
      guard next < count else {
        return (nil, cutFailure ? GeoPipeError.data("the file ends early", at: nil) : nil)
      }
      let batch = Array(next..<min(next + 7, count))
      next += batch.count
      return (batch, nil)
    }
  }

  private func ids(_ features: [Feature]) -> [Int64] {
    features.map { feature in
      if case .integer(let id)? = feature.id { return id }
      return -1
    }
  }

  @Test func batchesHoldEveryFeatureInOrder() throws {
    let batches = decoding(failAt: nil)
    let cut = cutter(count: 100)
    var taken: [Feature] = []
    var calls = 0
    while let features = try batches.nextBatch(cutting: cut) {
      #expect(!features.isEmpty)
      taken += features
      calls += 1
    }
    #expect(ids(taken) == (0..<100).map(Int64.init))
    #expect(calls == 15)
  }

  @Test func aBatchesFailureComesAfterTheFeaturesBeforeIt() throws {
    for failAt in [0, 3, 7, 50, 99] {
      let oneByOne = decoding(failAt: failAt)
      let cutOne = cutter(count: 100)
      var expected: [Feature] = []
      var expectedError: String?
      do {
        while let feature = try oneByOne.next(cutting: cutOne) { expected.append(feature) }
      } catch { expectedError = "\(error)" }

      let batched = decoding(failAt: failAt)
      let cutBatch = cutter(count: 100)
      var taken: [Feature] = []
      var error: String?
      do {
        while let features = try batched.nextBatch(cutting: cutBatch) { taken += features }
      } catch let thrown { error = "\(thrown)" }

      #expect(ids(taken) == ids(expected))
      #expect(ids(taken) == (0..<failAt).map(Int64.init))
      #expect(error != nil && error == expectedError)
    }
  }

  @Test func aCuttingFailureComesAfterEveryFeature() throws {
    let batched = decoding(failAt: nil)
    let cut = cutter(count: 30, cutFailure: true)
    var taken: [Feature] = []
    #expect(throws: GeoPipeError.self) {
      while let features = try batched.nextBatch(cutting: cut) { taken += features }
    }
    #expect(ids(taken) == (0..<30).map(Int64.init))
  }

  @Test func batchesAndSingleFeaturesMix() throws {
    let batches = decoding(failAt: nil)
    let cut = cutter(count: 40)
    var taken: [Feature] = []
    if let first = try batches.next(cutting: cut) { taken.append(first) }
    while let features = try batches.nextBatch(cutting: cut) {
      taken += features
      if let single = try batches.next(cutting: cut) { taken.append(single) }
    }
    #expect(ids(taken) == (0..<40).map(Int64.init))
  }
}
