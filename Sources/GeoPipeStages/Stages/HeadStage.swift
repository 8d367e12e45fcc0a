import GeoPipeCore
import GeoPipeStageKit

/// `head`: passes the first N features on.
final class HeadStage: Stage {
  static let definition = StageDefinition(
    name: "head",
    abstract: "Keep the first N features.",
    discussion: """
      Passes the first N features on, in input order, and drops the rest; 0 keeps none.
      After sort, head keeps the N smallest values (with sort --desc, the N largest).
      """,
    examples: [
      "geopipe read places.csv | geopipe head 5",
      "geopipe read places.csv | geopipe head -n 5",
      "geopipe read places.csv | geopipe sort --by population --desc | geopipe head 10",
    ],
    options: [
      OptionSpec(
        "n", .integer, default: "10", positional: true, short: "n", validate: validateCount,
        help: "How many features to keep (0 or more).")
    ],
    role: .transform,
    make: { values, _ in .stage(HeadStage(limit: values.integer("n") ?? 10)) })

  private let limit: Int
  private var count = 0

  /// True once N features have passed: the runner stops reading.
  var isSatisfied: Bool { count >= limit }

  init(limit: Int) {
    self.limit = limit
  }

  func process(_ feature: Feature, emit: Emit) throws {
    guard count < limit else { return }
    count += 1
    try emit(feature)
  }

  func finish(emit: Emit) throws {}

  private static func validateCount(_ text: String) -> ValueProblem? {
    guard let n = Int(text), n < 0 else { return nil }
    return ValueProblem("expected a whole number, 0 or more")
  }
}
