import GeoPipeCore

/// Parses Well-Known Text geometries (OGC 06-103r4 §7), as CSV files carry them.
///
/// Accepts any case, optional `Z`, `M` or `ZM`, `EMPTY`, MULTIPOINT with or without inner
/// parentheses, and an EWKT `SRID=n;` prefix (ignored). `POINT EMPTY` reads as no geometry.
public struct WKTReader {
  /// An error at a character offset in the text.
  public struct Failure: Error {
    /// What is wrong.
    public var message: String
    /// 0-based character offset.
    public var offset: Int
  }

  private let bytes: [UInt8]
  private var i = 0
  private var depth = 0
  private let checkRanges: Bool
  /// Numbers per position: declared with Z/M/ZM, else set by the first position.
  private var positionSize: Int?

  /// Parses `text`; with `checkRanges`, longitudes and latitudes must be in range.
  public static func parse(_ text: String, checkRanges: Bool = true) throws(Failure) -> Geometry? {
    var reader = WKTReader(bytes: Array(text.utf8), checkRanges: checkRanges)
    return try reader.parseAll()
  }

  private init(bytes: [UInt8], checkRanges: Bool) {
    self.bytes = bytes
    self.checkRanges = checkRanges
  }

  private mutating func parseAll() throws(Failure) -> Geometry? {
    skipSpace()
    if word(at: i).uppercased().hasPrefix("SRID=") {
      while i < bytes.count && bytes[i] != 0x3B { i += 1 }
      guard i < bytes.count else { throw fail("expected ';' after the SRID") }
      i += 1
    }
    let geometry = try parseGeometry()
    skipSpace()
    guard i == bytes.count else { throw fail("unexpected text after the geometry") }
    return geometry
  }

  private func fail(_ message: String) -> Failure {
    // Report a character offset, not a byte offset.
    let characters = bytes[..<min(i, bytes.count)].reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
    return Failure(message: message, offset: characters)
  }

  private mutating func skipSpace() {
    while i < bytes.count,
      bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D
    {
      i += 1
    }
  }

  private func word(at index: Int) -> String {
    var k = index
    while k < bytes.count, isWordByte(bytes[k]) { k += 1 }
    return String(decoding: bytes[index..<k], as: UTF8.self)
  }

