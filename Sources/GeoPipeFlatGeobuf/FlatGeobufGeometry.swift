import GeoPipeCore

/// FlatGeobuf's `Geometry` table to and from geopipe's `Geometry`.
///
/// Coordinates are flat: `xy` holds x, y pairs and `z` and `m` one number per position; `ends`
/// divides a polygon's rings and a MultiLineString's lines (the index after each one's last
/// position); MultiPolygons and GeometryCollections have `parts`.
enum FGBGeometry {
  /// How deep GeometryCollections may nest.
  static let maxDepth = 32

  /// Decodes a geometry table.
  ///
  /// `type` is the header's geometry type, used when the table has none. Nil for an empty
  /// point (GeoJSON has no empty point).
  static func decode(_ table: FlatTable, type headerType: FGBGeometryType, depth: Int = 0)
    throws -> Geometry?
  {
    guard depth <= maxDepth else {
      throw FlatBufferError("geometry collections nest too deep", at: table.position)
    }
    let raw = try table.uint8(6)
    guard let own = FGBGeometryType(rawValue: raw) else {
      throw FlatBufferError(
        "geopipe does not read geometry type \(FGBGeometryType.unsupportedName(raw))",
        at: table.position)
    }
    let type = own == .unknown ? headerType : own
    switch type {
    case .unknown:
      throw FlatBufferError("a geometry has no type", at: table.position)
    case .point:
      if let xy = try table.vector(1, elementSize: 8), xy.count == 2,
        table.buffer.f64(xy.start).isNaN, table.buffer.f64(xy.start + 8).isNaN
      {
        return nil  // an empty point, as GEOS writes it
      }
      let run = try coordinates(table)
      switch run.count {
      case 0: return nil
      case 1: return .point(run[0])
      default:
        throw FlatBufferError("a Point has \(run.count) positions", at: table.position)
      }
    case .multiPoint: return .multiPoint(try coordinates(table))
    case .lineString: return .lineString(try coordinates(table))
    case .polygon: return .polygon(try rings(table))
    case .multiLineString: return .multiLineString(try rings(table))
    case .multiPolygon:
      guard let parts = try table.vector(7, elementSize: 4) else {
        // A writer may put a single polygon's rings in the geometry itself.
        let single = try rings(table)
        return .multiPolygon(single.isEmpty ? [] : [single])
      }
      var polygons: [[CoordinateArray]] = []
      polygons.reserveCapacity(parts.count)
      for k in 0..<parts.count {
        let part = try table.table(in: parts, at: k)
        let partType = try part.uint8(6)
        guard partType == 0 || partType == FGBGeometryType.polygon.rawValue else {
          throw FlatBufferError("a MultiPolygon has a part of type \(partType)", at: part.position)
        }
        polygons.append(try rings(part))
      }
      return .multiPolygon(polygons)
    case .geometryCollection:
      guard let parts = try table.vector(7, elementSize: 4) else { return .geometryCollection([]) }
      var members: [Geometry] = []
      members.reserveCapacity(parts.count)
      for k in 0..<parts.count {
        let part = try table.table(in: parts, at: k)
        if let member = try decode(part, type: .unknown, depth: depth + 1) {
          members.append(member)
        }
      }
      return .geometryCollection(members)
    }
  }

