import Foundation

/// Nearest places to a point by great-circle distance: the lookup behind reverse geocoding.
///
/// The answer is exactly the place that a scan of every place with `Haversine.distance` would
/// pick: the smallest distance, ties going to the larger population, then the smaller
/// geonameid, then the earlier place in the array. That holds everywhere, the poles and the
/// antimeridian included, because the search never lets a second formula decide:
///
/// - Places are points on the unit sphere in a kd-tree (`UnitVectorTree`), stored as `Float`.
///   The chord between two unit vectors grows with their great-circle distance, so the tree
///   can prune by chord, and no longitude wraps around.
/// - The chord from a query to a stored point is within 5.2e-8 (in Earth radii; 33 cm) of
///   the exact one, and the half-chord that `Haversine.distance` works from (√h) is within
///   1e-14 of exact for coordinates in the usual ranges. So the search keeps every place whose
///   chord is within a slack of 1e-6 (6.4 m) of the best chord so far, and among those decides
///   by `Haversine.distance` and the tie rules. A place beyond the slack cannot have a
///   haversine distance as small as the best one's, so nothing skipped can change the answer.
///   In practice the haversine is computed for the answer and, rarely, a place a few metres
///   from being as near.
///
/// Places whose coordinates are not finite are never returned. The index is immutable, and
/// lookups may run concurrently from any number of threads; a lookup does not allocate.
public struct ReverseIndex: Sendable {
  /// What the tie rules need of a place.
  struct Key: Sendable {
    var population: Int64
    var geonameid: Int64
  }

  /// The places' tie-breaking keys, in the order given.
  private let keys: [Key]
  /// The places with finite coordinates, as unit vectors.
  private let tree: UnitVectorTree
  /// The largest |latitude| + |longitude| among the places, which bounds rounding errors.
  let magnitude: Double

  /// Indexes places; lookups answer with indices into `places`.
  ///
  /// - Precondition: `places` has fewer than 2³² elements.
  public init(places: [Place]) {
    precondition(places.count < 1 << 32, "a reverse index holds fewer than 2^32 places")
    var keys: [Key] = []
    var slots: [UnitVectorTree.Slot] = []
    var magnitude = 0.0
    keys.reserveCapacity(places.count)
    slots.reserveCapacity(places.count)
    for (index, place) in places.enumerated() {
      let point = UnitVector(latitude: place.latitude, longitude: place.longitude)
      keys.append(Key(population: place.population, geonameid: place.geonameid))
      guard place.latitude.isFinite, place.longitude.isFinite else { continue }
      slots.append(
        UnitVectorTree.Slot(
          x: Float(point.x), y: Float(point.y), z: Float(point.z), item: UInt32(index),
          latitude: place.latitude, longitude: place.longitude))
      magnitude = max(magnitude, abs(place.latitude) + abs(place.longitude))
    }
    self.keys = keys
    self.tree = UnitVectorTree(slots)
    self.magnitude = magnitude
  }

  /// The number of places indexed.
  public var count: Int { keys.count }

  /// Whether there are no places.
  public var isEmpty: Bool { keys.isEmpty }

  /// The nearest place to a point, and its distance in metres.
  ///
  /// - Parameters:
  ///   - latitude: The point's latitude in degrees.
  ///   - longitude: The point's longitude in degrees (any value; ±180 are the same meridian).
  ///   - maxDistance: When given, no place farther than this many metres is returned.
  ///   - accept: When given, only places whose index it accepts are considered; it is asked
  ///     during the search, so the nearest accepted place is found however far it is.
  /// - Returns: The index of the place in the array the index was built from and its
  ///   `Haversine.distance`, or nil when no place qualifies (or the point is not finite).
  public func nearest(
    latitude: Double, longitude: Double, maxDistance: Double? = nil,
    accept: ((Int) -> Bool)? = nil
  ) -> (index: Int, distance: Double)? {
    guard let query = Query(self, latitude, longitude, maxDistance) else { return nil }
    return keys.withUnsafeBufferPointer { keys in
      var visitor = NearestVisitor(keys: keys, query: query, accept: accept)
      tree.search(x: query.point.x, y: query.point.y, z: query.point.z, &visitor)
      guard let best = visitor.best else { return nil }
      let distance = visitor.bestDistance ?? query.distance(to: best)
      if let maxDistance, !(distance <= maxDistance) { return nil }
      return (Int(best.item), distance)
    }
  }

