import Foundation
import Testing

/// The command line itself: commands, options, values, help and version.
@Suite("Usage")
struct UsageTests {
  static let commands = ["read", "write", "convert", "filter", "info"]
  static let worldSeq = CLI.fixtures("cli/world.read.geojsonl")

  @Test func unknownCommandSuggestsTheClosest() throws {
    let run = try geopipe(["reed", "x.csv"])
    #expect(run.status == 64)
    #expect(run.err.contains("unknown command 'reed'"))
    #expect(run.err.contains("did you mean 'read'?"))
    #expect(run.stdout.isEmpty)
  }

  @Test func unknownOptionSuggestsTheClosest() throws {
    let run = try geopipe(["filter", "--wher", "population > 1"], stdin: Data())
    #expect(run.status == 64)
    #expect(run.err.contains("unknown option '--wher'"))
    #expect(run.err.contains("did you mean '--where'?"))
  }

  @Test func unknownOptionOfConvertSuggestsTheClosest() throws {
    let run = try geopipe(["convert", "--no-rewnd", "a.geojson", "b.geojson"])
    #expect(run.status == 64)
    #expect(run.err.contains("did you mean '--no-rewind'?"), "\(run.err)")
  }

  @Test func noCommandPrintsUsageAndExits64() throws {
    let run = try geopipe([])
    #expect(run.status == 64)
    #expect(run.err.contains("USAGE: geopipe <command>"))
  }

  @Test("a value that starts with '-' is taken as the value")
  func bboxValueMayStartWithMinus() throws {
    let run = try geopipe(["filter", "--bbox", "-10,35,30,60"], stdinFile: Self.worldSeq)
    #expect(run.status == 0, "\(run)")
    #expect(run.outLines.count == 5)
    #expect(run.err.isEmpty)
  }

  @Test func optionEqualsValueIsTheSameAsTwoWords() throws {
    let split = try geopipe(
      ["filter", "--bbox", "-10,35,30,60", "--where", "kind = 'frame'"], stdinFile: Self.worldSeq)
    let joined = try geopipe(
      ["filter", "--bbox=-10,35,30,60", "--where=kind = 'frame'"], stdinFile: Self.worldSeq)
    #expect(split.status == 0 && joined.status == 0)
    #expect(split.outLines.count == 2)
    #expect(split.stdout == joined.stdout)
  }

  @Test(
    "bad option values are usage errors",
    arguments: [
      ["--bbox", "10,60,30,35"],  // south > north
      ["--bbox", "1,2,3"],
      ["--bbox", "-190,0,10,10"],
      ["--geometry-type", "Circle"],
      ["--where", "population >"],
      ["--where", "name = 'unterminated"],
      ["--on-error", "sometimes"],
      ["--where"],
    ])
  func rejectsBadOptionValues(_ arguments: [String]) throws {
    let run = try geopipe(["filter"] + arguments, stdinFile: Self.worldSeq)
    #expect(run.status == 64, "\(run)")
    #expect(run.errLines.first?.hasPrefix("error: ") == true, "\(run.err)")
  }

  @Test func optionGivenTwiceIsAUsageError() throws {
    let run = try geopipe(
      ["filter", "--bbox", "0,0,1,1", "--bbox", "0,0,2,2"], stdinFile: Self.worldSeq)
    #expect(run.status == 64)
    #expect(run.err.contains("more than once"))
  }

  @Test func aListOptionGivenTwiceJoinsItsLists() throws {
    let twice = try geopipe(
      ["select", "--keep", "name", "--keep", "population"], stdinFile: Self.worldSeq)
    let once = try geopipe(["select", "--keep", "name,population"], stdinFile: Self.worldSeq)
    #expect(twice.status == 0, "\(twice)")
    #expect(twice.out == once.out)
    #expect(twice.out.contains("\"population\""))
  }

  @Test func unknownOutputExtensionIsAUsageError() throws {
    try withTemporaryDirectory { dir in
      let run = try geopipe([
        "convert", CLI.fixtures("cli/world.geojson").path, dir.appendingPathComponent("x.xyz").path,
      ])
      #expect(run.status == 64)
      #expect(run.err.contains("--output-format"))
      #expect(try contents(of: dir) == [])
    }
  }

  @Test("--help of every command", arguments: commands)
  func helpListsOptionsAndExamples(_ command: String) throws {
    for flag in ["--help", "-h"] {
      let run = try geopipe([command, flag])
      #expect(run.status == 0)
      #expect(run.out.hasPrefix("OVERVIEW: "))
      #expect(run.out.contains("USAGE: geopipe \(command)"))
      #expect(run.out.contains("EXAMPLES:"))
      #expect(run.out.contains("--help"))
      #expect(run.err.isEmpty)
    }
    let viaHelp = try geopipe(["help", command])
    #expect(viaHelp.status == 0)
    #expect(viaHelp.out == (try geopipe([command, "--help"])).out)
  }

  @Test("help columns line up", arguments: commands)
  func helpOptionDescriptionsLineUp(_ command: String) throws {
    // Every description starts in the same column, also after an option too long to share
    // its line.
    let run = try geopipe([command, "--help"])
    var inOptions = false
    for line in run.outLines {
      if line.hasSuffix("OPTIONS:") {
        inOptions = true
        continue
      }
      if line.isEmpty || line == "EXAMPLES:" {
        inOptions = false
        continue
      }
      guard inOptions else { continue }
      // An option starts at column 3; its description, and every continuation line, at 31.
      let indent = line.prefix { $0 == " " }.count
      #expect(indent == 2 || indent == 30, "\(command): description not aligned: \(line)")
      if indent == 2 {
        let rest = line.dropFirst(2)
        #expect(rest.hasPrefix("--") || rest.hasPrefix("<"), "\(command): \(line)")
      }
    }
  }

  @Test func overviewListsEveryCommand() throws {
    let run = try geopipe(["--help"])
    #expect(run.status == 0)
    for command in Self.commands { #expect(run.out.contains("  \(command) ")) }
  }

  @Test func versionPrintsTheName() throws {
    for word in ["--version", "version"] {
      let run = try geopipe([word])
      #expect(run.status == 0)
      #expect(run.out.hasPrefix("geopipe "))
      #expect(run.outLines.count == 1)
    }
  }
}