  /// The positions of `xy`, `z` and `m`; NaN altitudes and measures are none, and a run
  /// keeps only the numbers some position has.
  private static func coordinates(_ table: FlatTable) throws -> CoordinateArray {
    guard let xy = try table.vector(1, elementSize: 8) else { return CoordinateArray() }
    guard xy.count % 2 == 0 else {
      throw FlatBufferError("xy holds an odd count of numbers (\(xy.count))", at: xy.start)
    }
    let n = xy.count / 2
    let buffer = table.buffer
    var z = try table.vector(2, elementSize: 8)
    var m = try table.vector(3, elementSize: 8)
    for (vector, name) in [(z, "z"), (m, "m")] {
      if let vector, vector.count != n {
        throw FlatBufferError(
          "\(name) holds \(vector.count) numbers for \(n) positions", at: vector.start)
      }
    }
    if let vector = z, !(0..<n).contains(where: { !buffer.f64(vector.start + 8 * $0).isNaN }) {
      z = nil
    }
    if let vector = m, !(0..<n).contains(where: { !buffer.f64(vector.start + 8 * $0).isNaN }) {
      m = nil
    }
    let dimension = m != nil ? 4 : (z != nil ? 3 : 2)
    var storage: [Double] = []
    storage.reserveCapacity(n * dimension)
    for k in 0..<n {
      let x = buffer.f64(xy.start + 16 * k)
      let y = buffer.f64(xy.start + 16 * k + 8)
      guard x.isFinite, y.isFinite else {
        throw FlatBufferError("position \(k) has x \(x), y \(y)", at: xy.start + 16 * k)
      }
      storage.append(x)
      storage.append(y)
      if dimension > 2 { storage.append(z.map { buffer.f64($0.start + 8 * k) } ?? .nan) }
      if let m { storage.append(buffer.f64(m.start + 8 * k)) }
    }
    return CoordinateArray(storage: storage, dimension: dimension)
  }

  /// The positions divided at `ends` (all of them as one run when there are no ends).
  private static func rings(_ table: FlatTable) throws -> [CoordinateArray] {
    let all = try coordinates(table)
    guard let ends = try table.vector(0, elementSize: 4), ends.count > 0 else {
      return all.isEmpty ? [] : [all]
    }
    var runs: [CoordinateArray] = []
    runs.reserveCapacity(ends.count)
    var start = 0
    let d = all.dimension
    for k in 0..<ends.count {
      let end = Int(table.buffer.u32(ends.start + 4 * k))
      guard end > start, end <= all.count else {
        throw FlatBufferError(
          "ends[\(k)] = \(end) does not follow \(start) within \(all.count) positions",
          at: ends.start + 4 * k)
      }
      runs.append(
        CoordinateArray(storage: Array(all.storage[start * d..<end * d]), dimension: d))
      start = end
    }
    guard start == all.count else {
      throw FlatBufferError(
        "ends stop at \(start) of \(all.count) positions", at: ends.start)
    }
    return runs
  }
}

extension FGBGeometry {
  /// What the encoder writes besides x and y.
  struct Dimensions: Equatable {
    var z: Bool
    var m: Bool
  }

  /// Encodes `geometry` as a geometry table; returns the table's position.
  ///
  /// The builder's position must be 8-aligned relative to the buffer's start. `dimensions`
  /// says whether `z` and `m` are written (NaN where a position has none).
  static func encode(
    _ geometry: Geometry, dimensions: Dimensions, into b: inout FlatBufferBuilder
  ) -> Int {
    let type = FGBGeometryType(geometry.kind)
    switch geometry {
    case .point(let p):
      return pointTable(p, dimensions: dimensions, into: &b)
    case .multiPoint(let run), .lineString(let run):
      return coordinateTable(type: type, runs: [run], dimensions: dimensions, into: &b)
    case .polygon(let runs), .multiLineString(let runs):
      return coordinateTable(type: type, runs: runs, dimensions: dimensions, into: &b)
    case .multiPolygon(let polygons):
      return partsTable(type: type, count: polygons.count, into: &b) { k, b in
        coordinateTable(type: .polygon, runs: polygons[k], dimensions: dimensions, into: &b)
      }
    case .geometryCollection(let members):
      return partsTable(type: type, count: members.count, into: &b) { k, b in
        encode(members[k], dimensions: dimensions, into: &b)
      }
    }
  }

  /// The fields of a coordinate table: xy, [ends], [z], [m], type.
  private static let layouts: [[FlatBufferBuilder.Field]] = (0..<8).map { k in
    var fields: [FlatBufferBuilder.Field] = [.init(slot: 1, width: 4)]
    if k & 1 != 0 { fields.append(.init(slot: 0, width: 4)) }
    if k & 2 != 0 { fields.append(.init(slot: 2, width: 4)) }
    if k & 4 != 0 { fields.append(.init(slot: 3, width: 4)) }
    fields.append(.init(slot: 6, width: 1))
    return fields
  }

  private static func layout(ends: Bool, _ dimensions: Dimensions) -> [FlatBufferBuilder.Field] {
    layouts[(ends ? 1 : 0) | (dimensions.z ? 2 : 0) | (dimensions.m ? 4 : 0)]
  }

