import Foundation

/// A tile of the XYZ scheme: zoom `z`, column `x` from the antimeridian eastwards and row `y`
/// from the top, each `0 ..< 2^z`.
public struct TileID: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The zoom.
  public var z: Int
  /// The column.
  public var x: Int
  /// The row, counted from the north (XYZ); see `tmsY` for the MBTiles row.
  public var y: Int

  /// The deepest zoom a tile id may have (x and y fit 31 bits).
  public static let maxZoom = 30

  /// Creates a tile, checking that x and y are in range for z.
  public init?(z: Int, x: Int, y: Int) {
    guard (0...Self.maxZoom).contains(z), (0..<(1 << z)).contains(x), (0..<(1 << z)).contains(y)
    else { return nil }
    self.z = z
    self.x = x
    self.y = y
  }

  /// The tile holding a longitude and latitude at zoom `z` (as `mercantile.tile`): points on an
  /// edge belong to the tile east and south of it, and the east and south edges of the world
  /// to the last column and row.
  ///
  /// - Precondition: `z` is in `0...maxZoom`.
  public init(longitude: Double, latitude: Double, zoom z: Int) {
    let n = Double(1 << z)
    let x = Int((WebMercator.x(longitude: longitude) * n).rounded(.down))
    let y = Int((WebMercator.y(latitude: latitude) * n).rounded(.down))
    self.z = z
    self.x = min(max(x, 0), (1 << z) - 1)
    self.y = min(max(y, 0), (1 << z) - 1)
  }

  /// Creates a tile the caller knows to be valid (x and y in `0 ..< 2^z`).
  public init(unchecked z: Int, _ x: Int, _ y: Int) {
    self.z = z
    self.x = x
    self.y = y
  }

  /// The row in the TMS scheme (counted from the south), as MBTiles stores it.
  public var tmsY: Int { (1 << z) - 1 - y }

  /// The tile whose TMS row is `tmsY`.
  public init?(z: Int, x: Int, tmsY: Int) {
    self.init(z: z, x: x, y: (1 << z) - 1 - tmsY)
  }

  /// The Bing Maps quadkey: one digit 0–3 per zoom level ("" at zoom 0).
  public var quadkey: String {
    var digits = ""
    for level in stride(from: z, to: 0, by: -1) {
      let mask = 1 << (level - 1)
      let digit = (x & mask != 0 ? 1 : 0) + (y & mask != 0 ? 2 : 0)
      digits.append(Character(String(digit)))
    }
    return digits
  }

  /// The tile a quadkey names, or nil for a string that is not one.
  public init?(quadkey: String) {
    var x = 0
    var y = 0
    var z = 0
    for character in quadkey {
      guard let digit = character.wholeNumberValue, (0...3).contains(digit), z < Self.maxZoom
      else { return nil }
      x = x << 1 | (digit & 1)
      y = y << 1 | (digit >> 1)
      z += 1
    }
    self.init(z: z, x: x, y: y)
  }

  /// West, south, east and north edges in degrees.
  public var bounds: (west: Double, south: Double, east: Double, north: Double) {
    let n = Double(1 << z)
    return (
      WebMercator.longitude(x: Double(x) / n), WebMercator.latitude(y: Double(y + 1) / n),
      WebMercator.longitude(x: Double(x + 1) / n), WebMercator.latitude(y: Double(y) / n)
    )
  }

  /// The tile one zoom out that holds this one, or nil at zoom 0.
  public var parent: TileID? { z == 0 ? nil : TileID(z: z - 1, x: x >> 1, y: y >> 1) }

  /// The four tiles one zoom in, in the order top-left, top-right, bottom-right, bottom-left.
  public var children: [TileID] {
    guard z < Self.maxZoom else { return [] }
    let (cx, cy) = (x * 2, y * 2)
    return [(cx, cy), (cx + 1, cy), (cx + 1, cy + 1), (cx, cy + 1)].compactMap {
      TileID(z: z + 1, x: $0.0, y: $0.1)
    }
  }

  /// `z/x/y`.
  public var description: String { "\(z)/\(x)/\(y)" }

  /// Orders by zoom, then column, then row (the order MBTiles readers expect nothing of, but
  /// deterministic output needs).
  public static func < (a: TileID, b: TileID) -> Bool {
    (a.z, a.x, a.y) < (b.z, b.x, b.y)
  }

  /// Every tile at zoom `z` that a box in degrees touches (west > east crosses the
  /// antimeridian).
  public static func covering(
    west: Double, south: Double, east: Double, north: Double, zoom z: Int
  ) -> [TileID] {
    let low = TileID(longitude: west, latitude: north, zoom: z)
    let high = TileID(longitude: east, latitude: south, zoom: z)
    let columns: [Int] =
      west <= east ? Array(low.x...high.x) : Array(low.x..<(1 << z)) + Array(0...high.x)
    var tiles: [TileID] = []
    for x in columns {
      for y in low.y...high.y { tiles.append(TileID(unchecked: z, x, y)) }
    }
    return tiles
  }
}
