import Foundation
import GeoPipeClustering
import GeoPipeCore
import GeoPipeIO
import Testing

/// The index against supercluster 8.0.1's own outputs (`Fixtures/cluster/`, described in
/// `Fixtures/cluster/cities15000/README.md`): the same items with the same ids and counts, in the
/// same order, at positions within 1e-12°.
@Suite("supercluster 8.0.1 golden outputs")
struct SuperclusterAnchorTests {
  @Test(
    "getClusters over the world returns supercluster's items in its order at every zoom",
    arguments: 0...17, [false, true])
  func worldClustersMatchInReturnedOrder(zoom: Int, exactOrder: Bool) throws {
    let cities = try Anchors.cities.get()
    let index = try Anchors.index(named: exactOrder ? "exactOrder" : "default")
    let name = "cities15000/getClusters_world_z\(zoom < 10 ? "0" : "")\(zoom).geojson.gz"
    let expected = try Anchors.features(name).map(Located.init)
    let actual = index.clusters(west: -180, south: -85, east: 180, north: 85, zoom: Double(zoom))
    expectSameItems(actual.map(cities.located), expected, "world at z\(zoom)")
  }

  @Test("summing centroids in kdbush's order changes nothing but their last bits")
  func exactOrderChangesOnlyLastBits() throws {
    let index = try Anchors.index(named: "default")
    let exact = try Anchors.index(named: "exactOrder")
    var changed = 0
    for zoom in 0...17 {
      let a = index.clusters(west: -180, south: -90, east: 180, north: 90, zoom: Double(zoom))
      let b = exact.clusters(west: -180, south: -90, east: 180, north: 90, zoom: Double(zoom))
      try #require(a.count == b.count, "z\(zoom)")
      for (x, y) in zip(a, b) {
        switch (x, y) {
        case (.point(let i), .point(let j)):
          #expect(i == j, "z\(zoom)")
        case (.cluster(let i, let m, let lng, let lat), .cluster(let j, let n, let lng2, let lat2)):
          #expect(i == j && m == n, "z\(zoom)")
          #expect(abs(lng - lng2) <= 1e-13 && abs(lat - lat2) <= 1e-13, "z\(zoom) cluster \(i)")
          if lng != lng2 || lat != lat2 { changed += 1 }
        default:
          Issue.record("z\(zoom): \(x) against \(y)")
        }
      }
    }
    // Sums of input points are exact in either order (their coordinates are Float values);
    // only clusters of clusters can round differently, and here none does.
    #expect(changed == 0)
  }

  @Test(
    "getClusters across the antimeridian, at a fractional zoom and with other options matches",
    arguments: [
      "default__bbox[170,-50,-170,-10]__z5", "default__bbox[-10,35,30,60]__z7.5",
      "minPoints5__world__z3", "minPoints5__world__z6", "radius60_extent256_maxZoom12__world__z4",
    ])
  func boxQueriesMatchInReturnedOrder(key: String) throws {
    let cities = try Anchors.cities.get()
    let query = try #require(try Anchors.queries.get().getClusters[key])
    let index = try Anchors.index(named: key.components(separatedBy: "__")[0])
    #expect(index.options == query.options.clusterOptions)
    let box = query.bbox
    try #require(box.count == 4)
    let actual = index.clusters(
      west: box[0], south: box[1], east: box[2], north: box[3], zoom: query.zoom)
    expectSameItems(actual.map(cities.located), try query.features.map { try $0.located() }, key)
  }

  @Test("the input count includes the features without geometry")
  func inputCountIncludesFeaturesWithoutGeometry() throws {
    let queries = try Anchors.queries.get()
    let cities = try Anchors.cities.get()
    #expect(try Anchors.index(named: "default").inputCount == queries.pointCount)
    #expect(cities.coordinates.count { $0 != nil } == queries.pointsWithGeometry)
  }

