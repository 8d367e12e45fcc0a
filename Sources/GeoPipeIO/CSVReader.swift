import GeoPipeCore

/// Streams features from delimited text (RFC 4180): quoted fields, doubled quotes, line breaks
/// inside quotes, CRLF or LF, a UTF-8 BOM, and `,` `;` tab or `|` delimiters.
///
/// Coordinates come from latitude/longitude columns found by name or named in the options,
/// or from a WKT column; those columns become the geometry and leave the properties. A file
/// without coordinate columns reads as features without geometry.
public final class CSVReader: FeatureSource {
  /// The column names from the header, in order.
  public internal(set) var header: [String] = []
  /// The detected or given delimiter.
  public internal(set) var delimiter: UInt8 = 0x2C
  /// The number of features returned so far.
  public private(set) var featureCount = 0
  /// The number of bad rows skipped (with `--on-error skip`).
  public private(set) var skippedCount = 0
  /// Bytes consumed from the input so far.
  public var bytesRead: Int { buffer.bytesRead }
  /// Where the row that `next()` returned last begins; ask before calling `next()` again.
  public var lastFeatureLocation: SourceLocation? {
    // A quoted first field's range starts after its opening quote.
    fields.first.map { buffer.location(of: $0.lowerBound - (quoted.first == true ? 1 : 0)) }
  }

  private(set) var buffer: InputBuffer
  let options: ReadOptions
  private var cursor = 0
  var geometrySource = GeometrySource.none
  var propertyColumns: [Int] = []
  var fields: [Range<Int>] = []
  private var quoted: [Bool] = []

  enum GeometrySource {
    case none
    case latLon(lat: Int, lon: Int)
    case wkt(Int)
  }

  /// Reads the header and works out where the coordinates are.
  public init(buffer: InputBuffer, options: ReadOptions = ReadOptions()) throws {
    self.buffer = buffer
    self.options = options
    try readHeader()
  }

  /// The byte offset in the input where the rows after the header begin.
  var rowsOffset: Int { buffer.bytesRead - buffer.end + cursor }

  /// The line where the rows after the header begin.
  var rowsLine: Int { buffer.location(of: cursor).line }

  /// Reads the rows of `rows` from now on, with the header already read: one shard's rows of
  /// the file, cut at row boundaries.
  func continueReading(rows: InputBuffer) throws {
    buffer = rows
    cursor = 0
  }

  /// The next feature, or nil at the end of the input.
  public func next() throws -> Feature? {
    while true {
      guard try readRecord() else { return nil }
      if fields.count == 1 && fields[0].isEmpty && header.count > 1 { continue }  // blank line
      do {
        let feature = try makeFeature()
        featureCount += 1
        return feature
      } catch let error as GeoPipeError where options.onError == .skip {
        skippedCount += 1
        options.diagnostics(
          ReadDiagnostic(
            severity: .warning, message: "skipped: \(error.message)", location: error.location,
            problem: error.problem ?? .structure))
      }
    }
  }

  // MARK: Records

  /// Reads one record into `fields`; false at the end of the input.
  func readRecord() throws -> Bool {
    while true {
      let mark = cursor
      do {
        return try scanRecord()
      } catch is NeedMoreInput {
        guard let shift = try buffer.refill(keepingFrom: mark) else {
          throw GeoPipeError.data("unexpected end of input", at: buffer.location(of: buffer.end))
        }
        cursor = mark - shift
      }
    }
  }

