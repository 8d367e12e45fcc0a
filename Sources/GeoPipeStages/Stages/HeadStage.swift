import GeoPipeCore

/// `head`: passes the first N features on.
final class HeadStage: Stage {
  static let definition = StageDefinition(
    name: "head",
    abstract: "Keep the first N features.",
    discussion: """
      Passes the first N features on and drops the rest.
      """,
    examples: [
      "geopipe read places.csv | geopipe head 5"
    ],
    options: [
      OptionSpec("n", .integer, default: "10", positional: true, help: "How many features to keep.")
    ],
    role: .transform,
    make: { values, _ in .stage(HeadStage(limit: values.integer("n") ?? 10)) })

  private let limit: Int
  private var count = 0

  init(limit: Int) {
    self.limit = limit
  }

  func process(_ feature: Feature, emit: Emit) throws {
    guard count < limit else { return }
    count += 1
    try emit(feature)
  }

  func finish(emit: Emit) throws {}
}
