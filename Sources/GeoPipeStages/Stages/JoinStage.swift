import Foundation
import GeoPipeCore
import GeoPipeGEOS
import GeoPipeGeometry
import GeoPipeIO
import GeoPipeStageKit
import Synchronization

/// `join`: each feature gets the properties of the features of another layer that it meets.
enum JoinStage {
  /// How a feature and a layer feature must relate.
  enum Predicate: String, CaseIterable, Sendable {
    /// They share a point.
    case intersects
    /// The feature lies within the layer feature.
    case within
    /// The feature contains the layer feature.
    case contains
    /// The layer feature nearest the feature (geodesic distance).
    case nearest
  }

  /// What to do with several matches.
  enum Matches: String, CaseIterable, Sendable {
    /// The first match in layer order.
    case first
    /// One output feature per match.
    case all
    /// Only how many there are.
    case count
    /// Each field as an array of the matches' values.
    case list
  }

  /// What to do with a feature that matches nothing.
  enum Miss: String, CaseIterable, Sendable {
    /// Keep it, with the joined fields null.
    case keep
    /// Leave it out (counted on standard error).
    case drop
    /// Stop with an error (exit 65).
    case fail
  }

  static let definition = StageDefinition(
    name: "join",
    abstract: "Add the properties of the features of another layer that each feature meets.",
    discussion: """
      Reads the layer --with (any format geopipe reads; --with-layer picks a layer of a
      GeoPackage or zip) into memory, indexes it with an STR-packed R-tree, and streams the
      input: for each feature, the layer features that satisfy --predicate are found (their
      boxes through the index, then the geometries with GEOS prepared geometries) and their
      --fields (default: all) are copied under --prefix. intersects: they share a point;
      within: the feature lies inside the layer feature (GEOS's within); contains: the feature
      contains the layer feature; nearest: the nearest layer feature by geodesic distance on
      the WGS84 ellipsoid, between the nearest points GEOS finds (exact for points), within
      --max-distance when given. Boundary rule: a point that lies inside no layer polygon but
      on the boundary of one or more (a point on a shared edge) is within exactly one, the
      first in layer order, so that each point of a partition goes to exactly one polygon;
      GEOS's within would give none.
      --matches says what several matches make: first (the first in layer order), all (one
      output feature per match), count (a PREFIXjoin_count property) or list (each field an
      array of the matches' values, in layer order). A feature matching nothing is kept with
      the fields null (--on-miss keep), left out and counted on standard error (drop), or an
      error (fail, exit 65). A copied field that the feature already has is overwritten, with
      a warning naming it: use --prefix to keep both. Runs on every processor; the output is
      in input order.
      """,
    examples: [
      "geopipe read places.csv | geopipe join --with countries.geojson --predicate within --fields name,iso_a2 --prefix country_",
      "geopipe read stops.geojson | geopipe join --with stations.geojson --predicate nearest --max-distance 500m --distance-field metres",
      "geopipe read parcels.geojson | geopipe join --with zones.geojson --matches list --fields zone",
      "geopipe read points.geojson | geopipe join --with areas.gpkg --with-layer districts --on-miss drop",
    ],
    options: [
      OptionSpec(
        "with", .path, required: true,
        help: "The layer to join: a file in any format geopipe reads."),
      OptionSpec(
        "with-layer", .string, help: "The layer of --with to use, when it holds several."),
      OptionSpec(
        "predicate", .choice(of: Predicate.self), default: "intersects",
        help: "intersects, within (the feature inside the layer feature), contains (the feature "
          + "contains the layer feature) or nearest."),
      OptionSpec(
        "fields", .list, help: "The layer's properties to copy (default: all of them)."),
      OptionSpec(
        "prefix", .string, default: "", help: "Put before each copied property's name."),
      OptionSpec(
        "matches", .choice(of: Matches.self), default: "first",
        help: "Several matches: first, all (a feature per match), count or list (arrays)."),
      OptionSpec(
        "on-miss", .choice(of: Miss.self), default: "keep",
        help: "A feature matching nothing: keep (fields null), drop (counted) or fail (exit 65)."),
      OptionSpec(
        "max-distance", .string,
        validate: { text in
          (try? Metres(text, option: "max-distance")) == nil
            ? ValueProblem("expected a distance such as 500m or 2km") : nil
        }, help: "nearest: only layer features this close (metres, or with m or km)."),
      OptionSpec(
        "distance-field", .string,
        help: "nearest: also add the distance in metres under this name (with the prefix)."),
    ],
    role: .transform,
    make: { values, context in
      let join = try Join(values, context: context)
      let diagnostics = context.diagnostics
      return .stage(
        OrderedFeatureMap(
          threads: context.threads, makeState: { try PreparedLayer(join.layer) },
          report: notingDrops(by: "join", to: diagnostics),
          work: { feature, index, worker in try join.apply(feature, index: index, worker: worker) }
        ))
    })
}

