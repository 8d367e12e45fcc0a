import GeoPipeIO
import GeoPipeMercator

/// Settings of a tileset (tippecanoe's defaults where it has one).
public struct TilerOptions: Sendable {
  /// The lowest zoom written.
  public var minZoom = 0
  /// The highest zoom written (see ``Tiler/guessMaxZoom()`` for tippecanoe's `-zg`).
  public var maxZoom = 14
  /// Whether ``Tiler/guessMaxZoom()`` will be asked: lines' and polygons' vertex spacing is
  /// then noted as they are added.
  public var guessesMaxZoom = false
  /// The layer a feature goes into unless it names another.
  public var layer = "features"
  /// A property whose value names a feature's layer (and is then left out of its properties).
  public var layerProperty: String?
  /// Tile units across a tile (MVT's default 4096).
  public var extent = 4096
  /// Tile units around each tile that clipped lines and polygons keep (tippecanoe: 80 of 4096).
  public var buffer = 80
  /// Douglas–Peucker tolerance in tile units for lines and polygons (0: none).
  public var tolerance = 1.0
  /// Threads that encode tiles.
  public var threads = 1
  /// The size a tile should keep to; a tile over it is reported in the summary.
  public var limits = TileSizeLimits()
  /// What makes a tile over the limits fit, below the highest zoom (nil: it is written as it is).
  ///
  /// The highest zoom keeps every feature: a tile there over the limits is only reported.
  public var strategy: TileDropStrategy?
  /// The properties that go into tiles.
  public var attributes = TileAttributeFilter()
  /// The types properties are converted to, by name (tippecanoe's `-T`).
  public var attributeTypes: [String: TileAttributeType] = [:]
  /// Point thinning below a base zoom (tippecanoe's `-B` and `-r`); nil keeps every point.
  public var thinning: PointThinning?
  /// The share of the tiles written, when the tile space is split between several tilers that
  /// each see every feature (nil: every tile).
  ///
  /// Each zoom's tiles are dealt out by the placements they hold, largest first, to the share
  /// with the least so far over all zooms, so that the shares' work is even and every tile
  /// goes to exactly one share.
  /// Not with a ``strategy``, which weighs a zoom's tiles against each other.
  public var share: Shard?

  /// Creates options with the defaults.
  public init() {}
}

/// What a written tileset holds.
public struct TilesetSummary: Sendable {
  /// Tiles written.
  public var tiles = 0
  /// Features added.
  public var features = 0
  /// Feature copies written across all tiles.
  public var placements = 0
  /// Bytes of (compressed) tile data written.
  public var bytes = 0
  /// Per zoom, the features of that zoom that no tile holds (dropped by point thinning or a
  /// strategy); zooms without any are absent.
  public var dropped: [Int: Int] = [:]
  /// Per zoom, the points of `dropped` that point thinning left out.
  public var thinned: [Int: Int] = [:]
  /// Per zoom, the features merged into a neighbour by `coalesce-densest-as-needed`.
  public var coalesced: [Int: Int] = [:]
  /// Per zoom, the points `cluster-densest-as-needed` merged into clusters (a cluster of n
  /// points counts n - 1).
  public var clustered: [Int: Int] = [:]
  /// Per zoom, the radius (in pixels of a 256-pixel tile) the clusters were made with.
  public var clusterRadius: [Int: Double] = [:]
  /// Per property, the values that ``TilerOptions/attributeTypes`` could not convert (left
  /// out of the tiles).
  public var unconverted: [String: Int] = [:]
  /// The tiles written over the limits, in the order written.
  public var oversized: [(tile: TileID, violation: TileSizeViolation)] = []
}

/// Where `Tiler.write` is, for a progress display: told after each batch of tiles.
public struct TilerProgress: Sendable {
  /// The zoom being written.
  public var zoom: Int
  /// Tiles of this zoom written.
  public var zoomTilesWritten: Int
  /// The tiles this zoom has.
  public var zoomTiles: Int
  /// What has been written so far, over all zooms.
  public var summary: TilesetSummary
}
