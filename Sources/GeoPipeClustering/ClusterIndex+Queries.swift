import Foundation

/// An item at a zoom level: an input point, or a cluster of them.
public enum ClusterItem: Sendable, Equatable {
  /// The input point at this index.
  case point(index: Int)
  /// A cluster: its id, how many points it holds, and its position in degrees.
  case cluster(id: Int, count: Int, longitude: Double, latitude: Double)
}

/// What a query cannot answer.
public enum ClusterQueryError: Error, Sendable, Equatable, CustomStringConvertible {
  /// No cluster has this id.
  case noSuchCluster(Int)

  /// A sentence for the user.
  public var description: String {
    switch self {
    case .noSuchCluster(let id): "no cluster with id \(id)"
    }
  }
}

extension ClusterIndex {
  /// The items in a box at a zoom (supercluster's `getClusters`), in its order.
  ///
  /// Longitudes are wrapped into [-180, 180]; a box whose west is east of its east crosses the
  /// antimeridian and is queried as its eastern part followed by its western part; a box 360°
  /// wide or more covers every longitude. A fractional zoom is floored.
  public func clusters(west: Double, south: Double, east: Double, north: Double, zoom: Double)
    -> [ClusterItem]
  {
    var result: [ClusterItem] = []
    clusters(west: west, south: south, east: east, north: north, zoom: zoom) { result.append($0) }
    return result
  }

  /// Calls `visit` with the items in a box at a zoom, in `clusters(...)`'s order, without
  /// collecting them.
  public func clusters(
    west: Double, south: Double, east: Double, north: Double, zoom: Double,
    _ visit: (ClusterItem) -> Void
  ) {
    var minLng = Self.jsRemainder(Self.jsRemainder(west + 180, 360) + 360, 360) - 180
    let minLat = max(-90, min(90, south))
    var maxLng =
      east == 180 ? 180 : Self.jsRemainder(Self.jsRemainder(east + 180, 360) + 360, 360) - 180
    let maxLat = max(-90, min(90, north))
    if east - west >= 360 {
      minLng = -180
      maxLng = 180
    } else if minLng > maxLng {
      clusters(west: minLng, south: minLat, east: 180, north: maxLat, zoom: zoom, visit)
      clusters(west: -180, south: minLat, east: maxLng, north: maxLat, zoom: zoom, visit)
      return
    }
    let zoom = limitZoom(zoom)
    guard levels[zoom] != nil else { return }
    let (tree, members) = treeAndMembers(zoom)
    tree.rangePositions(
      minX: Projection.x(longitude: minLng), minY: Projection.y(latitude: maxLat),
      maxX: Projection.x(longitude: maxLng), maxY: Projection.y(latitude: minLat)
    ) { position in
      visit(item(Int(members[position])))
    }
  }

  /// The items one zoom finer that form a cluster (supercluster's `getChildren`).
  public func children(of clusterId: Int) throws(ClusterQueryError) -> [ClusterItem] {
    try childEntries(of: clusterId).map(item)
  }

  /// The input points of a cluster, skipping `offset` and stopping after `limit` (nil: all),
  /// in supercluster's order (`getLeaves`).
  public func leaves(of clusterId: Int, limit: Int? = nil, offset: Int = 0)
    throws(ClusterQueryError) -> [Int]
  {
    var result: [Int] = []
    _ = try appendLeaves(&result, clusterId, limit: limit ?? Int.max, offset: offset, skipped: 0)
    return result
  }

  /// The zoom at which a cluster splits into more than one item (`getClusterExpansionZoom`).
  public func expansionZoom(of clusterId: Int) throws(ClusterQueryError) -> Int {
    var id = clusterId
    var zoom = originZoom(of: id) - 1
    while zoom <= options.maxZoom {
      let children = try childEntries(of: id)
      zoom += 1
      guard children.count == 1, entries.count[children[0]] > 1 else { break }
      id = entries.ident[children[0]]
    }
    return zoom
  }

  /// The zoom level whose items clustered into this cluster.
  public func originZoom(of clusterId: Int) -> Int { (clusterId - inputCount) % 32 }

