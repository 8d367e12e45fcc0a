import Foundation

/// tippecanoe's `-zg`: the highest zoom at which features are told apart.
public struct MaxZoomGuess: Hashable, Sendable {
  /// The zoom chosen.
  public var zoom: Int
  /// The typical distance between neighbouring features, in metres (nil without two distinct
  /// feature locations).
  public var typicalMetres: Double?
  /// The distance that nearly every feature keeps from its neighbour, in metres.
  public var nearbyMetres: Double?
  /// The typical distance between the vertices of lines and polygons, in metres, when it
  /// decided the zoom.
  public var vertexMetres: Double?

  /// A sentence saying what was chosen and why.
  public var description: String {
    var text = "chose --max-zoom \(zoom)"
    if let vertexMetres {
      text += " for vertices about \(Int(vertexMetres.rounded(.up))) m apart within features"
    } else if let typicalMetres, let nearbyMetres {
      text +=
        " for features typically \(Int(typicalMetres.rounded(.up))) m apart, and at least "
        + "\(Int(nearbyMetres.rounded(.up))) m apart"
    }
    return text
  }
}

extension Tiler {
  /// tippecanoe's quadkey index of a world position (`encode_quadkey` on a 2^32 grid): x's bits
  /// in the odd places, y's in the even ones.
  static func quadkey(x: Double, y: Double) -> UInt64 {
    let scale = 4_294_967_296.0
    let wx = UInt64(min(max(x * scale, 0), scale - 1))
    let wy = UInt64(min(max(y * scale, 0), scale - 1))
    return spread(wx) << 1 | spread(wy)
  }

  /// The world position of a quadkey index, on the 2^32 grid.
  static func position(ofQuadkey key: UInt64) -> (x: Double, y: Double) {
    (Double(gather(key >> 1)), Double(gather(key)))
  }

  /// The features in quadkey order of their index positions (ties in input order).
  func quadkeyOrder() -> [Int32] {
    var entries = features.indices.map { (key: features[$0].index, feature: Int32($0)) }
    entries.sort { ($0.key, $0.feature) < ($1.key, $1.feature) }
    return entries.map(\.feature)
  }

  /// Each feature's squared distance, in 2^32-grid units, to the feature before it in quadkey
  /// order (infinity for the first, 0 for a duplicate location): how dense its neighbourhood
  /// is, tippecanoe's `gap`.
  func gaps(order: [Int32]) -> [Double] {
    var gaps = [Double](repeating: .infinity, count: features.count)
    for k in order.indices.dropFirst() {
      let a = Self.position(ofQuadkey: features[Int(order[k - 1])].index)
      let b = Self.position(ofQuadkey: features[Int(order[k])].index)
      gaps[Int(order[k])] = (a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)
    }
    return gaps
  }

  /// Notes the spacing of a line's or polygon's vertices for ``guessMaxZoom()`` (tippecanoe's
  /// `dist_sum` in serial.cpp).
  func noteVertexSpacing(_ geometry: WorldGeometry) {
    var keys: [UInt64] = []
    for part in geometry.parts {
      var k = 0
      while k + 1 < part.count {
        keys.append(Self.quadkey(x: part[k], y: part[k + 1]))
        k += 2
      }
    }
    keys.sort()
    var n = 0
    var sum = 0.0
    for k in keys.indices.dropFirst() where keys[k] != keys[k - 1] {
      sum += log(Double(keys[k] - keys[k - 1]))
      n += 1
    }
    guard n > 0 else { return }
    let feet = exp(sum / Double(n)).squareRoot() / 33
    vertexSpacing.logSum += log(feet) * Double(n)
    vertexSpacing.count += n
  }

  /// tippecanoe's `-zg` guess (main.cpp): from the spread of the quadkey distances between
  /// neighbouring feature locations (the zoom one beyond where features 1.5 standard deviations
  /// closer than typical are told apart at 4096 units a tile), raised for lines and polygons to
  /// the zoom that shows their vertices; nil without two distinct locations or any vertices.
  func guessedMaxZoom(order: [Int32]) -> MaxZoomGuess? {
    // Welford's running mean and variance of the logarithms.
    var mean = 0.0
    var m2 = 0.0
    var count = 0
    for k in order.indices.dropFirst() {
      let a = features[Int(order[k - 1])].index
      let b = features[Int(order[k])].index
      guard a != b else { continue }
      let value = log(Double(b - a))
      count += 1
      let delta = value - mean
      mean += delta / Double(count)
      m2 += delta * (value - mean)
    }
    guard count > 0 || vertexSpacing.count > 0 else { return nil }
    var guess = MaxZoomGuess(zoom: 0)
    if count > 0 {
      let deviation = (m2 / Double(count)).squareRoot()
      let typicalFeet = exp(mean).squareRoot() / 33
      let nearbyFeet = exp(mean - 1.5 * deviation).squareRoot() / 33
      guess.zoom = Self.zoom(showing: nearbyFeet / 2)
      guess.typicalMetres = typicalFeet / 3.28084
      guess.nearbyMetres = nearbyFeet / 3.28084
    }
    if vertexSpacing.count > 0 {
      let feet = exp(vertexSpacing.logSum / Double(vertexSpacing.count))
      let zoom = Self.zoom(showing: feet / 8)
      if zoom > guess.zoom || count == 0 {
        guess.zoom = zoom
        guess.vertexMetres = feet / 3.28084
      }
    }
    // tippecanoe's limit for its 4096-unit tiles: 32 bits less 12 of detail.
    guess.zoom = min(max(guess.zoom, 0), 20)
    return guess
  }

  /// The zoom at which `feet` (tippecanoe's approximate feet: .00000274 degrees each) is one
  /// unit of a 4096-unit tile.
  private static func zoom(showing feet: Double) -> Int {
    let zoom = (log(360 / (0.00000274 * feet)) / log(2) - 12).rounded(.up)
    return zoom.isFinite ? Int(min(max(zoom, 0), 32)) : 0
  }

  /// The 32 low bits of `v` moved to the even bit positions.
  private static func spread(_ v: UInt64) -> UInt64 {
    var v = v & 0xFFFF_FFFF
    v = (v | v << 16) & 0x0000_FFFF_0000_FFFF
    v = (v | v << 8) & 0x00FF_00FF_00FF_00FF
    v = (v | v << 4) & 0x0F0F_0F0F_0F0F_0F0F
    v = (v | v << 2) & 0x3333_3333_3333_3333
    return (v | v << 1) & 0x5555_5555_5555_5555
  }

  /// The even bits of `v` gathered into its 32 low bits.
  private static func gather(_ v: UInt64) -> UInt64 {
    var v = v & 0x5555_5555_5555_5555
    v = (v | v >> 1) & 0x3333_3333_3333_3333
    v = (v | v >> 2) & 0x0F0F_0F0F_0F0F_0F0F
    v = (v | v >> 4) & 0x00FF_00FF_00FF_00FF
    v = (v | v >> 8) & 0x0000_FFFF_0000_FFFF
    return (v | v >> 16) & 0x0000_0000_FFFF_FFFF
  }
}
