extension ClusterIndex {
  /// Every distinct item of the index once, with the zooms where it is visible, ordered by
  /// the lowest such zoom and then by level order.
  ///
  /// An input point that never joins a cluster is visible from `minZoom` to `maxZoom + 1`
  /// (the level of single points); a cluster from the zoom where it forms down to the zoom
  /// where it joins a larger one.
  public func itemsAcrossZooms() -> [(item: ClusterItem, minZoom: Int, maxZoom: Int)] {
    var low = [Int](repeating: Int.max, count: entries.size)
    var high = [Int](repeating: Int.min, count: entries.size)
    var order: [Int] = []
    for zoom in options.minZoom...(options.maxZoom + 1) {
      guard let level = levels[zoom] else { continue }
      for member in level.members {
        let e = Int(member)
        if low[e] == Int.max { order.append(e) }
        low[e] = min(low[e], zoom)
        high[e] = max(high[e], zoom)
      }
    }
    return order.map { (item($0), low[$0], high[$0]) }
  }
}
