import GeoPipeCore
import GeoPipeIO
import GeoPipeStageKit

/// `dedupe`: drops features whose geometry (or key) an earlier feature already had.
final class DedupeStage: Stage {
  static let definition = StageDefinition(
    name: "dedupe",
    abstract: "Drop features whose geometry, or --by key, an earlier feature had.",
    discussion: """
      Keeps the first feature of each distinct geometry, in input order, and drops the
      others; at the end a note on stderr counts the features dropped. Geometries are the
      same when their types and every coordinate are equal (exactly: 1e-9 apart is
      different, and a ring that starts at another vertex is another geometry).
      Features without a geometry are all kept.
      With --by, the key is the values of the properties named instead (one or more,
      comma-separated), compared as SQL's DISTINCT does: a missing property counts as null,
      nulls are equal, and numbers are equal by value (1 and 1.0), but a number is not the
      text that spells it (1 and "1" differ).
      Streams, but remembers every distinct key (without --by, every distinct geometry), so
      memory grows with the number of distinct features.
      A property that --by names and no feature has (a misspelt name) is a warning at the
      end, with the closest name the features had; with --strict it is an error (exit 65).
      """,
    examples: [
      "geopipe read stops.geojson | geopipe dedupe > unique-stops.geojsonl",
      "geopipe read a.csv b.csv | geopipe dedupe --by id | geopipe write all.csv",
      "geopipe read places.csv | geopipe dedupe --by name,country",
    ],
    options: [
      OptionSpec(
        "by", .list, validate: validateNames,
        help: "Compare these properties instead of the geometry (comma-separated)."),
      PropertyUsage.strictOption,
    ],
    role: .transform,
    make: { values, context in .stage(DedupeStage(values, context: context)) })

  private let keys: [String]?
  private let report: @Sendable (ReadDiagnostic) -> Void
  private var usage: PropertyUsage
  private var seenGeometries: Set<Geometry> = []
  private var seenKeys: Set<[JSONValue]> = []
  private var dropped = 0

  init(_ values: OptionValues, context: StageContext? = nil) {
    keys = values.list("by")
    report = context?.diagnostics ?? Self.ignore
    usage = PropertyUsage(stage: "dedupe", names: keys ?? [], strict: values.flag("strict"))
  }

  func process(_ feature: Feature, emit: Emit) throws {
    let isNew: Bool
    if let keys {
      usage.observe(feature.properties)
      isNew = seenKeys.insert(keys.map { Self.distinctValue(feature.properties?[$0]) }).inserted
    } else if let geometry = feature.geometry {
      isNew = seenGeometries.insert(geometry).inserted
    } else {
      isNew = true
    }
    if isNew {
      try emit(feature)
    } else {
      dropped += 1
    }
  }

  func finish(emit: Emit) throws {
    try usage.finish(report: report)
    let by = keys.map { "the same \($0.joined(separator: ", "))" } ?? "the same geometry"
    let features = dropped == 1 ? "1 feature" : "\(dropped) features"
    report(
      ReadDiagnostic(
        severity: .note, message: "dedupe: dropped \(features) with \(by) as an earlier one"))
  }

  /// A value as DISTINCT compares it: missing is null, a whole float is its integer.
  private static func distinctValue(_ value: JSONValue?) -> JSONValue {
    switch value {
    case nil: return .null
    case .double(let x)? where x == x.rounded() && Swift.abs(x) < 9.0e18:
      return .integer(Int64(x))
    case let value?: return value
    }
  }

  private static let ignore: @Sendable (ReadDiagnostic) -> Void = { _ in }

  private static func validateNames(_ text: String) -> ValueProblem? {
    text.split(separator: ",").isEmpty ? ValueProblem("expected one or more property names") : nil
  }
}