  /// A Point's table, written without building a run.
  private static func pointTable(
    _ p: Position, dimensions: Dimensions, into b: inout FlatBufferBuilder
  ) -> Int {
    let table = b.table(layout(ends: false, dimensions))
    let at = b.fieldPositions
    b.bytes[at[at.count - 1]] = FGBGeometryType.point.rawValue
    b.link(at[0], to: b.beginVector(doubles: 2))
    b.append64(p.x.bitPattern)
    b.append64(p.y.bitPattern)
    if dimensions.z {
      b.link(at[1], to: b.beginVector(doubles: 1))
      b.append64(p.z.bitPattern)
    }
    if dimensions.m {
      b.link(at[dimensions.z ? 2 : 1], to: b.beginVector(doubles: 1))
      b.append64(p.m.bitPattern)
    }
    return table
  }

  private static func coordinateTable(
    type: FGBGeometryType, runs: [CoordinateArray], dimensions: Dimensions,
    into b: inout FlatBufferBuilder
  ) -> Int {
    let fields = layout(ends: runs.count > 1, dimensions)
    let table = b.table(fields)
    let at = b.fieldPositions
    b.bytes[at[at.count - 1]] = type.rawValue
    let total = runs.reduce(0) { $0 + $1.count }
    b.link(at[0], to: b.beginVector(doubles: 2 * total))
    for run in runs {
      let d = run.dimension
      var i = 0
      while i < run.storage.count {
        b.append64(run.storage[i].bitPattern)
        b.append64(run.storage[i + 1].bitPattern)
        i += d
      }
    }
    var next = 1
    if runs.count > 1 {
      var ends: [UInt32] = []
      ends.reserveCapacity(runs.count)
      var end = 0
      for run in runs {
        end += run.count
        ends.append(UInt32(end))
      }
      b.link(at[next], to: b.vector(uint32s: ends))
      next += 1
    }
    for (slot, wanted) in [(2, dimensions.z), (3, dimensions.m)] where wanted {
      b.link(at[next], to: b.beginVector(doubles: total))
      for run in runs {
        let d = run.dimension
        var i = 0
        while i < run.storage.count {
          b.append64((slot < d ? run.storage[i + slot] : .nan).bitPattern)
          i += d
        }
      }
      next += 1
    }
    return table
  }

  private static let partsLayout: [FlatBufferBuilder.Field] = [
    .init(slot: 7, width: 4), .init(slot: 6, width: 1),
  ]

  private static func partsTable(
    type: FGBGeometryType, count: Int, into b: inout FlatBufferBuilder,
    part: (Int, inout FlatBufferBuilder) -> Int
  ) -> Int {
    let table = b.table(partsLayout)
    b.bytes[b.fieldPositions[1]] = type.rawValue
    let field = b.fieldPositions[0]
    let vector = b.offsetVector(count: count)
    b.link(field, to: vector)
    for k in 0..<count {
      let child = part(k, &b)
      b.link(vector + 4 + 4 * k, to: child)
    }
    return table
  }

  /// Whether any position of `geometry` has a z, and whether any has an m.
  static func dimensions(of geometry: Geometry) -> Dimensions {
    var result = Dimensions(z: false, m: false)
    func visit(_ run: CoordinateArray) {
      guard run.dimension > 2 else { return }
      var k = 0
      while k < run.storage.count {
        if !run.storage[k + 2].isNaN { result.z = true }
        if run.dimension > 3, !run.storage[k + 3].isNaN { result.m = true }
        k += run.dimension
      }
    }
    func visit(_ geometry: Geometry) {
      switch geometry {
      case .point(let p):
        if !p.z.isNaN { result.z = true }
        if !p.m.isNaN { result.m = true }
      case .multiPoint(let run), .lineString(let run): visit(run)
      case .polygon(let runs), .multiLineString(let runs): runs.forEach(visit)
      case .multiPolygon(let polygons): polygons.forEach { $0.forEach(visit) }
      case .geometryCollection(let members): members.forEach(visit)
      }
    }
    visit(geometry)
    return result
  }
}
