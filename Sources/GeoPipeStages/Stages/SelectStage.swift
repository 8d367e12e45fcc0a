import GeoPipeCore

/// `select`: keeps, drops, renames and sets properties.
final class SelectStage: Stage {
  static let definition = StageDefinition(
    name: "select",
    abstract: "Keep, drop, rename or set properties.",
    discussion: """
      Changes each feature's properties.
      """,
    examples: [
      "geopipe read places.csv | geopipe select --keep name,population"
    ],
    options: [
      OptionSpec("keep", .list, help: "Keep only these properties, in this order."),
      OptionSpec("drop", .list, help: "Remove these properties."),
      OptionSpec("rename", .pairs, help: "Rename a property: OLD=NEW (repeatable)."),
      OptionSpec(
        "set", .pairs, templates: true,
        help: "Set a property from a template: KEY=\"{name}, {admin1}\" (repeatable)."),
      OptionSpec(
        "compute", .pairs, help: "Set a property from an expression: KEY=EXPR (repeatable)."),
    ],
    role: .transform,
    make: { _, _ in .stage(SelectStage()) })

  func process(_ feature: Feature, emit: Emit) throws {
    try emit(feature)
  }

  func finish(emit: Emit) throws {}
}