  /// The `count` nearest places to a point, nearest first, with their distances in metres.
  ///
  /// The order and the choice at the last place follow the same rules as `nearest`: distance,
  /// then larger population, then smaller geonameid, then index. `maxDistance` and `accept`
  /// work as there; fewer than `count` places come back when fewer qualify.
  public func nearest(
    latitude: Double, longitude: Double, count: Int, maxDistance: Double? = nil,
    accept: ((Int) -> Bool)? = nil
  ) -> [(index: Int, distance: Double)] {
    guard count > 0, let query = Query(self, latitude, longitude, maxDistance) else { return [] }
    return keys.withUnsafeBufferPointer { keys in
      var visitor = NearestSetVisitor(count: count, query: query, accept: accept)
      tree.search(x: query.point.x, y: query.point.y, z: query.point.z, &visitor)
      var found: [(index: Int, distance: Double)] = []
      for candidate in visitor.candidates where candidate.squaredChord <= visitor.limit {
        let distance = query.distance(to: candidate.slot)
        if let maxDistance, !(distance <= maxDistance) { continue }
        found.append((Int(candidate.slot.item), distance))
      }
      found.sort { precedes($0.index, $0.distance, $1.index, $1.distance, keys) }
      return Array(found.prefix(count))
    }
  }
}

/// A point on the unit sphere, with the cosine of its latitude.
struct UnitVector {
  let x: Double
  let y: Double
  let z: Double
  /// cos(latitude), computed exactly as `Haversine.distance` computes it.
  let cosLatitude: Double

  init(latitude: Double, longitude: Double) {
    let phi = latitude * Haversine.radiansPerDegree
    let lambda = longitude * Haversine.radiansPerDegree
    cosLatitude = cos(phi)
    x = cosLatitude * cos(lambda)
    y = cosLatitude * sin(lambda)
    z = sin(phi)
  }
}

/// A lookup's point, its slack and its ceiling.
struct Query {
  let latitude: Double
  let longitude: Double
  let point: UnitVector
  /// How far in chord a place may be beyond the nearest and still be compared by haversine.
  let slack: Double
  /// The squared chord beyond which no place can be within the maximum distance.
  let ceiling: Double

  /// Nil when the point is not finite or the maximum distance is negative or not a number.
  init?(_ index: ReverseIndex, _ latitude: Double, _ longitude: Double, _ maxDistance: Double?) {
    guard latitude.isFinite, longitude.isFinite else { return nil }
    self.latitude = latitude
    self.longitude = longitude
    point = UnitVector(latitude: latitude, longitude: longitude)
    // Rounding in the haversine formula grows with the size of the angles, which only matters
    // for coordinates far outside ±180; at 4 every place is within the slack.
    slack = min(4, 1e-6 + 1e-15 * (abs(latitude) + abs(longitude) + index.magnitude))
    var chord = 2 + slack
    if let maxDistance {
      guard maxDistance >= 0 else { return nil }
      let angle = maxDistance / Haversine.earthRadius
      if angle < .pi { chord = 2 * sin(angle / 2) + slack }
    }
    ceiling = chord * chord
  }

  /// The haversine distance to a place, the same as `Haversine.distance` gives.
  func distance(to slot: UnitVectorTree.Slot) -> Double {
    Haversine.distance(
      latitude, longitude, point.cosLatitude, slot.latitude, slot.longitude,
      cos(slot.latitude * Haversine.radiansPerDegree))
  }

  /// The squared chord above which a place is beyond the slack of one at `squaredChord`.
  func upperBound(_ squaredChord: Double) -> Double {
    let chord = squaredChord.squareRoot() + slack
    return min(ceiling, chord * chord)
  }
}

