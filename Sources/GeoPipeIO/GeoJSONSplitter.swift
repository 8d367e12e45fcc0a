import GeoPipeCore

/// Cuts GeoJSON input into batches of raw feature text that can be parsed independently.
///
/// It follows the same grammar as `GeoJSONReader` but only checks the syntax of each feature,
/// which is several times faster than building it. A batch keeps the exact bytes of a run of
/// features (separators included) and the line and column where it starts, so a batch parsed
/// on its own reports the same locations as the whole file. Syntax errors are found here and
/// reported in order after the features before them.
///
/// Inside a features array, runs of features are found in one pass 64 bytes at a time, with
/// quotes, brackets and backslashes as bit masks (`scanFeatures()`); everything else takes one
/// value at a time (`step()`).
final class GeoJSONSplitter {
  /// A run of features, as raw text.
  struct Batch: Sendable {
    var text: BatchText
    var line: Int
    var column: Int
    var inCollection: Bool
    /// Whether the batch starts at the first feature of its collection (no comma before it).
    var startsCollection: Bool
    /// Whether the batch starts at a feature after the comma before it (not at the comma).
    var startsAfterComma: Bool
    var firstFeature: Int
    /// How many features (or other values) the splitter found in it.
    var featureCount: Int
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
  private var runStartsCollection = false
  private var runStartsAfterComma = false
  private var stepStartedCollection = false
  private var stepAfterComma = false
  // Whether the feature the last step found lies in a collection's features array.
  private var stepInCollection = false

  private enum State {
    case between
    case inFeatures(first: Bool)
    case afterComma
    case afterFeatures
    case done
  }

  private enum Step {
    case feature(Range<Int>)
    /// A comma between features.
    case separator
    case boundary
    case end
  }

  init(buffer: InputBuffer, options: ReadOptions, batchBytes: Int = 1 << 20) {
    self.buffer = buffer
    self.options = options
    self.batchBytes = batchBytes
  }

  /// The FeatureCollection's foreign members, as `GeoJSONReader.collectionMembers`.
  private(set) var collectionMembers = JSONObject()

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
      if case .inFeatures(first: false) = state, scanFeatures() { continue }
      do {
        switch try step() {
        case .feature(let range):
          if runStart == nil {
            runStart = range.lowerBound
            runLocation = buffer.location(of: range.lowerBound)
            runFirst = featureIndex
            runInCollection = stepInCollection
            runStartsCollection = stepStartedCollection
            runStartsAfterComma = stepAfterComma
          }
          runEnd = range.upperBound
          featureIndex += 1
        case .separator: break
        case .boundary:
          if runStart != nil { return flush() }
        case .end:
          return runStart != nil ? flush() : nil
        }
      } catch is NeedMoreInput {
        // Hand over the batch so far first, so that the window keeps only the record being
        // read: the step moved the cursor past whitespace (or a comma) only.
        if runStart != nil { return flush() }
        guard let shift = try buffer.refill(keepingFrom: cursor) else {
          throw GeoPipeError.data("unexpected end of input", at: buffer.location(of: buffer.end))
        }
        cursor -= shift
      } catch let error as ScanError {
        // Word it as the one-thread reader does, which numbers the feature at fault.
        var message = error.message
        if error.isStructural, case .between = state { message += " (feature \(featureIndex))" }
        let located = GeoPipeError.data(message, at: buffer.location(of: error.index))
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
    let text = BatchText(copying: buffer.bytes + start, count: runEnd - start)
    runStart = nil
    return .batch(
      Batch(
        text: text, line: runLocation.line, column: runLocation.column,
        inCollection: runInCollection, startsCollection: runStartsCollection,
        startsAfterComma: runStartsAfterComma, firstFeature: runFirst,
        featureCount: featureIndex - runFirst))
  }