/// A configured join: the layer, the predicate and how matches become properties.
final class Join: Sendable {
  let layer: JoinLayer
  let predicate: JoinStage.Predicate
  let matches: JoinStage.Matches
  let miss: JoinStage.Miss
  let fields: [String]
  let prefix: String
  let maxDistance: Double?
  let distanceField: String?
  private let overwritten: OverwrittenNames

  init(_ values: OptionValues, context: StageContext) throws {
    predicate = values.choice("predicate", as: JoinStage.Predicate.self) ?? .intersects
    matches = values.choice("matches", as: JoinStage.Matches.self) ?? .first
    miss = values.choice("on-miss", as: JoinStage.Miss.self) ?? .keep
    prefix = values.string("prefix") ?? ""
    maxDistance = try values.string("max-distance").map {
      try Metres($0, option: "max-distance").value
    }
    distanceField = values.string("distance-field")
    if predicate != .nearest && (maxDistance != nil || distanceField != nil) {
      throw GeoPipeError.usage(
        "--max-distance and --distance-field apply to --predicate nearest only")
    }
    let layer = try JoinLayer(
      path: values.string("with") ?? "-", layer: values.string("with-layer"), context: context)
    self.layer = layer
    if let named = values.list("fields") {
      var known = Set<String>()
      for feature in layer.features { known.formUnion(feature.properties?.keys ?? []) }
      let unknown = named.filter { !known.contains($0) }
      if !unknown.isEmpty, !layer.features.isEmpty {
        throw GeoPipeError.usage(
          "--fields: no feature of \(layer.path) has "
            + unknown.map { "'\($0)'" }.joined(separator: ", ")
            + (Suggestions.closest(to: unknown[0], among: known.sorted()).map {
              "; did you mean '\($0)'?"
            } ?? ""))
      }
      fields = named
    } else {
      var seen = Set<String>()
      var all: [String] = []
      for feature in layer.features {
        for key in feature.properties?.keys ?? [] where seen.insert(key).inserted {
          all.append(key)
        }
      }
      fields = all
    }
    if layer.withoutGeometry > 0 {
      context.diagnostics(
        ReadDiagnostic(
          severity: .note,
          message: "join: \(layer.withoutGeometry) feature\(layer.withoutGeometry == 1 ? "" : "s") "
            + "of \(layer.path) without geometry left out of the layer"))
    }
    let report = context.diagnostics
    overwritten = OverwrittenNames { names in
      report(
        ReadDiagnostic(
          severity: .warning,
          message: "join: the input's own "
            + names.map { "'\($0)'" }.joined(separator: ", ")
            + " overwritten by the layer's; use --prefix to keep both"))
    }
  }

  /// The output features for one input feature.
  func apply(_ feature: Feature, index: Int, worker: PreparedLayer) throws -> FeatureOutcome {
    let found: [(index: Int, distance: Double?)]
    if let geometry = feature.geometry {
      do {
        found = try matching(geometry, worker: worker)
      } catch let error as GeoPipeError {
        throw error
      } catch {
        throw GeoPipeError.data("feature \(index): cannot join: \(error)", at: nil)
      }
    } else {
      found = []
    }
    if found.isEmpty && matches != .count {
      switch miss {
      case .keep: return .emit(joined(feature, with: []))
      case .drop: return .drop(reason: "that matched no feature of \(layer.path)")
      case .fail:
        throw GeoPipeError.data(
          "feature \(index): matches no feature of \(layer.path) (--on-miss fail)", at: nil)
      }
    }
    switch matches {
    case .first: return .emit(joined(feature, with: Array(found.prefix(1))))
    case .all: return .emitAll(found.map { joined(feature, with: [$0]) })
    case .count, .list: return .emit(joined(feature, with: found))
    }
  }

  /// The layer features that `geometry` satisfies the predicate with, in layer order (nearest:
  /// the nearest, ties in layer order).
  private func matching(_ geometry: Geometry, worker: PreparedLayer) throws -> [(
    index: Int, distance: Double?
  )] {
    guard let box = geometry.bbox else { return [] }
    if case .point(let p) = geometry, predicate == .intersects || predicate == .within {
      return try pointMatches(p, geometry, box: box, worker: worker)
    }
    switch predicate {
    case .intersects:
      return try layer.candidates(box).filter { try worker.geometry($0).intersects(geometry) }
        .map { ($0, nil) }
    case .within:
      let candidates = layer.candidates(box)
      let inside = try candidates.filter { try worker.geometry($0).contains(geometry) }
      if inside.isEmpty, case .point = geometry,
        let edge = try candidates.first(where: { try worker.geometry($0).intersects(geometry) })
      {
        return [(edge, nil)]
      }
      return inside.map { ($0, nil) }
    case .contains:
      return try layer.candidates(box).filter { candidate in
        guard let other = layer.features[candidate].geometry else { return false }
        return try worker.geos.contains(geometry, other)
      }.map { ($0, nil) }
    case .nearest:
      return try nearest(geometry, box: box, worker: worker)
    }
  }