  @Test(
    "expansion zoom, children and leaves of a cluster match",
    arguments: [
      34650, 36538, 48956, 37061, 104926, 35102, 381792, 34275, 615074, 423524, 34340, 426854,
      37479, 40168, 41917, 52607, 82049, 839491, 67229, 394913, 475331, 40646, 66953, 81702, 99974,
    ])
  func clusterQueriesMatch(clusterId: Int) throws {
    let cities = try Anchors.cities.get()
    let index = try Anchors.index(named: "default")
    let queries = try Anchors.queries.get()
    let query = try #require(queries.clusterQueries.first { $0.clusterId == clusterId })

    #expect(index.originZoom(of: clusterId) == query.originZoom)
    #expect(try index.expansionZoom(of: clusterId) == query.expansionZoom)
    let children = try index.children(of: clusterId).map(cities.located)
    expectSameItems(children, try query.children.map { try $0.located() }, "children")

    // supercluster's getLeaves defaults to 10 leaves; nil here means all of them.
    let firstTen = try index.leaves(of: clusterId, limit: 10).map(cities.leaf)
    expectSameOrder(firstTen, try query.firstTenLeaves.map { try $0.located().member }, "leaves")
    let fromThird = try index.leaves(of: clusterId, limit: 5, offset: 3).map(cities.leaf)
    expectSameOrder(
      fromThird, try query.fiveLeavesAfterThree.map { try $0.located().member }, "leaves 3+5")

    let all = try index.leaves(of: clusterId).map { cities.geonameid(of: $0) }
    #expect(all.count == query.allLeaves.count)
    #expect(all.count == query.pointCount)
    #expect(Array(all.prefix(20)) == query.allLeaves.first20Geonameids)
    #expect(all.reduce(0, +) == query.allLeaves.geonameidSum)
  }

  @Test(
    "getTile returns the same items at the same pixels, or nil for an empty tile",
    arguments: ["0/0/0", "3/4/2", "6/33/22", "9/270/180"])
  func tilesMatch(key: String) throws {
    let cities = try Anchors.cities.get()
    let index = try Anchors.index(named: "default")
    let expected = try #require(try Anchors.queries.get().tiles[key])
    let zxy = key.split(separator: "/").compactMap { Int($0) }
    try #require(zxy.count == 3)
    let tile = index.tile(zoom: zxy[0], x: zxy[1], y: zxy[2], coordinates: cities.coordinate)
    guard let expected else {
      #expect(tile == nil)
      return
    }
    let actual = try #require(tile).map { cities.tileEntry($0.item, x: $0.x, y: $0.y) }
    expectSameOrder(actual, try expected.features.map(TileEntry.init), "tile \(key)")
  }

  @Test(
    "getTile(0, 0, 0) of supercluster's places fixture matches its expected tile",
    arguments: zip(["places-z0-0-0.json", "places-z0-0-0-min5.json"], [2, 5]))
  func placesTileMatches(file: String, minPoints: Int) throws {
    let places = try Anchors.places.get()
    var options = ClusterOptions()
    options.minPoints = minPoints
    let index = ClusterIndex(coordinates: places.coordinates, options: options)
    let expected = try JSONDecoder().decode(AnchorTile.self, from: Anchors.data(file))
    let tile = try #require(index.tile(zoom: 0, x: 0, y: 0, coordinates: places.coordinate))
    let actual = tile.map { places.tileEntry($0.item, x: $0.x, y: $0.y) }
    expectSameOrder(actual, try expected.features.map(TileEntry.init), file)
  }
}

// MARK: - Comparison

