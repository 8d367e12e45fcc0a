import Foundation
import Testing

/// The reference in docs/cli.md is generated from the commands' help; this keeps it honest.
@Suite struct DocsTests {
  @Test func cliReferenceMatchesTheHelpOfTheBinary() throws {
    let binary = try CLI.requireBinary()
    let script = CLI.root.appendingPathComponent("Scripts/gen-cli-docs.sh")
    let run = try runProcess(
      URL(fileURLWithPath: "/bin/bash"), [script.path, binary.path], stdin: nil, in: CLI.root)
    #expect(run.status == 0, "\(run)")
    let documented = text(CLI.root.appendingPathComponent("docs/cli.md"))
    #expect(
      run.out == documented,
      "docs/cli.md is out of date: run Scripts/gen-cli-docs.sh > docs/cli.md")
  }

  @Test func pipelineReferenceMatchesTheRegistry() throws {
    let marker = "<!-- The stage reference below is generated: Scripts/gen-pipeline-docs.sh -->"
    let documented = text(CLI.root.appendingPathComponent("docs/pipelines.md"))
    let parts = documented.components(separatedBy: marker + "\n\n")
    #expect(parts.count == 2, "docs/pipelines.md lacks the marker line")
    let run = try geopipe(["help", "--markdown"])
    #expect(run.status == 0)
    #expect(
      parts.last == run.out,
      "docs/pipelines.md is out of date: run Scripts/gen-pipeline-docs.sh")
  }

  @Test func everyCommandHelpHasExamples() throws {
    for command in [
      "run", "check", "read", "write", "convert", "filter", "select", "style", "sort", "head",
      "cluster", "geocode", "search", "reverse-geocode", "render", "gazetteer", "info", "validate",
      "camera", "tiles",
    ] {
      let run = try geopipe([command, "--help"])
      #expect(run.status == 0)
      #expect(run.out.contains("EXAMPLES:\n  geopipe "), "\(command)")
    }
  }
}
