import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeStageKit
import GeoPipeStages

/// `geopipe layers FILE`: the layers of a file, as `fio ls` and `ogrinfo -so` tell them.
enum LayersCommand {
  static let options: [OptionSpec] = [
    OptionSpec(
      "path", .path, required: true, positional: true, help: "The file to describe."),
    OptionSpec(
      "input-format", .choice(["auto"] + Formats.readable.map(\.name)), default: "auto",
      help: "The format; by default from the extension or the first bytes, as 'read' decides."),
    OptionSpec("json", .flag, help: "Print the layers as a JSON array."),
  ]

  static let discussion = """
    Lists the layers of a file: for each, its name, geometry type, number of features, CRS,
    fields with their types, and bounds. Formats with several layers (a GeoPackage's feature
    tables, the shapefiles of a zip archive) answer from their metadata without reading the
    features; a file with one layer (GeoJSON, CSV, FlatGeobuf, ...) is described by reading it
    through, with each property's JSON kinds. 'geopipe read --layer NAME' and
    'geopipe info --layer NAME' read one of them.
    """

  static let examples = [
    "geopipe layers parcels.gpkg",
    "geopipe layers --json boundaries.zip",
    "geopipe layers places.geojson",
  ]

  static let entry = CommandEntry(
    name: "layers", abstract: "List the layers of a file: geometry type, count, CRS and fields.",
    discussion: discussion, examples: examples,
    groups: [("OPTIONS", options), ("GLOBAL OPTIONS", Help.globalOptions)],
    run: { _, values in
      do {
        print(try describe(values), terminator: "")
        return 0
      } catch let error as GeoPipeError {
        CommandEntry.printUsageError(error, command: "layers")
        return error.status.rawValue
      } catch {
        Terminal.printError("error: \(error)")
        return ExitStatus.ioError.rawValue
      }
    })

  /// The text (or JSON) `layers` prints.
  static func describe(_ values: OptionValues) throws -> String {
    let path = values.string("path") ?? "-"
    var options = ReadOptions()
    options.diagnostics = { _ in }
    if let name = values.string("input-format"), name != "auto" {
      options.format = Formats.named(name)
    }
    var (format, layers) = try FeatureReaders.layers(path, options: options)
    if layers == nil {
      let reader = try FeatureReaders.open(path, options: options)
      let base = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
      layers = [try LayerInfo(reading: reader, name: path == "-" ? "stdin" : base)]
    }
    let found = layers ?? []
    return values.flag("json") ? json(found) : text(path, format: format, found)
  }

  private static func text(_ path: String, format: FeatureFormat?, _ layers: [LayerInfo])
    -> String
  {
    var out = "\(path): \(format?.title ?? "")\(format == nil ? "" : ", ")"
    out += "\(layers.count) layer\(layers.count == 1 ? "" : "s")\n"
    for layer in layers {
      var line = "  \(layer.name): \(layer.geometryType ?? "unknown geometry")"
      if let count = layer.count { line += ", \(count) feature\(count == 1 ? "" : "s")" }
      if let crs = layer.crs {
        line += ", \(crs.count > 60 ? String(crs.prefix(57)) + "..." : crs)"
      }
      out += line + "\n"
      if let b = layer.bounds {
        out +=
          "    bounds: \(number(b.west)),\(number(b.south)),\(number(b.east)),\(number(b.north))\n"
      }
      for field in layer.fields {
        out += field.type.isEmpty ? "    \(field.name)\n" : "    \(field.name): \(field.type)\n"
      }
    }
    return out
  }

  private static func json(_ layers: [LayerInfo]) -> String {
    var items: [JSONValue] = []
    for layer in layers {
      var object = JSONObject()
      object["name"] = .string(layer.name)
      object["geometry_type"] = layer.geometryType.map { .string($0) } ?? .null
      object["count"] = layer.count.map { .integer(Int64($0)) } ?? .null
      object["crs"] = layer.crs.map { .string($0) } ?? .null
      var fields = JSONObject()
      for field in layer.fields { fields[field.name] = .string(field.type) }
      object["fields"] = .object(fields)
      object["bounds"] =
        layer.bounds.map { b in .array([b.west, b.south, b.east, b.north].map { .double($0) }) }
        ?? .null
      items.append(.object(object))
    }
    var writer = JSONTextWriter()
    writer.writeValue(.array(items))
    return String(decoding: writer.bytes, as: UTF8.self) + "\n"
  }

  private static func number(_ x: Double) -> String { String(format: "%.6g", x) }
}
