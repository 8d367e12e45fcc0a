import GeoPipeMercator

/// The size a tile may have for map clients to load it: tippecanoe's defaults of 500 KB
/// (as stored, gzipped) and 200,000 features.
///
/// Mapbox GL, MapLibre and Leaflet's vector tile plugins reject or stall on larger tiles.
public struct TileSizeLimits: Hashable, Sendable {
  /// tippecanoe's `--maximum-tile-bytes` default.
  public static let defaultMaxBytes = 500_000
  /// tippecanoe's `--maximum-tile-features` default.
  public static let defaultMaxFeatures = 200_000

  /// The most bytes a stored (gzipped) tile may have.
  public var maxBytes: Int
  /// The most features a tile may have, over all its layers.
  public var maxFeatures: Int
  /// Whether no limit applies (`--no-tile-size-limit`).
  public var isDisabled: Bool

  /// Creates limits; the defaults are tippecanoe's.
  public init(
    maxBytes: Int = defaultMaxBytes, maxFeatures: Int = defaultMaxFeatures,
    isDisabled: Bool = false
  ) {
    self.maxBytes = maxBytes
    self.maxFeatures = maxFeatures
    self.isDisabled = isDisabled
  }

  /// The limits a tile of `bytes` stored bytes and `features` features passes, or nil when it
  /// keeps to them (always nil when disabled).
  public func violation(bytes: Int, features: Int) -> TileSizeViolation? {
    guard !isDisabled, bytes > maxBytes || features > maxFeatures else { return nil }
    return TileSizeViolation(
      bytes: bytes, features: features, maxBytes: maxBytes, maxFeatures: maxFeatures)
  }
}

/// A tile over one or both of its ``TileSizeLimits``.
public struct TileSizeViolation: Hashable, Sendable {
  /// The tile's stored (gzipped) size.
  public var bytes: Int
  /// The tile's features, over all its layers.
  public var features: Int
  /// The byte limit it was checked against.
  public var maxBytes: Int
  /// The feature limit it was checked against.
  public var maxFeatures: Int

  /// Whether the tile has more bytes than allowed.
  public var isOverBytes: Bool { bytes > maxBytes }
  /// Whether the tile has more features than allowed.
  public var isOverFeatures: Bool { features > maxFeatures }

  /// A sentence naming the tile and what it is over, such as
  /// `tile 0/0/0 is 2251234 bytes, over the limit of 500000`.
  public func warning(tile: TileID) -> String {
    var parts: [String] = []
    if isOverBytes { parts.append("is \(bytes) bytes, over the limit of \(maxBytes)") }
    if isOverFeatures {
      parts.append("has \(features) features, over the limit of \(maxFeatures)")
    }
    return "tile \(tile.z)/\(tile.x)/\(tile.y) " + parts.joined(separator: " and ")
  }
}