  /// A tile's items with their pixel positions (supercluster's `getTile`): nil when empty.
  ///
  /// The tile is padded by `radius / extent` on every side, and wraps around the antimeridian
  /// in the first and last columns. Points use their unrounded projection, clusters their
  /// centroid; pixels are rounded half up, as JavaScript's `Math.round`.
  public func tile(
    zoom z: Int, x: Int, y: Int, coordinates: (Int) -> (longitude: Double, latitude: Double)
  ) -> [(item: ClusterItem, x: Int, y: Int)]? {
    let levelZoom = limitZoom(Double(z))
    guard levels[levelZoom] != nil else { return nil }
    let (tree, members) = treeAndMembers(levelZoom)
    let z2 = pow(2, Double(z))
    let p = options.radius / options.extent
    let top = (Double(y) - p) / z2
    let bottom = (Double(y) + 1 + p) / z2
    var result: [(ClusterItem, Int, Int)] = []
    func add(_ minX: Double, _ maxX: Double, shift: Double) {
      tree.rangePositions(minX: minX, minY: top, maxX: maxX, maxY: bottom) { position in
        let e = Int(members[position])
        let item = item(e)
        var px = entries.x[e]
        var py = entries.y[e]
        if case .point(let index) = item {
          let point = coordinates(index)
          px = Projection.x(longitude: point.longitude)
          py = Projection.y(latitude: point.latitude)
        }
        result.append(
          (
            item, Self.jsRound(options.extent * (px * z2 - shift)),
            Self.jsRound(options.extent * (py * z2 - Double(y)))
          ))
      }
    }
    add((Double(x) - p) / z2, (Double(x) + 1 + p) / z2, shift: Double(x))
    if x == 0 { add(1 - p / z2, 1, shift: z2) }
    if Double(x) == z2 - 1 { add(0, p / z2, shift: -1) }
    return result.isEmpty ? nil : result
  }

  // MARK: Internals

  func item(_ e: Int) -> ClusterItem {
    if entries.count[e] > 1 {
      return .cluster(
        id: entries.ident[e], count: entries.count[e],
        longitude: Projection.longitude(x: entries.x[e]),
        latitude: Projection.latitude(y: entries.y[e]))
    }
    return .point(index: entries.ident[e])
  }

  /// supercluster's `_limitZoom`: floored and clamped to the levels that exist.
  func limitZoom(_ zoom: Double) -> Int {
    guard zoom.isFinite else { return zoom > 0 ? options.maxZoom + 1 : options.minZoom }
    let floored = zoom.rounded(.down)
    return max(options.minZoom, min(Int(max(min(floored, 1e9), -1e9)), options.maxZoom + 1))
  }

  private func childEntries(of clusterId: Int) throws(ClusterQueryError) -> [Int] {
    let origin = (clusterId - inputCount) >> 5
    let zoom = originZoom(of: clusterId)
    guard clusterId >= inputCount, zoom >= 0, zoom < levels.count, let level = levels[zoom],
      origin >= 0, origin < level.members.count
    else { throw .noSuchCluster(clusterId) }
    let r = options.radius / (options.extent * pow(2, Double(zoom - 1)))
    let e = Int(level.members[origin])
    var children: [Int] = []
    tree(zoom).within(x: entries.x[e], y: entries.y[e], radius: r) { position in
      let k = Int(level.members[position])
      if entries.parent[k] == clusterId { children.append(k) }
    }
    if children.isEmpty { throw .noSuchCluster(clusterId) }
    return children
  }

  private func appendLeaves(
    _ result: inout [Int], _ clusterId: Int, limit: Int, offset: Int, skipped: Int
  ) throws(ClusterQueryError) -> Int {
    var skipped = skipped
    for child in try childEntries(of: clusterId) {
      let count = entries.count[child]
      if count > 1 {
        if skipped + count <= offset {
          skipped += count
        } else {
          skipped = try appendLeaves(
            &result, entries.ident[child], limit: limit, offset: offset, skipped: skipped)
        }
      } else if skipped < offset {
        skipped += 1
      } else {
        result.append(entries.ident[child])
      }
      if result.count == limit { break }
    }
    return skipped
  }

  /// JavaScript's `%` on doubles: the remainder with the dividend's sign.
  static func jsRemainder(_ a: Double, _ b: Double) -> Double { fmod(a, b) }

  /// JavaScript's `Math.round`: halves round up, toward +∞.
  static func jsRound(_ x: Double) -> Int {
    let down = x.rounded(.down)
    return Int(x - down >= 0.5 ? down + 1 : down)
  }
}
