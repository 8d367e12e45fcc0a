import GeoPipeCore

/// `sort`: orders features by properties.
final class SortStage: Stage {
  static let definition = StageDefinition(
    name: "sort",
    abstract: "Sort features by one or more properties.",
    discussion: """
      Sorts features by the given properties.
      """,
    examples: [
      "geopipe read places.csv | geopipe sort --by population --desc"
    ],
    options: [
      OptionSpec("by", .list, required: true, help: "The properties to sort by, in order."),
      OptionSpec("desc", .flag, help: "Sort in descending order."),
    ],
    role: .transform, buffersAll: true,
    make: { _, _ in .stage(SortStage()) })

  private var features: [Feature] = []

  func process(_ feature: Feature, emit: Emit) throws {
    features.append(feature)
  }

  func finish(emit: Emit) throws {
    for feature in features { try emit(feature) }
  }
}
