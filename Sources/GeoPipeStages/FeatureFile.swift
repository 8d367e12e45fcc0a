import GeoPipeCore
import GeoPipeStageKit

/// Whole files of features for commands that need all of one at once.
public enum FeatureFile {
  /// Every feature of a file in any format geopipe reads, in file order, with a declared
  /// CRS reprojected to WGS84 (as `read` does).
  public static func readAll(_ path: String, context: StageContext) throws -> [Feature] {
    let reader = try ReadStage.open(path, values: OptionValues(), context: context)
    var features: [Feature] = []
    while let feature = try reader.next() { features.append(feature) }
    return features
  }
}
