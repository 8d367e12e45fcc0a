import Foundation
import Testing

/// Progress on standard error: quiet when it is not a terminal, where a long stage is with
/// --progress, and one line per command of a piped chain on a terminal.
@Suite("progress")
struct ProgressTests {
  /// `count` points as GeoJSONSeq, with a name to sort by and a kind to group by.
  static func points(_ count: Int) -> Data {
    var text = ""
    for i in 0..<count {
      let lon = Double((i * 7919) % 36_000) / 100 - 180
      let lat = Double((i * 104_729) % 17_000) / 100 - 85
      text +=
        "{\"type\":\"Feature\",\"properties\":{\"name\":\"n\((i * 7) % count)\",\"kind\":\"k\(i % 3)\"},"
        + "\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(lon),\(lat)]}}\n"
    }
    return Data(text.utf8)
  }

  static let input = points(30_000)

  static let longStages: [[String]] = [
    ["sort", "--by", "name", "--memory", "1"],
    ["cluster", "--all-zooms"],
  ]

  @Test func nothingIsPrintedWhenStandardErrorIsNotATerminal() throws {
    for arguments in Self.longStages {
      let run = try geopipe(arguments, stdin: Self.input)
      #expect(run.status == 0, "\(run)")
      #expect(run.err.isEmpty, "\(arguments): \(run.err)")
    }
    try withTemporaryDirectory { dir in
      let tiles = try geopipe(
        ["tiles", "t.pmtiles", "--max-zoom", "3"], stdin: Self.input, in: dir)
      #expect(tiles.status == 0, "\(tiles)")
      #expect(tiles.err.isEmpty, "\(tiles.err)")
      try Self.input.write(to: dir.appendingPathComponent("a.geojsonl"))
      let validate = try geopipe(["validate", "a.geojsonl"], in: dir)
      #expect(validate.status == 0, "\(validate)")
      #expect(validate.err.isEmpty, "\(validate.err)")
    }
  }

  @Test func forcedProgressSaysWhereALongStageIs() throws {
    let sort = try geopipe(Self.longStages[0] + ["--progress"], stdin: Self.input)
    #expect(sort.status == 0, "\(sort)")
    let sortLine = try #require(sort.errLines.last, "\(sort)")
    #expect(sortLine.hasPrefix("sort: merging "), "\(sortLine)")
    #expect(sortLine.contains(" sorted runs; 30,000 features, "), "\(sortLine)")

    let cluster = try geopipe(Self.longStages[1] + ["--progress"], stdin: Self.input)
    #expect(cluster.status == 0, "\(cluster)")
    let clusterLine = try #require(cluster.errLines.last, "\(cluster)")
    #expect(
      clusterLine.hasPrefix("cluster: zoom 0 indexed (17 of 17 zooms); 30,000 features, "),
      "\(clusterLine)")
    let groups = try geopipe(
      ["cluster", "--zoom", "2", "--group-by", "kind", "--progress"], stdin: Self.input)
    let groupsLine = try #require(groups.errLines.last, "\(groups)")
    #expect(
      groupsLine.hasPrefix("cluster: group 3 of 3: zoom 0 indexed (17 of 17 zooms); "),
      "\(groupsLine)")

    try withTemporaryDirectory { dir in
      let tiles = try geopipe(
        ["tiles", "t.pmtiles", "--max-zoom", "3", "--progress"], stdin: Self.input, in: dir)
      #expect(tiles.status == 0, "\(tiles)")
      let tilesLine = try #require(tiles.errLines.last, "\(tiles)")
      #expect(
        tilesLine.hasPrefix("tiles: zoom 3 of 3: 64 of 64 tiles (100%), 85 tiles, "),
        "\(tilesLine)")
      #expect(tilesLine.contains(" MB written; 30,000 features, "), "\(tilesLine)")

      try Self.input.write(to: dir.appendingPathComponent("a.geojsonl"))
      let validate = try geopipe(
        ["validate", "a.geojsonl", "a.geojsonl", "--progress"], in: dir)
      #expect(validate.status == 0, "\(validate)")
      #expect(
        validate.errLines.last?.hasPrefix("validate: file 2 of 2; 60,000 features, ") == true,
        "\(validate)")
    }
  }

  @Test func quietSilencesProgress() throws {
    let run = try geopipe(Self.longStages[0] + ["--progress", "--quiet"], stdin: Self.input)
    #expect(run.status == 0, "\(run)")
    #expect(run.err.isEmpty, "\(run.err)")
  }

  /// On a terminal (a pseudo-terminal from `script`), a command writing to a pipe prints whole
  /// labelled lines, each first clearing the line the last command draws in place.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
  func aPipedChainOnATerminalGivesEachCommandItsOwnLines() throws {
    try withTemporaryDirectory { dir in
      try Self.input.write(to: dir.appendingPathComponent("in.geojsonl"))
      let chain =
        "\"$GEOPIPE\" read in.geojsonl | \"$GEOPIPE\" sort --by name --memory 1 --progress "
        + "| \"$GEOPIPE\" write out.geojson"
      let run = try shell(
        "script -qec '\(chain)' typescript > /dev/null", in: dir)
      #expect(run.status == 0, "\(run)")
      let log = String(decoding: bytes(dir.appendingPathComponent("typescript")), as: UTF8.self)
      let sortLines = log.components(separatedBy: "\r\u{1B}[Ksort: ").dropFirst()
      #expect(!sortLines.isEmpty, "\(log)")
      for line in sortLines {
        // Each sort line is whole: it ends at a line break before anything else is drawn.
        let end = try #require(line.range(of: "\r\n"), "\(line)")
        #expect(!line[..<end.lowerBound].contains("\r"), "\(line)")
        #expect(!line[..<end.lowerBound].contains("write:"), "\(line)")
      }
      #expect(sortLines.last?.contains("; 30,000 features, ") == true, "\(log)")
      #expect(
        FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.geojson").path))
    }
  }

  /// The line drawn in place never wraps: it is cut to the terminal's width.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
  func theLineDrawnInPlaceFitsTheTerminal() throws {
    try withTemporaryDirectory { dir in
      try Self.points(60_000).write(to: dir.appendingPathComponent("in.geojsonl"))
      let command =
        "stty cols 40; \"$GEOPIPE\" tiles t.pmtiles --max-zoom 6 --no-tile-size-limit < in.geojsonl"
      let run = try shell("script -qec '\(command)' typescript > /dev/null", in: dir)
      #expect(run.status == 0, "\(run)")
      let log = String(decoding: bytes(dir.appendingPathComponent("typescript")), as: UTF8.self)
      for drawn in log.components(separatedBy: "\r\u{1B}[K").dropFirst() {
        // "\r\n" is one Character: stop at any line break.
        let line = drawn.prefix { !$0.isNewline }
        #expect(line.count < 40, "\(line)")
      }
    }
  }
}
