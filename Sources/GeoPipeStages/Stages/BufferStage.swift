import GeoPipeCore
import GeoPipeGEOS
import GeoPipeIO
import GeoPipeStageKit
import GeoPipeValidation

/// `buffer`: the area within a distance in metres of each geometry, with GEOS.
enum BufferStage {
  static let definition = StageDefinition(
    name: "buffer",
    abstract: "Replace geometries with the area within a distance in metres (GEOS buffer).",
    discussion: """
      Buffers each geometry by --distance with GEOS (round joins and ends), in the feature's
      UTM zone chosen by the centre of its bounding box (UPS near the poles), so that the
      distance is in metres on the ground; the result is projected back to longitude/latitude.
      A negative distance shrinks polygons (lines and points then vanish and are dropped,
      counted on standard error). --segments sets the vertices per quarter circle. Meant for
      features up to a few hundred kilometres across: far from its zone's centre a UTM metre
      drifts from a metre on the ground. A result that crosses the antimeridian is cut there
      into a MultiPolygon (RFC 7946 §3.1.9). Points are better served by 'geopipe circle',
      which is exact on the ellipsoid.
      """,
    examples: [
      "geopipe read roads.geojson | geopipe buffer --distance 50m",
      "geopipe read parks.geojson | geopipe buffer --distance -10m --segments 4",
    ],
    options: [
      OptionSpec(
        "distance", .string, required: true,
        validate: { text in
          (try? Metres(text, option: "distance")) == nil
            ? ValueProblem("expected a distance such as 50m or 2km") : nil
        }, help: "The buffer distance: metres (50, 50m) or kilometres (2km); negative shrinks."),
      OptionSpec(
        "segments", .integer, default: "8", validate: OptionBounds.integer(segmentRange),
        help: "Segments per quarter circle, 1 to 1024."),
    ],
    role: .transform,
    make: { values, context in
      let distance = try Metres(values.string("distance") ?? "", option: "distance").value
      let segments = values.integer("segments") ?? 8
      guard segmentRange.contains(segments) else {
        throw GeoPipeError.usage(
          "invalid value '\(segments)' for --segments: expected a whole number, 1 or more and at most 1024"
        )
      }
      let diagnostics = context.diagnostics
      return .stage(
        OrderedFeatureMap(
          threads: context.threads, makeState: { try GeometryWorker() },
          report: notingDrops(by: "buffer", to: diagnostics),
          work: { feature, index, worker in
            guard let geometry = feature.geometry, let box = geometry.bbox else {
              return .emit(feature)
            }
            let result: Geometry
            do {
              result = try worker.planar(geometry, in: worker.zones.projection(for: box)) {
                try worker.geos.buffer($0, distance: distance, quadrantSegments: segments)
              }
            } catch let error as GEOSError {
              throw GeoPipeError.data("feature \(index): cannot buffer: \(error)", at: nil)
            } catch let error as GeoPipeError {
              throw GeoPipeError("feature \(index): \(error.message)", status: error.status)
            }
            if result.bbox == nil {
              // Only shrinking can empty a geometry; an empty result of a growing buffer is a
              // failure to build it, never a feature to drop quietly.
              guard distance <= 0 else {
                throw GeoPipeError.data(
                  "feature \(index): cannot buffer: GEOS returned an empty result", at: nil)
              }
              return .drop(reason: "that shrank to nothing")
            }
            var buffered = feature
            // Cut where the result crosses the antimeridian (RFC 7946 §3.1.9); GEOS gives
            // clockwise shells, and new polygons are wound as RFC 7946 asks.
            buffered.geometry = Antimeridian.split(result).rewound()
            return .emit(buffered)
          }))
    })

  /// The segments per quarter circle: GEOS's work grows with them, and beyond this the arcs
  /// are finer than the coordinates can tell.
  static let segmentRange = 1...1024
}
