import Foundation
import GeoPipeClustering
import GeoPipeCore
import GeoPipeIO
import GeoPipeStageKit

/// `cluster`: points clustered by zoom level, with supercluster 8.0.1's semantics.
final class ClusterStage: Stage {
  static let definition = StageDefinition(
    name: "cluster",
    abstract: "Cluster points by zoom level (supercluster's clusters, computed ahead of time).",
    discussion: """
      Builds supercluster's index (8.0.1 semantics: the same clusters, ids and order for the
      same input and options) and writes the clusters and unclustered points at --zoom within
      --bbox. Unclustered points keep their properties and id; a cluster is a Point feature
      with id and cluster_id, point_count and point_count_abbreviated (a number below 1000,
      else text such as "1.2k"), at the count-weighted centroid of its points. radius is in
      pixels of a tile extent pixels wide; zooms are tile zooms.
      --tile Z/X/Y writes the items of one tile as supercluster's getTile finds them (the tile
      padded by radius/extent, wrapping around the antimeridian). Queries about one cluster: --children ID (the clusters and points one zoom finer),
      --leaves ID (its input points; --limit, --offset) and --expansion-zoom ID (printed as
      {"cluster_id":ID,"expansion_zoom":Z}).
      --all-zooms writes every distinct cluster and point once, with the zooms where it is
      visible as tippecanoe's "tippecanoe": {"minzoom", "maxzoom"} member (unclustered points
      reach max-zoom + 1); each cluster also gets "expansion_zoom", the zoom at which it
      splits (supercluster's getClusterExpansionZoom), for zoom-on-click in a map client.
      --group-by PROP clusters only points with the same value of PROP (like MapKit's
      clusteringIdentifier); clusters carry the value, and groups are written in order of first
      appearance. Ids stay unique: group k's ids are offset by 32 x (the points of the groups
      before it, plus k) beyond supercluster's.
      --aggregate PROP:FUNC,... adds PROP_FUNC to clusters (sum, min, max, mean, count over
      member points whose value is a number; integer sums are exact), and --count-by PROP adds
      PROP_counts, an object of member counts per value.
      The members of a cluster of three or more items are summed in level order rather than in
      the order supercluster's kd-tree returns them; this can change a centroid in its last bit
      (about 1e-14 degrees) and nothing else. --exact-order sums them in supercluster's order,
      for output identical to the last bit, at about twice the build time.
      Features without geometry count in supercluster's n (they shift cluster ids) and are
      left out with a note; other geometries than points are an error unless --points
      centroid.
      A property that --group-by, --count-by or --aggregate names and no feature has (a
      misspelt name) is a warning at the end, with the closest name the features had; with
      --strict it is an error (exit 65). When --zoom writes nothing in --bbox but points lie
      in the box with its axes swapped (given as S,W,N,E), a warning says so.
      """,
    examples: [
      "geopipe read places.csv | geopipe cluster --zoom 5 | geopipe write clusters-z5.geojson",
      "geopipe read places.geojson | geopipe cluster --zoom 8 --bbox -10,35,30,60 --radius 60",
      "geopipe read shops.csv | geopipe cluster --zoom 12 --group-by kind --count-by kind",
      "geopipe read places.csv | geopipe cluster --all-zooms --aggregate population:sum",
      "geopipe read places.csv | geopipe cluster --leaves 34010 --limit 10",
      "geopipe read places.geojson | geopipe cluster --zoom 6 --exact-order",
    ],
    options: [
      OptionSpec("zoom", .number, help: "The zoom to write clusters for (fractions are floored)."),
      OptionSpec(
        "bbox", .bbox, default: "-180,-90,180,90",
        help: "With --zoom: write only items in W,S,E,N (W > E crosses the antimeridian)."),
      OptionSpec("all-zooms", .flag, help: "Write every cluster and point once with its zooms."),
      OptionSpec(
        "tile", .string,
        validate: { text in
          ClusterStage.tileAddress(text) == nil
            ? ValueProblem("expected Z/X/Y with 0 <= X, Y < 2^Z") : nil
        },
        help: "Write the items of tile Z/X/Y, with supercluster's radius/extent buffer."),
      OptionSpec(
        "radius", .number, default: Template.displayText(ClusterOptions().radius),
        validate: OptionBounds.number(0...65_536, excludingLower: true),
        help: "Cluster radius in pixels, above 0 and at most 65536."),
      OptionSpec(
        "extent", .number, default: Template.displayText(ClusterOptions().extent),
        validate: OptionBounds.number(0...65_536, excludingLower: true),
        help: "Tile extent that radius is relative to, above 0 and at most 65536."),
      OptionSpec(
        "min-zoom", .integer, default: String(ClusterOptions().minZoom),
        validate: OptionBounds.integer(0...30),
        help: "The lowest zoom with clusters, 0 to 30."),
      OptionSpec(
        "max-zoom", .integer, default: String(ClusterOptions().maxZoom),
        validate: OptionBounds.integer(0...30),
        help: "The highest zoom with clusters, 0 to 30."),
      OptionSpec(
        "min-points", .integer, default: String(ClusterOptions().minPoints),
        validate: OptionBounds.integer(1...1_000_000),
        help: "The fewest points in a cluster, 1 to 1000000."),
      OptionSpec(
        "node-size", .integer, default: String(ClusterOptions().nodeSize),
        validate: OptionBounds.integer(1...65_536),
        help: "The kd-tree leaf size, 1 to 65536."),
      OptionSpec(
        "exact-order", .flag,
        help: "Sum centroids in kdbush's order: bit-identical to supercluster's, slower build."),
      OptionSpec("group-by", .string, help: "Cluster only points with the same value of this."),
      OptionSpec(
        "aggregate", .list,
        help: "Add aggregates to clusters: PROP:FUNC with FUNC sum, min, max, mean or count."),
      OptionSpec("count-by", .string, help: "Add PROP_counts: member counts per value of PROP."),
      OptionSpec(
        "points", .choice(of: NonPoints.self), default: NonPoints.only.rawValue,
        help: "only: other geometries than points are an error; centroid: use their centroid."),
      OptionSpec("children", .integer, help: "Write the children of this cluster."),
      OptionSpec("leaves", .integer, help: "Write the input points of this cluster."),
      OptionSpec("limit", .integer, help: "With --leaves: at most this many (default: all)."),
      OptionSpec("offset", .integer, default: "0", help: "With --leaves: skip this many first."),
      OptionSpec(
        "expansion-zoom", .integer, help: "Print the zoom at which this cluster splits."),
      PropertyUsage.strictOption,
    ],
    role: .transform, buffersAll: true,
    make: { values, context in .stage(try ClusterStage(values, context: context)) })