/// Records how `actual` differs from `expected`: items missing, items extra, repeated items, and
/// the first position where the order differs.
func expectSameOrder<T: Hashable & CustomStringConvertible>(
  _ actual: [T], _ expected: [T], _ what: String,
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
  let actualSet = Set(actual)
  let expectedSet = Set(expected)
  let missing = expected.filter { !actualSet.contains($0) }
  let extra = actual.filter { !expectedSet.contains($0) }
  #expect(
    missing.isEmpty, "\(what): \(missing.count) of \(expected.count) missing: \(missing.prefix(3))",
    sourceLocation: sourceLocation)
  #expect(
    extra.isEmpty, "\(what): \(extra.count) extra: \(extra.prefix(3))",
    sourceLocation: sourceLocation)
  #expect(
    actual.count == expected.count, "\(what): \(actual.count) items, expected \(expected.count)",
    sourceLocation: sourceLocation)
  guard missing.isEmpty, extra.isEmpty, actual.count == expected.count else { return }
  if let at = actual.indices.first(where: { actual[$0] != expected[$0] }) {
    Issue.record(
      "\(what): same items, but position \(at) holds \(actual[at]) instead of \(expected[at])",
      sourceLocation: sourceLocation)
  }
}

/// `expectSameOrder` on the items, then their positions within 1e-12°.
func expectSameItems(
  _ actual: [Located], _ expected: [Located], _ what: String,
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
  expectSameOrder(
    actual.map(\.member), expected.map(\.member), what, sourceLocation: sourceLocation)
  let positions = Dictionary(expected.map { ($0.member, $0) }) { first, _ in first }
  var far: [(item: Member, difference: Double)] = []
  for item in actual {
    guard let other = positions[item.member] else { continue }
    let difference = max(
      abs(item.longitude - other.longitude), abs(item.latitude - other.latitude))
    if !(difference <= 1e-12) { far.append((item.member, difference)) }
  }
  #expect(
    far.isEmpty, "\(what): \(far.count) items more than 1e-12° away, such as \(far.prefix(3))",
    sourceLocation: sourceLocation)
}

/// An item as supercluster returns it: a cluster by id and size, or an input point by its
/// properties.
enum Member: Hashable, CustomStringConvertible {
  case cluster(id: Int, count: Int)
  case point(JSON)

  /// Reads supercluster's cluster properties, or takes an input point's properties.
  init(properties: JSON) throws {
    guard properties["cluster"] == .bool(true) else {
      self = .point(properties)
      return
    }
    guard let id = properties["cluster_id"]?.int, let count = properties["point_count"]?.int
    else { throw AnchorError("a cluster without cluster_id or point_count: \(properties)") }
    self = .cluster(id: id, count: count)
  }

  var description: String {
    switch self {
    case .cluster(let id, let count): "cluster \(id) of \(count)"
    case .point(let properties):
      "point \(properties["geonameid"]?.int.map(String.init) ?? "\(properties["name"] ?? .null)")"
    }
  }
}

/// An item with its position in degrees.
struct Located: Sendable {
  var member: Member
  var longitude: Double
  var latitude: Double

  /// A feature of a golden GeoJSON file.
  init(_ feature: Feature) throws {
    guard case .point(let position) = feature.geometry else {
      throw AnchorError("a golden feature is not a point: \(feature)")
    }
    member = try Member(properties: JSON(.object(feature.properties ?? [:])))
    if case .cluster(let id, _) = member, feature.id != .integer(Int64(id)) {
      throw AnchorError("cluster \(id) has the feature id \(String(describing: feature.id))")
    }
    longitude = position.x
    latitude = position.y
  }

  init(member: Member, longitude: Double, latitude: Double) {
    self.member = member
    self.longitude = longitude
    self.latitude = latitude
  }
}

/// A tile feature: its item, feature id and pixel.
struct TileEntry: Hashable, CustomStringConvertible {
  var member: Member
  var id: Int?
  var x: Int
  var y: Int

  init(member: Member, id: Int?, x: Int, y: Int) {
    self.member = member
    self.id = id
    self.x = x
    self.y = y
  }

  /// A feature of supercluster's `getTile` (`{type: 1, geometry: [[x, y]], tags, id?}`).
  init(_ feature: AnchorTile.Feature) throws {
    guard feature.type == 1, feature.geometry.count == 1, feature.geometry[0].count == 2 else {
      throw AnchorError("a tile feature that is not one point: \(feature.geometry)")
    }
    self.init(
      member: try Member(properties: feature.tags), id: feature.id, x: feature.geometry[0][0],
      y: feature.geometry[0][1])
  }

