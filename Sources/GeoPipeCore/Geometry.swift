/// An RFC 7946 geometry (§3.1).
///
/// Coordinates are stored in contiguous arrays.
public indirect enum Geometry: Hashable, Sendable {
  case point(Position)
  case multiPoint(CoordinateArray)
  case lineString(CoordinateArray)
  case multiLineString([CoordinateArray])
  /// Rings: the exterior first, then holes.
  case polygon([CoordinateArray])
  case multiPolygon([[CoordinateArray]])
  case geometryCollection([Geometry])

  /// The GeoJSON `type` name.
  public var typeName: String { kind.rawValue }

  /// The kind of geometry, without its coordinates.
  public var kind: GeometryKind {
    switch self {
    case .point: .point
    case .multiPoint: .multiPoint
    case .lineString: .lineString
    case .multiLineString: .multiLineString
    case .polygon: .polygon
    case .multiPolygon: .multiPolygon
    case .geometryCollection: .geometryCollection
    }
  }

  /// Calls `body` with every x/y pair, in order.
  public func forEachXY(_ body: (Double, Double) throws -> Void) rethrows {
    switch self {
    case .point(let p): try body(p.x, p.y)
    case .multiPoint(let c), .lineString(let c): try c.forEachXY(body)
    case .multiLineString(let lines), .polygon(let lines):
      for line in lines { try line.forEachXY(body) }
    case .multiPolygon(let polygons):
      for rings in polygons { for ring in rings { try ring.forEachXY(body) } }
    case .geometryCollection(let members):
      for member in members { try member.forEachXY(body) }
    }
  }

  /// Transforms every x/y pair in place.
  public mutating func transformXY(_ body: (inout Double, inout Double) throws -> Void) rethrows {
    switch self {
    case .point(var p):
      try body(&p.x, &p.y)
      self = .point(p)
    case .multiPoint(var c):
      try c.transformXY(body)
      self = .multiPoint(c)
    case .lineString(var c):
      try c.transformXY(body)
      self = .lineString(c)
    case .multiLineString(var lines):
      for i in lines.indices { try lines[i].transformXY(body) }
      self = .multiLineString(lines)
    case .polygon(var rings):
      for i in rings.indices { try rings[i].transformXY(body) }
      self = .polygon(rings)
    case .multiPolygon(var polygons):
      for i in polygons.indices {
        for j in polygons[i].indices { try polygons[i][j].transformXY(body) }
      }
      self = .multiPolygon(polygons)
    case .geometryCollection(var members):
      for i in members.indices { try members[i].transformXY(body) }
      self = .geometryCollection(members)
    }
  }

  /// The bounding box of all positions, or nil when there are none.
  public var bbox: BBox? {
    var box = BBox.empty
    forEachXY { x, y in box.extend(x: x, y: y) }
    return box.isEmpty ? nil : box
  }

  /// Whether the geometry has any position with an altitude.
  public var hasZ: Bool {
    switch self {
    case .point(let p): p.hasZ
    case .multiPoint(let c), .lineString(let c): c.hasZ
    case .multiLineString(let lines), .polygon(let lines): lines.contains(where: \.hasZ)
    case .multiPolygon(let polygons): polygons.contains { $0.contains(where: \.hasZ) }
    case .geometryCollection(let members): members.contains { $0.hasZ }
    }
  }

  /// The geometry with polygon rings wound as RFC 7946 §3.1.6 asks: exteriors counter-clockwise,
  /// holes clockwise.
  ///
  /// Nothing else changes.
  public func rewound() -> Geometry {
    switch self {
    case .polygon(let rings): .polygon(Geometry.rewind(rings))
    case .multiPolygon(let polygons): .multiPolygon(polygons.map(Geometry.rewind))
    case .geometryCollection(let members): .geometryCollection(members.map { $0.rewound() })
    default: self
    }
  }

  private static func rewind(_ rings: [CoordinateArray]) -> [CoordinateArray] {
    var result = rings
    for i in result.indices {
      let area = result[i].signedDoubleArea
      let wantCounterClockwise = i == 0
      if (wantCounterClockwise && area < 0) || (!wantCounterClockwise && area > 0) {
        result[i].reverse()
      }
    }
    return result
  }
}

/// The seven RFC 7946 geometry types.
public enum GeometryKind: String, CaseIterable, Hashable, Sendable {
  case point = "Point"
  case multiPoint = "MultiPoint"
  case lineString = "LineString"
  case multiLineString = "MultiLineString"
  case polygon = "Polygon"
  case multiPolygon = "MultiPolygon"
  case geometryCollection = "GeometryCollection"

  /// Finds a kind by its name, ignoring case (`point`, `Point`, `POINT`).
  public init?(caseInsensitive name: String) {
    let lowered = name.lowercased()
    guard let kind = GeometryKind.allCases.first(where: { $0.rawValue.lowercased() == lowered })
    else { return nil }
    self = kind
  }
}

extension Geometry {
  /// Calls `body` with every altitude that is present.
  public func forEachZ(_ body: (Double) -> Void) {
    switch self {
    case .point(let p): if p.hasZ { body(p.z) }
    case .multiPoint(let c), .lineString(let c): c.forEachZ(body)
    case .multiLineString(let lines), .polygon(let lines): for line in lines { line.forEachZ(body) }
    case .multiPolygon(let polygons):
      for rings in polygons { for ring in rings { ring.forEachZ(body) } }
    case .geometryCollection(let members): for member in members { member.forEachZ(body) }
    }
  }
}

extension CoordinateArray {
  /// Whether any position has an altitude (a run may store only measures in its extra slots).
  public var hasZ: Bool {
    guard dimension > 2 else { return false }
    var i = 2
    while i < storage.count {
      if !storage[i].isNaN { return true }
      i += dimension
    }
    return false
  }

  /// Calls `body` with every altitude that is present.
  public func forEachZ(_ body: (Double) -> Void) {
    guard dimension > 2 else { return }
    var i = 2
    while i < storage.count {
      if !storage[i].isNaN { body(storage[i]) }
      i += dimension
    }
  }
}
