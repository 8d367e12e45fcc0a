import GeoPipeCore

/// Streams features from GeoJSON text: a FeatureCollection (parsed as it streams, also when
/// it is one line), a Feature, a bare geometry, or a sequence of them separated by newlines
/// or RS characters (GeoJSONSeq, RFC 8142).
///
/// Memory holds one window of input and one feature: the file's size does not matter.
public final class GeoJSONReader: FeatureSource {
  /// The number of features returned so far.
  public private(set) var featureCount = 0
  /// The number of bad features skipped (with `--on-error skip`).
  public private(set) var skippedCount = 0
  /// Members of the input's FeatureCollection other than `type`, `features`, `bbox` and
  /// `crs` (such as a `name`), complete once the input has been read.
  public private(set) var collectionMembers = JSONObject()
  /// Bytes consumed from the input so far (decompressed).
  public var bytesRead: Int { buffer.bytesRead }
  /// The CRS the input's `crs` member names, when not WGS84.
  public var declaredCRS: String? { options.declaredCRS }
  /// Where the feature that `next()` returned last begins; ask before calling `next()` again.
  public var lastFeatureLocation: SourceLocation? {
    featureStart.map { buffer.location(of: $0) }
  }

  /// The byte offset in the input (decompressed) where the feature that `next()` returned
  /// last begins; ask before calling `next()` again.
  public var lastFeatureOffset: Int? {
    featureStart.map { buffer.bytesRead - buffer.end + $0 }
  }

  private let buffer: InputBuffer
  private let options: ReadOptions
  private var cursor = 0
  private var state = State.between
  private var collectionType: String?
  private let keys = KeyCache()
  private var featureStart: Int?

  private enum State {
    case between
    case inFeatures(first: Bool)
    /// After the comma between two features, before the next one.
    case afterComma
    case afterFeatures
    case resync
    case done
  }

  private enum Step {
    case feature(Feature)
    case again
    case end
  }

  private let featureBase: Int
  private let isBatch: Bool

  /// Reads from an input window.
  public init(buffer: InputBuffer, options: ReadOptions = ReadOptions()) {
    self.buffer = buffer
    self.options = options
    featureBase = 0
    isBatch = false
  }

  /// Reads one batch cut from a larger input by `GeoJSONSplitter`: features of a
  /// FeatureCollection separated by commas (`inCollection`), or a run of a sequence.
  init(
    batch buffer: InputBuffer, inCollection: Bool, startsCollection: Bool, firstFeature: Int,
    options: ReadOptions
  ) {
    self.buffer = buffer
    self.options = options
    featureBase = firstFeature
    isBatch = true
    if inCollection { state = .inFeatures(first: startsCollection) }
  }

  /// Reads one batch that starts at a feature after the comma before it.
  init(batchAfterComma buffer: InputBuffer, firstFeature: Int, options: ReadOptions) {
    self.buffer = buffer
    self.options = options
    featureBase = firstFeature
    isBatch = true
    state = .afterComma
  }

  /// The next feature, or nil at the end of the input.
  public func next() throws -> Feature? {
    while true {
      do {
        switch try step() {
        case .feature(let feature):
          featureCount += 1
          return feature
        case .again: continue
        case .end: return nil
        }
      } catch is NeedMoreInput {
        // A step moves the cursor only past whitespace before it asks for more, or once it is
        // done: the record it was reading starts at the cursor, and what precedes it can go.
        let keep = cursor
        guard let shift = try buffer.refill(keepingFrom: keep) else {
          // Cannot happen: scanners only ask for more before the end of the input.
          throw GeoPipeError.data("unexpected end of input", at: buffer.location(of: buffer.end))
        }
        cursor = keep - shift
      } catch let error as ScanError {
        try recover(from: blamingUnclosedRecord(error))
      }
    }
  }

  private func scanner(at index: Int) -> JSONScanner {
    JSONScanner(
      base: buffer.bytes, end: buffer.end, isFinal: buffer.isAtEOF, at: index,
      maxDepth: options.maxDepth, keys: keys)
  }

