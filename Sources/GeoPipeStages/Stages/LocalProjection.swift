import Foundation
import GeoPipeCore
import GeoPipeGeometry
import GeoPipeMercator
import GeoPipeStageKit

/// The planar coordinates a geometry stage measures metres or pixels in, for one feature.
///
/// Metres use the feature's UTM zone (by the centre of its bounding box; UPS north of 84°N and
/// south of 80°S), where a metre on the map is within 0.1% of a metre on the ground across the
/// zone. Pixels use Web Mercator (`WebMercator`) at a zoom, with 256-pixel tiles (the world is
/// 256·2^zoom pixels wide).
enum LocalProjection {
  case utm(CoordinateTransformer)
  case webMercator(worldSize: Double)

  /// Projects lon/lat positions in place.
  func forward(_ geometry: inout Geometry) throws {
    switch self {
    case .utm(let transformer): try transformer.transform(&geometry)
    case .webMercator(let world):
      geometry.transformXY { x, y in (x, y) = Self.mercator(lon: x, lat: y, world: world) }
    }
  }

  /// Brings projected positions back to lon/lat.
  ///
  /// Positions that were in `original` get their original numbers back exactly, so that a
  /// vertex a simplification kept is not moved by a round trip; new positions (a buffer's) are
  /// projected back.
  func inverse(_ geometry: inout Geometry, original: Geometry?, projected: Geometry?) throws {
    var known: [PlanarKey: (Double, Double)] = [:]
    if let original, let projected {
      var originals: [(Double, Double)] = []
      originals.reserveCapacity(original.positionCount)
      original.forEachXY { x, y in originals.append((x, y)) }
      known.reserveCapacity(originals.count)
      var i = 0
      projected.forEachXY { x, y in
        known[PlanarKey(x: x, y: y)] = originals[i]
        i += 1
      }
    }
    switch self {
    case .utm(let transformer):
      // The result is small next to the input (or new, for a buffer): project all of it back,
      // then restore the positions that were there before.
      var back = geometry
      try transformer.transform(&back, inverse: true)
      if known.isEmpty {
        geometry = back
        return
      }
      var unprojected: [(Double, Double)] = []
      back.forEachXY { x, y in unprojected.append((x, y)) }
      var i = 0
      geometry.transformXY { x, y in
        (x, y) = known[PlanarKey(x: x, y: y)] ?? unprojected[i]
        i += 1
      }
    case .webMercator(let world):
      geometry.transformXY { x, y in
        if let back = known[PlanarKey(x: x, y: y)] {
          (x, y) = back
        } else {
          (x, y) = Self.inverseMercator(x: x, y: y, world: world)
        }
      }
    }
  }

  /// Web Mercator pixels at `world` pixels around (y grows southwards).
  static func mercator(lon: Double, lat: Double, world: Double) -> (Double, Double) {
    let (x, y) = WebMercator.project(longitude: lon, latitude: lat)
    return (x * world, y * world)
  }

  /// Longitude and latitude of Web Mercator pixels at `world` pixels around.
  static func inverseMercator(x: Double, y: Double, world: Double) -> (Double, Double) {
    let (lon, lat) = WebMercator.unproject(x: x / world, y: y / world)
    return (lon, lat)
  }
}

/// One worker's UTM transformers, by zone.
final class UTMZones {
  private var zones: [Int: CoordinateTransformer] = [:]

  /// The projection for a feature whose positions span `box`.
  func projection(for box: BBox) throws -> LocalProjection {
    var west = box.west
    // A box wider than half the world around the antimeridian is centred on the far side.
    if box.east - box.west > 180 { west += 360 }
    var lon = (west + box.east) / 2
    if lon >= 180 { lon -= 360 }
    let lat = (box.south + box.north) / 2
    let key: Int
    let definition: String
    if lat > 84 {
      key = 1000
      definition = "+proj=ups +datum=WGS84 +units=m +no_defs +type=crs"
    } else if lat < -80 {
      key = 1001
      definition = "+proj=ups +south +datum=WGS84 +units=m +no_defs +type=crs"
    } else {
      let zone = min(max(Int(((lon + 180) / 6).rounded(.down)) + 1, 1), 60)
      key = lat < 0 ? -zone : zone
      definition =
        "+proj=utm +zone=\(zone)\(lat < 0 ? " +south" : "") +datum=WGS84 +units=m +no_defs +type=crs"
    }
    if let cached = zones[key] { return .utm(cached) }
    let transformer = try CoordinateTransformer(
      from: "+proj=longlat +datum=WGS84 +no_defs +type=crs", to: definition)
    zones[key] = transformer
    return .utm(transformer)
  }
}

/// A planar position as a dictionary key (exact bit patterns).
private struct PlanarKey: Hashable {
  let x: UInt64
  let y: UInt64

  init(x: Double, y: Double) {
    self.x = x.bitPattern
    self.y = y.bitPattern
  }
}
