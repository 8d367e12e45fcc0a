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

  @Test func everyCommandHelpHasExamples() throws {
    for command in ["read", "write", "convert", "filter", "info"] {
      let run = try geopipe([command, "--help"])
      #expect(run.status == 0)
      #expect(run.out.contains("EXAMPLES:\n  geopipe "), "\(command)")
    }
  }
}