  private func isWordByte(_ c: UInt8) -> Bool {
    (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x3D || (c >= 0x30 && c <= 0x39)
  }

  private mutating func readWord() -> String {
    skipSpace()
    let w = word(at: i)
    i += w.utf8.count
    return w.uppercased()
  }

  private mutating func parseGeometry() throws(Failure) -> Geometry? {
    depth += 1
    defer { depth -= 1 }
    guard depth < 64 else { throw fail("geometry collections nested too deeply") }
    let start = i
    let name = readWord()
    guard !name.isEmpty else { throw fail("expected a geometry type such as POINT or POLYGON") }
    var dimension = 2
    var typeName = name
    for suffix in ["ZM", "Z", "M"] where name.count > suffix.count && name.hasSuffix(suffix) {
      let base = String(name.dropLast(suffix.count))
      if Self.types.contains(base) {
        typeName = base
        dimension = suffix == "ZM" ? 4 : 3
        break
      }
    }
    guard Self.types.contains(typeName) else {
      i = start
      throw fail("unknown WKT geometry type '\(name)'")
    }
    var measureOnly = typeName != name && name.hasSuffix("M") && !name.hasSuffix("ZM")
    skipSpace()
    var save = i
    switch readWord() {
    case "Z": dimension = 3
    case "M":
      dimension = 3
      measureOnly = true
    case "ZM": dimension = 4
    default: i = save
    }
    skipSpace()
    save = i
    if readWord() == "EMPTY" { return emptyGeometry(typeName) }
    i = save
    // Each geometry has its own dimension; collection members declare theirs.
    let outerSize = positionSize
    positionSize = dimension > 2 && typeName != "GEOMETRYCOLLECTION" ? dimension : nil
    defer { positionSize = outerSize }
    let context = Context(dimension: dimension, measureOnly: measureOnly)
    switch typeName {
    case "POINT":
      try expect(0x28)
      let p = try position(context)
      try expect(0x29)
      return .point(p)
    case "LINESTRING": return .lineString(try positions(context, minimum: 2, ring: false))
    case "POLYGON":
      return .polygon(
        try list { (r: inout WKTReader) throws(Failure) in
          try r.positions(context, minimum: 4, ring: true)
        })
    case "MULTIPOINT": return .multiPoint(try multiPoint(context))
    case "MULTILINESTRING":
      return .multiLineString(
        try list { (r: inout WKTReader) throws(Failure) in
          try r.positions(context, minimum: 2, ring: false)
        })
    case "MULTIPOLYGON":
      return .multiPolygon(
        try list { (r: inout WKTReader) throws(Failure) in
          try r.list { (q: inout WKTReader) throws(Failure) in
            try q.positions(context, minimum: 4, ring: true)
          }
        })
    default:
      let members = try list { (r: inout WKTReader) throws(Failure) in try r.parseGeometry() }
      return .geometryCollection(members.compactMap { $0 })
    }
  }

  private static let types: Set<String> = [
    "POINT", "LINESTRING", "POLYGON", "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON",
    "GEOMETRYCOLLECTION",
  ]

  private struct Context {
    var dimension: Int
    var measureOnly: Bool
  }

  private func emptyGeometry(_ type: String) -> Geometry? {
    switch type {
    case "LINESTRING": .lineString(CoordinateArray())
    case "POLYGON": .polygon([])
    case "MULTIPOINT": .multiPoint(CoordinateArray())
    case "MULTILINESTRING": .multiLineString([])
    case "MULTIPOLYGON": .multiPolygon([])
    case "GEOMETRYCOLLECTION": .geometryCollection([])
    default: nil
    }
  }

  private mutating func expect(_ c: UInt8) throws(Failure) {
    skipSpace()
    guard i < bytes.count, bytes[i] == c else {
      throw fail("expected '\(Character(Unicode.Scalar(c)))'")
    }
    i += 1
  }

  private mutating func list<T>(_ element: (inout WKTReader) throws(Failure) -> T) throws(Failure)
    -> [T]
  {
    try expect(0x28)
    var items: [T] = []
    while true {
      items.append(try element(&self))
      skipSpace()
      guard i < bytes.count else { throw fail("expected ',' or ')'") }
      if bytes[i] == 0x29 {
        i += 1
        return items
      }
      try expect(0x2C)
    }
  }

  private mutating func multiPoint(_ context: Context) throws(Failure) -> CoordinateArray {
    var array = CoordinateArray()
    for p in try list({ (r: inout WKTReader) throws(Failure) in
      r.skipSpace()
      if r.i < r.bytes.count && r.bytes[r.i] == 0x28 {
        r.i += 1
        let p = try r.position(context)
        try r.expect(0x29)
        return p
      }
      return try r.position(context)
    }) {
      array.append(p)
    }
    return array
  }

  private mutating func positions(_ context: Context, minimum: Int, ring: Bool) throws(Failure)
    -> CoordinateArray
  {
    let start = i
    var array = CoordinateArray()
    for p in try list({ (r: inout WKTReader) throws(Failure) in try r.position(context) }) {
      array.append(p)
    }
    if array.count < minimum {
      i = start
      throw fail(
        ring
          ? "a polygon ring needs at least four positions" : "a line needs at least two positions")
    }
    if ring, let first = array.first, let last = array.last, first != last {
      i = start
      throw fail("polygon ring is not closed: its first and last positions differ")
    }
    return array
  }

  private mutating func position(_ context: Context) throws(Failure) -> Position {
    var values: [Double] = []
    while true {
      skipSpace()
      let start = i
      while i < bytes.count,
        !(bytes[i] == 0x20 || bytes[i] == 0x2C || bytes[i] == 0x29 || bytes[i] == 0x09
          || bytes[i] == 0x0A || bytes[i] == 0x0D)
      {
        i += 1
      }
      if start == i { break }
      let value = bytes[start..<i].withUnsafeBufferPointer { parseDecimalLenient($0) }
      guard let value, value.isFinite else {
        i = start
        throw fail("expected a number")
      }
      if checkRanges && values.count == 0 && !(value >= -180 && value <= 180) {
        i = start
        throw fail("longitude \(value) is out of range [-180, 180]")
      }
      if checkRanges && values.count == 1 && !(value >= -90 && value <= 90) {
        i = start
        throw fail("latitude \(value) is out of range [-90, 90]")
      }
      values.append(value)
    }
    guard values.count >= 2 else { throw fail("a position needs at least two numbers") }
    guard values.count <= 4 else { throw fail("a position has at most four numbers") }
    if let size = positionSize, size != values.count {
      throw fail("every position of this geometry needs \(size) numbers, found \(values.count)")
    }
    positionSize = values.count
    if context.measureOnly && values.count == 3 {
      return Position(x: values[0], y: values[1], m: values[2])
    }
    return Position(
      x: values[0], y: values[1], z: values.count > 2 ? values[2] : .nan,
      m: values.count > 3 ? values[3] : .nan)
  }
}
