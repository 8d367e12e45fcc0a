import GeoPipeCore
import GeoPipeIO

/// `explode`: a feature with a multi-part geometry becomes one feature per part.
final class ExplodeStage: Stage {
  static let definition = StageDefinition(
    name: "explode",
    abstract: "Split multi-part geometries into one feature per part.",
    discussion: """
      A MultiPoint, MultiLineString or MultiPolygon becomes one feature per point, line or
      polygon, and a GeometryCollection one feature per member (members that are multi-part
      themselves are split too), each with the feature's id and properties; --part-field adds
      the part's number (0, 1, ...). Single-part geometries and features without geometry pass
      through unchanged, as do empty multi-part geometries. Parts come out in their order in the geometry. Streams: one feature
      in memory.
      """,
    examples: [
      "geopipe read islands.geojson | geopipe explode > parts.geojsonl",
      "geopipe read countries.geojson | geopipe explode --part-field part | geopipe write parts.gpkg",
    ],
    options: [
      OptionSpec("part-field", .string, help: "Add each part's number (from 0) under this name.")
    ],
    role: .transform,
    make: { values, _ in .stage(ExplodeStage(partField: values.string("part-field"))) })

  private let partField: String?

  init(partField: String?) {
    self.partField = partField
  }

  func process(_ feature: Feature, emit: Emit) throws {
    guard let geometry = feature.geometry else { return try emit(feature) }
    var parts: [Geometry] = []
    Self.parts(of: geometry, into: &parts)
    // A multi-part geometry without parts is passed on as it is, not lost.
    if parts.isEmpty { return try emit(feature) }
    if parts.count == 1 && partField == nil && parts[0] == geometry { return try emit(feature) }
    for (number, part) in parts.enumerated() {
      var single = feature
      single.geometry = part
      if let partField {
        var properties = feature.properties ?? JSONObject()
        properties[partField] = .integer(Int64(number))
        single.properties = properties
      }
      try emit(single)
    }
  }

  func finish(emit: Emit) throws {}

  /// The single-part geometries of `geometry`, in order.
  static func parts(of geometry: Geometry, into parts: inout [Geometry]) {
    switch geometry {
    case .point, .lineString, .polygon: parts.append(geometry)
    case .multiPoint(let points): for k in points.indices { parts.append(.point(points[k])) }
    case .multiLineString(let lines): for line in lines { parts.append(.lineString(line)) }
    case .multiPolygon(let polygons): for rings in polygons { parts.append(.polygon(rings)) }
    case .geometryCollection(let members):
      for member in members { Self.parts(of: member, into: &parts) }
    }
  }
}
