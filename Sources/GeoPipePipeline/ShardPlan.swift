import GeoPipeCore
import GeoPipeIO
import GeoPipeStageKit
import GeoPipeStages

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a pipeline runs as shards and a merge, writing exactly what one run writes.
///
/// The plan's steps fall on two sides. The map side holds the `read` stages, each shard reading
/// its share of their inputs (`InputShare`), and the stages that work feature by feature
/// downstream of them (`featureByFeature`) with a single input; `head` and `sort`, which the
/// merge runs again over the shards' features or reads with a k-way merge; GeoJSONSeq writes,
/// whose parts the merge concatenates; and, in a run of one shard, `tiles` whose tiles depend
/// on each feature alone, whose tileset the merge copies. Every other step is on the merge
/// side: other writers, stages that see all features (dissolve, cluster, other tiles, render,
/// …), stages with several inputs, and what follows them (and what follows a head or sort). A
/// map-side step whose features a merge-side step reads is a boundary: each shard writes its
/// features to a numbered part (GeoJSONSeq, coordinates as they are), and the merge reads the
/// parts of shards 0 to N-1 one after another, which is the stream of features the step emits
/// in one run, in the same order. The merge then runs the merge side as one run would.
///
/// In several shards, a `tiles` step whose tiles depend on each feature alone (`tiled`) runs
/// between the two, split by tile rather than by feature: each shard writes its features,
/// prepared for the tiler, to a features part, N shares of the tile space each absorb all the
/// shards' features parts and write their tiles, and the merge copies them.
public struct ShardPlan: Sendable {
  /// Which side of the split a step is on.
  public enum Side: Sendable, Equatable {
    /// Run by every shard on its share.
    case map
    /// Run once, by the merge, over the parts.
    case merge
  }

  /// The stages that emit, for each feature, features that depend on it alone (and on
  /// files they read whole, such as `join --with` or a gazetteer), in input order.
  public static let featureByFeature: Set<String> = [
    "filter", "select", "style", "geocode", "reverse-geocode", "simplify", "reproject",
    "circle", "buffer", "join", "clip", "explode",
  ]

  /// The stages that run in each shard and again in the merge over the shards' outputs,
  /// which gives what one run gives: the first N features of the shards' first N features in
  /// shard order are the first N features.
  public static let shardedThenMerged: Set<String> = ["head"]

  /// The stages that run in each shard on its share, and whose sorted parts the merge reads
  /// with a k-way merge (`SortedPartsReader`): ties go to the lower shard, whose features came
  /// first in the input, which is the stable sort of all the features.
  public static let sortedThenMerged: Set<String> = ["sort"]

  /// The plan split.
  public let plan: StagePlan
  /// How many shards.
  public let count: Int
  /// Each step's side.
  public let sides: [Side]
  /// The map-side steps whose features the merge reads, in step order (those `tiled` steps
  /// read reach the shares of the tiles as features parts instead).
  public let boundaries: [Int]
  /// The map-side `write` steps, of GeoJSONSeq: each shard writes its records to a part with
  /// the step's own options, and the merge concatenates the parts' bytes into the output.
  public let concatenated: [Int]
  /// The map-side `tiles` steps of a run in one shard whose tiles depend on each feature
  /// alone (`ShardedTiles.singleReduceReason`): the shard writes the whole tileset as its part,
  /// and the merge copies it into the output.
  public let joined: [Int]
  /// The `tiles` steps of a run in several shards whose tiles depend on each feature alone,
  /// fed by the map side.
  ///
  /// Each shard adds its features to a tiler as the step would (projected, properties
  /// numbered) and writes them to a features part. The tile space is split into as many
  /// shares as there are shards: each share (`geopipe merge --tile-share J`) reads every
  /// shard's features part in shard order, which gives the tiler of one run over the step's
  /// input, and writes the tiles of its share, exactly those of one run; the merge copies the
  /// shares' tiles into the output.
  public let tiled: [Int]
  private let partPrefixes: [Int: String]
  private let partExtensions: [Int: String]

