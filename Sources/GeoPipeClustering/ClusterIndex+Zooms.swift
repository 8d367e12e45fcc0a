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

extension ClusterIndex {
  /// The items of the level at `zoom` (floored and clamped as the queries do), in level order,
  /// without building its kd-tree.
  public func items(atZoom zoom: Int) -> [ClusterItem] {
    guard let level = levels[limitZoom(Double(zoom))] else { return [] }
    return level.members.map { item(Int($0)) }
  }

  /// supercluster's `point_count_abbreviated`: the count below 1000, else its thousands
  /// rounded to one decimal ("1.2k", "2k") or, from 10,000, to a whole number ("15k").
  public static func abbreviated(_ count: Int) -> (number: Int?, text: String?) {
    if count >= 10000 {
      return (nil, "\(Int((Double(count) / 1000).rounded(.toNearestOrAwayFromZero)))k")
    }
    if count >= 1000 {
      let tenths = Int((Double(count) / 100).rounded(.toNearestOrAwayFromZero))
      return (nil, tenths % 10 == 0 ? "\(tenths / 10)k" : "\(tenths / 10).\(tenths % 10)k")
    }
    return (count, nil)
  }
}