  /// What `--points` does with geometries other than points.
  private enum NonPoints: String, CaseIterable {
    /// They are an error.
    case only
    /// Their centroid stands for them.
    case centroid
  }

  private enum Query {
    case zoom(Double, BBox)
    case allZooms
    case tile(z: Int, x: Int, y: Int)
    case children(Int)
    case leaves(Int, limit: Int?, offset: Int)
    case expansionZoom(Int)
  }

  private let query: Query
  private let options: ClusterOptions
  private let groupBy: String?
  private let aggregates: ClusterAggregates
  private let nonPoints: NonPoints
  private let context: StageContext
  private var features: [Feature] = []
  private var coordinates: [(longitude: Double, latitude: Double)?] = []
  private var usage: PropertyUsage

  init(_ values: OptionValues, context: StageContext) throws {
    // The option table's defaults are ClusterOptions' own; an absent value keeps them.
    var options = ClusterOptions()
    if let radius = values.number("radius") { options.radius = radius }
    if let extent = values.number("extent") { options.extent = extent }
    if let minZoom = values.integer("min-zoom") { options.minZoom = minZoom }
    if let maxZoom = values.integer("max-zoom") { options.maxZoom = maxZoom }
    if let minPoints = values.integer("min-points") { options.minPoints = minPoints }
    if let nodeSize = values.integer("node-size") { options.nodeSize = nodeSize }
    options.exactOrder = values.flag("exact-order")
    guard options.minZoom >= 0, options.maxZoom <= 30, options.minZoom <= options.maxZoom else {
      throw GeoPipeError.usage("zooms must satisfy 0 <= --min-zoom <= --max-zoom <= 30")
    }
    guard options.radius > 0, options.extent > 0, options.radius <= 65_536,
      options.extent <= 65_536, (1...1_000_000).contains(options.minPoints),
      (1...65_536).contains(options.nodeSize)
    else {
      throw GeoPipeError.usage(
        "--radius and --extent must be above 0 and at most 65536, --min-points 1 to 1000000 "
          + "and --node-size 1 to 65536")
    }
    self.options = options
    var queries: [Query] = []
    if let zoom = values.number("zoom") {
      queries.append(
        .zoom(zoom, values.bbox("bbox") ?? BBox(west: -180, south: -90, east: 180, north: 90)))
    }
    if values.flag("all-zooms") { queries.append(.allZooms) }
    if let text = values.string("tile"), let (z, x, y) = Self.tileAddress(text) {
      queries.append(.tile(z: z, x: x, y: y))
    }
    if let id = values.integer("children") { queries.append(.children(id)) }
    if let id = values.integer("leaves") {
      let limit = values.integer("limit")
      let offset = values.integer("offset") ?? 0
      guard (limit ?? 0) >= 0, offset >= 0 else {
        throw GeoPipeError.usage("--limit and --offset must be 0 or more")
      }
      queries.append(.leaves(id, limit: limit, offset: offset))
    }
    if let id = values.integer("expansion-zoom") { queries.append(.expansionZoom(id)) }
    guard queries.count == 1, let query = queries.first else {
      throw GeoPipeError.usage(
        "give one of --zoom Z, --all-zooms, --tile Z/X/Y, --children ID, --leaves ID or "
          + "--expansion-zoom ID")
    }
    self.query = query
    groupBy = values.string("group-by")
    aggregates = try ClusterAggregates(
      values.list("aggregate") ?? [], countBy: values.string("count-by"))
    nonPoints = values.choice("points", as: NonPoints.self) ?? .only
    self.context = context
    usage = PropertyUsage(
      stage: "cluster",
      names: [groupBy].compactMap { $0 } + aggregates.fields.map(\.property)
        + [aggregates.countBy].compactMap { $0 }, strict: values.flag("strict"))
  }

