import GeoPipeCore
import GeoPipeStageKit

/// `circle`: a point and a radius in metres → a geodesic circle polygon.
enum CircleStage {
  static let definition = StageDefinition(
    name: "circle",
    abstract: "Turn points into geodesic circles of a radius in metres (like MKCircle).",
    discussion: """
      Replaces each Point with a polygon whose vertices lie at --radius from it on the WGS84
      ellipsoid (PROJ's geod_direct, at --segments equal steps of azimuth), or at the radius
      a property gives (--radius-property: a number of metres, or text such as 500m or 2km).
      The radius in metres is kept as the property geopipe:radius_m.
      A circle across the antimeridian is cut there into a MultiPolygon (RFC 7946 §3.1.9); one
      that contains a pole is closed along the pole. Only the vertices added there are not at
      the radius. A feature that is not a Point, or has no radius, is an error (exit 65).
      """,
    examples: [
      "geopipe read stations.csv | geopipe circle --radius 500m",
      "geopipe read sites.geojson | geopipe circle --radius-property range_m --segments 128",
    ],
    options: [
      OptionSpec(
        "radius", .string,
        validate: { text in
          (try? Metres(text, option: "radius")).map { $0.value > 0 } == true
            ? nil : ValueProblem("expected a positive distance such as 500m or 2km")
        }, help: "The radius: metres (500, 500m) or kilometres (2km)."),
      OptionSpec(
        "radius-property", .string,
        help: "Take each feature's radius from this property (metres, or text such as 2km)."),
      OptionSpec(
        "segments", .integer, default: "64", validate: OptionBounds.integer(segmentRange),
        help: "Vertices on the circle, 4 to 65536."),
    ],
    role: .transform,
    make: { values, context in
      let segments = values.integer("segments") ?? 64
      guard segmentRange.contains(segments) else {
        throw GeoPipeError.usage(
          "invalid value '\(segments)' for --segments: expected a whole number, 4 or more and at most 65536"
        )
      }
      let radius = try values.string("radius").map { try Metres($0, option: "radius").value }
      let property = values.string("radius-property")
      guard (radius == nil) != (property == nil) else {
        throw GeoPipeError.usage("give either --radius or --radius-property")
      }
      return .stage(
        OrderedFeatureMap(
          threads: context.threads, makeState: { try GeometryWorker() }, report: { _ in },
          work: { feature, index, worker in
            guard case .point(let centre)? = feature.geometry else {
              throw GeoPipeError.data(
                "feature \(index): circle needs a Point, not "
                  + (feature.geometry?.typeName ?? "a feature without geometry"), at: nil)
            }
            let metres = try radius ?? Self.radius(of: feature, property: property ?? "", index)
            var circle = feature
            do {
              // Vertices run clockwise (by azimuth); new polygons are wound as RFC 7946 asks.
              circle.geometry = try GeodesicCircle.polygon(
                lon: centre.x, lat: centre.y, radius: metres, segments: segments,
                geos: worker.geos
              ).rewound()
            } catch let error as GeoPipeError {
              throw GeoPipeError("feature \(index): \(error.message)", status: error.status)
            } catch {
              throw GeoPipeError.data("feature \(index): \(error)", at: nil)
            }
            circle[property: "geopipe:radius_m"] = .double(metres)
            return .emit(circle)
          }))
    })

  /// The vertices a circle may have: enough for a polygon, few enough to build at once.
  static let segmentRange = 4...65_536

  private static func radius(of feature: Feature, property: String, _ index: Int) throws -> Double {
    let value: Double? =
      switch feature[property: property] {
      case .integer(let n)?: Double(n)
      case .double(let x)?: x
      case .string(let text)?: try? Metres(text, option: "radius-property").value
      default: nil
      }
    guard let value, value > 0, value.isFinite else {
      throw GeoPipeError.data(
        "feature \(index): property '\(property)' is not a positive radius in metres "
          + "(a number, or text such as 500m)", at: nil)
    }
    return value
  }
}
