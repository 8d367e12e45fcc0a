import Foundation
import GeoPipeCore
import GeoPipeGEOS
import Testing

@testable import GeoPipeTiles

/// The rectangle clip that cuts polygons into tiles, checked against GEOS's overlay
/// (`GEOSIntersection_r`): the same area, every point in the box, and a valid result.
@Suite struct RectangleClipperTests {
  static let box = BBox(west: 0, south: 0, east: 10, north: 10)

  /// The area of polygons (each a list of open rings, exterior first), holes subtracted.
  static func area(_ polygons: [[[Double]]]) -> Double {
    polygons.joined().reduce(0) { $0 + RectangleClipper.signedArea($1) / 2 }
  }

  static func geometry(_ polygons: [[[Double]]]) -> Geometry {
    .multiPolygon(PolygonRepairer.members(polygons))
  }

  @Test func aConcaveRingEnteringAcrossOneEdgeKeepsOnlyItsParts() {
    // A "U" from below whose two arms poke into the box across its south edge: two pieces,
    // not one ring joining them along the edge (Sutherland–Hodgman's answer).
    let u: [Double] = [2, -5, 8, -5, 8, 3, 6, 3, 6, -2, 4, -2, 4, 3, 2, 3]
    let pieces = RectangleClipper.clip([u], to: Self.box)
    #expect(pieces.count == 2)
    #expect(Self.area(pieces) == 12)
    #expect(pieces.allSatisfy { $0.count == 1 && RectangleClipper.signedArea($0[0]) > 0 })
  }

  @Test func aRingAroundTheBoxIsTheBoxAndAHoleAroundItIsNothing() {
    let around: [Double] = [-1, -1, 11, -1, 11, 11, -1, 11]
    #expect(RectangleClipper.clip([around], to: Self.box) == [[Frame(Self.box).boxRing]])
    let outer: [Double] = [-5, -5, 15, -5, 15, 15, -5, 15]
    #expect(RectangleClipper.clip([outer, around.reversedPoints()], to: Self.box).isEmpty)
    let far: [Double] = [20, 20, 30, 20, 30, 30]
    #expect(RectangleClipper.clip([far], to: Self.box).isEmpty)
  }

  @Test func aHoleCrossingTheEdgeOpensIntoTheExterior() {
    // The whole box covered but for a hole that pokes in across the east edge.
    let outer: [Double] = [-5, -5, 15, -5, 15, 15, -5, 15]
    let hole: [Double] = [8, 4, 12, 4, 12, 6, 8, 6]
    let pieces = RectangleClipper.clip([outer, hole], to: Self.box)
    #expect(pieces.count == 1 && pieces[0].count == 1)
    #expect(Self.area(pieces) == 96)
  }

  @Test func aRingTouchingTheBoxFromOutsideLeavesNothing() {
    let touching: [Double] = [10, 2, 14, 2, 14, 8, 10, 8]
    #expect(RectangleClipper.clip([touching], to: Self.box).isEmpty)
    let corner: [Double] = [10, 10, 14, 10, 14, 14]
    #expect(RectangleClipper.clip([corner], to: Self.box).isEmpty)
  }

  @Test(arguments: 0..<4)
  func randomPolygonsGiveWhatGEOSGives(seed: UInt64) throws {
    let context = try GEOSContext()
    var random = SplitMix64(seed: seed &+ 0x5eed)
    func uniform(_ low: Double, _ high: Double) -> Double {
      low + (high - low) * random.unit()
    }
    var cases = 0
    for _ in 0..<400 {
      // A jagged star (deep bays, so it crosses the box's edges many times) and sometimes a
      // hole, around a centre anywhere near the box, on whole or fractional coordinates.
      let cx = uniform(-8, 18)
      let cy = uniform(-8, 18)
      let radius = uniform(1, 16)
      let depth = uniform(0.1, 0.9)
      let count = Int(uniform(5, 80))
      let grid = random.next() % 3 == 0
      func star(_ r: Double, _ n: Int, reversed: Bool) -> [Double] {
        var ring: [Double] = []
        for k in 0..<n {
          let angle = 2 * Double.pi * Double(k) / Double(n) * (reversed ? -1 : 1)
          let rho = r * (1 - depth * uniform(0, 1))
          var x = cx + rho * cos(angle)
          var y = cy + rho * sin(angle)
          if grid {
            x = x.rounded()
            y = y.rounded()
          }
          ring += [x, y]
        }
        return ring
      }
      var polygon = [star(radius, count, reversed: false)]
      if random.next() % 3 == 0 {
        polygon.append(star(radius * (1 - depth) * 0.5, 12, reversed: true))
      }
      let source = Self.geometry([polygon])
      // Rounding to a grid can make a star invalid; only valid input has one right answer.
      guard try context.isValid(source) else { continue }
      cases += 1
      let ours = RectangleClipper.clip(polygon[...], to: Self.box)
      let theirs = try context.area(try context.intersection(source, Self.box))
      #expect(abs(Self.area(ours) - theirs) <= 1e-9 * 100, "\(polygon)")
      if !ours.isEmpty {
        let result = Self.geometry(ours)
        // On whole coordinates a vertex can lie on the box's edge where the edge walk also
        // passes, and the ring then touches itself there: the right region, but not a valid
        // ring. Tile boxes have edges at a buffer's fraction, which data does not hit.
        let problem = grid ? nil : try context.validityProblem(result)
        #expect(problem == nil, "\(polygon) -> \(ours): \(problem?.reason ?? "")")
        for ring in ours.joined() {
          for k in stride(from: 0, to: ring.count, by: 2) {
            #expect(Self.box.contains(x: ring[k], y: ring[k + 1]))
          }
        }
      }
    }
    #expect(cases > 200)
  }
}

extension [Double] {
  fileprivate func reversedPoints() -> [Double] { TileGeometryEncoder.reversed(self) }
}