  private func scanRecord() throws -> Bool {
    let base = buffer.bytes
    let end = buffer.end
    let final = buffer.isAtEOF
    var i = cursor
    guard i < end else {
      if final { return false }
      throw NeedMoreInput()
    }
    fields.removeAll(keepingCapacity: true)
    quoted.removeAll(keepingCapacity: true)
    let d = delimiter
    while true {
      if i < end && base[i] == 0x22 {
        let open = i
        i += 1
        while true {
          guard i < end else {
            if final {
              throw GeoPipeError.data(
                "unterminated quoted field: add the closing '\"'", at: buffer.location(of: open))
            }
            throw NeedMoreInput()
          }
          if base[i] == 0x22 {
            if i + 1 < end && base[i + 1] == 0x22 {
              i += 2
              continue
            }
            if i + 1 >= end && !final { throw NeedMoreInput() }
            break
          }
          i += 1
        }
        fields.append((open + 1)..<i)
        quoted.append(true)
        i += 1
        if i < end, base[i] != d, base[i] != 0x0A, base[i] != 0x0D {
          throw GeoPipeError.data(
            "unexpected character after a closing quote: a quote inside a quoted field is "
              + "written as two quotes (\"\")", at: buffer.location(of: i))
        }
      } else {
        let start = i
        while i < end {
          let c = base[i]
          if c == d || c == 0x0A || c == 0x0D { break }
          i += 1
        }
        if i == end && !final { throw NeedMoreInput() }
        fields.append(start..<i)
        quoted.append(false)
      }
      guard i < end else { break }
      let c = base[i]
      if c == d {
        i += 1
        continue
      }
      // End of record: LF, CR or CRLF.
      if c == 0x0D {
        if i + 1 >= end && !final { throw NeedMoreInput() }
        i += 1
        if i < end && base[i] == 0x0A { i += 1 }
      } else {
        i += 1
      }
      break
    }
    cursor = i
    return true
  }

  func text(of field: Int) throws -> String {
    let range = fields[field]
    let bytes = UnsafeBufferPointer(start: buffer.bytes + range.lowerBound, count: range.count)
    guard var value = String(validating: bytes, as: UTF8.self) else {
      throw GeoPipeError.data(
        "invalid UTF-8 text: convert the file to UTF-8 (e.g. with iconv)",
        at: buffer.location(of: range.lowerBound))
    }
    if quoted[field] && value.utf8.contains(0x22) {
      value = value.replacingDoubledQuotes()
    }
    return value
  }

  // MARK: Features

  private func makeFeature() throws -> Feature {
    guard fields.count == header.count else {
      let at =
        fields.count > header.count
        ? fields[header.count].lowerBound : fields[fields.count - 1].upperBound
      throw GeoPipeError.data(
        "row has \(fields.count) field\(fields.count == 1 ? "" : "s"), the header has \(header.count)",
        at: buffer.location(of: at))
    }
    var geometry: Geometry?
    switch geometrySource {
    case .none: break
    case .latLon(let lat, let lon): geometry = try point(lat: lat, lon: lon)
    case .wkt(let column): geometry = try wkt(column)
    }
    var properties = JSONObject()
    properties.reserveCapacity(propertyColumns.count)
    for column in propertyColumns {
      let value = try text(of: column)
      properties.appendUnchecked(
        header[column], options.csv.inferTypes ? inferred(value) : .string(value))
    }
    return Feature(geometry: geometry, properties: properties)
  }

  private func point(lat: Int, lon: Int) throws -> Geometry? {
    let latRange = trimmed(lat)
    let lonRange = trimmed(lon)
    if latRange.isEmpty && lonRange.isEmpty { return nil }
    let y = try coordinate(latRange, field: lat, name: "latitude")
    let x = try coordinate(lonRange, field: lon, name: "longitude")
    if options.checkRanges {
      let latitudeFits = abs(y) <= 90
      let longitudeFits = abs(x) <= 180
      if !latitudeFits || !longitudeFits {
        var hint = "(use --crs if these are not WGS84 degrees)"
        // Each value fits the other's range: the columns were probably taken the wrong way round.
        if abs(x) <= 90 && abs(y) <= 180 {
          hint =
            "(\"\(header[lon])\" holds \(text(of: lonRange))): are latitude and longitude "
            + "swapped?"
        }
        let (name, limit, range, field) =
          latitudeFits ? ("longitude", 180, lonRange, lon) : ("latitude", 90, latRange, lat)
        throw GeoPipeError.data(
          "\(name) \(text(of: range)) is out of range [-\(limit), \(limit)] \(hint)",
          at: buffer.location(of: fields[field].lowerBound), problem: .coordinateOutOfRange)
      }
    }
    return .point(Position(x: x, y: y))
  }