  /// The nearest layer feature (or several at the same distance), searching boxes that grow
  /// until one holds a feature, then the box that the nearest distance found bounds.
  private func nearest(_ geometry: Geometry, box: BBox, worker: PreparedLayer) throws -> [(
    index: Int, distance: Double?
  )] {
    guard !layer.features.isEmpty else { return [] }
    var radius = min(maxDistance ?? 1000, 1000)
    var best: [(index: Int, distance: Double?)] = []
    var bestDistance = Double.infinity
    var searched = Set<Int>()
    while true {
      for candidate in layer.candidates(Self.grow(box, by: radius))
      where searched.insert(candidate).inserted {
        let distance = try self.distance(geometry, candidate, worker: worker)
        if let maxDistance, distance > maxDistance { continue }
        if distance < bestDistance {
          bestDistance = distance
          best = [(candidate, distance)]
        } else if distance == bestDistance {
          best.append((candidate, distance))
        }
      }
      if bestDistance.isFinite {
        // Anything nearer lies within the box that distance spans.
        if radius >= bestDistance { break }
        radius = bestDistance
        continue
      }
      if let maxDistance, radius >= maxDistance { break }
      if radius >= 20_100_000 { break }
      radius = min(radius * 4, maxDistance ?? 20_100_000)
    }
    return best.sorted { $0.index < $1.index }
  }

  /// Geodesic metres between the points of `geometry` and of the layer feature nearest each
  /// other (0 when they meet).
  private func distance(_ geometry: Geometry, _ candidate: Int, worker: PreparedLayer) throws
    -> Double
  {
    guard let other = layer.features[candidate].geometry else { return .infinity }
    if case .point(let p) = geometry, case .point(let q) = other {
      return Geodesic.wgs84.distance(lon1: p.x, lat1: p.y, lon2: q.x, lat2: q.y)
    }
    if try worker.geometry(candidate).intersects(geometry) { return 0 }
    guard let (p, q) = try worker.geos.nearestPoints(geometry, other) else { return .infinity }
    return Geodesic.wgs84.distance(lon1: p.x, lat1: p.y, lon2: q.x, lat2: q.y)
  }

  /// `box` grown by `metres` on every side (in degrees: a degree of latitude is at least
  /// 110,574 m, one of longitude that times the cosine of the latitude farthest from the
  /// equator), and to the whole world where that is simpler.
  static func grow(_ box: BBox, by metres: Double) -> BBox {
    let dy = metres / 110_574
    let south = max(-90, box.south - dy)
    let north = min(90, box.north + dy)
    let polar = max(abs(south), abs(north))
    let cosine = cos(polar * .pi / 180)
    guard cosine > 1e-6, metres / (111_319 * cosine) < 180 else {
      return BBox(west: -180, south: south, east: 180, north: north)
    }
    let dx = metres / (111_319 * cosine)
    let west = box.west - dx
    let east = box.east + dx
    guard west >= -180, east <= 180 else {
      return BBox(west: -180, south: south, east: 180, north: north)
    }
    return BBox(west: west, south: south, east: east, north: north)
  }

  /// The feature with the matches' fields added.
  private func joined(_ feature: Feature, with found: [(index: Int, distance: Double?)])
    -> Feature
  {
    var result = feature
    var properties = feature.properties ?? JSONObject()
    var clashes: [String] = []
    func set(_ name: String, _ value: JSONValue) {
      let key = prefix + name
      if properties[key] != nil && feature.properties?[key] != nil { clashes.append(key) }
      properties[key] = value
    }
    switch matches {
    case .count:
      set("join_count", .integer(Int64(found.count)))
    case .list:
      for field in fields {
        set(
          field,
          .array(found.map { layer.features[$0.index].properties?[field] ?? .null }))
      }
    case .first, .all:
      let match = found.first.map { layer.features[$0.index] }
      for field in fields { set(field, match?.properties?[field] ?? .null) }
      if let distanceField {
        set(distanceField, found.first?.distance.map { .double($0) } ?? .null)
      }
    }
    if !clashes.isEmpty { overwritten.note(clashes) }
    result.properties = properties
    return result
  }
}

/// The input properties a join overwrote, reported once.
private final class OverwrittenNames: Sendable {
  private let reported = Mutex(false)
  private let report: @Sendable ([String]) -> Void

  init(report: @escaping @Sendable ([String]) -> Void) {
    self.report = report
  }

  func note(_ names: [String]) {
    let first = reported.withLock { done in
      defer { done = true }
      return !done
    }
    if first { report(names) }
  }
}
