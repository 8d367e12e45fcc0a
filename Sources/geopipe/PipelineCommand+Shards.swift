import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipePipeline
import GeoPipeStageKit

/// `geopipe run FILE --shard i/N`, `geopipe plan FILE --shards N` and
/// `geopipe merge FILE --shards N`.
extension PipelineCommand {
  static func shardOptions(for name: String) -> [OptionSpec] {
    let parts = OptionSpec(
      "parts", .path,
      help: "The folder for the shards' parts, seen by every shard and the merge; by default "
        + "each part is written beside the output it leads to (OUTPUT.stepK.part-I-of-N.geojsonl).")
    let shards = OptionSpec(
      "shards", .integer, required: true, range: 1...Shard.maxCount,
      help: "The number of shards the run is split into.")
    switch name {
    case "run":
      return [
        OptionSpec(
          "shard", .string,
          help: "Run shard i of N (i/N, numbered from 0), writing its parts for 'geopipe merge'; "
            + "'env' takes i from JOB_COMPLETION_INDEX and N from GEOPIPE_SHARDS (a Kubernetes "
            + "Indexed Job)."),
        parts,
      ]
    case "plan":
      return [
        shards, parts,
        OptionSpec("json", .flag, help: "Print the plan as JSON, for a scheduler."),
      ]
    case "merge":
      return [
        shards, parts,
        OptionSpec(
          "tile-share", .string,
          help: "Write share J (from 0) of the tiles of each tiles step split by tile (the "
            + "plan's tiles round), from every shard's prepared features, instead of merging; "
            + "run after all shards and before the merge. 'env' takes J from "
            + "JOB_COMPLETION_INDEX (a Kubernetes Indexed Job). Example: geopipe merge "
            + "tiles.yaml --shards 4 --tile-share 0"),
      ]
    default: return []
    }
  }

  /// Runs a shard, prints the plan or merges, as `name` says.
  func runShards(_ pipeline: PipelinePlan, values: OptionValues, quiet: Bool) -> Int32 {
    do {
      let shard: Shard?
      let count: Int
      if name == "run" {
        let text = values.string("shard") ?? ""
        let parsed =
          text == "env"
          ? try Shard(environment: ProcessInfo.processInfo.environment)
          : try Shard(parsing: text)
        shard = parsed
        count = parsed.count
      } else {
        shard = nil
        count = values.integer("shards") ?? 1
      }
      let split = try ShardPlan(
        pipeline.stagePlan, count: count, partsFolder: values.string("parts"))
      switch name {
      case "plan":
        let path = values.string("path") ?? ""
        let text =
          values.flag("json")
          ? planJSON(split, path: path, values: values) : planText(split, path: path)
        FileHandle.standardOutput.write(Data(text.utf8))
        return 0
      case "merge":
        if let text = values.string("tile-share") {
          let tileShare = try Self.tileShare(text, count: count)
          let share = tileShare.index
          guard !split.tiled.isEmpty else {
            if !quiet {
              Terminal.printError(
                "note: no tiles step is split by tile in \(count) shard"
                  + "\(count == 1 ? "" : "s"): share \(share) has nothing to write")
            }
            return 0
          }
          return execute(
            try split.sharePlan(share), values: values, quiet: quiet, tileShare: tileShare)
        }
        let status = execute(try split.mergePlan(), values: values, quiet: quiet)
        guard status == 0 else { return status }
        for (path, records) in try split.concatenate() where !quiet {
          Terminal.printError("wrote \(path): \(records) feature\(records == 1 ? "" : "s")")
        }
        let context = Command.context(quiet: quiet)
        for (path, tiles) in try split.gatherTiles(report: context.diagnostics) where !quiet {
          Terminal.printError("wrote \(path): \(tiles) tile\(tiles == 1 ? "" : "s")")
        }
        return 0
      default:
        guard let shard else { return ExitStatus.usage.rawValue }
        return execute(split.shardPlan(shard.index), values: values, quiet: quiet, shard: shard)
      }
    } catch {
      let failure = error as? GeoPipeError ?? GeoPipeError("\(error)", status: .ioError)
      Terminal.printError(failure.description)
      if failure.status == .usage { Terminal.printError("usage: see 'geopipe \(name) --help'") }
      return failure.status.rawValue
    }
  }

  /// The share `--tile-share` names: J, or `env` (JOB_COMPLETION_INDEX), of `count`.
  private static func tileShare(_ text: String, count: Int) throws -> Shard {
    let index: Int
    if text == "env" {
      let environment = ProcessInfo.processInfo.environment
      guard let number = environment["JOB_COMPLETION_INDEX"].flatMap({ Int($0) }) else {
        throw GeoPipeError.usage(
          "--tile-share env needs JOB_COMPLETION_INDEX (set in the pods of a Kubernetes "
            + "Indexed Job) to be a whole number")
      }
      index = number
    } else {
      guard let number = Int(text) else {
        throw GeoPipeError.usage("--tile-share '\(text)' is not a share number (from 0) or env")
      }
      index = number
    }
    guard (0..<count).contains(index) else {
      throw GeoPipeError.usage(
        "share \(index) of the tiles does not exist: the shares of \(count) are numbered 0 to "
          + "\(count - 1)")
    }
    return try Shard(index: index, count: count)
  }