  private func step() throws -> Step {
    var s = scanner(at: cursor)
    switch state {
    case .done:
      return .end
    case .resync:
      while s.i < s.end && s.base[s.i] != 0x0A && s.base[s.i] != 0x1E { s.i += 1 }
      if s.i < s.end {
        cursor = s.i + 1
        state = .between
        return .again
      }
      cursor = s.end
      if buffer.isAtEOF {
        state = .done
        return .end
      }
      throw NeedMoreInput()
    case .between:
      s.skipSeparators()
      cursor = s.i
      if s.i == s.end {
        guard buffer.isAtEOF else { throw NeedMoreInput() }
        state = .done
        return .end
      }
      let c = s.base[s.i]
      if c == 0x21 { try readErrorRecord(&s) }
      guard c == 0x7B else {
        if c == 0x5B {
          throw ScanError(
            "the input is a JSON array; geopipe reads GeoJSON objects (a FeatureCollection, "
              + "Features or geometries)", at: s.i)
        }
        throw s.unexpected("a GeoJSON object")
      }
      featureStart = s.i
      var parts = GeoJSONParts()
      try s.parseGeoJSONObject(.top, into: &parts, checkRanges: options.checkRanges, depth: 0)
      if let crs = parts.crsIndex {
        note(droppedCRSNote, at: crs)
      }
      if parts.startsFeatureCollection {
        if let type = parts.type, type != "FeatureCollection" {
          throw ScanError(
            "an object with \"features\" must be a FeatureCollection, not \"\(type)\"",
            at: parts.typeIndex, structural: true)
        }
        collectionType = parts.type
        for member in parts.foreign.members where member.key != "bbox" {
          collectionMembers.appendUnchecked(member.key, member.value)
        }
        cursor = s.i
        state = .inFeatures(first: true)
        return .again
      }
      let feature = try makeTopLevelFeature(&parts, scanner: s)
      cursor = s.i
      guard let feature else { return .again }
      return .feature(feature)
    case .inFeatures(let first):
      s.skipWhitespace()
      cursor = s.i
      if isBatch && s.i == s.end && buffer.isAtEOF {
        state = .done
        return .end
      }
      if try s.peek() == 0x5D {
        s.i += 1
        cursor = s.i
        state = .afterFeatures
        return .again
      }
      if !first {
        try s.expect(0x2C, "',' or ']' after a feature")
        cursor = s.i
        state = .afterComma
        return .again
      }
      return try readFeature(&s)
    case .afterComma:
      s.skipWhitespace()
      cursor = s.i
      return try readFeature(&s)
    case .afterFeatures:
      s.skipWhitespace()
      cursor = s.i
      var members = collectionMembers
      let crsIndex = try s.parseCollectionTail(typeSeen: collectionType != nil, members: &members)
      collectionMembers = members
      if let crsIndex { note(droppedCRSNote, at: crsIndex) }
      cursor = s.i
      state = .between
      return .again
    }
  }

  /// Reads the feature at the cursor in a features array.
  private func readFeature(_ s: inout JSONScanner) throws -> Step {
    // Errors in a feature are reported from its start, so recovery skips just this feature.
    _ = try s.peek()
    featureStart = s.i
    var parts = GeoJSONParts()
    try s.parseGeoJSONObject(.feature, into: &parts, checkRanges: options.checkRanges, depth: 2)
    let feature = try makeFeature(&parts)
    cursor = s.i
    state = .inFeatures(first: false)
    return .feature(feature)
  }

  private func makeTopLevelFeature(_ parts: inout GeoJSONParts, scanner s: JSONScanner) throws
    -> Feature?
  {
    guard let type = parts.type else {
      throw ScanError(
        "missing \"type\": expected a GeoJSON Feature, FeatureCollection or geometry",
        at: parts.start, structural: true)
    }
    switch type {
    case "Feature":
      return try makeFeature(&parts)
    case "FeatureCollection":
      return nil
    default:
      if GeometryKind(rawValue: type) != nil {
        return Feature(geometry: try s.makeGeometry(parts, checkRanges: options.checkRanges))
      }
      throw ScanError("unknown GeoJSON type \"\(type)\"", at: parts.typeIndex, structural: true)
    }
  }

