import GeoPipeCore
import GeoPipeIO

/// `info`: a summary of features — count, geometry types, bounds, properties.
final class InfoStage: Stage {
  static let definition = StageDefinition(
    name: "info",
    abstract: "Summarise features: count, geometry types, bounds and property types.",
    discussion: """
      Reads every feature (streaming: memory does not grow with the input) and prints the
      number of features, the count of each geometry type, the bounding box, and for each
      property its JSON types, how many features have it null and how many lack it.
      """,
    examples: [
      "geopipe info places.geojson",
      "geopipe read places.csv | geopipe info --json",
    ],
    options: [
      OptionSpec("path", .path, default: "-", positional: true, help: "The input file ('-' for standard input)."),
      OptionSpec("json", .flag, help: "Print the summary as JSON."),
    ],
    role: .sink, pathIsInput: true,
    make: { values, context in .stage(InfoStage(json: values.flag("json"), output: context.standardOutput)) })

  private struct PropertySummary {
    var types: [String] = []
    var nulls = 0
    var present = 0
  }

  private let json: Bool
  private let output: @Sendable ([UInt8]) throws -> Void
  private var count = 0
  private var kinds: [String: Int] = [:]
  private var bounds = BBox.empty
  private var names: [String] = []
  private var summaries: [String: PropertySummary] = [:]

  init(json: Bool, output: @escaping @Sendable ([UInt8]) throws -> Void) {
    self.json = json
    self.output = output
  }

  func process(_ feature: Feature, emit: Emit) throws {
    count += 1
    if let geometry = feature.geometry {
      kinds[geometry.typeName, default: 0] += 1
      if let box = geometry.bbox { bounds.extend(box) }
    } else {
      kinds["null", default: 0] += 1
    }
    for member in feature.properties?.members ?? [] {
      if summaries[member.key] == nil {
        names.append(member.key)
        summaries[member.key] = PropertySummary()
      }
      summaries[member.key]?.present += 1
      if member.value.isNull {
        summaries[member.key]?.nulls += 1
      } else if summaries[member.key]?.types.contains(member.value.typeName) == false {
        summaries[member.key]?.types.append(member.value.typeName)
      }
    }
  }

  func finish(emit: Emit) throws {
    try output(json ? jsonReport() : textReport())
  }

  private var sortedKinds: [(String, Int)] {
    kinds.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
  }

  private func textReport() -> [UInt8] {
    var lines = ["features: \(count)"]
    if !kinds.isEmpty {
      lines.append("geometry: " + sortedKinds.map { "\($0.0) \($0.1)" }.joined(separator: ", "))
    }
    if !bounds.isEmpty {
      lines.append("bbox: \(bounds.west), \(bounds.south), \(bounds.east), \(bounds.north)")
    }
    if !names.isEmpty {
      lines.append("properties:")
      let width = names.map(\.count).max() ?? 0
      for name in names {
        guard let summary = summaries[name] else { continue }
        let types = summary.types.isEmpty ? "null" : summary.types.joined(separator: "|")
        var line = "  " + name + String(repeating: " ", count: max(0, width - name.count)) + "  " + types
        line += "  (\(summary.nulls) null, \(count - summary.present) missing)"
        lines.append(line)
      }
    }
    return Array((lines.joined(separator: "\n") + "\n").utf8)
  }

  private func jsonReport() -> [UInt8] {
    var report = JSONObject()
    report["features"] = .integer(Int64(count))
    var kindsObject = JSONObject()
    for (kind, n) in sortedKinds { kindsObject[kind] = .integer(Int64(n)) }
    report["geometryTypes"] = .object(kindsObject)
    report["bbox"] =
      bounds.isEmpty
      ? .null
      : .array([bounds.west, bounds.south, bounds.east, bounds.north].map { .double($0) })
    report["properties"] = .array(
      names.compactMap { name in
        guard let summary = summaries[name] else { return nil }
        return .object([
          "name": .string(name),
          "types": .array(summary.types.map { .string($0) }),
          "nulls": .integer(Int64(summary.nulls)),
          "missing": .integer(Int64(count - summary.present)),
        ])
      })
    var writer = JSONTextWriter()
    writer.writeObject(report)
    writer.bytes.append(0x0A)
    return writer.bytes
  }
}
