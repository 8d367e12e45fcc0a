import GeoPipeCore
import GeoPipeIO

extension TilesetMetadata {
  /// The metadata of tilesets joined into one: bounds unioned, the zoom range unioned, names
  /// and descriptions joined with " + " and attributions with "; " (each distinct one once),
  /// and `vector_layers` merged by id (fields unioned, a field of two types becoming "Mixed",
  /// minzoom the lowest and maxzoom the highest), without the fields `filter` leaves out.
  static func merging(_ all: [TilesetMetadata], filter: TileAttributeFilter) -> TilesetMetadata {
    func joined(_ texts: [String], _ separator: String) -> String {
      var seen = Set<String>()
      return texts.filter { !$0.isEmpty && seen.insert($0).inserted }.joined(separator: separator)
    }
    let crosses = all.contains { $0.west > $0.east }
    var layers: [JSONObject] = []
    var index: [String: Int] = [:]
    for layer in all.flatMap(\.vectorLayers) {
      guard let id = layer["id"]?.stringValue else { continue }
      var fields = JSONObject()
      if case .object(let given)? = layer["fields"] {
        for member in given.members where filter.keepsAll || filter.keeps(member.key) {
          fields[member.key] = member.value
        }
      }
      guard let k = index[id] else {
        index[id] = layers.count
        var copy = layer
        copy["fields"] = .object(fields)
        layers.append(copy)
        continue
      }
      var merged = layers[k]
      var mergedFields = JSONObject()
      if case .object(let known)? = merged["fields"] { mergedFields = known }
      for member in fields.members {
        if let type = mergedFields[member.key], type != member.value {
          mergedFields[member.key] = .string("Mixed")
        } else {
          mergedFields[member.key] = member.value
        }
      }
      merged["fields"] = .object(
        JSONObject(members: mergedFields.members.sorted { $0.key < $1.key }))
      for (key, pick) in [("minzoom", min), ("maxzoom", max)]
        as [(String, (Double, Double) -> Double)]
      {
        if let a = merged[key]?.numberValue, let b = layer[key]?.numberValue {
          merged[key] = .integer(Int64(pick(a, b)))
        }
      }
      if merged["description"]?.stringValue?.isEmpty ?? true, let text = layer["description"] {
        merged["description"] = text
      }
      layers[k] = merged
    }
    var json = JSONTextWriter()
    json.writeValue(.object(["vector_layers": .array(layers.map { .object($0) })]))
    return TilesetMetadata(
      name: joined(all.map(\.name), " + "), description: joined(all.map(\.description), " + "),
      attribution: joined(all.map(\.attribution), "; "),
      west: crosses ? -180 : all.map(\.west).min() ?? -180, south: all.map(\.south).min() ?? -85,
      east: crosses ? 180 : all.map(\.east).max() ?? 180, north: all.map(\.north).max() ?? 85,
      minZoom: all.map(\.minZoom).min() ?? 0, maxZoom: all.map(\.maxZoom).max() ?? 0,
      json: String(decoding: json.bytes, as: UTF8.self))
  }
}
