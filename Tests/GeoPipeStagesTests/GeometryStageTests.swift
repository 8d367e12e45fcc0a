import GeoPipeCore
import GeoPipeGEOS
import GeoPipeGeometry
import Testing

@testable import GeoPipeStageKit
@testable import GeoPipeStages

@Suite struct GeodesicCircleTests {
  struct Centre: Sendable, CustomTestStringConvertible {
    var lon: Double
    var lat: Double
    var radius: Double
    var testDescription: String { "\(lon),\(lat) r=\(radius)" }
  }

  static let centres: [Centre] = [
    Centre(lon: 2.35, lat: 48.85, radius: 500),
    Centre(lon: 0, lat: 0, radius: 1_000_000),
    Centre(lon: 179.9, lat: -17, radius: 50_000),
    Centre(lon: -179.95, lat: 65, radius: 50_000),
    Centre(lon: 180, lat: 0, radius: 2_000_000),
    Centre(lon: 10, lat: 89.8, radius: 50_000),
    Centre(lon: -60, lat: -89.9, radius: 50_000),
    Centre(lon: 0, lat: 90, radius: 1000),
    Centre(lon: 100, lat: 80, radius: 1_500_000),
    Centre(lon: -170, lat: -75, radius: 3_000_000),
  ]

  private func rings(_ geometry: Geometry) -> [CoordinateArray] {
    switch geometry {
    case .polygon(let rings): rings
    case .multiPolygon(let polygons): polygons.flatMap { $0 }
    default: []
    }
  }

  @Test("every vertex on the circle is at the radius", arguments: centres)
  func verticesAreAtTheRadius(_ c: Centre) throws {
    let geos = try GEOSContext()
    let circle = try GeodesicCircle.polygon(
      lon: c.lon, lat: c.lat, radius: c.radius, segments: 64, geos: geos)
    var onCircle = 0
    for ring in rings(circle) {
      #expect(ring.first == ring.last, "ring not closed")
      for p in ring {
        #expect(p.x >= -180 && p.x <= 180 && p.y >= -90 && p.y <= 90)
        // Vertices added at the antimeridian cut or along the pole are not on the circle.
        if abs(p.x) == 180 || abs(p.y) == 90 { continue }
        let d = Geodesic.wgs84.distance(lon1: c.lon, lat1: c.lat, lon2: p.x, lat2: p.y)
        #expect(abs(d - c.radius) <= c.radius * 0.001, "\(p.x),\(p.y) is \(d) m away")
        onCircle += 1
      }
    }
    // A vertex that falls on the antimeridian is skipped above, and a cut duplicates one.
    #expect(onCircle >= 62)
  }

  @Test func splitsAtTheAntimeridian() throws {
    let geos = try GEOSContext()
    let circle = try GeodesicCircle.polygon(
      lon: 179.9, lat: -17, radius: 50_000, segments: 64, geos: geos)
    guard case .multiPolygon(let parts) = circle else {
      Issue.record("expected a MultiPolygon, got \(circle.typeName)")
      return
    }
    #expect(parts.count == 2)
    let east = parts.filter { $0[0].allSatisfy { $0.x >= 0 } }
    let west = parts.filter { $0[0].allSatisfy { $0.x <= 0 } }
    #expect(east.count == 1 && west.count == 1)
    // The two halves together are about the circle's area (π r², less the chords).
    let area = parts.reduce(0) { $0 + Geodesic.wgs84.area(of: $1[0]) }
    let disc = Double.pi * 50_000 * 50_000
    #expect(area < disc && area > disc * 0.99)
  }

  @Test func closesCapsAlongThePole() throws {
    let geos = try GEOSContext()
    let north = try GeodesicCircle.polygon(
      lon: 10, lat: 89.8, radius: 50_000, segments: 64, geos: geos)
    let south = try GeodesicCircle.polygon(
      lon: -60, lat: -89.9, radius: 50_000, segments: 64, geos: geos)
    #expect(rings(north)[0].contains { $0.y == 90 })
    #expect(rings(south)[0].contains { $0.y == -90 })
    #expect(!rings(north)[0].contains { $0.y < 89 })
  }

  @Test func rejectsACircleAroundBothPoles() throws {
    let geos = try GEOSContext()
    #expect(throws: GeoPipeError.self) {
      try GeodesicCircle.polygon(lon: 0, lat: 0, radius: 15_000_000, segments: 16, geos: geos)
    }
  }
}

@Suite struct GeometryUnitTests {
  @Test func parsesTolerances() throws {
    #expect(try Tolerance("0.01", zoom: nil) == .degrees(0.01))
    #expect(try Tolerance("0.5deg", zoom: nil) == .degrees(0.5))
    #expect(try Tolerance("100m", zoom: nil) == .metres(100))
    #expect(try Tolerance("2km", zoom: nil) == .metres(2000))
    #expect(try Tolerance("1px", zoom: 10) == .pixels(1, zoom: 10))
    #expect(throws: GeoPipeError.self) { try Tolerance("1px", zoom: nil) }
    #expect(throws: GeoPipeError.self) { try Tolerance("-1", zoom: nil) }
    #expect(throws: GeoPipeError.self) { try Tolerance("fast", zoom: nil) }
  }

  @Test func parsesDistancesAndAreas() throws {
    #expect(try Metres("500", option: "radius").value == 500)
    #expect(try Metres("500m", option: "radius").value == 500)
    #expect(try Metres("2.5km", option: "radius").value == 2500)
    #expect(try SquareMetres("2ha", option: "min-area").value == 20_000)
    #expect(try SquareMetres("1km2", option: "min-area").value == 1e6)
    #expect(throws: GeoPipeError.self) { try Metres("far", option: "radius") }
  }

  @Test func webMercatorRoundTrips() {
    let world = 256.0 * 1024
    for (lon, lat) in [(0.0, 0.0), (-179.5, 85), (179.99, -60.25), (2.35, 48.85)] {
      let (x, y) = LocalProjection.mercator(lon: lon, lat: lat, world: world)
      let (lon2, lat2) = LocalProjection.inverseMercator(x: x, y: y, world: world)
      #expect(abs(lon2 - lon) < 1e-9 && abs(lat2 - lat) < 1e-9)
    }
    let (x, y) = LocalProjection.mercator(lon: 0, lat: 0, world: world)
    #expect(x == world / 2 && y == world / 2)
  }

  @Test func picksTheUTMZoneOfTheCentre() throws {
    let zones = UTMZones()
    // Paris is in zone 31N: its easting is near the zone's false easting of 500 km.
    guard
      case .utm(let paris) = try zones.projection(
        for: BBox(west: 2.3, south: 48.8, east: 2.4, north: 48.9))
    else {
      Issue.record("expected UTM")
      return
    }
    #expect(paris.target.contains("+zone=31 "))
    guard
      case .utm(let fiji) = try zones.projection(
        for: BBox(west: -179.9, south: -17.1, east: 179.9, north: -16.9))
    else {
      Issue.record("expected UTM")
      return
    }
    #expect(fiji.target.contains("+zone=60 +south") || fiji.target.contains("+zone=1 +south"))
  }
}
