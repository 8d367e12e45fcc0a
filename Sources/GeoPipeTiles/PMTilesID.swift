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
