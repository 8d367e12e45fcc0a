import GeoPipeCore
import GeoPipeIO
import GeoPipeStageKit

/// `sort`: orders features by properties, spilling sorted runs to temporary files when the
/// input does not fit in its memory budget.
final class SortStage: Stage {
  static let definition = StageDefinition(
    name: "sort",
    abstract: "Sort features by one or more properties, or spatially along a Hilbert curve.",
    discussion: """
      Sorts features by the --by properties: by the first, then by the second where the
      first is equal, and so on. Numbers, and strings that hold a number (CSV columns),
      come first in numeric order; then other strings by Unicode code point ('Z' before
      'a'); then false, true; then arrays and objects. A missing or null value comes last,
      with --desc too. --desc reverses the order of the values for every property.
      Features with equal values keep their input order, in both directions.
      --by-hilbert sorts features along a Hilbert curve through the centres of their
      bounding boxes (on a 65536 × 65536 grid over the WGS84 world), so that features
      near each other end up near each other: row groups of a GeoParquet file (and pages
      of other formats) written in that order cover small areas, and a --bbox read skips
      most of them. Features without geometry come last; --by properties break ties.
      A --by property that no feature has (a misspelt name) is a warning at the end, with
      the closest name the features had; with --strict it is an error (exit 65).

      Sort sees every feature before it writes one. Up to --memory MiB of features (as
      estimated) are sorted in memory; beyond that, sorted runs go to temporary files in
      $TMPDIR (else /tmp) and are merged at the end, so an input larger than memory sorts
      too, with room in $TMPDIR for up to twice its size as GeoJSONSeq. The files have no
      name from the moment they are created, so nothing is left behind however the run
      ends.
      """,
    examples: [
      "geopipe read places.csv | geopipe sort --by population --desc | geopipe head 10",
      "geopipe read places.csv | geopipe sort --by country,name",
      "geopipe read big.geojsonl | geopipe sort --by name --memory 2048 | geopipe write sorted.geojsonl",
      "geopipe read places.geojsonl | geopipe sort --by-hilbert | geopipe write places.parquet",
    ],
    options: [
      OptionSpec(
        "by", .list, validate: validateProperties,
        help: "The properties to sort by, most significant first (required unless "
          + "--by-hilbert)."),
      OptionSpec(
        "by-hilbert", .flag,
        help: "Sort spatially, along a Hilbert curve through the features' box centres "
          + "(then by the --by properties)."),
      OptionSpec(
        "desc", .flag,
        help: "Sort from the largest value down (missing values stay last; ties keep input "
          + "order)."),
      OptionSpec(
        "memory", .integer, default: "256", validate: validateMemory,
        help: "MiB of features to sort in memory before spilling sorted runs to $TMPDIR, 1 to "
          + "1048576 (1 TiB)."),
      PropertyUsage.strictOption,
    ],
    role: .transform, buffersAll: true, checkValues: checkValues,
    make: { values, context in
      if let problem = checkValues(values) { throw GeoPipeError.usage(problem.message) }
      return .stage(
        SortStage(
          properties: values.list("by") ?? [], hilbert: values.flag("by-hilbert"),
          descending: values.flag("desc"),
          memoryBudget: mebibytes(values.integer("memory") ?? 256), strict: values.flag("strict"),
          context: context))
    })

  /// `--by` or `--by-hilbert` is needed.
  private static func checkValues(_ values: OptionValues) -> OptionProblem? {
    guard (values.list("by") ?? []).isEmpty, !values.flag("by-hilbert") else { return nil }
    return OptionProblem(option: "by", "missing --by (the properties to sort by) or --by-hilbert")
  }

  private let order: SortOrder
  private let memoryBudget: Int
  private var runs: SortRuns
  private var features: [Feature] = []
  private var keys: [[SortValue]] = []
  private var bufferedBytes = 0
  private var usage: PropertyUsage
  private let report: @Sendable (ReadDiagnostic) -> Void
  private let counters: RunCounters?
  /// How many sorted runs were written from memory to temporary files.
  private(set) var spilledRuns = 0

  /// Creates a sort that keeps about `memoryBudget` bytes of features in memory, writing
  /// sorted runs to `temporaryDirectory` (`$TMPDIR`, else `/tmp`) beyond that and merging at
  /// most `fanIn` of them at once.
  init(
    properties: [String], hilbert: Bool = false, descending: Bool, memoryBudget: Int,
    temporaryDirectory: String = SortRuns.temporaryDirectory, fanIn: Int = 16,
    strict: Bool = false, context: StageContext? = nil
  ) {
    order = SortOrder(properties: properties, descending: descending, hilbert: hilbert)
    // A shard's share may lack a property the others have: the merge of the shards' sorted
    // parts checks the names over all the features (`SortedPartsReader`).
    usage = PropertyUsage(
      stage: "sort", names: context?.shard == nil ? properties : [], strict: strict)
    report = context?.diagnostics ?? Self.ignore
    counters = context?.counters
    self.memoryBudget = memoryBudget
    runs = SortRuns(order: order, directory: temporaryDirectory, fanIn: fanIn)
  }

  func process(_ feature: Feature, emit: Emit) throws {
    usage.observe(feature.properties)
    let key = order.key(for: feature)
    features.append(feature)
    keys.append(key)
    bufferedBytes += feature.estimatedSize + 32 + 24 * key.count
    if bufferedBytes > memoryBudget {
      try runs.append(sortedIndices().lazy.map { self.features[$0] })
      spilledRuns += 1
      counters?.report(
        "\(spilledRuns) sorted run\(spilledRuns == 1 ? "" : "s") spilled to \(runs.directory)")
      features.removeAll(keepingCapacity: true)
      keys.removeAll(keepingCapacity: true)
      bufferedBytes = 0
    }
  }

  func finish(emit: Emit) throws {
    defer { release() }
    try usage.finish(report: report)
    let sorted = sortedIndices().lazy.map { self.features[$0] }
    if runs.isEmpty {
      for feature in sorted { try emit(feature) }
    } else {
      counters?.report("merging \(spilledRuns + 1) sorted runs")
      try runs.merge(withLast: sorted, emit: emit)
    }
  }

  func abort() {
    release()
  }

  /// Drops the features held and closes the temporary files, which frees their space.
  private func release() {
    features = []
    keys = []
    bufferedBytes = 0
    runs.removeAll()
  }

  /// The indices of the features held, in sorted order; input order breaks ties.
  private func sortedIndices() -> [Int] {
    features.indices.sorted { a, b in
      let c = order.compare(keys[a], keys[b])
      return c != 0 ? c < 0 : a < b
    }
  }

  private static func mebibytes(_ n: Int) -> Int {
    let (bytes, overflow) = n.multipliedReportingOverflow(by: 1 << 20)
    return overflow ? .max : bytes
  }

  private static func validateProperties(_ text: String) -> ValueProblem? {
    text.split(separator: ",").isEmpty ? ValueProblem("expected one or more property names") : nil
  }

  private static func validateMemory(_ text: String) -> ValueProblem? {
    guard let n = Int(text), !(1...1_048_576).contains(n) else { return nil }
    return ValueProblem("expected a whole number of MiB, 1 or more and at most 1048576")
  }

  private static let ignore: @Sendable (ReadDiagnostic) -> Void = { _ in }
}