  func process(_ feature: Feature, emit: Emit) throws {
    usage.observe(feature.properties)
    let index = features.count
    var point: (longitude: Double, latitude: Double)?
    switch feature.geometry {
    case .point(let p)?: point = (p.x, p.y)
    case nil: point = nil
    case let geometry?:
      guard nonPoints == .centroid else {
        throw GeoPipeError(
          "cluster: feature \(index) is a \(geometry.typeName), not a Point; use --points "
            + "centroid to cluster other geometries by their centroid", status: .dataError)
      }
      point = Centroid.of(geometry)
    }
    coordinates.append(point)
    features.append(feature)
  }

  func finish(emit: Emit) throws {
    let missing = coordinates.count { $0 == nil }
    if missing > 0 {
      context.diagnostics(
        ReadDiagnostic(
          severity: .note,
          message:
            "cluster: \(missing) feature\(missing == 1 ? "" : "s") without geometry left out "
            + "(they still count in cluster ids, as in supercluster)"))
    }
    try usage.finish(report: context.diagnostics)
    let groups = makeGroups()
    switch query {
    case .zoom(let zoom, let box):
      var written = 0
      for group in groups {
        var failure: (any Error)?
        group.index.clusters(
          west: box.west, south: box.south, east: box.east, north: box.north, zoom: zoom
        ) { item in
          guard failure == nil else { return }
          do {
            try emit(feature(item, group: group))
            written += 1
          } catch { failure = error }
        }
        if let failure { throw failure }
      }
      if written == 0 { checkSwapped(box) }
    case .allZooms:
      for group in groups {
        for (item, low, high) in group.index.itemsAcrossZooms() {
          var out = feature(item, group: group)
          // Zoom-on-click needs the zoom a cluster splits at in the tile itself.
          if case .cluster(let id, _, _, _) = item {
            let zoom = try answer { () throws(ClusterQueryError) in
              try group.index.expansionZoom(of: id)
            }
            out.properties?["expansion_zoom"] = .integer(Int64(zoom))
          }
          out.foreignMembers["tippecanoe"] = .object([
            "minzoom": .integer(Int64(low)), "maxzoom": .integer(Int64(high)),
          ])
          try emit(out)
        }
      }
    case .tile(let z, let x, let y):
      for group in groups {
        let items = group.index.tile(zoom: z, x: x, y: y) { index in
          guard case .point(let p)? = features[group.inputs[index]].geometry else {
            return self.coordinates[group.inputs[index]] ?? (0, 0)
          }
          return (p.x, p.y)
        }
        for entry in items ?? [] { try emit(feature(entry.item, group: group)) }
      }
    case .children(let id):
      let group = try self.group(of: id, in: groups)
      for item in try answer({ () throws(ClusterQueryError) in try group.index.children(of: id) }) {
        try emit(feature(item, group: group))
      }
    case .leaves(let id, let limit, let offset):
      let group = try self.group(of: id, in: groups)
      let leaves = try answer { () throws(ClusterQueryError) in
        try group.index.leaves(of: id, limit: limit, offset: offset)
      }
      for leaf in leaves { try emit(features[group.inputs[leaf]]) }
    case .expansionZoom(let id):
      let group = try self.group(of: id, in: groups)
      let zoom = try answer { () throws(ClusterQueryError) in try group.index.expansionZoom(of: id)
      }
      try context.standardOutput(Array("{\"cluster_id\":\(id),\"expansion_zoom\":\(zoom)}\n".utf8))
    }
  }

