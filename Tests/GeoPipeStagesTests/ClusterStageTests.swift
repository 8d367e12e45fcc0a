import GeoPipeClustering
import GeoPipeCore
import Testing

@testable import GeoPipeStageKit
@testable import GeoPipeStages

/// The cluster stage's additions to supercluster, checked against answers computed here
/// independently: groups against one index per group, aggregates against sums over the
/// leaves and over the whole input, --all-zooms against --zoom at every zoom.
@Suite struct ClusterStageTests {
  /// Points around a few centres, with a group and a population each (seeded, so stable).
  static let points: [Feature] = {
    var random = SplitMix64(seed: 42)
    let centres = [(2.35, 48.85), (13.4, 52.5), (-0.12, 51.5), (12.5, 41.9)]
    let kinds = ["city", "town", "village"]
    return (0..<600).map { k in
      let centre = centres[Int(random.next() % 4)]
      let lon = centre.0 + (random.unit() - 0.5) * 3
      let lat = centre.1 + (random.unit() - 0.5) * 2
      var properties: JSONObject = ["n": .integer(Int64(k))]
      properties["kind"] = .string(kinds[Int(random.next() % 3)])
      // Some populations are integers, some text (as CSV gives), some doubles, some missing.
      switch k % 4 {
      case 0: properties["population"] = .integer(Int64(random.next() % 1_000_000))
      case 1: properties["population"] = .string(String(random.next() % 5000))
      case 2: properties["population"] = .double(Double(random.next() % 1000) + 0.25)
      default: break
      }
      return Feature(geometry: .point(Position(x: lon, y: lat)), properties: properties)
    }
  }()

  private func run(_ options: [String: OptionValue]) throws -> [Feature] {
    var values = OptionValues()
    for spec in ClusterStage.definition.options {
      if let text = spec.defaultValue { values.set(spec.name, try spec.parse(text)) }
    }
    for (name, value) in options { values.set(name, value) }
    let stage = try ClusterStage(
      values, context: StageContext(diagnostics: { _ in }, standardOutput: { _ in }))
    var out: [Feature] = []
    for feature in Self.points { try stage.process(feature) { out.append($0) } }
    try stage.finish { out.append($0) }
    return out
  }

  private func key(_ feature: Feature) -> String {
    if case .integer(let id)? = feature.properties?["cluster_id"] { return "c\(id)" }
    if case .integer(let n)? = feature.properties?["n"] { return "p\(n)" }
    return "?"
  }

