import GeoPipeCore
import Testing

@testable import GeoPipeTiles

/// Encodings and clipping against values worked out by hand from the MVT 2.1 specification.
@Suite struct TileGeometryTests {
  @Test func varintsAndZigzagFollowProtobuf() {
    var w = ProtobufWriter()
    w.varint(300)
    #expect(w.bytes == [0xAC, 0x02])
    #expect(ProtobufWriter.zigzag(0) == 0 && ProtobufWriter.zigzag(-1) == 1)
    #expect(ProtobufWriter.zigzag(1) == 2 && ProtobufWriter.zigzag(-64) == 127)
    #expect(CommandWriter.command(1, 1) == 9 && CommandWriter.command(2, 3) == 26)
    #expect(CommandWriter.command(7, 1) == 15)
  }

  @Test func specExamplesEncode() {
    // MVT 2.1 §4.3.5.1 and 4.3.5.3: a point at (25, 17); a line (2,2) (2,10) (10,10).
    var point = CommandWriter()
    point.moveTo([25, 17])
    #expect(point.values == [9, 50, 34])
    var line = CommandWriter()
    line.line([2, 2, 2, 10, 10, 10])
    #expect(line.values == [9, 4, 4, 18, 0, 16, 16, 0])
    // §4.3.5.6: a polygon (3,6) (8,12) (20,34).
    var ring = CommandWriter()
    ring.ring([3, 6, 8, 12, 20, 34, 3, 6])
    #expect(ring.values == [9, 6, 12, 18, 10, 12, 24, 44, 15])
  }

  @Test func linesAreClippedToTheBuffer() {
    let box = BBox(west: -80, south: -80, east: 4176, north: 4176)
    let pieces = TileClipper.clipLine([-100, 100, 5000, 100, 5000, 200, 2000, 200], to: box)
    #expect(pieces == [[-80, 100, 4176, 100], [4176, 200, 2000, 200]])
    #expect(TileClipper.clipLine([-500, -500, -400, 5000], to: box).isEmpty)
  }

  @Test func ringsAreClippedToTheBuffer() {
    let clipped = RectangleClipper.clip(
      [[-1000, -1000, 5000, -1000, 5000, 5000, -1000, 5000, -1000, -1000]],
      to: BBox(west: -80, south: -80, east: 4176, north: 4176))
    #expect(clipped.count == 1 && clipped[0].count == 1)
    let ring = clipped.first?.first ?? []
    #expect(
      Set(stride(from: 0, to: ring.count, by: 2).map { "\(ring[$0]),\(ring[$0 + 1])" })
        == ["-80.0,-80.0", "4176.0,-80.0", "4176.0,4176.0", "-80.0,4176.0"])
  }

  @Test func exteriorsWindPositiveAndHolesNegative() throws {
    // A square with a hole, as GeoJSON winds it (exterior counter-clockwise on a map, y up),
    // in world units around the middle of the world.
    let exterior: [Double] = [0.4, 0.6, 0.6, 0.6, 0.6, 0.4, 0.4, 0.4, 0.4, 0.6]
    let hole: [Double] = [0.45, 0.45, 0.55, 0.45, 0.55, 0.55, 0.45, 0.55, 0.45, 0.45]
    let geometry = WorldGeometry(kind: .polygon, parts: [exterior, hole], ringCounts: [2])
    let commands = try #require(
      try TileGeometryEncoder.encode(
        geometry, z: 0, x: 0, y: 0, extent: 4096, buffer: 80, tolerance: 1,
        repairer: PolygonRepairer()))
    let rings = Self.rings(commands)
    #expect(rings.count == 2)
    #expect(TileGeometryEncoder.signedArea(rings[0]) > 0)
    #expect(TileGeometryEncoder.signedArea(rings[1]) < 0)
  }

  @Test func simplificationKeepsCornersAndDropsNoise() {
    let line: [Double] = [0, 0, 10, 0.2, 20, -0.3, 30, 0, 30, 10]
    #expect(TileGeometryEncoder.simplify(line, tolerance: 1) == [0, 0, 30, 0, 30, 10])
    #expect(TileGeometryEncoder.simplify(line, tolerance: 0) == line)
  }

  /// The rings of polygon commands as absolute points.
  static func rings(_ commands: [UInt32]) -> [[Int32]] {
    var rings: [[Int32]] = []
    var current: [Int32] = []
    var x: Int32 = 0
    var y: Int32 = 0
    var k = 0
    while k < commands.count {
      let id = commands[k] & 7
      let count = Int(commands[k] >> 3)
      k += 1
      if id == 7 {
        rings.append(current)
        current = []
        continue
      }
      for _ in 0..<count {
        let dx = Int32(bitPattern: commands[k] >> 1) ^ -Int32(bitPattern: commands[k] & 1)
        let dy = Int32(bitPattern: commands[k + 1] >> 1) ^ -Int32(bitPattern: commands[k + 1] & 1)
        x += dx
        y += dy
        current += [x, y]
        k += 2
      }
    }
    return rings
  }
}
