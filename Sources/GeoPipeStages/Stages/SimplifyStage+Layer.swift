import Foundation
import GeoPipeCore
import GeoPipeGeometry
import GeoPipeIO
import GeoPipeStageKit

extension SimplifyStage {
  /// What the option values allow together, for the command line and pipeline files alike.
  @Sendable static func checkValues(_ values: OptionValues) -> OptionProblem? {
    let tolerance = values.string("tolerance")
    let percentage = values.string("percentage")
    let shared = values.flag("shared-borders")
    let choice = values.choice("method", as: MethodChoice.self) ?? .auto
    switch (tolerance, percentage) {
    case (nil, nil):
      return OptionProblem(
        option: "tolerance",
        "give --tolerance (a distance) or --percentage (a share of the vertices to keep)")
    case (.some, .some):
      return OptionProblem(option: "percentage", "give --tolerance or --percentage, not both")
    default:
      break
    }
    let layer = percentage != nil || shared
    if layer && choice == .topology {
      return OptionProblem(
        option: "method",
        "--method topology works feature by feature; with --percentage or --shared-borders use "
          + "dp, visvalingam or weighted-visvalingam")
    }
    if shared, let tolerance, case .metres? = try? Tolerance(tolerance, zoom: 0) {
      return OptionProblem(
        option: "tolerance",
        "with --shared-borders the tolerance must be in degrees (0.01) or pixels (1px with "
          + "--zoom): metres would be measured in a different UTM zone for each neighbour")
    }
    if let weighting = values.number("weighting") {
      guard weighting.isFinite, weighting >= 0 else {
        return OptionProblem(option: "weighting", "--weighting must be a number from 0 up")
      }
      guard choice == .weightedVisvalingam || (choice == .auto && layer) else {
        return OptionProblem(
          option: "weighting", "--weighting is for --method weighted-visvalingam")
      }
    }
    return nil
  }
}

/// A `--percentage` value: `5%` or `5`, from 0 to 100.
struct Percentage: Hashable, Sendable {
  /// The share as a fraction, 0 to 1.
  var share: Double

  init?(_ text: String) {
    var digits = Substring(text.trimmingCharacters(in: .whitespaces))
    if digits.hasSuffix("%") { digits = digits.dropLast() }
    guard let value = Double(digits.trimmingCharacters(in: .whitespaces)), (0...100).contains(value)
    else { return nil }
    share = value / 100
  }
}

/// `simplify --percentage` and `--shared-borders`: holds the layer, ranks its vertices together
/// and emits the features in input order when the input ends.
final class LayerSimplifyStage: Stage {
  /// A share of the layer's removable vertices, or a tolerance.
  enum Amount {
    case share(Double)
    case tolerance(Tolerance)
  }

  private let metric: SimplificationMetric
  private let amount: Amount
  private let sharedBorders: Bool
  private let keepShapes: Bool
  private let keepCollapsed: Bool
  private let minArea: Double?
  private let report: ([String: Int]) -> Void
  private var features: [Feature] = []

  init(
    metric: SimplificationMetric, amount: Amount, sharedBorders: Bool, keepShapes: Bool,
    keepCollapsed: Bool, minArea: Double?, report: @escaping ([String: Int]) -> Void
  ) {
    self.metric = metric
    self.amount = amount
    self.sharedBorders = sharedBorders
    self.keepShapes = keepShapes
    self.keepCollapsed = keepCollapsed
    self.minArea = minArea
    self.report = report
  }

  func process(_ feature: Feature, emit: Emit) throws {
    features.append(feature)
  }

  func finish(emit: Emit) throws {
    let layerAmount: LayerSimplifier.Amount
    var project: ((Double, Double) -> (Double, Double))?
    switch amount {
    case .share(let share):
      layerAmount = .share(share)
    case .tolerance(.degrees(let tolerance)):
      layerAmount = .tolerance(tolerance)
    case .tolerance(.pixels(let tolerance, let zoom)):
      layerAmount = .tolerance(tolerance)
      let world = 256 * pow(2, zoom)
      project = { x, y in LocalProjection.mercator(lon: x, lat: y, world: world) }
    case .tolerance(.metres):
      // Refused by checkValues before the stage is built.
      throw GeoPipeError.usage("with --shared-borders the tolerance must be in degrees or pixels")
    }
    // Points pass through; only lines and polygons are ranked.
    let geometries = features.map { feature -> Geometry? in
      guard let geometry = feature.geometry, geometry.kind != .point,
        geometry.kind != .multiPoint, geometry.bbox != nil
      else { return nil }
      return geometry
    }
    let simplified: [Geometry?]
    do {
      simplified = try LayerSimplifier.simplify(
        geometries, metric: metric, amount: layerAmount, keepShapes: keepShapes,
        sharedBorders: sharedBorders, project: project)
    } catch {
      throw GeoPipeError.data(
        "feature \(error.index): cannot simplify: a coordinate is not finite", at: nil)
    }
    var dropped: [String: Int] = [:]
    let all = features
    features = []
    for (k, var feature) in all.enumerated() {
      guard let input = geometries[k] else {
        try emit(feature)
        continue
      }
      guard var result = simplified[k] else {
        if keepCollapsed {
          try emit(feature)
        } else {
          dropped["that collapsed to empty (--keep-collapsed keeps them)", default: 0] += 1
        }
        continue
      }
      if let minArea {
        guard let kept = SimplifyStage.dropSmallParts(result, below: minArea) else {
          dropped["smaller than --min-area", default: 0] += 1
          continue
        }
        result = kept
      }
      feature.geometry = SimplifyStage.keepingKind(of: input, result)
      try emit(feature)
    }
    report(dropped)
  }
}