  @Test func groupsClusterOnlyWithTheirOwnKind() throws {
    for zoom in [0.0, 3, 6, 9] {
      let out = try run(["zoom": .number(zoom), "group-by": .string("kind")])
      // Every input point is counted once.
      let total = out.reduce(0) { sum, f in
        if case .integer(let c)? = f.properties?["point_count"] { return sum + Int(c) }
        return sum + 1
      }
      #expect(total == Self.points.count)
      // The same as clustering each kind on its own.
      var expected: [String] = []
      var base = Self.points.count
      for kind in ["city", "town", "village"]
      where Self.points.contains(where: { $0[property: "kind"] == .string(kind) }) {
        let members = Self.points.filter { $0[property: "kind"] == .string(kind) }
        let index = ClusterIndex(
          coordinates: members.map {
            guard case .point(let p)? = $0.geometry else { return nil }
            return (p.x, p.y)
          }, idBase: base)
        for item in index.clusters(west: -180, south: -90, east: 180, north: 90, zoom: zoom) {
          switch item {
          case .point(let i): expected.append(key(members[i]))
          case .cluster(let id, _, _, _): expected.append("c\(id)")
          }
        }
        base += 32 * (members.count + 1)
      }
      #expect(Set(out.map(key)) == Set(expected))
      #expect(Set(out.map(key)).count == out.count, "ids are unique across groups")
      for cluster in out where cluster[property: "cluster"] == .bool(true) {
        #expect(
          ["city", "town", "village"].map(JSONValue.string).contains(
            cluster[property: "kind"] ?? .null))
      }
    }
  }

  @Test func aggregatesMatchSumsOverTheLeaves() throws {
    let zoom = 4.0
    let out = try run([
      "zoom": .number(zoom),
      "aggregate": .list([
        "population:sum", "population:min", "population:max", "population:count", "population:mean",
      ]),
      "count-by": .string("kind"),
    ])
    let index = ClusterIndex(
      coordinates: Self.points.map {
        guard case .point(let p)? = $0.geometry else { return nil }
        return (p.x, p.y)
      })
    var grandTotal = 0.0
    for feature in out {
      guard case .integer(let id)? = feature[property: "cluster_id"] else {
        grandTotal += ClusterAggregates.number(feature[property: "population"] ?? .null) ?? 0
        continue
      }
      let leaves = try index.leaves(of: Int(id)).sorted().map { Self.points[$0] }
      let values = leaves.compactMap {
        ClusterAggregates.number($0[property: "population"] ?? .null)
      }
      #expect(feature[property: "population_count"] == .integer(Int64(values.count)))
      let sum = values.reduce(0, +)
      #expect(
        abs((feature[property: "population_sum"]?.numberValue ?? .nan) - sum) <= 1e-9 * max(1, sum))
      #expect(feature[property: "population_min"]?.numberValue == values.min())
      #expect(feature[property: "population_max"]?.numberValue == values.max())
      let mean = feature[property: "population_mean"]?.numberValue ?? .nan
      #expect(abs(mean - sum / Double(values.count)) <= 1e-9 * max(1, mean))
      guard case .object(let counts)? = feature[property: "kind_counts"] else {
        Issue.record("no kind_counts")
        continue
      }
      var expected: [String: Int64] = [:]
      for leaf in leaves {
        if case .string(let kind)? = leaf[property: "kind"] { expected[kind, default: 0] += 1 }
      }
      #expect(
        Dictionary(uniqueKeysWithValues: counts.map { ($0.key, $0.value) })
          == expected.mapValues(JSONValue.integer))
      grandTotal += sum
    }
    let inputTotal = Self.points.compactMap {
      ClusterAggregates.number($0[property: "population"] ?? .null)
    }.reduce(0, +)
    #expect(abs(grandTotal - inputTotal) <= 1e-6 * inputTotal)
  }

  @Test func integerSumsAreExact() throws {
    let values: [JSONValue] = [.integer(9_007_199_254_740_993), .integer(1), .string("2")]
    let members = values.map { Feature(properties: ["v": $0]) }
    let aggregates = try ClusterAggregates(["v:sum", "v:max"], countBy: nil)
    let result = aggregates.properties(of: members)
    #expect(result[0].value == .integer(9_007_199_254_740_996))
    #expect(result[1].value == .integer(9_007_199_254_740_993))
  }

  @Test func allZoomsListsEveryItemOnceWithTheZoomsItIsVisibleAt() throws {
    let all = try run(["all-zooms": .flag(true), "max-zoom": .integer(10)])
    #expect(Set(all.map(key)).count == all.count)
    for zoom in 0...11 {
      let visible = all.filter { feature in
        guard case .object(let range)? = feature.foreignMembers["tippecanoe"],
          case .integer(let low)? = range["minzoom"], case .integer(let high)? = range["maxzoom"]
        else { return false }
        return low <= zoom && zoom <= high
      }
      let atZoom = try run(["zoom": .number(Double(zoom)), "max-zoom": .integer(10)])
      #expect(Set(visible.map(key)) == Set(atZoom.map(key)), "zoom \(zoom)")
    }
  }

  @Test func abbreviatesCountsAsSupercluster() {
    #expect(ClusterStage.abbreviated(999) == .integer(999))
    #expect(ClusterStage.abbreviated(1000) == .string("1k"))
    #expect(ClusterStage.abbreviated(1250) == .string("1.3k"))
    #expect(ClusterStage.abbreviated(3549) == .string("3.5k"))
    #expect(ClusterStage.abbreviated(15_500) == .string("16k"))
  }

  @Test func otherGeometriesNeedCentroids() throws {
    var values = OptionValues()
    values.set("zoom", .number(0))
    let context = StageContext(diagnostics: { _ in }, standardOutput: { _ in })
    let square = Geometry.polygon([
      CoordinateArray([
        Position(x: 0, y: 0), Position(x: 2, y: 0), Position(x: 2, y: 2), Position(x: 0, y: 2),
        Position(x: 0, y: 0),
      ])
    ])
    let stage = try ClusterStage(values, context: context)
    #expect(throws: GeoPipeError.self) { try stage.process(Feature(geometry: square)) { _ in } }
    let center = Centroid.of(square)
    #expect(center?.longitude == 1 && center?.latitude == 1)
  }
}
