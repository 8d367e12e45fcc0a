import GeoPipeGeometry
import GeoPipeIO
import GeoPipeStageKit

extension WriteStage {
  /// What opening the output would refuse, known from the option values alone: a path whose
  /// format cannot be told, or GeoJSON in a CRS other than WGS84 without `allow-non-wgs84`.
  @Sendable static func checkValues(_ values: OptionValues) -> OptionProblem? {
    let path = values.string("path") ?? "-"
    guard let format = outputFormat(path: path, values: values) else {
      let formats = Formats.writable.map(\.name).joined(separator: ", ")
      return OptionProblem(
        option: "path",
        "cannot tell the output format of '\(path)' from its extension: give output-format "
          + "(\(formats)) or use an extension such as .geojson, .geojsonl or .csv")
    }
    if format == .geoJSON, let crs = values.string("crs"), !CoordinateTransformer.isWGS84(crs),
      !values.flag("allow-non-wgs84")
    {
      return OptionProblem(
        option: "crs",
        "the features are in \(crs), and GeoJSON coordinates are WGS84 longitude/latitude "
          + "(RFC 7946): set allow-non-wgs84 to write them anyway, or write CSV or GeoJSONSeq")
    }
    return nil
  }
}
