import GeoPipeStageKit
import GeoPipeStages

/// The stage reference in Markdown (`geopipe help --markdown`), generated from the stage
/// registry for docs/pipelines.md.
enum StageReference {
  static func markdown() -> String {
    var lines = [
      "Every stage below is also a subcommand (`geopipe <stage> --help`) with the same options.",
      "On the command line an option is `--name value`; the option marked *positional* is given",
      "without its name. Stages marked *buffers* read all their input before they emit.",
    ]
    for definition in StageRegistry.all {
      lines += ["", "### \(definition.name)", "", definition.abstract]
      var notes: [String] = []
      switch definition.role {
      case .source: notes.append("Starts a chain: takes no `input`.")
      case .sink: notes.append("Ends a chain: a stage after it needs an explicit `input`.")
      case .transform: break
      }
      if definition.buffersAll { notes.append("*Buffers*: reads all features before it emits.") }
      if !notes.isEmpty { lines += ["", notes.joined(separator: " ")] }
      lines += ["", "```text"]
      lines += definition.discussion.split(separator: "\n", omittingEmptySubsequences: false)
        .map(String.init)
      lines += ["```"]
      let options = definition.options.filter { !(definition.pathIsInput && $0.name == "path") }
      if !options.isEmpty {
        lines += ["", "| Option | Value | Default | Description |", "|---|---|---|---|"]
        for spec in options {
          var name = "`\(spec.name)`"
          if spec.isPositional { name += " (*positional*)" }
          if spec.isRequired && spec.defaultValue == nil { name += " (*required*)" }
          let fallback = spec.defaultValue.map { "`\($0)`" } ?? ""
          lines.append(
            "| \(name) | \(value(spec)) | \(cell(fallback)) | \(cell(spec.help)) |")
        }
      }
      if let example = definition.examples.first {
        lines += ["", "Command line: `\(example)`"]
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  private static func value(_ spec: OptionSpec) -> String {
    let base =
      switch spec.kind {
      case .flag: "true/false"
      case .string: "text"
      case .integer:
        spec.range.map { "whole number, \($0.lowerBound) to \($0.upperBound)" } ?? "whole number"
      case .number: "number"
      case .choice(let words): words.map { "`\($0)`" }.joined(separator: ", ")
      case .bbox: "box `W,S,E,N`"
      case .point: "point `LON,LAT`"
      case .list: "list"
      case .path: "path"
      case .pairs: "mapping"
      }
    return cell(spec.acceptsTemplates ? base + ", {property} templates" : base)
  }

  private static func cell(_ text: String) -> String {
    text.replacingOccurrences(of: "|", with: "\\|")
  }
}