  /// The bytes of `range` in the window, as text.
  private func text(of range: Range<Int>) -> String {
    String(
      decoding: UnsafeBufferPointer(start: buffer.bytes + range.lowerBound, count: range.count),
      as: UTF8.self)
  }

  /// The field's byte range without surrounding spaces and tabs.
  private func trimmed(_ field: Int) -> Range<Int> {
    var range = fields[field]
    let bytes = buffer.bytes
    while !range.isEmpty, bytes[range.lowerBound] == 0x20 || bytes[range.lowerBound] == 0x09 {
      range = (range.lowerBound + 1)..<range.upperBound
    }
    while !range.isEmpty, bytes[range.upperBound - 1] == 0x20 || bytes[range.upperBound - 1] == 0x09
    {
      range = range.lowerBound..<(range.upperBound - 1)
    }
    return range
  }

  /// Parses a coordinate straight from the window, without building a string.
  private func coordinate(_ range: Range<Int>, field: Int, name: String) throws -> Double {
    var at: SourceLocation { buffer.location(of: fields[field].lowerBound) }
    guard !range.isEmpty else {
      throw GeoPipeError.data("\(name) is empty while the other coordinate is not", at: at)
    }
    let cell = UnsafeBufferPointer(start: buffer.bytes + range.lowerBound, count: range.count)
    var value = parseDecimalLenient(cell)
    // Semicolon-separated files often use a decimal comma ("52,37").
    if value == nil && delimiter != 0x2C, let comma = cell.firstIndex(of: 0x2C),
      !cell.contains(0x2E), cell.lastIndex(of: 0x2C) == comma
    {
      var copy = Array(cell)
      copy[comma] = 0x2E
      value = copy.withUnsafeBufferPointer { parseDecimalLenient($0) }
    }
    var text: String { String(decoding: cell, as: UTF8.self) }
    guard let value, value.isFinite else {
      throw GeoPipeError.data(
        "\(name) \"\(text)\" is not a number", at: at, problem: .nonFiniteCoordinate)
    }
    return value
  }

  private func wkt(_ column: Int) throws -> Geometry? {
    let value = try text(of: column)
    if value.trimmingSpaces().isEmpty { return nil }
    do {
      return try WKTReader.parse(value, checkRanges: options.checkRanges)
    } catch {
      var at = buffer.location(of: fields[column].lowerBound)
      at.column += error.offset
      throw GeoPipeError.data("invalid WKT: \(error.message)", at: at)
    }
  }

  private func inferred(_ value: String) -> JSONValue {
    if value.isEmpty { return .null }
    switch value {
    case "true", "TRUE", "True": return .bool(true)
    case "false", "FALSE", "False": return .bool(false)
    default: break
    }
    var copy = value
    return copy.withUTF8 { bytes -> JSONValue in
      guard let base = bytes.baseAddress else { return .string(value) }
      var scanner = JSONScanner(base: base, end: bytes.count, isFinal: true, at: 0)
      guard let number = try? scanner.parseNumberValue(), scanner.i == bytes.count else {
        return .string(value)
      }
      return number
    }
  }
}

extension String {
  /// The string without leading and trailing spaces and tabs.
  func trimmingSpaces() -> String {
    let utf8 = self.utf8
    guard let first = utf8.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }),
      let last = utf8.lastIndex(where: { $0 != 0x20 && $0 != 0x09 })
    else { return "" }
    return String(self[first...last])
  }

  /// Replaces each `""` with `"`, as in the inside of a quoted CSV field.
  func replacingDoubledQuotes() -> String {
    var out: [UInt8] = []
    out.reserveCapacity(utf8.count)
    var previousQuote = false
    for c in utf8 {
      if c == 0x22 && previousQuote {
        previousQuote = false
        continue
      }
      previousQuote = c == 0x22
      out.append(c)
    }
    return String(decoding: out, as: UTF8.self)
  }
}
