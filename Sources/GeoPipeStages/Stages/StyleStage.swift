import GeoPipeCore

/// `style`: sets simplestyle-spec properties, MapKit-annotation style.
final class StyleStage: Stage {
  static let keys = [
    "title", "description", "marker-color", "marker-size", "marker-symbol", "stroke",
    "stroke-width", "stroke-opacity", "fill", "fill-opacity",
  ]

  static let definition = StageDefinition(
    name: "style",
    abstract: "Annotate features with simplestyle-spec properties (title, colours, sizes).",
    discussion: """
      Sets simplestyle-spec 1.1.0 properties.
      """,
    examples: [
      "geopipe read places.csv | geopipe style --marker-color '#d33' --title '{name}'"
    ],
    options: keys.map {
      OptionSpec($0, .string, templates: true, help: "The \($0) property.")
    } + [
      OptionSpec(
        "priority", .string, templates: true,
        help: "geopipe:priority: required, high or low."),
      OptionSpec("strict", .flag, help: "Fail when a template names a missing property."),
    ],
    role: .transform,
    make: { _, _ in .stage(StyleStage()) })

  func process(_ feature: Feature, emit: Emit) throws {
    try emit(feature)
  }

  func finish(emit: Emit) throws {}
}