  /// The feature that `parts` describe, whose members are moved out of them.
  private func makeFeature(_ parts: inout GeoJSONParts) throws -> Feature {
    guard let type = parts.type else {
      throw ScanError("feature has no \"type\" member", at: parts.start, structural: true)
    }
    guard type == "Feature" else {
      let what = GeometryKind(rawValue: type) != nil ? "a \(type) geometry" : "\"\(type)\""
      throw ScanError("expected a Feature, found \(what)", at: parts.typeIndex, structural: true)
    }
    return Feature(
      id: parts.id.take(), geometry: parts.geometry.take(), properties: parts.properties.take(),
      bbox: parts.bbox.take(), foreignMembers: parts.foreign)
  }

  private func readErrorRecord(_ s: inout JSONScanner) throws {
    let start = s.i
    let prefix = ErrorRecord.prefix
    guard s.i + prefix.count <= s.end else {
      if !buffer.isAtEOF { throw NeedMoreInput() }
      return
    }
    for k in prefix.indices where s.base[s.i + k] != prefix[k] { return }
    s.i += prefix.count
    let record = try? s.parseValue()
    var status: Int64?
    if case .object(let object)? = record, case .integer(let value)? = object["status"] {
      status = value
    }
    throw ErrorRecord.upstreamError(status: status, at: buffer.location(of: start))
  }

  /// A syntax error at the first byte of a later line, where a new record starts, means that
  /// the record before it never closed its object: that is reported at the end of the record's
  /// own line, where it needs fixing, and `--on-error skip` resumes at the next line.
  private func blamingUnclosedRecord(_ error: ScanError) -> ScanError {
    guard case .between = state, !error.isStructural, featureStart == cursor else { return error }
    let bytes = buffer.bytes
    let index = error.index
    let startsRecord =
      index < buffer.end
      ? bytes[index] == 0x7B || bytes[index] == 0x1E || bytes[index] == 0x21
      : buffer.isAtEOF
    guard startsRecord else { return error }
    var lineEnd = index
    var sawLineBreak = false
    while lineEnd > cursor {
      let c = bytes[lineEnd - 1]
      guard c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D else { break }
      if c == 0x0A { sawLineBreak = true }
      lineEnd -= 1
    }
    guard sawLineBreak && lineEnd > cursor else { return error }
    return ScanError("the record ends before its object closes", at: lineEnd)
  }

  private func recover(from error: ScanError) throws {
    let located = GeoPipeError.data(
      describe(error), at: buffer.location(of: error.index), problem: error.problem)
    guard options.onError == .skip else { throw located }
    let sequence: Bool
    switch state {
    case .inFeatures, .afterComma: sequence = false
    case .between: sequence = true
    default: throw located
    }
    // A feature that is well-formed JSON can be stepped over; a syntax error in a sequence
    // resumes at the next line or RS; in a FeatureCollection it ends the file.
    var s = scanner(at: cursor)
    var resumed = false
    if error.isStructural {
      do {
        try s.skipValue(depth: 1)
        resumed = true
      } catch is NeedMoreInput {
        throw located
      } catch {}
    }
    if resumed {
      cursor = s.i
      if !sequence { state = .inFeatures(first: false) }
    } else if sequence {
      cursor = error.index
      state = .resync
    } else {
      throw located
    }
    options.diagnostics(
      ReadDiagnostic(
        severity: .warning, message: "skipped: \(located.message)", location: located.location,
        problem: error.problem))
    skippedCount += 1
  }

  private func describe(_ error: ScanError) -> String {
    switch state {
    case .inFeatures, .afterComma, .between:
      error.isStructural
        ? "\(error.message) (feature \(featureBase + featureCount + skippedCount))" : error.message
    default: error.message
    }
  }

  private var droppedCRSNote: String {
    GeoJSONCRS.note(declared: options.declaredCRS)
  }

  private func note(_ message: String, at index: Int) {
    options.diagnostics(
      ReadDiagnostic(severity: .note, message: message, location: buffer.location(of: index)))
  }
}
