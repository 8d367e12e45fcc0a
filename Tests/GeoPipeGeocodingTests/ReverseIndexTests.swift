import Foundation
import GeoPipeCore
import Testing

@testable import GeoPipeGeocoding

/// Reverse lookups checked against a brute-force scan with the same haversine and tie rules,
/// on seeded random places and queries, and on the cases that break naive indexes: poles, the
/// antimeridian, duplicates, exact hits, distance limits and filters.
@Suite struct ReverseIndexTests {
  // MARK: Oracle

  /// Whether `a` at `distanceA` wins over `b` at `distanceB` by the documented rules.
  static func wins(
    _ a: Int, _ distanceA: Double, over b: Int, _ distanceB: Double, _ places: [Place]
  )
    -> Bool
  {
    if distanceA != distanceB { return distanceA < distanceB }
    if places[a].population != places[b].population {
      return places[a].population > places[b].population
    }
    if places[a].geonameid != places[b].geonameid {
      return places[a].geonameid < places[b].geonameid
    }
    return a < b
  }

  /// The `count` best qualifying places, best first: a scan of all places.
  static func bruteForce(
    _ places: [Place], latitude: Double, longitude: Double, maxDistance: Double? = nil,
    accept: ((Int) -> Bool)? = nil, count: Int = 1
  ) -> [(index: Int, distance: Double)] {
    var found: [(index: Int, distance: Double)] = []
    for (index, place) in places.enumerated() {
      guard place.latitude.isFinite, place.longitude.isFinite else { continue }
      if let accept, !accept(index) { continue }
      let distance = Haversine.distance(latitude, longitude, place.latitude, place.longitude)
      if let maxDistance, !(distance <= maxDistance) { continue }
      found.append((index, distance))
    }
    let order = { (a: (index: Int, distance: Double), b: (index: Int, distance: Double)) in
      wins(a.index, a.distance, over: b.index, b.distance, places)
    }
    if count == 1 { return found.min(by: order).map { [$0] } ?? [] }
    return Array(found.sorted(by: order).prefix(count))
  }

