import GeoPipeCore
import GeoPipeStageKit

/// `rename-layer`: names the layer features belong to.
final class RenameLayerStage: Stage, CollectionMembersTransformer {
  static let definition = StageDefinition(
    name: "rename-layer",
    abstract: "Name the layer the features belong to (their tile layer, the collection's name).",
    discussion: """
      A feature's layer is its "tippecanoe": {"layer": NAME} member, as tippecanoe reads
      it: 'tiles' puts the feature in that layer of the tileset (before --layer-property and
      --layer), and the member travels with the feature through pipes and GeoJSON files.
      rename-layer sets it to NAME on every feature, keeping the member's other keys
      (minzoom, maxzoom); with --from OLD, only on the features whose layer is OLD.
      Within one run (a pipeline file, or 'convert'), the input FeatureCollection's "name",
      which GDAL and ogr2ogr read as a GeoJSON file's layer name, becomes NAME too (with
      --from, only when it is OLD), and 'write' writes it. A GeoPackage's table is named by
      'write --layer'.
      """,
    examples: [
      "geopipe read roads.geojson | geopipe rename-layer roads | geopipe tiles roads.pmtiles",
      "geopipe read a.geojson b.geojson | geopipe rename-layer streets --from roads "
        + "| geopipe tiles city.mbtiles --layer other",
    ],
    options: [
      OptionSpec(
        "name", .string, required: true, positional: true, validate: validateName,
        help: "The layer's new name."),
      OptionSpec(
        "from", .string, validate: validateName,
        help: "Rename only the layer of this name (features in other layers, or in none, are "
          + "left as they are)."),
    ],
    role: .transform,
    make: { values, _ in
      .stage(RenameLayerStage(name: values.string("name") ?? "", from: values.string("from")))
    })

  private let name: String
  private let from: String?

  init(name: String, from: String?) {
    self.name = name
    self.from = from
  }

  func process(_ feature: Feature, emit: Emit) throws {
    var feature = feature
    var member: JSONObject
    if case .object(let object)? = feature.foreignMembers["tippecanoe"] {
      member = object
    } else {
      member = JSONObject()
    }
    if from == nil || member["layer"] == .string(from ?? "") {
      member["layer"] = .string(name)
      feature.foreignMembers["tippecanoe"] = .object(member)
    }
    try emit(feature)
  }

  func finish(emit: Emit) throws {}

  func transform(collectionMembers: JSONObject) -> JSONObject {
    guard from == nil || collectionMembers["name"] == .string(from ?? "") else {
      return collectionMembers
    }
    var members = collectionMembers
    members["name"] = .string(name)
    return members
  }

  private static func validateName(_ text: String) -> ValueProblem? {
    text.isEmpty ? ValueProblem("the layer name is empty") : nil
  }
}