  /// Splits `plan` into `count` shards; parts go to `partsFolder`, or beside the output each
  /// boundary's features lead to.
  public init(_ plan: StagePlan, count: Int, partsFolder: String? = nil) throws {
    _ = try Shard(index: 0, count: count)
    self.plan = plan
    self.count = count
    var sides: [Side] = []
    var concatenated: [Int] = []
    var joined: [Int] = []
    var tiled: [Int] = []
    for (k, step) in plan.steps.enumerated() {
      let map: Bool
      if step.definition.role == .source {
        map = step.definition.name == "read"
      } else if step.inputs.count != 1 || sides[step.inputs[0]] != .map
        || Self.mergesShards(plan.steps[step.inputs[0]])
      {
        map = false
      } else if Self.joinsTiles(step) {
        // One shard has every feature and writes the whole tileset; with more, the tile
        // space is split into shares, each reading every shard's features.
        map = count == 1
        if !map { tiled.append(k) }
      } else {
        map = Self.concatenatesRecords(step) || Self.mapsEachFeature(step)
      }
      if map && step.definition.role == .sink {
        if Self.joinsTiles(step) { joined.append(k) } else { concatenated.append(k) }
      }
      sides.append(map ? .map : .merge)
    }
    self.sides = sides
    self.concatenated = concatenated
    self.joined = joined
    self.tiled = tiled
    let consumers = plan.consumers()
    boundaries = plan.steps.indices.filter { k in
      sides[k] == .map && plan.steps[k].definition.role != .sink
        && (k == plan.standardOutput
          || consumers[k].contains { sides[$0.step] == .merge && !tiled.contains($0.step) })
    }
    var prefixes: [Int: String] = [:]
    var extensions: [Int: String] = [:]
    for k in concatenated + joined + tiled {
      let path = plan.steps[k].values.string("path") ?? ""
      extensions[k] =
        Self.joinsTiles(plan.steps[k])
        ? (path.lowercased().hasSuffix(".mbtiles") ? "mbtiles" : "pmtiles")
        : FeatureFormats.fileExtension(of: path) ?? "geojsonl"
      prefixes[k] = Self.prefix(in: partsFolder, beside: path, step: k)
    }
    for k in boundaries {
      if partsFolder != nil || Self.output(after: k, in: plan) != nil {
        prefixes[k] = Self.prefix(
          in: partsFolder, beside: Self.output(after: k, in: plan) ?? "", step: k)
      } else {
        let line = plan.steps[k].line.map { " (line \($0))" } ?? ""
        throw GeoPipeError.usage(
          "the features of step \(k + 1)\(line) go to no output file (standard output): give "
            + "--parts FOLDER for the shards' parts")
      }
    }
    partPrefixes = prefixes
    partExtensions = extensions
  }

  /// Where the parts of step `k` go: `FOLDER/stepK` or `OUTPUT.stepK`.
  private static func prefix(in folder: String?, beside output: String, step k: Int) -> String {
    guard let folder else { return "\(output).step\(k + 1)" }
    return (folder.hasSuffix("/") ? folder : folder + "/") + "step\(k + 1)"
  }

  /// Whether a step is a `write` of GeoJSONSeq to a file, whose output is the concatenation
  /// of the records of its input's features: not gzip-compressed (a gzip stream per shard is
  /// valid but not the same bytes), not standard output or a URL.
  static func concatenatesRecords(_ step: StagePlan.Step) -> Bool {
    guard step.definition.name == "write", let path = step.values.string("path"), path != "-",
      !path.lowercased().hasSuffix(".gz"), FeatureFormats.addressed(by: path) == nil
    else { return false }
    let given = step.values.string("output-format").flatMap { $0 == "auto" ? nil : $0 }
    return (given ?? FeatureFormats.writing(path)?.name) == "geojsonseq"
  }

  /// Whether a step runs in each shard and again, or as a k-way merge, in the merge: its
  /// features are only right once merged, so what reads them runs in the merge.
  static func mergesShards(_ step: StagePlan.Step) -> Bool {
    shardedThenMerged.contains(step.definition.name)
      || sortedThenMerged.contains(step.definition.name)
  }

  /// Whether a step is a `tiles` whose tiles depend on each feature alone.
  static func joinsTiles(_ step: StagePlan.Step) -> Bool {
    step.definition.name == "tiles" && ShardedTiles.singleReduceReason(step.values) == nil
  }

  /// Whether a step works feature by feature (`simplify` only without a layer-wide
  /// `--percentage` or `--shared-borders`), or runs in each shard before the merge.
  static func mapsEachFeature(_ step: StagePlan.Step) -> Bool {
    if mergesShards(step) { return true }
    guard featureByFeature.contains(step.definition.name) else { return false }
    if step.definition.name == "simplify" {
      return !step.values.has("percentage") && !step.values.flag("shared-borders")
    }
    return true
  }