  var description: String { "\(member) id \(id.map(String.init) ?? "none") at \(x),\(y)" }
}

/// Input points, as the index was given them.
struct Inputs: Sendable {
  var coordinates: [(longitude: Double, latitude: Double)?]
  var properties: [JSON]
  /// The features' own ids, which supercluster's tiles give their points.
  var ids: [Int?]

  /// An input's coordinates, for `ClusterIndex.tile`.
  func coordinate(_ index: Int) -> (longitude: Double, latitude: Double) {
    coordinates[index] ?? (.nan, .nan)
  }

  func geonameid(of index: Int) -> Int { properties[index]["geonameid"]?.int ?? 0 }

  func leaf(_ index: Int) -> Member { .point(properties[index]) }

  /// An item of the index as supercluster shows it.
  func located(_ item: ClusterItem) -> Located {
    switch item {
    case .cluster(let id, let count, let longitude, let latitude):
      Located(member: .cluster(id: id, count: count), longitude: longitude, latitude: latitude)
    case .point(let index):
      Located(
        member: .point(properties[index]), longitude: coordinate(index).longitude,
        latitude: coordinate(index).latitude)
    }
  }

  /// A tile item as supercluster shows it: clusters carry their cluster id, points their
  /// feature's id.
  func tileEntry(_ item: ClusterItem, x: Int, y: Int) -> TileEntry {
    switch item {
    case .cluster(let id, let count, _, _):
      TileEntry(member: .cluster(id: id, count: count), id: id, x: x, y: y)
    case .point(let index):
      TileEntry(member: .point(properties[index]), id: ids[index], x: x, y: y)
    }
  }
}

// MARK: - Golden files

/// The golden files, each read once.
enum Anchors {
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/cluster")

  /// GeoNames cities15000 in file order, three features without geometry last.
  static let cities = Result<Inputs, any Error> {
    let features = try Anchors.features("cities15000/cities15000.geojson.gz")
    return Inputs(
      coordinates: features.map { feature in
        guard case .point(let p) = feature.geometry else { return nil }
        return (p.x, p.y)
      },
      properties: features.map { JSON(.object($0.properties ?? [:])) },
      ids: features.map { feature in
        if case .integer(let id) = feature.id { Int(id) } else { nil }
      })
  }

  /// supercluster's test input, one feature without geometry last.
  static let places = Result<Inputs, any Error> {
    let collection = try JSONDecoder().decode(AnchorCollection.self, from: data("places.json"))
    return Inputs(
      coordinates: collection.features.map { feature in
        feature.geometry.flatMap { $0.count == 2 ? ($0[0], $0[1]) : nil }
      },
      properties: collection.features.map(\.properties), ids: collection.features.map(\.id))
  }

  static let queries = Result<Queries, any Error> {
    try JSONDecoder().decode(Queries.self, from: data("cities15000/queries.json.gz"))
  }

  static let defaultIndex = Result<ClusterIndex, any Error> {
    ClusterIndex(coordinates: try cities.get().coordinates, options: ClusterOptions())
  }

  static let exactOrderIndex = Result<ClusterIndex, any Error> {
    var options = ClusterOptions()
    options.exactOrder = true
    return ClusterIndex(coordinates: try cities.get().coordinates, options: options)
  }

  static let minPoints5Index = Result<ClusterIndex, any Error> {
    var options = ClusterOptions()
    options.minPoints = 5
    return ClusterIndex(coordinates: try cities.get().coordinates, options: options)
  }

  static let radius60Index = Result<ClusterIndex, any Error> {
    var options = ClusterOptions()
    options.maxZoom = 12
    options.radius = 60
    options.extent = 256
    return ClusterIndex(coordinates: try cities.get().coordinates, options: options)
  }

