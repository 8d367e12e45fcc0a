import Foundation

extension GazetteerSources {
  /// The files of the default gazetteer in a folder of GeoNames dumps (the `geonames` folder
  /// geopipe ships): cities15000 with admin1 codes and country info.
  public static func shipped(in folder: String) -> GazetteerSources {
    GazetteerSources(
      geonames: folder + "/cities15000.txt.gz", admin1: folder + "/admin1CodesASCII.txt.gz",
      countries: folder + "/countryInfo.txt.gz")
  }
}

extension GazetteerSources {
  /// The Natural Earth 1:10m countries of the default gazetteer, in the shipped data folder.
  public static let shippedCountries = "naturalearth/ne_10m_admin_0_countries.geojsonl.gz"
}

extension GazetteerBuilder {
  /// One line on what a build wrote (`wrote PATH: N places, …, in S s`), from the counts
  /// `build` returns.
  public static func summary(of counts: [String: String], path: String, seconds: Double)
    -> String
  {
    "wrote \(path): \(counts["places"] ?? "0") places, \(counts["admin1"] ?? "0") admin1 areas, "
      + "\(counts["countries"] ?? "0") countries, \(counts["names"] ?? "0") names"
      + (counts["country_areas"].map { ", \($0) country polygons" } ?? "")
      + (counts["admin1_areas"].flatMap { $0 == "0" ? nil : ", \($0) admin1 polygons" } ?? "")
      + " in "
      + String(format: "%.1f", seconds) + " s"
  }
}

extension Gazetteer {
  /// What the gazetteer at `path` holds, one `key: value` a line (counts, sources, build
  /// date), then the attribution GeoNames' licence requires.
  public static func description(ofFileAt path: String) throws -> String {
    let gazetteer = try Gazetteer(path: path)
    var lines = ["gazetteer: \(path)"]
    for (key, value) in try gazetteer.metadata() where key != "attribution" {
      lines.append("\(key): \(value)")
    }
    lines.append(attribution)
    return lines.joined(separator: "\n")
  }
}