  /// The path of shard `shard`'s part of boundary step `step`:
  /// `OUTPUT.stepK.part-I-of-N.geojsonl` (I zero-padded to the width of N - 1); of a `tiled`
  /// step, its features part `OUTPUT.stepK.part-I-of-N.tilefeatures`.
  public func partPath(of step: Int, shard: Int) -> String {
    numberedPath(of: step, kind: "part", number: shard)
  }

  /// The path of share `share`'s part of the tiles of `tiled` step `step`:
  /// `OUTPUT.stepK.share-J-of-N.pmtiles`.
  public func sharePath(of step: Int, share: Int) -> String {
    numberedPath(of: step, kind: "share", number: share)
  }

  /// `PREFIX.KIND-I-of-N.EXT`, I zero-padded to the width of N - 1.
  private func numberedPath(of step: Int, kind: String, number: Int) -> String {
    let width = String(count - 1).count
    let digits = String(number)
    let padded = String(repeating: "0", count: max(0, width - digits.count)) + digits
    let ext =
      kind == "part" && tiled.contains(step) ? "tilefeatures" : partExtensions[step] ?? "geojsonl"
    return "\(partPrefixes[step] ?? "step\(step + 1)").\(kind)-\(padded)-of-\(count).\(ext)"
  }

  /// The parts of every shard, or an error naming the first that is missing.
  func checkedParts(of step: Int) throws -> [String] {
    let parts = (0..<count).map { partPath(of: step, shard: $0) }
    for (shard, part) in parts.enumerated()
    where access(part, F_OK) != 0
      || (joined.contains(step) && access(ShardedTiles.infoPath(of: part), F_OK) != 0)
    {
      throw GeoPipeError(
        "\(part): the part of shard \(shard)/\(count) is missing: run "
          + "'geopipe run FILE --shard \(shard)/\(count)' first", status: .noInput)
    }
    return parts
  }

  /// The tiles of every share of a `tiled` step, or an error naming the first that is missing.
  func checkedShares(of step: Int) throws -> [String] {
    let parts = (0..<count).map { sharePath(of: step, share: $0) }
    for (share, part) in parts.enumerated()
    where access(part, F_OK) != 0 || access(ShardedTiles.infoPath(of: part), F_OK) != 0 {
      throw GeoPipeError(
        "\(part): the tiles of share \(share)/\(count) are missing: run "
          + "'geopipe merge FILE --shards \(count) --tile-share \(share)' first", status: .noInput)
    }
    return parts
  }

  /// Checks that every part the merge needs is there.
  public func checkParts() throws {
    for k in concatenated + joined + boundaries { _ = try checkedParts(of: k) }
    for k in tiled { _ = try checkedShares(of: k) }
  }

