import GeoPipeGeometry
import GeoPipeStageKit

/// The check shared by options that name a CRS PROJ must know (`read --crs`,
/// `reproject --to`): an unknown CRS is a usage error before anything runs, and a pipeline
/// file's check reports it at the value.
enum CRSOption {
  /// Rejects a CRS PROJ does not know, with the `EPSG:` hint for a bare number.
  @Sendable static func validate(_ text: String) -> ValueProblem? {
    CoordinateTransformer.problem(with: text).map { ValueProblem($0) }
  }
}