  private func stepName(_ step: StagePlan.Step) -> String {
    let line = step.line.map { "line \($0): " } ?? ""
    var text = line + step.definition.name
    if let paths = step.values.list("path") {
      text += " " + paths.joined(separator: " ")
    } else if let path = step.values.string("path") {
      text += " " + path
    }
    return text
  }

  /// The arguments that repeat the command line's variables and parts folder.
  private func passedOn(_ values: OptionValues) -> [String] {
    var arguments: [String] = []
    for pair in values.pairs("var") { arguments += ["--var", "\(pair.key)=\(pair.value)"] }
    if let parts = values.string("parts") { arguments += ["--parts", parts] }
    return arguments
  }

  private func planText(_ split: ShardPlan, path: String) -> String {
    let steps = split.plan.steps
    var lines = ["\(path) in \(split.count) shard\(split.count == 1 ? "" : "s")", ""]
    lines.append(
      "map, each shard i of \(split.count): geopipe run \(path) --shard i/\(split.count)")
    for (k, step) in steps.enumerated() where split.sides[k] == .map {
      var text = "  " + stepName(step)
      if step.definition.role == .source { text += "  (its share of each input)" }
      if split.concatenated.contains(k) || split.joined.contains(k) {
        text +=
          "  (to part \(split.partPath(of: k, shard: 0)) … "
          + split.partPath(of: k, shard: split.count - 1) + ")"
      }
      lines.append(text)
    }
    for k in split.boundaries {
      lines.append(
        "  parts of step \(k + 1): \(split.partPath(of: k, shard: 0)) … "
          + split.partPath(of: k, shard: split.count - 1))
    }
    for k in split.tiled {
      lines.append(
        "  features of step \(k + 1) (tiles), prepared: \(split.partPath(of: k, shard: 0)) … "
          + split.partPath(of: k, shard: split.count - 1))
    }
    if !split.tiled.isEmpty {
      lines += [
        "",
        "tiles, each share j of \(split.count), once all shards are done: geopipe merge \(path) "
          + "--shards \(split.count) --tile-share j",
      ]
      for k in split.tiled {
        lines.append(
          "  " + stepName(steps[k]) + "  (its share of the tiles, from every shard's "
            + "prepared features; to \(split.sharePath(of: k, share: 0)) … "
            + split.sharePath(of: k, share: split.count - 1) + ")")
      }
    }
    let after = split.tiled.isEmpty ? "all shards" : "all shares of the tiles"
    lines += ["", "merge, once \(after) are done: geopipe merge \(path) --shards \(split.count)"]
    for k in split.mergeSteps {
      lines.append("  " + stepName(steps[k]) + ": " + split.mergeDescription(of: k))
    }
    return lines.joined(separator: "\n") + "\n"
  }

  private func planJSON(_ split: ShardPlan, path: String, values: OptionValues) -> String {
    let steps = split.plan.steps
    func step(_ k: Int) -> JSONValue {
      var object = JSONObject()
      object.appendUnchecked("step", .integer(Int64(k + 1)))
      if let line = steps[k].line { object.appendUnchecked("line", .integer(Int64(line))) }
      object.appendUnchecked("stage", .string(steps[k].definition.name))
      if split.mergeSteps.contains(k) {
        object.appendUnchecked("merge", .string(split.mergeDescription(of: k)))
      }
      return .object(object)
    }
    let extra = passedOn(values)
    // One task of a round: its number, the command it runs and the files it writes.
    func task(_ key: String, _ number: Int, command: [String], parts: [String]) -> JSONValue {
      var object = JSONObject()
      object.appendUnchecked(key, .integer(Int64(number)))
      object.appendUnchecked("command", .array((command + extra).map { .string($0) }))
      object.appendUnchecked("parts", .array(parts.map { .string($0) }))
      return .object(object)
    }
    let shards = (0..<split.count).map { i in
      task(
        "shard", i, command: ["geopipe", "run", path, "--shard", "\(i)/\(split.count)"],
        parts: (split.concatenated + split.joined + split.boundaries + split.tiled).map {
          split.partPath(of: $0, shard: i)
        })
    }
    var merge = JSONObject()
    merge.appendUnchecked(
      "command",
      .array(
        (["geopipe", "merge", path, "--shards", "\(split.count)"] + extra).map { .string($0) }))
    merge.appendUnchecked(
      "steps",
      .array(split.mergeSteps.map(step)))
    var map = JSONObject()
    map.appendUnchecked("steps", .array(steps.indices.filter { split.sides[$0] == .map }.map(step)))
    map.appendUnchecked("shards", .array(shards))
    var root = JSONObject()
    root.appendUnchecked("pipeline", .string(path))
    root.appendUnchecked("shards", .integer(Int64(split.count)))
    root.appendUnchecked("map", .object(map))
    if !split.tiled.isEmpty {
      let shares = (0..<split.count).map { j in
        task(
          "share", j,
          command: [
            "geopipe", "merge", path, "--shards", "\(split.count)", "--tile-share", "\(j)",
          ],
          parts: split.tiled.map { split.sharePath(of: $0, share: j) })
      }
      var tiles = JSONObject()
      tiles.appendUnchecked("steps", .array(split.tiled.map(step)))
      tiles.appendUnchecked("shares", .array(shares))
      root.appendUnchecked("tiles", .object(tiles))
    }
    root.appendUnchecked("merge", .object(merge))
    var writer = JSONTextWriter()
    writer.writeValue(.object(root))
    return String(decoding: writer.bytes, as: UTF8.self) + "\n"
  }
}
