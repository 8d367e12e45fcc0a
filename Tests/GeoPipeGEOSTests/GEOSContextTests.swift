import GeoPipeCore
import GeoPipeGEOS
import Testing

@Suite struct GEOSContextTests {
  private func run(_ pairs: [(Double, Double)]) -> CoordinateArray {
    CoordinateArray(storage: pairs.flatMap { [$0.0, $0.1] }, dimension: 2)
  }

  private var square: Geometry { .polygon([run([(0, 0), (1, 0), (1, 1), (0, 1), (0, 0)])]) }
  private var bowtie: Geometry { .polygon([run([(0, 0), (1, 1), (1, 0), (0, 1), (0, 0)])]) }

  @Test func roundTripsEveryGeometryType() throws {
    let context = try GEOSContext()
    let line3D = CoordinateArray(storage: [0, 0, 5, 1, 1, 6, 2, 0, 7], dimension: 3)
    let geometries: [Geometry] = [
      .point(Position(x: 1.5, y: -2.25)),
      .point(Position(x: 1, y: 2, z: 3)),
      .multiPoint(run([(0, 0), (3, 4)])),
      .lineString(line3D),
      .multiLineString([run([(0, 0), (1, 1)]), run([(2, 2), (3, 2)])]),
      square,
      .polygon([
        run([(0, 0), (10, 0), (10, 10), (0, 10), (0, 0)]),
        run([(2, 2), (2, 3), (3, 3), (3, 2), (2, 2)]),
      ]),
      .multiPolygon([
        [run([(0, 0), (1, 0), (1, 1), (0, 0)])], [run([(5, 5), (6, 5), (6, 6), (5, 5)])],
      ]),
      .geometryCollection([.point(Position(x: 0, y: 0)), .lineString(run([(0, 0), (1, 1)]))]),
    ]
    for geometry in geometries {
      // A tolerance of zero keeps every vertex, so the result is the input copied both ways.
      let copy = try context.simplify(geometry, tolerance: 0, method: .douglasPeucker)
      #expect(copy == geometry)
    }
  }

  @Test func douglasPeuckerDropsVerticesWithinTheTolerance() throws {
    let context = try GEOSContext()
    let zigzag = Geometry.lineString(run([(0, 0), (1, 0.1), (2, -0.1), (3, 5), (4, 0.05), (5, 0)]))
    let simplified = try context.simplify(zigzag, tolerance: 0.5, method: .douglasPeucker)
    #expect(simplified == .lineString(run([(0, 0), (2, -0.1), (3, 5), (4, 0.05), (5, 0)])))
    let coarse = try context.simplify(zigzag, tolerance: 10, method: .douglasPeucker)
    #expect(coarse == .lineString(run([(0, 0), (5, 0)])))
  }

  @Test func douglasPeuckerCollapsesSmallPolygonsButTopologyKeepsThem() throws {
    let context = try GEOSContext()
    let collapsed = try context.simplify(square, tolerance: 2, method: .douglasPeucker)
    #expect(try context.isEmpty(collapsed))
    #expect(collapsed == .polygon([]))
    let kept = try context.simplify(square, tolerance: 2, method: .topologyPreserving)
    #expect(try !context.isEmpty(kept))
    guard case .polygon(let rings) = kept else {
      Issue.record("expected a polygon, got \(kept.typeName)")
      return
    }
    #expect(rings.count == 1 && rings[0].count >= 4)
  }

  @Test func measuresArea() throws {
    let context = try GEOSContext()
    #expect(try context.area(square) == 1)
    #expect(try context.area(.lineString(run([(0, 0), (5, 5)]))) == 0)
  }

  @Test func buffersAPointIntoARoundPolygon() throws {
    let context = try GEOSContext()
    let disc = try context.buffer(.point(Position(x: 0, y: 0)), distance: 1, quadrantSegments: 8)
    guard case .polygon(let rings) = disc else {
      Issue.record("expected a polygon, got \(disc.typeName)")
      return
    }
    #expect(rings[0].count == 33)
    for p in rings[0] { #expect(abs((p.x * p.x + p.y * p.y).squareRoot() - 1) < 1e-12) }
    #expect(try context.area(.polygon([run([(0, 0), (1, 0), (0, 1), (0, 0)])])) == 0.5)
  }

  @Test func reportsSelfIntersectionsVerbatimWithTheirLocation() throws {
    let context = try GEOSContext()
    #expect(try context.validityProblem(square) == nil)
    let problem = try #require(try context.validityProblem(bowtie))
    #expect(problem.reason == "Self-intersection")
    #expect(problem.location == Position(x: 0.5, y: 0.5))
  }

  @Test func reportsRingsGEOSCannotBuildAsProblems() throws {
    let context = try GEOSContext()
    let open = Geometry.polygon([run([(0, 0), (1, 0), (1, 1), (0, 1)])])
    let problem = try #require(try context.validityProblem(open))
    #expect(problem.reason.contains("closed linestring"))
    #expect(problem.location == nil)
  }

  @Test func makesABowtieValid() throws {
    let context = try GEOSContext()
    let valid = try context.makeValid(bowtie)
    #expect(try context.validityProblem(valid) == nil)
    #expect(valid.kind == .multiPolygon)
    #expect(try context.area(valid) == 0.5)
  }

  @Test func throwsGEOSMessagesForGeometriesItCannotBuild() throws {
    let context = try GEOSContext()
    let open = Geometry.polygon([run([(0, 0), (1, 0), (1, 1), (0, 1)])])
    do {
      _ = try context.simplify(open, tolerance: 1, method: .topologyPreserving)
      Issue.record("an open ring was accepted")
    } catch let error as GEOSError {
      #expect(error.description.contains("closed linestring"))
    }
  }

  @Test func versionIsTheSystemLibrary() {
    #expect(GEOSContext.version.hasPrefix("3."))
  }
}
