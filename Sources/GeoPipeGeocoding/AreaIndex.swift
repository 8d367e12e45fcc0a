import GeoPipeCore
import GeoPipeSpatialIndex

/// The country and admin1 areas of a gazetteer, in memory, answering which area holds a
/// point.
///
/// A point belongs to the first area, in the order given (the order of the boundaries
/// file), whose interior holds it; a point in no interior but on the boundary of one or more
/// areas (a border two countries share, a coastline) belongs to the first of those. So every
/// point of a country's closed polygon gets that country, and a point on a shared border
/// gets exactly one of the two, the same one on every run. The polygon test is exact and
/// gives GEOS's answers (`PointInAreaLocator`). Longitudes outside -180...180 are wrapped into
/// that range first. Immutable: lookups may run concurrently.
public struct AreaIndex: Sendable {
  /// The areas, in the order given.
  public let areas: [BoundaryArea]
  private let locators: [PointInAreaLocator]
  private let countryTree: BoxTree
  private let countryAreas: [Int]
  private let admin1Tree: BoxTree
  private let admin1Areas: [Int]

  /// Indexes areas.
  public init(_ areas: [BoundaryArea]) {
    self.areas = areas
    let locators = areas.map { PointInAreaLocator(rings: $0.geometry.flatRings ?? []) }
    self.locators = locators
    var countries: [Int] = []
    var admin1: [Int] = []
    for (k, area) in areas.enumerated() {
      if area.level == .country { countries.append(k) } else { admin1.append(k) }
    }
    countryAreas = countries
    admin1Areas = admin1
    countryTree = BoxTree(countries.map { locators[$0].bounds })
    admin1Tree = BoxTree(admin1.map { locators[$0].bounds })
  }

  /// Whether there are no areas.
  public var isEmpty: Bool { areas.isEmpty }

  /// Whether there are admin1 areas.
  public var hasAdmin1: Bool { !admin1Areas.isEmpty }

  /// The index of the country area holding a point, or nil.
  public func country(longitude: Double, latitude: Double) -> Int? {
    locate(longitude, latitude, in: countryTree, countryAreas)
  }

  /// The index of the admin1 area holding a point, or nil.
  public func admin1(longitude: Double, latitude: Double) -> Int? {
    locate(longitude, latitude, in: admin1Tree, admin1Areas)
  }

  private func locate(_ longitude: Double, _ latitude: Double, in tree: BoxTree, _ members: [Int])
    -> Int?
  {
    guard longitude.isFinite, latitude.isFinite else { return nil }
    var x = longitude
    if x < -180 || x > 180 {
      x = (x + 180).truncatingRemainder(dividingBy: 360)
      x = x < 0 ? x + 180 : x - 180
    }
    var onBoundary: Int?
    for k in tree.search(BoxTree.Box(minX: x, minY: latitude, maxX: x, maxY: latitude)) {
      let area = members[k]
      switch locators[area].locate(x: x, y: latitude) {
      case .interior: return area
      case .boundary: if onBoundary == nil { onBoundary = area }
      case .exterior: break
      }
    }
    return onBoundary
  }
}