  /// Checks `nearest` and `nearest(count:)` against the oracle at one point.
  static func check(
    _ index: ReverseIndex, _ places: [Place], latitude: Double, longitude: Double,
    maxDistance: Double? = nil, accept: ((Int) -> Bool)? = nil, count: Int = 0,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) {
    let expected = bruteForce(
      places, latitude: latitude, longitude: longitude, maxDistance: maxDistance, accept: accept,
      count: max(1, count))
    let got = index.nearest(
      latitude: latitude, longitude: longitude, maxDistance: maxDistance, accept: accept)
    #expect(
      got?.index == expected.first?.index && got?.distance == expected.first?.distance,
      "nearest to (\(latitude), \(longitude)): got \(String(describing: got)), expected \(String(describing: expected.first))",
      sourceLocation: sourceLocation)
    guard count > 0 else { return }
    let some = index.nearest(
      latitude: latitude, longitude: longitude, count: count, maxDistance: maxDistance,
      accept: accept)
    #expect(
      some.map(\.index) == expected.prefix(count).map(\.index)
        && some.map(\.distance) == expected.prefix(count).map(\.distance),
      "\(count) nearest to (\(latitude), \(longitude))", sourceLocation: sourceLocation)
  }

  // MARK: Data

  static func place(_ id: Int64, _ latitude: Double, _ longitude: Double, population: Int64 = 0)
    -> Place
  {
    Place(
      geonameid: id, name: "p\(id)", latitude: latitude, longitude: longitude, countryCode: "XX",
      admin1Code: "", population: population)
  }

  /// A point uniformly distributed on the sphere.
  static func uniformPoint(_ random: inout SplitMix64) -> (Double, Double) {
    let latitude = asin(Double.random(in: -1...1, using: &random)) * 180 / .pi
    return (latitude, Double.random(in: -180...180, using: &random))
  }

  /// Places like a gazetteer's: dense clusters (towns a few hundred metres apart), scattered
  /// villages, duplicates at one point, places on the poles and the antimeridian, populations
  /// drawn from a few values so that ties occur.
  static func gazetteerLike(count: Int, seed: UInt64) -> [Place] {
    var random = SplitMix64(seed: seed)
    var places: [Place] = []
    let populations: [Int64] = [0, 0, 500, 1000, 1000, 25000]
    var centres: [(Double, Double)] = []
    for _ in 0..<20 { centres.append(uniformPoint(&random)) }
    centres += [(89.9, 10), (-89.95, -120), (0, 180), (65.5, -179.99), (-16.5, 179.995)]
    while places.count < count {
      let id = Int64.random(in: 1...Int64(count / 2), using: &random)
      let population = populations.randomElement(using: &random) ?? 0
      switch Int.random(in: 0..<10, using: &random) {
      case 0..<5:
        let centre = centres.randomElement(using: &random) ?? (0, 0)
        let latitude = min(90, max(-90, centre.0 + Double.random(in: -0.05...0.05, using: &random)))
        var longitude = centre.1 + Double.random(in: -0.05...0.05, using: &random)
        if longitude > 180 { longitude -= 360 }
        if longitude < -180 { longitude += 360 }
        places.append(place(id, latitude, longitude, population: population))
      case 5..<8:
        let (latitude, longitude) = uniformPoint(&random)
        places.append(place(id, latitude, longitude, population: population))
      default:
        // A copy of an earlier place: same point, maybe another id and population.
        if var copy = places.randomElement(using: &random) {
          if Bool.random(using: &random) { copy.geonameid = id }
          if Bool.random(using: &random) { copy.population = population }
          places.append(copy)
        }
      }
    }
    for longitude in [-180.0, -90, 0, 45, 180] {
      places.append(place(900_000 + Int64(longitude), 90, longitude, population: 10))
      places.append(place(910_000 + Int64(longitude), -90, longitude, population: 10))
    }
    places.append(place(920_000, 12.5, 180))
    places.append(place(920_001, 12.5, -180))
    places.append(place(920_002, -3, 179.999_999))
    places.append(place(920_003, -3, -179.999_999))
    return places
  }

  /// Queries: uniform, next to places, exactly on places, poles, the antimeridian, and
  /// longitudes outside ±180.
  static func queries(near places: [Place], count: Int, seed: UInt64) -> [(Double, Double)] {
    var random = SplitMix64(seed: seed)
    var result: [(Double, Double)] = []
    while result.count < count {
      let place = places.randomElement(using: &random) ?? places[0]
      switch Int.random(in: 0..<8, using: &random) {
      case 0, 1: result.append(uniformPoint(&random))
      case 2:
        let offset = Double.random(in: -0.01...0.01, using: &random)
        result.append((min(90, max(-90, place.latitude + offset)), place.longitude - offset))
      case 3: result.append((place.latitude, place.longitude))
      case 4: result.append((Bool.random(using: &random) ? 90 : -90, place.longitude))
      case 5:
        let side: Double = Bool.random(using: &random) ? 180 : -180
        let offset = Double.random(in: -1e-6...1e-6, using: &random)
        result.append((Double.random(in: -80...80, using: &random), side + offset))
      case 6: result.append((place.latitude, place.longitude + 360))
      default:
        // The antipode, where haversine is at its least precise.
        let longitude = place.longitude > 0 ? place.longitude - 180 : place.longitude + 180
        result.append((-place.latitude, longitude))
      }
    }
    return result
  }

  static let places = gazetteerLike(count: 2500, seed: 7)
  static let index = ReverseIndex(places: places)

  // MARK: Against the oracle

  @Test func matchesBruteForceOnRandomQueries() {
    for (latitude, longitude) in Self.queries(near: Self.places, count: 3000, seed: 11) {
      Self.check(Self.index, Self.places, latitude: latitude, longitude: longitude)
    }
  }

  @Test func matchesBruteForceOnUniformPlaces() {
    var random = SplitMix64(seed: 3)
    let places = (0..<3000).map { id in
      let (latitude, longitude) = Self.uniformPoint(&random)
      return Self.place(Int64(id), latitude, longitude, population: Int64(id % 7))
    }
    let index = ReverseIndex(places: places)
    for _ in 0..<2000 {
      let (latitude, longitude) = Self.uniformPoint(&random)
      Self.check(index, places, latitude: latitude, longitude: longitude)
    }
  }

  @Test func findsTheNearestFewInOrder() {
    for (latitude, longitude) in Self.queries(near: Self.places, count: 300, seed: 12) {
      Self.check(Self.index, Self.places, latitude: latitude, longitude: longitude, count: 7)
    }
  }

  @Test func appliesTheFilterDuringTheSearch() {
    let populous: (Int) -> Bool = { Self.places[$0].population >= 25000 }
    let rare: (Int) -> Bool = { $0 % 97 == 0 }
    for (latitude, longitude) in Self.queries(near: Self.places, count: 500, seed: 13) {
      Self.check(
        Self.index, Self.places, latitude: latitude, longitude: longitude, accept: populous)
      Self.check(
        Self.index, Self.places, latitude: latitude, longitude: longitude, accept: rare, count: 3)
    }
    #expect(Self.index.nearest(latitude: 0, longitude: 0, accept: { _ in false }) == nil)
  }

  @Test func returnsNothingBeyondTheMaximumDistance() {
    var random = SplitMix64(seed: 14)
    for (latitude, longitude) in Self.queries(near: Self.places, count: 500, seed: 15) {
      let maxDistance: Double = [0, 1, 100, 10_000, 1_000_000].randomElement(using: &random) ?? 0
      Self.check(
        Self.index, Self.places, latitude: latitude, longitude: longitude,
        maxDistance: maxDistance, count: 4)
    }
  }

  @Test func includesAPlaceExactlyAtTheMaximumDistance() throws {
    for (latitude, longitude) in Self.queries(near: Self.places, count: 200, seed: 16) {
      let nearest = try #require(Self.index.nearest(latitude: latitude, longitude: longitude))
      let atLimit = Self.index.nearest(
        latitude: latitude, longitude: longitude, maxDistance: nearest.distance)
      #expect(atLimit?.index == nearest.index && atLimit?.distance == nearest.distance)
      if nearest.distance > 0 {
        let below = nearest.distance.nextDown
        #expect(
          Self.index.nearest(latitude: latitude, longitude: longitude, maxDistance: below) == nil)
      }
    }
    #expect(Self.index.nearest(latitude: 0, longitude: 0, maxDistance: -1) == nil)
    #expect(Self.index.nearest(latitude: 0, longitude: 0, maxDistance: .nan) == nil)
    #expect(Self.index.nearest(latitude: 0, longitude: 0, maxDistance: .infinity) != nil)
  }

  // MARK: Special cases

  @Test func isExactAtThePoles() {
    let places = [
      Self.place(1, 90, 0), Self.place(2, 90, 120), Self.place(3, 89.999, 45),
      Self.place(4, -90, -180), Self.place(5, -89.9999, 10), Self.place(6, 0, 0),
    ]
    let index = ReverseIndex(places: places)
    for longitude in stride(from: -180.0, through: 180, by: 7.5) {
      for latitude in [90, 89.9999, -90, -89.99999] {
        Self.check(index, places, latitude: latitude, longitude: longitude, count: 3)
      }
    }
    #expect(index.nearest(latitude: -90, longitude: 33)?.index == 3)
  }

  @Test func isExactAcrossTheAntimeridian() {
    let places = [
      Self.place(1, 10, 179.9995), Self.place(2, 10, -179.9990), Self.place(3, 10, 180),
      Self.place(4, 10, -180), Self.place(5, -45, 179.5), Self.place(6, -45, -179.6),
    ]
    let index = ReverseIndex(places: places)
    for longitude in [180, -180, 179.9999, -179.9999, 179.99975, -179.99975, 540, -540, 179.55] {
      for latitude in [10, 10.0001, -45, -44.99] {
        Self.check(index, places, latitude: latitude, longitude: longitude, count: 6)
      }
    }
    // Across the line, the place 0.0006° west of the query beats the one 0.0009° east.
    #expect(index.nearest(latitude: 10, longitude: -179.9999, accept: { $0 < 2 })?.index == 0)
    #expect(index.nearest(latitude: -45, longitude: 180)?.index == 5)
  }

  @Test func breaksTiesByPopulationThenGeonameidThenIndex() {
    let places = [
      Self.place(30, 48.85, 2.35, population: 100), Self.place(20, 48.85, 2.35, population: 900),
      Self.place(10, 48.85, 2.35, population: 900), Self.place(10, 48.85, 2.35, population: 900),
      Self.place(5, 48.86, 2.35, population: 10_000_000),
    ]
    let index = ReverseIndex(places: places)
    #expect(index.nearest(latitude: 48.85, longitude: 2.35)?.index == 2)
    #expect(index.nearest(latitude: 48.85, longitude: 2.35, accept: { $0 != 2 })?.index == 3)
    #expect(index.nearest(latitude: 48.85, longitude: 2.35, accept: { $0 < 2 })?.index == 1)
    #expect(
      index.nearest(latitude: 48.85, longitude: 2.35, count: 5).map(\.index) == [2, 3, 1, 0, 4])
    Self.check(index, places, latitude: 48.855, longitude: 2.35, count: 5)
  }

  @Test func findsAPlaceExactlyAtTheQuery() {
    for (offset, place) in Self.places.enumerated() where offset % 25 == 0 {
      let found = Self.index.nearest(latitude: place.latitude, longitude: place.longitude)
      #expect(found?.distance == 0)
      let first = Self.bruteForce(
        Self.places, latitude: place.latitude, longitude: place.longitude
      ).first
      #expect(found?.index == first?.index)
    }
  }

  @Test func handlesEmptyAndSinglePlaceIndexes() {
    let empty = ReverseIndex(places: [])
    #expect(empty.isEmpty)
    #expect(empty.nearest(latitude: 1, longitude: 2) == nil)
    #expect(empty.nearest(latitude: 1, longitude: 2, count: 3).isEmpty)
    let one = ReverseIndex(places: [Self.place(1, -33.87, 151.21)])
    #expect(one.count == 1)
    for (latitude, longitude) in [(-33.87, 151.21), (33.87, -28.79), (90.0, 0.0), (0.0, 0.0)] {
      Self.check(one, [Self.place(1, -33.87, 151.21)], latitude: latitude, longitude: longitude)
    }
    #expect(one.nearest(latitude: 33.87, longitude: -28.79)?.index == 0)
    #expect(one.nearest(latitude: 0, longitude: 0, count: 3).count == 1)
  }

  @Test func skipsPlacesWithoutCoordinatesAndPointsThatAreNotFinite() {
    let places = [
      Self.place(1, .nan, 0), Self.place(2, 10, .infinity), Self.place(3, 10, 10),
    ]
    let index = ReverseIndex(places: places)
    #expect(index.count == 3)
    #expect(index.nearest(latitude: 10, longitude: 0)?.index == 2)
    #expect(index.nearest(latitude: 10, longitude: 0, count: 3).map(\.index) == [2])
    #expect(index.nearest(latitude: .nan, longitude: 0) == nil)
    #expect(index.nearest(latitude: 0, longitude: .infinity, count: 2).isEmpty)
  }

  @Test func answersTheSameFromManyThreadsAtOnce() async {
    let points = Self.queries(near: Self.places, count: 400, seed: 17)
    let expected = points.map { Self.index.nearest(latitude: $0.0, longitude: $0.1)?.index }
    let index = Self.index
    let results = await withTaskGroup(of: (Int, [Int?]).self) { group in
      for part in 0..<4 {
        group.addTask {
          (
            part,
            stride(from: part, to: points.count, by: 4).map {
              index.nearest(latitude: points[$0].0, longitude: points[$0].1)?.index
            }
          )
        }
      }
      var all = [Int?](repeating: nil, count: points.count)
      for await (part, found) in group {
        for (k, value) in found.enumerated() { all[part + 4 * k] = value }
      }
      return all
    }
    #expect(results == expected)
  }

  // MARK: Haversine

  @Test(arguments: [
    (0.0, 0.0, 0.0, 180.0, Double.pi * Haversine.earthRadius),
    (90.0, 0.0, -90.0, 0.0, Double.pi * Haversine.earthRadius),
    (0.0, 0.0, 0.0, 1.0, Double.pi / 180 * Haversine.earthRadius),
    (0.0, 179.5, 0.0, -179.5, Double.pi / 180 * Haversine.earthRadius),
    (51.5, -0.12, 51.5, -0.12, 0.0),
  ])
  func measuresGreatCircleDistances(
    latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double, metres: Double
  ) {
    let distance = Haversine.distance(latitude1, longitude1, latitude2, longitude2)
    #expect(abs(distance - metres) <= 1e-6 * max(1, metres))
    #expect(distance == Haversine.distance(latitude2, longitude2, latitude1, longitude1))
  }
}