  private func step() throws -> Step {
    var s = JSONScanner(
      base: buffer.bytes, end: buffer.end, isFinal: buffer.isAtEOF, at: cursor,
      maxDepth: options.maxDepth)
    stepAfterComma = false
    switch state {
    case .done:
      return .end
    case .between:
      stepInCollection = false
      s.skipSeparators()
      cursor = s.i
      if s.i == s.end {
        guard buffer.isAtEOF else { throw NeedMoreInput() }
        state = .done
        return .end
      }
      let start = s.i
      if s.base[s.i] == 0x21 {
        // An error record: the batch parser reads it.
        cursor = try restOfLine(from: start)
        return .feature(start..<cursor)
      }
      if s.base[s.i] != 0x7B {
        // Not a GeoJSON object: the batch parser reports it from its first byte, and nothing
        // after it is read.
        cursor = start + 1
        state = .done
        return .feature(start..<cursor)
      }
      // A malformed object is not a collection: the batch parser reports what is wrong with it.
      let isCollection: Bool
      do {
        isCollection = try s.isFeatureCollection()
      } catch is ScanError {
        isCollection = false
      }
      if isCollection {
        if runStart != nil { return .boundary }
        var parts = GeoJSONParts()
        try s.parseGeoJSONObject(.top, into: &parts, checkRanges: options.checkRanges, depth: 0)
        if let crs = parts.crsIndex { note(at: crs) }
        guard parts.startsFeatureCollection else {
          cursor = s.i
          return .boundary
        }
        collectionTypeSeen = parts.type != nil
        for member in parts.foreign.members where member.key != "bbox" {
          collectionMembers.appendUnchecked(member.key, member.value)
        }
        cursor = s.i
        state = .inFeatures(first: true)
        return .boundary
      }
      let end = try endOfRecord(from: start)
      cursor = end
      return .feature(start..<end)
    case .inFeatures(let first):
      s.skipWhitespace()
      cursor = s.i
      if try s.peek() == 0x5D {
        s.i += 1
        cursor = s.i
        state = .afterFeatures
        return .boundary
      }
      let start = s.i
      stepStartedCollection = first
      stepInCollection = true
      if !first {
        guard s.base[s.i] == 0x2C else {
          // Not a separator: hand the text to a batch parser, which reports the error.
          state = .done
          return .feature(start..<(s.i + 1))
        }
        cursor = s.i + 1
        state = .afterComma
        return .separator
      }
      let end = try endOfRecord(from: s.i)
      cursor = end
      if case .inFeatures = state { state = .inFeatures(first: false) }
      return .feature(start..<end)
    case .afterComma:
      s.skipWhitespace()
      cursor = s.i
      _ = try s.peek()
      let start = s.i
      stepStartedCollection = false
      stepInCollection = true
      stepAfterComma = true
      let end = try endOfRecord(from: start)
      cursor = end
      if case .afterComma = state { state = .inFeatures(first: false) }
      return .feature(start..<end)
    case .afterFeatures:
      s.skipWhitespace()
      cursor = s.i
      var members = collectionMembers
      if let crs = try s.parseCollectionTail(typeSeen: collectionTypeSeen, members: &members) {
        note(at: crs)
      }
      collectionMembers = members
      cursor = s.i
      state = .between
      return .boundary
    }
  }

  /// Adds the features that follow the cursor in a features array to the batch, for as long as
  /// they are plain (a comma, then an object) and the batch has room; returns false when it added
  /// none.
  ///
  /// It scans 64 bytes at a time through any number of features, where `step()` starts a scan
  /// at each one. Anything else (the end of the array, text that is not a feature, the last
  /// bytes of the window) is left to `step()`.
  private func scanFeatures() -> Bool {
    let base = buffer.bytes
    let end = buffer.end
    var added = false
    // Where the last whole feature ends, and the comma before the feature being scanned.
    var last = cursor
    var comma = -1
    var depth = 0
    var inString: UInt64 = 0
    var escapeCarry: UInt64 = 0
    var block = cursor
    scanning: while block + 64 <= end {
      let (quotes, brackets, backslashes) = ByteScanning.structure(base, block)
      var realQuotes = quotes
      if backslashes != 0 || escapeCarry != 0 {
        realQuotes &= ~ByteScanning.escaped(backslashes, carry: &escapeCarry)
      }
      let strings = ByteScanning.prefixXor(realQuotes) ^ inString
      inString = UInt64(bitPattern: Int64(bitPattern: strings) >> 63)
      var outside = brackets & ~strings
      while outside != 0 {
        let k = outside.trailingZeroBitCount
        outside &= outside - 1
        let index = block + k
        if base[index] & 0x02 != 0 {  // '{' or '['
          if depth == 0 {
            guard base[index] == 0x7B, let found = commaBefore(index, after: last) else {
              break scanning
            }
            comma = found
          }
          depth += 1
        } else {
          guard depth > 0 else { break scanning }  // the array's ']', or a stray bracket
          depth -= 1
          if depth == 0 {
            if runStart == nil {
              runStart = comma
              runLocation = buffer.location(of: comma)
              runFirst = featureIndex
              runInCollection = true
              runStartsCollection = false
              runStartsAfterComma = false
            }
            runEnd = index + 1
            featureIndex += 1
            last = index + 1
            added = true
            if let start = runStart, runEnd - start >= batchBytes { break scanning }
          }
        }
      }
      block += 64
    }
    cursor = last
    return added
  }