  /// Warns when no point is in `box` and some are in the box with its axes swapped.
  private func checkSwapped(_ box: BBox) {
    var check = SwappedBoxCheck(stage: "cluster", box: box)
    for case let (longitude, latitude)? in coordinates {
      _ = check.intersects(.point(Position(x: longitude, y: latitude)))
    }
    check.finish(report: context.diagnostics)
  }

  // MARK: Groups

  /// The points of one group value, with their own index.
  private struct Group {
    var value: JSONValue?
    /// Input feature numbers, by the group index's point numbers.
    var inputs: [Int]
    var index: ClusterIndex
  }

  private func makeGroups() -> [Group] {
    guard let groupBy else {
      return [
        Group(
          value: nil, inputs: Array(features.indices),
          index: ClusterIndex(
            coordinates: coordinates, options: options, progress: progress(group: nil)))
      ]
    }
    var order: [JSONValue] = []
    var members: [JSONValue: [Int]] = [:]
    for (k, feature) in features.enumerated() where coordinates[k] != nil {
      let value = feature.properties?[groupBy] ?? .null
      if members[value] == nil { order.append(value) }
      members[value, default: []].append(k)
    }
    var base = features.count
    var groups: [Group] = []
    for (k, value) in order.enumerated() {
      let inputs = members[value] ?? []
      let index = ClusterIndex(
        coordinates: inputs.map { coordinates[$0] }, options: options, idBase: base,
        progress: progress(group: (k, order.count)))
      groups.append(Group(value: value, inputs: inputs, index: index))
      base += 32 * (inputs.count + 1)
    }
    return groups
  }

  /// Reports each zoom indexed to the progress line: `zoom 12 indexed (5 of 17)`, with the
  /// group when there are several.
  private func progress(group: (number: Int, count: Int)?) -> (Int) -> Void {
    let counters = context.counters
    let zooms = options.maxZoom - options.minZoom + 1
    let maxZoom = options.maxZoom
    let prefix = group.map { "group \($0.number + 1) of \($0.count): " } ?? ""
    return { zoom in
      counters.report(prefix + "zoom \(zoom) indexed (\(maxZoom - zoom + 1) of \(zooms) zooms)")
    }
  }

  private func group(of id: Int, in groups: [Group]) throws -> Group {
    // Group k's ids lie in [base_k, base_k + 32 * (points_k + 1)).
    for group in groups.reversed() where id >= group.index.inputCount { return group }
    throw GeoPipeError("cluster: no cluster with id \(id)", status: .dataError)
  }

  private func answer<T>(_ body: () throws(ClusterQueryError) -> T) throws -> T {
    do {
      return try body()
    } catch {
      throw GeoPipeError("cluster: \(error)", status: .dataError)
    }
  }

  // MARK: Output

  private func feature(_ item: ClusterItem, group: Group) -> Feature {
    switch item {
    case .point(let index):
      return features[group.inputs[index]]
    case .cluster(let id, let count, let longitude, let latitude):
      var properties = JSONObject()
      if let groupBy, let value = group.value { properties.appendUnchecked(groupBy, value) }
      properties.appendUnchecked("cluster", .bool(true))
      properties.appendUnchecked("cluster_id", .integer(Int64(id)))
      properties.appendUnchecked("point_count", .integer(Int64(count)))
      properties.appendUnchecked("point_count_abbreviated", Self.abbreviated(count))
      if !aggregates.isEmpty {
        let leaves = (try? group.index.leaves(of: id)) ?? []
        let members = leaves.map { group.inputs[$0] }.sorted().map { features[$0] }
        for member in aggregates.properties(of: members) {
          properties[member.key] = member.value
        }
      }
      return Feature(
        id: .integer(Int64(id)), geometry: .point(Position(x: longitude, y: latitude)),
        properties: properties)
    }
  }

  /// `Z/X/Y` as numbers, when it names a tile.
  static func tileAddress(_ text: String) -> (Int, Int, Int)? {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false).map { Int($0) }
    guard parts.count == 3, let z = parts[0], let x = parts[1], let y = parts[2],
      (0...30).contains(z),
      x >= 0, y >= 0, x < 1 << z, y < 1 << z
    else { return nil }
    return (z, x, y)
  }

  /// supercluster's `point_count_abbreviated`: the count below 1000, else "1.2k" or "15k".
  static func abbreviated(_ count: Int) -> JSONValue {
    let abbreviated = ClusterIndex.abbreviated(count)
    return abbreviated.text.map { .string($0) } ?? .integer(Int64(abbreviated.number ?? count))
  }
}