  /// Concatenates the parts of each concatenated `write` into its output, committed
  /// atomically; returns each output's path and record count.
  public func concatenate() throws -> [(path: String, records: Int)] {
    try concatenated.map { k in
      let path = plan.steps[k].values.string("path") ?? "-"
      // Direct I/O: the parts are copied past the page cache, whose fresh pages cost the
      // kernel more than the copy itself.
      let file = try OutputFile(path: path, direct: true)
      var records = 0
      let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 8)
      defer { block.deallocate() }
      do {
        for part in try checkedParts(of: k) {
          let source = try FileByteSource(path: part)
          while case let n = try source.read(into: block), n > 0 {
            let bytes = UnsafeRawBufferPointer(rebasing: block[..<n])
            records += Self.lineFeeds(in: bytes)
            try file.write(bytes)
          }
        }
        try file.commit()
      } catch {
        file.abort()
        throw error
      }
      return (path, records)
    }
  }

  /// Copies the tiles of each `joined` and `tiled` step's parts into its output, committed
  /// atomically; returns each output's path and tile count.
  public func gatherTiles(report: @escaping @Sendable (ReadDiagnostic) -> Void)
    throws -> [(path: String, tiles: Int)]
  {
    try (joined + tiled).sorted().map { k in
      let values = plan.steps[k].values
      let parts = joined.contains(k) ? try checkedParts(of: k) : try checkedShares(of: k)
      let tiles = try ShardedTiles.gather(values, parts: parts, report: report)
      return (values.string("path") ?? "", tiles)
    }
  }

  /// The plan share `share` of the tiles runs (`merge --tile-share`): each `tiled` step,
  /// reading the features parts of every shard and writing its share, after a source of no
  /// features.
  ///
  /// Throws when a part is missing.
  public func sharePlan(_ share: Int) throws -> StagePlan {
    var none = OptionValues()
    none.set("path", .list([]))
    var steps = [StagePlan.Step(definition: ShardParts.reader, values: none, inputs: [])]
    for k in tiled {
      var values = ShardedTiles.partValues(
        plan.steps[k].values, path: sharePath(of: k, share: share))
      values.set("features-parts", .list(try checkedParts(of: k)))
      steps.append(
        StagePlan.Step(
          definition: ShardedTiles.shareWriter, values: values, inputs: [0],
          line: plan.steps[k].line))
    }
    return StagePlan(steps: steps, standardOutput: nil)
  }

  /// A reader of the parts of boundary `k` in shard order (as a k-way merge after a `sort`),
  /// whose features are in the CRS that step's are (`passed`: the plan's steps as
  /// `passingCRSOn()` gives them).
  private func partsReader(of k: Int, passed: [StagePlan.Step]) throws -> StagePlan.Step {
    let parts = try checkedParts(of: k)
    let sorted = Self.sortedThenMerged.contains(plan.steps[k].definition.name)
    var values = sorted ? plan.steps[k].values : OptionValues()
    values.set("path", .list(parts))
    if let crs = Self.outputCRS(of: k, in: passed) {
      values.set("crs", .string(crs))
      values.set("keep-crs", .flag(true))
    }
    return StagePlan.Step(
      definition: sorted ? ShardParts.sortedReader : ShardParts.reader, values: values,
      inputs: [], line: plan.steps[k].line)
  }

  /// The plan a shard runs: the map side, concatenated writes writing their parts.
  public func mapPlan(shard: Int) -> StagePlan {
    var steps: [StagePlan.Step] = []
    var index: [Int: Int] = [:]
    for (k, step) in plan.steps.enumerated() where sides[k] == .map {
      var copy = step
      if concatenated.contains(k) {
        copy.values.set("path", .string(partPath(of: k, shard: shard)))
      } else if joined.contains(k) {
        copy.values = ShardedTiles.partValues(step.values, path: partPath(of: k, shard: shard))
      }
      copy.inputs = step.inputs.compactMap { index[$0] }
      index[k] = steps.count
      steps.append(copy)
    }
    return StagePlan(steps: steps, standardOutput: nil)
  }

  /// The part writers a shard adds to `mapPlan()`: for each boundary in order, then the
  /// features parts of the `tiled` steps.
  public func partSteps(shard: Int) -> [StagePlan.Step] {
    let mapIndex = Dictionary(
      uniqueKeysWithValues: plan.steps.indices.filter { sides[$0] == .map }.enumerated().map {
        ($1, $0)
      })
    let parts = boundaries.map { k in
      var values = OptionValues()
      values.set("path", .string(partPath(of: k, shard: shard)))
      return StagePlan.Step(
        definition: ShardParts.writer, values: values, inputs: [mapIndex[k] ?? 0],
        line: plan.steps[k].line)
    }
    return parts
      + tiled.map { k in
        StagePlan.Step(
          definition: ShardedTiles.featuresPartWriter,
          values: ShardedTiles.partValues(
            plan.steps[k].values, path: partPath(of: k, shard: shard)),
          inputs: [mapIndex[plan.steps[k].inputs[0]] ?? 0], line: plan.steps[k].line)
      }
  }

  /// The plan shard `shard` runs.
  public func shardPlan(_ shard: Int) -> StagePlan {
    var map = mapPlan(shard: shard)
    map.steps += partSteps(shard: shard)
    return map
  }

  /// The plan the merge runs: a reader of each boundary's parts in shard order, then the merge
  /// side.
  ///
  /// Throws when a part is missing.
  public func mergePlan() throws -> StagePlan {
    var steps: [StagePlan.Step] = []
    var index: [Int: Int] = [:]
    try checkParts()
    let passed = plan.passingCRSOn()
    for k in boundaries {
      index[k] = steps.count
      steps.append(try partsReader(of: k, passed: passed))
      if Self.shardedThenMerged.contains(plan.steps[k].definition.name) {
        var again = plan.steps[k]
        again.inputs = [steps.count - 1]
        index[k] = steps.count
        steps.append(again)
      }
    }
    for (k, step) in plan.steps.enumerated() where sides[k] == .merge && !tiled.contains(k) {
      var copy = step
      copy.inputs = step.inputs.compactMap { index[$0] }
      index[k] = steps.count
      steps.append(copy)
    }
    return StagePlan(steps: steps, standardOutput: plan.standardOutput.flatMap { index[$0] })
  }

  /// How many line feeds `bytes` holds (`memchr` finds them at memory speed).
  private static func lineFeeds(in bytes: UnsafeRawBufferPointer) -> Int {
    guard var from = bytes.baseAddress else { return 0 }
    let end = from + bytes.count
    var count = 0
    while from < end, let hit = memchr(from, 0x0A, end - from) {
      count += 1
      from = UnsafeRawPointer(hit) + 1
    }
    return count
  }

  /// The steps the merge runs: concatenated writes, map-side steps that run again or as a
  /// k-way merge over the parts, then the merge side (whose `tiled` steps it copies the
  /// shares of), in step order.
  public var mergeSteps: [Int] {
    plan.steps.indices.filter { k in
      sides[k] == .merge || concatenated.contains(k) || joined.contains(k)
        || (boundaries.contains(k) && Self.mergesShards(plan.steps[k]))
    }
  }

  /// What the merge does with a merge-side step's input, in a few words for `geopipe plan`.
  public func mergeDescription(of k: Int) -> String {
    let step = plan.steps[k]
    let name = step.definition.name
    if concatenated.contains(k) { return "concatenates the bytes of the shards' parts" }
    if joined.contains(k) { return "copies the shard's tileset" }
    if tiled.contains(k) {
      return "copies the tiles of the \(count) shares (each tile is in one share)"
    }
    if Self.sortedThenMerged.contains(name) && sides[k] == .map {
      return "k-way merge of the shards' sorted parts (ties to the lower shard)"
    }
    if Self.shardedThenMerged.contains(name) && sides[k] == .map {
      return "again, over the shards' features in shard order"
    }
    if step.definition.role == .source {
      return "a source that does not split: read once, by the merge"
    }
    let sortedInput =
      step.inputs.count == 1 && sides[step.inputs[0]] == .map
      && Self.sortedThenMerged.contains(plan.steps[step.inputs[0]].definition.name)
    let features =
      sortedInput
      ? "the k-way merge of the shards' sorted parts"
      : "the shards' features, concatenated in shard order"
    let reduce = "a single reduce over " + features
    if !step.inputs.isEmpty, step.inputs.allSatisfy({ sides[$0] == .merge }) {
      return "runs after a merge step"
    }
    if step.inputs.count == 1, Self.featureByFeature.contains(name) {
      return "runs in the merge, feature by feature, over " + features
    }
    switch name {
    case "write" where sortedInput:
      return "writes the k-way merge of the shards' sorted parts"
    case "write":
      return "writes the shards' features concatenated in shard order"
    case "tiles":
      let why = ShardedTiles.singleReduceReason(step.values).map { " (\($0))" } ?? ""
      return reduce + why
    case "cluster":
      return reduce
        + " (supercluster's greedy clustering visits points in input order, so no split of it "
        + "is exact)"
    default:
      if step.inputs.count > 1 { return reduce + " (several inputs are concatenated whole)" }
      if name == "simplify" { return reduce + " (simplifies the layer as a whole)" }
      return reduce
    }
  }

  /// The CRS of the features step `k` emits, as the runner passes it on: `read --crs X
  /// --keep-crs` and `reproject --to X` emit X, other steps their input's.
  static func outputCRS(of k: Int, in steps: [StagePlan.Step]) -> String? {
    let step = steps[k]
    if let option = step.definition.outputCRSOption { return step.values.string(option) }
    if step.definition.role == .source {
      return step.values.flag("keep-crs") ? step.values.string("crs") : nil
    }
    return step.inputs.first.flatMap { outputCRS(of: $0, in: steps) }
  }

  /// The first output file written downstream of step `k`.
  private static func output(after k: Int, in plan: StagePlan) -> String? {
    var reached: Set<Int> = [k]
    for j in plan.steps.indices where j > k {
      guard plan.steps[j].inputs.contains(where: reached.contains) else { continue }
      reached.insert(j)
      let step = plan.steps[j]
      if !step.definition.pathIsInput, let path = step.values.string("path"), path != "-",
        FeatureFormats.addressed(by: path) == nil
      {
        return path
      }
    }
    return nil
  }
}