/// Finds the single nearest accepted place (see `ReverseIndex` for why this is exact).
private struct NearestVisitor: ChordVisitor {
  let keys: UnsafeBufferPointer<ReverseIndex.Key>
  let query: Query
  let accept: ((Int) -> Bool)?
  var limit: Double
  /// The best place so far.
  var best: UnitVectorTree.Slot?
  /// Its haversine distance, computed only when a comparison needs it.
  var bestDistance: Double?
  /// A place whose squared chord is below this is surely nearer than `best`.
  var surelyNearer = -1.0

  init(keys: UnsafeBufferPointer<ReverseIndex.Key>, query: Query, accept: ((Int) -> Bool)?) {
    self.keys = keys
    self.query = query
    self.accept = accept
    self.limit = query.ceiling
  }

  mutating func visit(_ slot: UnitVectorTree.Slot, squaredChord: Double) {
    if let accept, !accept(Int(slot.item)) { return }
    guard let best, squaredChord >= surelyNearer else {
      take(slot, squaredChord, distance: nil)
      return
    }
    let distance = query.distance(to: slot)
    let bestDistance = self.bestDistance ?? query.distance(to: best)
    self.bestDistance = bestDistance
    if precedes(Int(slot.item), distance, Int(best.item), bestDistance, keys) {
      take(slot, squaredChord, distance: distance)
    }
  }

  private mutating func take(_ slot: UnitVectorTree.Slot, _ squaredChord: Double, distance: Double?)
  {
    best = slot
    bestDistance = distance
    limit = query.upperBound(squaredChord)
    let lower = squaredChord.squareRoot() - query.slack
    surelyNearer = lower > 0 ? lower * lower : -1
  }
}

/// Collects every accepted place that could be among the `count` nearest.
private struct NearestSetVisitor: ChordVisitor {
  let count: Int
  let query: Query
  let accept: ((Int) -> Bool)?
  var limit: Double
  /// Places within the limit when they were visited; some may be beyond the final limit.
  var candidates: [(slot: UnitVectorTree.Slot, squaredChord: Double)] = []
  /// A max-heap of the `count` smallest squared chords so far.
  var heap: [Double] = []

  init(count: Int, query: Query, accept: ((Int) -> Bool)?) {
    self.count = count
    self.query = query
    self.accept = accept
    self.limit = query.ceiling
  }

  mutating func visit(_ slot: UnitVectorTree.Slot, squaredChord: Double) {
    if let accept, !accept(Int(slot.item)) { return }
    candidates.append((slot, squaredChord))
    if heap.count < count {
      heap.append(squaredChord)
      siftUp(heap.count - 1)
    } else if squaredChord < heap[0] {
      heap[0] = squaredChord
      siftDown(0)
    }
    if heap.count == count { limit = query.upperBound(heap[0]) }
  }

  private mutating func siftUp(_ index: Int) {
    var child = index
    while child > 0 {
      let parent = (child - 1) / 2
      guard heap[parent] < heap[child] else { return }
      heap.swapAt(parent, child)
      child = parent
    }
  }

  private mutating func siftDown(_ index: Int) {
    var parent = index
    while true {
      var largest = parent
      let left = 2 * parent + 1
      let right = left + 1
      if left < heap.count && heap[left] > heap[largest] { largest = left }
      if right < heap.count && heap[right] > heap[largest] { largest = right }
      guard largest != parent else { return }
      heap.swapAt(parent, largest)
      parent = largest
    }
  }
}

/// Whether place `a` at `distanceA` comes before place `b` at `distanceB`: nearer, then more
/// populous, then the smaller geonameid, then the smaller index.
private func precedes(
  _ a: Int, _ distanceA: Double, _ b: Int, _ distanceB: Double,
  _ keys: UnsafeBufferPointer<ReverseIndex.Key>
) -> Bool {
  if distanceA != distanceB { return distanceA < distanceB }
  let keyA = keys[a]
  let keyB = keys[b]
  if keyA.population != keyB.population { return keyA.population > keyB.population }
  if keyA.geonameid != keyB.geonameid { return keyA.geonameid < keyB.geonameid }
  return a < b
}