  /// The index of cities15000 with the option set of that name in `queries.json`.
  static func index(named name: String) throws -> ClusterIndex {
    switch name {
    case "default": try defaultIndex.get()
    case "exactOrder": try exactOrderIndex.get()
    case "minPoints5": try minPoints5Index.get()
    case "radius60_extent256_maxZoom12": try radius60Index.get()
    default: throw AnchorError("no option set named \(name)")
    }
  }

  /// The features of a (gzip) GeoJSON file.
  static func features(_ name: String) throws -> [Feature] {
    let reader = try FeatureReaders.open(folder.appendingPathComponent(name).path)
    var features: [Feature] = []
    while let feature = try reader.next() { features.append(feature) }
    return features
  }

  /// A file's bytes, decompressed when it ends in `.gz`.
  static func data(_ name: String) throws -> Data {
    let file = try FileByteSource(path: folder.appendingPathComponent(name).path)
    let source: any ByteSource = name.hasSuffix(".gz") ? try GzipByteSource(file) : file
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let n = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
      if n == 0 { return Data(bytes) }
      bytes.append(contentsOf: chunk[..<n])
    }
  }
}

struct AnchorError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// `queries.json`: the parts that the tests compare.
struct Queries: Decodable, Sendable {
  var pointCount: Int
  var pointsWithGeometry: Int
  var getClusters: [String: BoxQuery]
  var clusterQueries: [ClusterQuery]
  var tiles: [String: AnchorTile?]

  enum CodingKeys: String, CodingKey {
    case pointCount = "n_points", pointsWithGeometry = "n_with_geometry", getClusters
    case clusterQueries = "cluster_queries", tiles = "getTile"
  }

  struct BoxQuery: Decodable, Sendable {
    var options: Options
    var bbox: [Double]
    var zoom: Double
    var features: [AnchorFeature]

    enum CodingKeys: String, CodingKey {
      case options, bbox = "bbox_query", zoom, features
    }
  }

  struct Options: Decodable, Sendable {
    var minZoom: Int
    var maxZoom: Int
    var minPoints: Int
    var radius: Double
    var extent: Double
    var nodeSize: Int

    var clusterOptions: ClusterOptions {
      var options = ClusterOptions()
      options.minZoom = minZoom
      options.maxZoom = maxZoom
      options.minPoints = minPoints
      options.radius = radius
      options.extent = extent
      options.nodeSize = nodeSize
      return options
    }
  }

  struct ClusterQuery: Decodable, Sendable {
    var clusterId: Int
    var pointCount: Int
    var originZoom: Int
    var expansionZoom: Int
    var children: [AnchorFeature]
    var firstTenLeaves: [AnchorFeature]
    var fiveLeavesAfterThree: [AnchorFeature]
    var allLeaves: LeafSummary

    enum CodingKeys: String, CodingKey {
      case clusterId = "cluster_id", pointCount = "point_count", originZoom = "origin_zoom"
      case expansionZoom = "getClusterExpansionZoom", children = "getChildren"
      case firstTenLeaves = "getLeaves(id,10)", fiveLeavesAfterThree = "getLeaves(id,5,3)"
      case allLeaves = "getLeaves(id,Infinity)"
    }
  }

  struct LeafSummary: Decodable, Sendable {
    var count: Int
    var first20Geonameids: [Int]
    var geonameidSum: Int

    enum CodingKeys: String, CodingKey {
      case count, first20Geonameids = "first20_geonameids", geonameidSum = "geonameid_sum"
    }
  }
}

/// A GeoJSON Point feature as JSON.stringify wrote it.
struct AnchorFeature: Decodable, Sendable {
  var id: Int?
  var properties: JSON
  /// The point's coordinates, nil for a null geometry.
  var geometry: [Double]?