  /// The index of the comma between the end of a feature at `last` and the object starting at
  /// `open`, when only whitespace surrounds it.
  private func commaBefore(_ open: Int, after last: Int) -> Int? {
    var comma: Int?
    for k in last..<open {
      switch buffer.bytes[k] {
      case 0x20, 0x0A, 0x0D, 0x09: continue
      case 0x2C where comma == nil: comma = k
      default: return nil
      }
    }
    return comma
  }

  /// The index just past the record that starts at `start` (see `endOfValue(from:)`); when the
  /// record runs past the window, its syntax is checked first, so that a record broken early
  /// (one that never closes its object, say) is handed to a batch parser at once, with nothing
  /// read after it, rather than making the window grow until its brackets match.
  private func endOfRecord(from start: Int) throws -> Int {
    do {
      return try endOfValue(from: start)
    } catch is NeedMoreInput {
      // Deeper than the parser goes, so that the parser meets its own depth limit first.
      var check = JSONScanner(
        base: buffer.bytes, end: buffer.end, isFinal: false, at: start,
        maxDepth: 2 * options.maxDepth + 8)
      do {
        try check.skipValue()
      } catch is ScanError {
        // The check decided on bytes in the window: a batch parser given all of them fails
        // the same way, and nothing after it is read.
        state = .done
        return buffer.end
      } catch {}
      throw NeedMoreInput()
    }
  }

  /// The index just past the JSON value that starts at `start`, found by matching brackets outside
  /// strings only.
  ///
  /// The batch parser checks the syntax: for well-formed text this finds the same end, and for
  /// malformed text the parser fails before reaching it, so errors and their locations are the same
  /// as when reading in one thread.
  private func endOfValue(from start: Int) throws -> Int {
    let base = buffer.bytes
    let end = buffer.end
    var i = start
    var depth = 0
    var inString = false
    // Bytes up to here go through the byte loop: the first byte, and blocks with backslashes.
    var slowUntil = start + 1
    while true {
      if i >= slowUntil && i + 64 <= end {
        // 64 bytes at once: masks of quotes and brackets, strings found by a prefix XOR of
        // the quotes, then only the brackets outside strings are visited.
        var quotes: UInt64 = 0
        var opens: UInt64 = 0
        var closes: UInt64 = 0
        var slashes: UInt64 = 0
        for w in 0..<8 {
          let word = ByteScanning.word(base, i + 8 * w)
          let folded = word | 0x2020_2020_2020_2020  // '[' → '{', ']' → '}'
          let shift = UInt64(8 * w)
          quotes |= ByteScanning.mask(word, equalTo: 0x22) << shift
          slashes |= ByteScanning.mask(word, equalTo: 0x5C) << shift
          opens |= ByteScanning.mask(folded, equalTo: 0x7B) << shift
          closes |= ByteScanning.mask(folded, equalTo: 0x7D) << shift
        }
        if slashes == 0 {
          var strings = ByteScanning.prefixXor(quotes)
          if inString { strings = ~strings }
          var brackets = (opens | closes) & ~strings
          while brackets != 0 {
            let k = brackets.trailingZeroBitCount
            if opens & (1 << UInt64(k)) != 0 {
              depth += 1
            } else {
              depth -= 1
              if depth == 0 { return i + k + 1 }
            }
            brackets &= brackets - 1
          }
          if quotes.nonzeroBitCount & 1 == 1 { inString.toggle() }
          i += 64
          continue
        }
        slowUntil = i + 64
      }
      guard i < end else {
        if buffer.isAtEOF { return end }
        throw NeedMoreInput()
      }
      let c = base[i]
      i += 1
      if inString {
        if c == 0x5C {
          i += 1
          slowUntil = max(slowUntil, i + 1)
        } else if c == 0x22 {
          inString = false
        }
        continue
      }
      switch c {
      case 0x7B, 0x5B: depth += 1
      case 0x7D, 0x5D:
        depth -= 1
        if depth <= 0 { return i }
      case 0x22: inString = true
      default:
        if depth == 0 { return i }  // a bare scalar; the parser will say what is wrong
      }
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
        severity: .note,
        message: GeoJSONCRS.note(declared: options.declaredCRS),
        location: buffer.location(of: index)))
  }
}

/// The bytes of a batch, copied once out of the splitter's window and read in place by the
/// window that parses them.
///
/// Sendable because the bytes are written only here, before the batch leaves the splitter.
final class BatchText: @unchecked Sendable {
  /// The bytes, followed by a NUL like every window's.
  let bytes: UnsafeMutablePointer<UInt8>
  let count: Int

  init(copying source: UnsafePointer<UInt8>, count: Int) {
    bytes = .allocate(capacity: count + 1)
    bytes.update(from: source, count: count)
    bytes[count] = 0
    self.count = count
  }

  deinit {
    bytes.deallocate()
  }
}
