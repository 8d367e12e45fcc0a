import GeoPipeCore

/// Cuts GeoJSON input into batches of raw feature text that can be parsed independently.
///
/// It follows the same grammar as `GeoJSONReader` but only checks the syntax of each feature,
/// which is several times faster than building it. A batch keeps the exact bytes of a run of
/// features (separators included) and the line and column where it starts, so a batch parsed
/// on its own reports the same locations as the whole file. Syntax errors are found here and
/// reported in order after the features before them.
final class GeoJSONSplitter {
  /// A run of features, as raw text.
  struct Batch: Sendable {
    var bytes: [UInt8]
    var line: Int
    var column: Int
    var inCollection: Bool
    var firstFeature: Int
  }

  /// What the splitter yields, in input order.
  enum Piece: Sendable {
    case batch(Batch)
    case failure(GeoPipeError)
  }

  private let buffer: InputBuffer
  private let options: ReadOptions
  private let batchBytes: Int
  private var cursor = 0
  private var state = State.between
  private var collectionTypeSeen = false
  private var featureIndex = 0
  private var failure: GeoPipeError?
  // The batch being gathered: window indices of its first byte and of the end of its last
  // feature, and where it starts in the file.
  private var runStart: Int?
  private var runEnd = 0
  private var runLocation = SourceLocation(file: "", line: 1, column: 1)
  private var runFirst = 0
  private var runInCollection = false

  private enum State {
    case between
    case inFeatures(first: Bool)
    case afterFeatures
    case done
  }

  private enum Step {
    case feature(Range<Int>)
    case boundary
    case end
  }

  init(buffer: InputBuffer, options: ReadOptions, batchBytes: Int = 1 << 20) {
    self.buffer = buffer
    self.options = options
    self.batchBytes = batchBytes
  }

  /// Bytes consumed from the input so far.
  var bytesRead: Int { buffer.bytesRead }

  /// The next piece, or nil after the last.
  func next() throws -> Piece? {
    if let failure {
      self.failure = nil
      state = .done
      return .failure(failure)
    }
    while true {
      if let start = runStart, runEnd - start >= batchBytes { return flush() }
      let mark = cursor
      do {
        switch try step() {
        case .feature(let range):
          if runStart == nil {
            runStart = range.lowerBound
            runLocation = buffer.location(of: range.lowerBound)
            runFirst = featureIndex
            if case .inFeatures = state { runInCollection = true } else { runInCollection = false }
          }
          runEnd = range.upperBound
          featureIndex += 1
        case .boundary:
          if runStart != nil { return flush() }
        case .end:
          return runStart != nil ? flush() : nil
        }
      } catch is NeedMoreInput {
        let keep = min(mark, runStart ?? mark)
        guard let shift = try buffer.refill(keepingFrom: keep) else {
          throw GeoPipeError.data("unexpected end of input", at: buffer.location(of: buffer.end))
        }
        cursor = mark - shift
        if let start = runStart {
          runStart = start - shift
          runEnd -= shift
        }
      } catch let error as ScanError {
        let located = GeoPipeError.data(error.message, at: buffer.location(of: error.index))
        if runStart != nil {
          failure = located
          return flush()
        }
        state = .done
        return .failure(located)
      }
    }
  }


  private func flush() -> Piece {
    let start = runStart ?? 0
    let bytes = Array(UnsafeBufferPointer(start: buffer.bytes + start, count: runEnd - start))
    runStart = nil
    return .batch(
      Batch(
        bytes: bytes, line: runLocation.line, column: runLocation.column,
        inCollection: runInCollection, firstFeature: runFirst))
  }

  private func step() throws -> Step {
    var s = JSONScanner(
      base: buffer.bytes, end: buffer.end, isFinal: buffer.isAtEOF, at: cursor,
      maxDepth: options.maxDepth)
    switch state {
    case .done:
      return .end
    case .between:
      while s.i < s.end {
        let c = s.base[s.i]
        guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 || c == 0x1E else { break }
        s.i += 1
      }
      guard s.i < s.end else {
        cursor = s.i
        if buffer.isAtEOF {
          state = .done
          return .end
        }
        throw NeedMoreInput()
      }
      let start = s.i
      if s.base[s.i] != 0x7B {
        // An error record or a stray value: the batch parser reports it from the same place.
        cursor = try restOfLine(from: start)
        return .feature(start..<cursor)
      }
      if try s.isFeatureCollection() {
        if runStart != nil { return .boundary }
        let parts = try s.parseGeoJSONObject(.top, checkRanges: options.checkRanges, depth: 0)
        if parts.droppedCRS { note(at: parts.start) }
        guard parts.startsFeatureCollection else {
          cursor = s.i
          return .boundary
        }
        collectionTypeSeen = parts.type != nil
        cursor = s.i
        state = .inFeatures(first: true)
        return .boundary
      }
      do {
        try s.skipValue(depth: 0)
      } catch let error as ScanError where options.onError == .skip {
        // Leave the bad line to the batch parser, which skips it with a warning.
        cursor = try restOfLine(from: error.index)
        return .feature(start..<cursor)
      }
      cursor = s.i
      return .feature(start..<s.i)
    case .inFeatures(let first):
      if try s.peek() == 0x5D {
        s.i += 1
        cursor = s.i
        state = .afterFeatures
        return .boundary
      }
      if !first { try s.expect(0x2C, "',' or ']' after a feature") }
      _ = try s.peek()
      let start = s.i
      try s.skipValue(depth: 2)
      cursor = s.i
      state = .inFeatures(first: false)
      return .feature(start..<s.i)
    case .afterFeatures:
      if let crs = try s.parseCollectionTail(typeSeen: collectionTypeSeen) { note(at: crs) }
      cursor = s.i
      state = .between
      return .boundary
    }
  }

  /// The index just past the end of the line (or RS record) that `index` is on; asks for more
  /// input when the line runs past the window.
  private func restOfLine(from index: Int) throws -> Int {
    var k = index
    while k < buffer.end && buffer.bytes[k] != 0x0A && buffer.bytes[k] != 0x1E { k += 1 }
    if k == buffer.end && !buffer.isAtEOF { throw NeedMoreInput() }
    return k
  }

  private func note(at index: Int) {
    options.diagnostics(
      ReadDiagnostic(
        severity: "note",
        message: "dropped the legacy \"crs\" member: GeoJSON coordinates are WGS84 (RFC 7946 §4)",
        location: buffer.location(of: index)))
  }
}
