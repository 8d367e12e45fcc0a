import GeoPipeCore

/// Parses Well-Known Binary geometries (OGC 06-103r4 §8, ISO 13249-3), as GeoPackage,
/// GeoParquet and PostGIS store them.
///
/// Reads both byte orders, ISO dimension codes (type + 1000 for Z, + 2000 for M, + 3000 for
/// ZM) and PostGIS's extended form (EWKB: flags 0x80000000 for Z, 0x40000000 for M, 0x20000000
/// for an SRID after the type). A position with M but no Z keeps M as its fourth number and
/// NaN as its third. An empty point (NaN coordinates) reads as no geometry, as GeoJSON has no
/// empty point; empty members of collections are left out. Other positions need finite x and
/// y; a NaN altitude or measure means none.
public struct WKBReader {
  /// An error at a byte offset in the geometry.
  public struct Failure: Error, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// 0-based byte offset.
    public var offset: Int

    /// The message with its offset.
    public var description: String { "\(message) (WKB byte \(offset))" }
  }

  /// The geometry and, for EWKB, its SRID.
  public struct Result {
    /// The geometry; nil for an empty point.
    public var geometry: Geometry?
    /// The SRID of an EWKB geometry that carries one.
    public var srid: Int32?
  }

  /// Collections nested deeper than this are refused, as the JSON reader refuses deep arrays.
  public static let maximumDepth = 512

  private let bytes: UnsafeRawBufferPointer
  private var i = 0
  private var srid: Int32?

  /// Parses one geometry that fills `bytes` exactly.
  public static func parse(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> Result {
    var reader = WKBReader(bytes: bytes)
    let geometry = try reader.geometry(depth: 0)
    guard reader.i == bytes.count else {
      throw Failure(message: "\(bytes.count - reader.i) bytes after the geometry", offset: reader.i)
    }
    return Result(geometry: geometry, srid: reader.srid)
  }

  /// Parses one geometry that fills `bytes` exactly.
  public static func parse(_ bytes: [UInt8]) throws(Failure) -> Result {
    do {
      return try bytes.withUnsafeBytes { buffer in try parse(buffer) }
    } catch let failure as Failure {
      throw failure
    } catch {
      throw Failure(message: "\(error)", offset: 0)
    }
  }

  private init(bytes: UnsafeRawBufferPointer) {
    self.bytes = bytes
  }

  // MARK: Geometries

  /// The kinds of geometry by their WKB type code.
  private enum Code: UInt32 {
    case point = 1
    case lineString, polygon, multiPoint, multiLineString, multiPolygon, geometryCollection
  }

  /// A geometry's header: byte order, kind, numbers per position (2–4) and whether the third
  /// number is M rather than Z.
  private struct Header {
    var littleEndian: Bool
    var code: Code
    var dimension: Int
    var mOnly: Bool
  }

  private mutating func header() throws(Failure) -> Header {
    let start = i
    let order = try byte()
    guard order <= 1 else {
      throw Failure(message: "byte order \(order) is not 0 or 1", offset: start)
    }
    let littleEndian = order == 1
    var type = try uint32(littleEndian)
    var hasZ = type & 0x8000_0000 != 0
    var hasM = type & 0x4000_0000 != 0
    if type & 0x2000_0000 != 0 {
      let value = Int32(bitPattern: try uint32(littleEndian))
      if srid == nil { srid = value }
    }
    type &= 0x0FFF_FFFF
    switch type / 1000 {
    case 1: hasZ = true
    case 2: hasM = true
    case 3:
      hasZ = true
      hasM = true
    case 0: break
    default: throw Failure(message: "unknown geometry type \(type)", offset: start + 1)
    }
    guard let code = Code(rawValue: type % 1000) else {
      throw Failure(message: "unknown geometry type \(type)", offset: start + 1)
    }
    let dimension = 2 + (hasZ ? 1 : 0) + (hasM ? 1 : 0)
    return Header(
      littleEndian: littleEndian, code: code, dimension: dimension, mOnly: hasM && !hasZ)
  }

  private mutating func geometry(depth: Int) throws(Failure) -> Geometry? {
    guard depth < Self.maximumDepth else {
      throw Failure(message: "collections nested deeper than \(Self.maximumDepth)", offset: i)
    }
    let h = try header()
    switch h.code {
    case .point:
      let start = i
      // An empty point is NaN, NaN (GEOS and PostGIS write it so).
      let x = try double(h.littleEndian)
      let y = try double(h.littleEndian)
      if x.isNaN && y.isNaN {
        i += (h.dimension - 2) * 8
        guard i <= bytes.count else {
          throw Failure(message: "the geometry ends early", offset: start)
        }
        return nil
      }
      i = start
      return .point(try positions(1, h)[0])
    case .lineString:
      return .lineString(try positions(try count(h, minimumSize: 16), h))
    case .polygon:
      return .polygon(try rings(h))
    case .multiPoint, .multiLineString, .multiPolygon, .geometryCollection:
      let n = try count(h, minimumSize: 9)
      var members: [Geometry] = []
      members.reserveCapacity(n)
      for _ in 0..<n {
        let start = i
        guard let member = try geometry(depth: depth + 1) else { continue }
        if h.code != .geometryCollection, !Self.fits(member.kind, in: h.code) {
          throw Failure(
            message: "a \(member.typeName) inside a \(Self.name(h.code))", offset: start)
        }
        members.append(member)
      }
      return Self.collection(h.code, members)
    }
  }

  private mutating func rings(_ h: Header) throws(Failure) -> [CoordinateArray] {
    let n = try count(h, minimumSize: 4)
    var rings: [CoordinateArray] = []
    rings.reserveCapacity(n)
    for _ in 0..<n { rings.append(try positions(try count(h, minimumSize: 16), h)) }
    return rings
  }

  /// `n` positions, stored with the run's dimension (an M-only run as x, y, NaN, m).
  private mutating func positions(_ n: Int, _ h: Header) throws(Failure) -> CoordinateArray {
    let size = h.dimension * 8
    guard n <= (bytes.count - i) / size else {
      throw Failure(message: "\(n) positions do not fit in the bytes left", offset: i)
    }
    // An empty run has nothing to say about dimensions (and writes back as 2D).
    guard n > 0 else { return CoordinateArray() }
    let width = h.mOnly ? 4 : h.dimension
    var storage = [Double](repeating: .nan, count: n * width)
    for k in 0..<n {
      let base = k * width
      let start = i
      for d in 0..<h.dimension {
        let value = try double(h.littleEndian)
        // NaN is how a missing altitude or measure is written; x and y must be numbers.
        guard value.isFinite || (d >= 2 && value.isNaN) else {
          throw Failure(message: "a position with a coordinate that is not a number", offset: start)
        }
        storage[base + (h.mOnly && d == 2 ? 3 : d)] = value.isNaN ? .nan : value
      }
    }
    return Self.narrowed(storage, width)
  }

  /// The run with only as many numbers per position as some position uses, since a NaN
  /// altitude or measure is none: what the writer writes reads back the same.
  private static func narrowed(_ storage: [Double], _ width: Int) -> CoordinateArray {
    var used = 2
    var k = 0
    while k < storage.count && used < width {
      for d in stride(from: width - 1, to: used - 1, by: -1) where !storage[k + d].isNaN {
        used = d + 1
        break
      }
      k += width
    }
    guard used < width else { return CoordinateArray(storage: storage, dimension: width) }
    var out: [Double] = []
    out.reserveCapacity(storage.count / width * used)
    k = 0
    while k < storage.count {
      out.append(contentsOf: storage[k..<k + used])
      k += width
    }
    return CoordinateArray(storage: out, dimension: used)
  }

  /// A count of items that each take at least `minimumSize` bytes, checked against the bytes
  /// left so that a corrupt count cannot ask for gigabytes.
  private mutating func count(_ h: Header, minimumSize: Int) throws(Failure) -> Int {
    let start = i
    let n = Int(try uint32(h.littleEndian))
    guard n <= (bytes.count - i) / minimumSize else {
      throw Failure(message: "a count of \(n) does not fit in the bytes left", offset: start)
    }
    return n
  }

  private static func fits(_ kind: GeometryKind, in code: Code) -> Bool {
    switch code {
    case .multiPoint: kind == .point
    case .multiLineString: kind == .lineString
    case .multiPolygon: kind == .polygon
    default: true
    }
  }

  private static func name(_ code: Code) -> String {
    switch code {
    case .point: "Point"
    case .lineString: "LineString"
    case .polygon: "Polygon"
    case .multiPoint: "MultiPoint"
    case .multiLineString: "MultiLineString"
    case .multiPolygon: "MultiPolygon"
    case .geometryCollection: "GeometryCollection"
    }
  }

  private static func collection(_ code: Code, _ members: [Geometry]) -> Geometry {
    switch code {
    case .multiPoint:
      var run = CoordinateArray()
      for case .point(let p) in members { run.append(p) }
      return .multiPoint(run)
    case .multiLineString:
      return .multiLineString(
        members.compactMap { if case .lineString(let c) = $0 { c } else { nil } })
    case .multiPolygon:
      return .multiPolygon(members.compactMap { if case .polygon(let r) = $0 { r } else { nil } })
    default:
      return .geometryCollection(members)
    }
  }

  // MARK: Numbers

  private mutating func byte() throws(Failure) -> UInt8 {
    guard i < bytes.count else { throw Failure(message: "the geometry ends early", offset: i) }
    defer { i += 1 }
    return bytes[i]
  }

  private mutating func uint32(_ littleEndian: Bool) throws(Failure) -> UInt32 {
    guard bytes.count - i >= 4 else { throw Failure(message: "the geometry ends early", offset: i) }
    let raw = bytes.loadUnaligned(fromByteOffset: i, as: UInt32.self)
    i += 4
    return littleEndian ? UInt32(littleEndian: raw) : UInt32(bigEndian: raw)
  }

  private mutating func double(_ littleEndian: Bool) throws(Failure) -> Double {
    guard bytes.count - i >= 8 else { throw Failure(message: "the geometry ends early", offset: i) }
    let raw = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
    i += 8
    return Double(bitPattern: littleEndian ? UInt64(littleEndian: raw) : UInt64(bigEndian: raw))
  }
}
