import GeoPipeMercator

/// PMTiles v3 tile ids: tiles of lower zooms first, then along a Hilbert curve within a zoom
/// (the PMTiles v3 specification, "Tile IDs").
public enum PMTilesID {
  /// The id of tile z/x/y.
  public static func id(z: Int, x: Int, y: Int) -> UInt64 {
    var acc = ((UInt64(1) << (2 * UInt64(z))) - 1) / 3
    var x = x
    var y = y
    var a = z - 1
    while a >= 0 {
      let s = 1 << a
      let rx = s & x
      let ry = s & y
      acc += UInt64((3 * rx) ^ ry) << UInt64(a)
      if ry == 0 {
        if rx != 0 {
          x = s - 1 - x
          y = s - 1 - y
        }
        swap(&x, &y)
      }
      a -= 1
    }
    return acc
  }
}

extension PMTilesID {
  /// The tile an id names, or nil past zoom `TileID.maxZoom`.
  public static func tile(_ id: UInt64) -> TileID? {
    var z = 0
    var first: UInt64 = 0
    while true {
      guard z <= TileID.maxZoom else { return nil }
      let count = UInt64(1) << (2 * UInt64(z))
      if id - first < count { break }
      first += count
      z += 1
    }
    // The position along the zoom's Hilbert curve, turned back into x and y.
    var t = id - first
    var x = 0
    var y = 0
    var s = 1
    while s < 1 << z {
      let rx = Int(1 & (t / 2))
      let ry = Int(1 & (t ^ UInt64(rx)))
      if ry == 0 {
        if rx == 1 {
          x = s - 1 - x
          y = s - 1 - y
        }
        swap(&x, &y)
      }
      x += s * rx
      y += s * ry
      t /= 4
      s *= 2
    }
    return TileID(unchecked: z, x, y)
  }
}
