import GeoPipeCore
import GeoPipeGeometry
import GeoPipeStageKit

/// `reproject`: coordinates from one CRS to another, with PROJ.
enum ReprojectStage {
  static let definition = StageDefinition(
    name: "reproject",
    abstract: "Transform coordinates to another CRS with PROJ (for output).",
    discussion: """
      Transforms every position from --from (WGS84 longitude/latitude by default) to --to.
      A CRS is an EPSG code (EPSG:3857), a PROJ string (+proj=utm +zone=33 +datum=WGS84) or
      WKT. Axis order is always x/easting/longitude first, whatever the CRS's definition says
      (PROJ's proj_normalize_for_visualization), as everywhere in geopipe. A position that
      cannot be transformed (outside the CRS's area of use) is an error naming the feature's
      index (exit 65).
      Every other stage works in WGS84, so reproject to another CRS is for output: follow it
      with 'write --crs' and the same CRS (a GeoJSON file then needs --allow-non-wgs84; CSV
      and GeoJSONSeq carry the numbers as they are). 'read --crs' is the inverse on input.
      Features are transformed on every processor; output stays in input order.
      """,
    examples: [
      "geopipe read places.geojson | geopipe reproject --to EPSG:3857 | geopipe write --crs EPSG:3857 places-3857.csv",
      "geopipe read --crs EPSG:2154 --keep-crs parcels.geojson | geopipe reproject --from EPSG:2154 --to EPSG:32631 | geopipe write --crs EPSG:32631 parcels.geojsonl",
    ],
    options: [
      OptionSpec(
        "to", .string, required: true, validate: CRSOption.validate,
        help: "The CRS to transform to (EPSG:3857, a PROJ string or WKT)."),
      OptionSpec(
        "from", .string, validate: CRSOption.validate,
        help: "The CRS of the input coordinates (by default WGS84 longitude/latitude); they are "
          + "read as they are, without range checks."),
    ],
    role: .transform, inputCRSOption: "from", outputCRSOption: "to",
    make: { values, context in
      let from = values.string("from") ?? "OGC:CRS84"
      let to = values.string("to") ?? ""
      // Reject an unknown CRS before any input is read.
      _ = try CoordinateTransformer(from: from, to: to)
      return .stage(
        OrderedFeatureMap(
          threads: context.threads, makeState: { try CoordinateTransformer(from: from, to: to) },
          report: { _ in },
          work: { feature, index, transformer in
            guard var geometry = feature.geometry else { return .emit(feature) }
            do {
              try transformer.transform(&geometry)
            } catch let error as GeoPipeError {
              throw GeoPipeError("feature \(index): \(error.message)", status: error.status)
            }
            var transformed = feature
            transformed.geometry = geometry
            return .emit(transformed)
          }))
    })
}