  enum CodingKeys: String, CodingKey { case id, properties, geometry }
  enum GeometryKeys: String, CodingKey { case coordinates }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    id = try container.decodeIfPresent(Int.self, forKey: .id)
    properties = try JSON(
      object: container.nestedContainer(keyedBy: JSON.Key.self, forKey: .properties))
    if try container.decodeNil(forKey: .geometry) {
      geometry = nil
    } else {
      let point = try container.nestedContainer(keyedBy: GeometryKeys.self, forKey: .geometry)
      geometry = try point.decode([Double].self, forKey: .coordinates)
    }
  }

  func located() throws -> Located {
    guard let geometry, geometry.count == 2 else {
      throw AnchorError("a golden feature is not a point: \(properties)")
    }
    let located = Located(
      member: try Member(properties: properties), longitude: geometry[0], latitude: geometry[1])
    if case .cluster(let clusterId, _) = located.member, id != clusterId {
      throw AnchorError("cluster \(clusterId) has the feature id \(String(describing: id))")
    }
    return located
  }
}

struct AnchorCollection: Decodable, Sendable {
  var features: [AnchorFeature]
}

/// supercluster's `getTile` result.
struct AnchorTile: Decodable, Sendable {
  var features: [Feature]

  struct Feature: Decodable, Sendable {
    var type: Int
    var geometry: [[Int]]
    var tags: JSON
    var id: Int?

    enum CodingKeys: String, CodingKey { case type, geometry, tags, id }

    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      type = try container.decode(Int.self, forKey: .type)
      geometry = try container.decode([[Int]].self, forKey: .geometry)
      tags = try JSON(object: container.nestedContainer(keyedBy: JSON.Key.self, forKey: .tags))
      id = try container.decodeIfPresent(Int.self, forKey: .id)
    }
  }
}

/// Any JSON value, compared by value (numbers as doubles, objects unordered).
enum JSON: Hashable, Sendable, Decodable, CustomStringConvertible {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSON])
  case object([String: JSON])

  init(from decoder: any Decoder) throws {
    // Properties hold mostly strings and numbers: try those first, as each miss throws.
    let value = try decoder.singleValueContainer()
    if let string = try? value.decode(String.self) {
      self = .string(string)
    } else if let number = try? value.decode(Double.self) {
      self = .number(number)
    } else if let bool = try? value.decode(Bool.self) {
      self = .bool(bool)
    } else if value.decodeNil() {
      self = .null
    } else if let object = try? value.decode([String: JSON].self) {
      self = .object(object)
    } else {
      self = .array(try value.decode([JSON].self))
    }
  }

  /// An object's members; faster than `init(from:)`, which finds an object after three misses.
  init(object: KeyedDecodingContainer<Key>) throws {
    var members: [String: JSON] = [:]
    for key in object.allKeys {
      members[key.stringValue] = try object.decode(JSON.self, forKey: key)
    }
    self = .object(members)
  }

  /// Any member name.
  struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  /// A value as geopipe's reader keeps it.
  init(_ value: JSONValue) {
    switch value {
    case .null: self = .null
    case .bool(let bool): self = .bool(bool)
    case .integer(let integer): self = .number(Double(integer))
    case .double(let double): self = .number(double)
    case .bigInteger(let digits), .bigNumber(let digits): self = .string(digits)
    case .string(let string): self = .string(string)
    case .array(let values): self = .array(values.map(JSON.init))
    case .object(let object):
      self = .object(
        Dictionary(object.members.map { ($0.key, JSON($0.value)) }) { _, last in last })
    }
  }

  subscript(key: String) -> JSON? {
    if case .object(let members) = self { members[key] } else { nil }
  }

  var int: Int? {
    if case .number(let number) = self { Int(exactly: number) } else { nil }
  }

  var description: String {
    switch self {
    case .null: "null"
    case .bool(let bool): "\(bool)"
    case .number(let number): "\(number)"
    case .string(let string): "\"\(string)\""
    case .array(let values): "\(values)"
    case .object(let members): "\(members)"
    }
  }
}
