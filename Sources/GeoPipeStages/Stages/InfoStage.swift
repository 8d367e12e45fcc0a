import GeoPipeCore
import GeoPipeIO
import GeoPipeStageKit

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
      OptionSpec(
        "path", .path, default: "-", positional: true,
        help: "The input file ('-' for standard input)."),
      OptionSpec("json", .flag, help: "Print the summary as JSON."),
    ],
    role: .sink, pathIsInput: true,
    make: { values, context in
      .stage(InfoStage(json: values.flag("json"), output: context.standardOutput))
    })

  private struct PropertySummary {
    var name: String
    /// JSON type names in the order first seen.
    var types: [String] = []
    /// The types seen, one bit per `typeCode`.
    var typeBits: UInt8 = 0
    var nulls = 0
    var present = 0
  }

  private static let allKinds = GeometryKind.allCases
  /// A value of each JSON type but null, in `typeCode` order, to name the types.
  private static let typeExamples: [JSONValue] = [
    .bool(false), .integer(0), .double(0), .string(""), .array([]), .object(JSONObject()),
  ]

  private let json: Bool
  private let output: @Sendable ([UInt8]) throws -> Void
  private var count = 0
  private var kindCounts = [Int](repeating: 0, count: allKinds.count + 1)
  private var bounds = BBox.empty
  private var summaries: [PropertySummary] = []
  private var slots: [String: Int] = [:]
  // The previous feature's keys and their slots: features usually repeat them in order, and
  // comparing equal strings is cheaper than hashing them.
  private var recentKeys: [String] = []
  private var recentSlots: [Int] = []

  init(json: Bool, output: @escaping @Sendable ([UInt8]) throws -> Void) {
    self.json = json
    self.output = output
  }

  func process(_ feature: Feature, emit: Emit) throws {
    count += 1
    if let geometry = feature.geometry {
      kindCounts[Self.allKinds.firstIndex(of: geometry.kind) ?? 0] += 1
      // Points, the common case, need no closure.
      if case .point(let position) = geometry {
        bounds.extend(x: position.x, y: position.y)
      } else {
        geometry.forEachXY { x, y in bounds.extend(x: x, y: y) }
      }
    } else {
      kindCounts[Self.allKinds.count] += 1
    }
    guard let properties = feature.properties else { return }
    properties.members.withUnsafeBufferPointer { members in
      for position in members.indices {
        let slot =
          position < recentKeys.count && recentKeys[position] == members[position].key
          ? recentSlots[position] : slot(for: members[position].key, at: position)
        summaries[slot].present += 1
        guard let code = Self.typeCode(members[position].value) else {
          summaries[slot].nulls += 1
          continue
        }
        let bit: UInt8 = 1 << code
        if summaries[slot].typeBits & bit == 0 {
          summaries[slot].typeBits |= bit
          summaries[slot].types.append(Self.typeExamples[code].typeName)
        }
      }
    }
  }

  /// The index of a value's type in `typeExamples`, or nil for null; matching the case alone
  /// copies no payload.
  private static func typeCode(_ value: JSONValue) -> Int? {
    switch value {
    case .null: nil
    case .bool: 0
    case .integer, .bigInteger: 1
    case .double, .bigNumber: 2
    case .string: 3
    case .array: 4
    case .object: 5
    }
  }

  /// The slot of a key that is not the previous feature's key at `position`.
  private func slot(for key: String, at position: Int) -> Int {
    let slot: Int
    if let known = slots[key] {
      slot = known
    } else {
      slot = summaries.count
      slots[key] = slot
      summaries.append(PropertySummary(name: key))
    }
    if position < recentKeys.count {
      recentKeys[position] = key
      recentSlots[position] = slot
    } else if position == recentKeys.count {
      recentKeys.append(key)
      recentSlots.append(slot)
    }
    return slot
  }

  private var kinds: [(String, Int)] {
    var named = Self.allKinds.enumerated().map { ($1.rawValue, kindCounts[$0]) }
    named.append(("null", kindCounts[Self.allKinds.count]))
    return named.filter { $0.1 > 0 }
  }

  func finish(emit: Emit) throws {
    try output(json ? jsonReport() : textReport())
  }

  private var sortedKinds: [(String, Int)] {
    kinds.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
  }

  private func textReport() -> [UInt8] {
    var lines = ["features: \(count)"]
    if !kinds.isEmpty {
      lines.append("geometry: " + sortedKinds.map { "\($0.0) \($0.1)" }.joined(separator: ", "))
    }
    if !bounds.isEmpty {
      lines.append("bbox: \(bounds.west), \(bounds.south), \(bounds.east), \(bounds.north)")
    }
    if !summaries.isEmpty {
      lines.append("properties:")
      let width = summaries.map(\.name.count).max() ?? 0
      for summary in summaries {
        let name = summary.name
        let types = summary.types.isEmpty ? "null" : summary.types.joined(separator: "|")
        var line =
          "  " + name + String(repeating: " ", count: max(0, width - name.count)) + "  " + types
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
      summaries.map { summary in
        .object([
          "name": .string(summary.name),
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
