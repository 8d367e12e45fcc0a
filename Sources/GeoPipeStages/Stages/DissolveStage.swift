import GeoPipeCore
import GeoPipeGEOS
import GeoPipeIO

/// `dissolve`: the features of each group merged into one, their geometries unioned.
final class DissolveStage: Stage {
  static let definition = StageDefinition(
    name: "dissolve",
    abstract: "Merge the features of each group into one, unioning their geometries (GEOS).",
    discussion: """
      Groups the features by the value of --by (all features form one group without it;
      features without the property form the group whose value is null) and writes one
      feature per group, in the order the groups were first seen: its geometry the union of
      the members' geometries (GEOS unary union: polygons merged where they touch or overlap,
      shared edges removed, lines noded), its properties the --by value and the --aggregate
      results, PROP:FUNC with FUNC sum, min, max, mean or count as in 'geopipe cluster'
      (PROP_FUNC; members in input order), and count, the number of members. Invalid
      polygons are made valid (GEOS MakeValid) before the union. Coordinates are merged in
      longitude/latitude as given (planar, as mapshaper and GeoPandas do). Holds every
      feature until the input ends.
      """,
    examples: [
      "geopipe read counties.geojson | geopipe dissolve --by state > states.geojsonl",
      "geopipe read counties.geojson | geopipe dissolve --by state --aggregate population:sum,area:max",
      "geopipe read parcels.gpkg | geopipe dissolve | geopipe write outline.geojson",
    ],
    options: [
      OptionSpec("by", .string, help: "The property whose value groups the features."),
      OptionSpec(
        "aggregate", .list,
        help: "Add aggregates to each group: PROP:FUNC with FUNC sum, min, max, mean or count."),
    ],
    role: .transform, buffersAll: true,
    make: { values, context in
      .stage(
        try DissolveStage(
          by: values.string("by"), aggregates: values.list("aggregate") ?? [],
          report: context.diagnostics))
    })

  private let by: String?
  private let aggregates: ClusterAggregates
  private var groups: [JSONValue: Int] = [:]
  private var members: [[Feature]] = []
  private var keys: [JSONValue] = []
  private var usage: PropertyUsage
  private let report: @Sendable (ReadDiagnostic) -> Void

  init(by: String?, aggregates: [String], report: @escaping @Sendable (ReadDiagnostic) -> Void)
    throws
  {
    self.by = by
    self.aggregates = try ClusterAggregates(aggregates, countBy: nil)
    self.report = report
    usage = PropertyUsage(
      stage: "dissolve", names: [by].compactMap { $0 } + self.aggregates.fields.map(\.property),
      strict: false)
  }

  func process(_ feature: Feature, emit: Emit) throws {
    usage.observe(feature.properties)
    let key = by.flatMap { feature.properties?[$0] } ?? .null
    if let k = groups[key] {
      members[k].append(feature)
    } else {
      groups[key] = members.count
      members.append([feature])
      keys.append(key)
    }
  }

  func finish(emit: Emit) throws {
    try usage.finish(report: report)
    let geos: GEOSContext
    do {
      geos = try GEOSContext()
    } catch {
      throw GeoPipeError("\(error)", status: .ioError)
    }
    for (k, group) in members.enumerated() {
      let geometries = group.compactMap(\.geometry)
      var merged: Geometry?
      if !geometries.isEmpty {
        do {
          let valid = try geometries.map { try geos.isValid($0) ? $0 : geos.makeValid($0) }
          merged = try geos.union(valid).rewound()
        } catch {
          let name = by.map { "\($0) = \(keys[k])" } ?? "all features"
          throw GeoPipeError.data("dissolve: cannot merge the group \(name): \(error)", at: nil)
        }
      }
      var properties = JSONObject()
      if let by { properties[by] = keys[k] }
      for member in aggregates.properties(of: group) { properties[member.key] = member.value }
      properties["count"] = .integer(Int64(group.count))
      try emit(Feature(geometry: merged, properties: properties))
    }
    members = []
  }
}
