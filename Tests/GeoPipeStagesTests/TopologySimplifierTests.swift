import Foundation
import GeoPipeCore
import GeoPipeGEOS
import GeoPipeGeometry
import GeoPipeIO
import Testing

/// geopipe's own topology-preserving simplifier against GEOS's (`GEOSTopologyPreserveSimplify_r`
/// of the system library): the same positions kept, exactly, on real shorelines, rivers, tracks
/// and boundaries and on random shapes full of degenerate cases (shared and repeated points,
/// collinear overlaps, touching and crossing segments).
@Suite struct TopologySimplifierTests {
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
      "Fixtures/geometry")

  static let files = [
    "us_states_500k_sample.geojson.gz", "wdbii_rivers_sample.geojson.gz",
    "ais_us_coastal_sample.geojson.gz", "ne_110m_countries.geojson.gz",
  ]

  static func geometries(_ file: String) throws -> [Geometry] {
    let reader = try FeatureReaders.open(folder.appendingPathComponent(file).path)
    var out: [Geometry] = []
    while let feature = try reader.next() {
      if let geometry = feature.geometry { out.append(geometry) }
    }
    return out
  }

  func expectSameAsGEOS(
    _ geometry: Geometry, tolerance: Double, geos: GEOSContext, _ label: @autoclosure () -> String
  ) throws {
    let expected = try geos.simplify(geometry, tolerance: tolerance, method: .topologyPreserving)
    let actual = TopologyPreservingSimplifier.simplify(geometry, tolerance: tolerance)
    #expect(actual?.kind == geometry.kind)
    // geopipe keeps a one-part Multi* as it is; GEOS's results come back as a single part.
    #expect(actual.map(Self.lines) == Self.lines(expected), "\(label()) at tolerance \(tolerance)")
  }

  /// Every line and ring, in order.
  static func lines(_ geometry: Geometry) -> [CoordinateArray] {
    switch geometry {
    case .point, .multiPoint: []
    case .lineString(let c): [c]
    case .multiLineString(let lines), .polygon(let lines): lines
    case .multiPolygon(let polygons): polygons.flatMap { $0 }
    case .geometryCollection(let members): members.flatMap(lines)
    }
  }

  @Test("real data keeps the positions GEOS keeps", arguments: files)
  func realData(file: String) throws {
    let geos = try GEOSContext()
    for (n, geometry) in try Self.geometries(file).enumerated() {
      for tolerance in [0.0, 1e-4, 1e-3, 0.01, 0.05, 0.2, 1, 5] {
        try expectSameAsGEOS(geometry, tolerance: tolerance, geos: geos, "\(file) feature \(n)")
      }
      // The same shape at another scale (metres rather than degrees).
      var scaled = geometry
      scaled.transformXY { x, y in
        x = x * 111_319.49 + 500_000
        y *= 110_574.3
      }
      for tolerance in [10.0, 250, 2000] {
        try expectSameAsGEOS(scaled, tolerance: tolerance, geos: geos, "\(file) feature \(n) ×m")
      }
    }
  }

  /// A ring around (cx, cy): angles in order, radii jittered; on a small integer grid when
  /// `snapped`, so that points repeat and segments overlap or touch.
  static func ring(
    _ random: inout SplitMix64, cx: Double, cy: Double, radius: Double, points: Int, snapped: Bool
  ) -> CoordinateArray {
    var ring = CoordinateArray()
    for k in 0..<points {
      let angle = 2 * Double.pi * Double(k) / Double(points)
      let r = radius * (0.3 + 0.7 * random.unit())
      var x = cx + r * cos(angle)
      var y = cy + r * sin(angle)
      if snapped {
        x = x.rounded()
        y = y.rounded()
      }
      ring.append(Position(x: x, y: y))
    }
    ring.append(ring[0])
    return ring
  }

  static func randomGeometry(_ random: inout SplitMix64) -> Geometry {
    let snapped = Int.random(in: 0...1, using: &random) == 0
    let scale = snapped ? Double(Int.random(in: 3...40, using: &random)) : 1 + 100 * random.unit()
    switch Int.random(in: 0...3, using: &random) {
    case 0:
      // A random walk: crosses itself, doubles back, repeats points.
      var line = CoordinateArray()
      var x = 0.0
      var y = 0.0
      for _ in 0..<Int.random(in: 2...200, using: &random) {
        line.append(Position(x: x, y: y))
        x +=
          snapped ? Double(Int.random(in: -2...2, using: &random)) : (random.unit() - 0.5) * scale
        y +=
          snapped ? Double(Int.random(in: -2...2, using: &random)) : (random.unit() - 0.5) * scale
      }
      return .lineString(line)
    case 1:
      let shell = ring(
        &random, cx: 0, cy: 0, radius: scale, points: Int.random(in: 3...120, using: &random),
        snapped: snapped)
      var rings = [shell]
      for _ in 0..<Int.random(in: 0...3, using: &random) {
        rings.append(
          ring(
            &random, cx: (random.unit() - 0.5) * scale, cy: (random.unit() - 0.5) * scale,
            radius: scale / 4, points: Int.random(in: 3...30, using: &random), snapped: snapped))
      }
      return .polygon(rings)
    case 2:
      var polygons: [[CoordinateArray]] = []
      for _ in 0..<Int.random(in: 1...5, using: &random) {
        polygons.append([
          ring(
            &random, cx: Double(Int.random(in: -2...2, using: &random)) * scale,
            cy: Double(Int.random(in: -2...2, using: &random)) * scale,
            radius: scale, points: Int.random(in: 3...60, using: &random), snapped: snapped)
        ])
      }
      return .multiPolygon(polygons)
    default:
      var lines: [CoordinateArray] = []
      for _ in 0..<Int.random(in: 1...6, using: &random) {
        var line = CoordinateArray()
        for _ in 0..<Int.random(in: 2...40, using: &random) {
          line.append(
            Position(
              x: Double(Int.random(in: -10...10, using: &random)) * (snapped ? 1 : scale / 10),
              y: Double(Int.random(in: -10...10, using: &random)) * (snapped ? 1 : scale / 10)))
        }
        lines.append(line)
      }
      return .multiLineString(lines)
    }
  }

  @Test("random shapes keep the positions GEOS keeps")
  func randomShapes() throws {
    let geos = try GEOSContext()
    var random = SplitMix64(seed: 20_261_201)
    for n in 0..<3000 {
      let geometry = Self.randomGeometry(&random)
      let tolerance = [0, 0.5, 1, 2, 5, 20][Int.random(in: 0...5, using: &random)]
      try expectSameAsGEOS(geometry, tolerance: tolerance, geos: geos, "random shape \(n)")
    }
  }

  @Test("Douglas-Peucker keeps the line vertices GEOS keeps")
  func douglasPeuckerLines() throws {
    let geos = try GEOSContext()
    var random = SplitMix64(seed: 7_919)
    var cases: [Geometry] = []
    for file in Self.files { cases += try Self.geometries(file) }
    for _ in 0..<1000 { cases.append(Self.randomGeometry(&random)) }
    var lines = 0
    for (n, geometry) in cases.enumerated() {
      for tolerance in [0.0, 1e-3, 0.01, 0.5, 2] {
        let own = LineSimplifier.douglasPeucker(geometry, tolerance: tolerance)
        guard geometry.kind == .lineString || geometry.kind == .multiLineString else {
          #expect(own == nil)
          continue
        }
        lines += 1
        let expected = try geos.simplify(geometry, tolerance: tolerance, method: .douglasPeucker)
        #expect(own?.kind == geometry.kind)
        #expect(own.map(Self.lines) == Self.lines(expected), "case \(n) at \(tolerance)")
      }
    }
    #expect(lines > 1000)
  }

  @Test func pointsAndEmptyGeometriesPassThrough() {
    let point = Geometry.point(Position(x: 1, y: 2))
    #expect(TopologyPreservingSimplifier.simplify(point, tolerance: 1) == point)
    let empty = Geometry.multiPolygon([])
    #expect(TopologyPreservingSimplifier.simplify(empty, tolerance: 1) == empty)
  }

  @Test func nonFiniteCoordinatesAreRefused() {
    let line = Geometry.lineString(
      CoordinateArray([Position(x: 0, y: 0), Position(x: .nan, y: 1), Position(x: 2, y: 0)]))
    #expect(TopologyPreservingSimplifier.simplify(line, tolerance: 1) == nil)
  }

  @Test func orientationAgreesWithExactArithmetic() {
    // Nearly collinear points where the plain floating-point determinant has the wrong sign
    // or none; the double-double fallback decides.
    #expect(Planar.orientation(0, 0, 1, 1, 0.5, 0.5) == 0)
    #expect(Planar.orientation(0, 0, 1, 1, 0.5, 0.5 + 1e-16) == 1)
    #expect(Planar.orientation(0, 0, 1, 1, 0.5 + 1e-16, 0.5) == -1)
    #expect(Planar.orientation(1e15, 1e15, 1e15 + 1, 1e15 + 1, 1e15 + 2, 1e15 + 2) == 0)
  }
}
