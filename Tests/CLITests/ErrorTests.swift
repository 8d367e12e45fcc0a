import Foundation
import Testing

/// Malformed inputs in `Fixtures/errors/`: each must fail with status 65, name the place of
/// the problem as `file:line:column: error: …` (1-based; columns count characters, not bytes),
/// and leave no output behind.
@Suite("Bad input")
struct ErrorTests {
  struct BadInput: Sendable, CustomTestStringConvertible {
    var file: String
    var line: Int
    var column: Int
    /// Words the message must contain.
    var says: String

    var testDescription: String { "\(file) → \(line):\(column)" }
  }

  static let folder = CLI.fixtures("errors")

  /// Where each file's problem is.
  ///
  /// Columns count Unicode scalars from 1.
  static let table: [BadInput] = [
    // JSON syntax
    BadInput(file: "missing-comma.geojson", line: 2, column: 45, says: "expected ',' or '}'"),
    BadInput(file: "trailing-garbage.geojson", line: 3, column: 3, says: "found '}'"),
    // At the opening quote, as for an unterminated quoted field in CSV.
    BadInput(file: "unterminated-string.geojson", line: 2, column: 25, says: "string"),
    BadInput(file: "bad-escape.geojson", line: 2, column: 28, says: #"invalid escape '\U'"#),
    BadInput(file: "leading-zeros.geojson", line: 2, column: 48, says: "leading zeros"),
    // At the byte that is not UTF-8 (a Latin-1 "é"), not at the start of the string.
    BadInput(file: "invalid-utf8.geojson", line: 2, column: 29, says: "UTF-8"),
    // 115 characters but 132 bytes precede the error.
    BadInput(file: "non-ascii-before-error.geojson", line: 1, column: 116, says: "leading zeros"),
    // 100,000 nested arrays, compressed; the 512th '[' exceeds the nesting limit.
    BadInput(
      file: "deep-nesting.geojson.gz", line: 1, column: 573, says: "nesting deeper than 512"),
    BadInput(file: "top-level-array.geojson", line: 1, column: 1, says: "JSON array"),
    BadInput(
      file: "top-level-array-after-blank-line.geojson", line: 2, column: 3, says: "JSON array"),
    // GeoJSON structure
    BadInput(
      file: "unknown-type.geojson", line: 3, column: 62, says: #"unknown geometry type "Circle""#),
    BadInput(file: "missing-type.geojson", line: 3, column: 3, says: #"no "type""#),
    BadInput(file: "duplicate-key.geojson", line: 2, column: 40, says: #"duplicate key "name""#),
    // At the '[' that opens the coordinates, not at the space before it.
    BadInput(
      file: "point-one-number.geojson", line: 1, column: 84, says: "at least two numbers, found 1"),
    BadInput(
      file: "linestring-one-position.geojson", line: 2, column: 52,
      says: "at least two positions, found 1"),
    BadInput(file: "unclosed-ring.geojson", line: 2, column: 3, says: "not closed"),
    BadInput(
      file: "ring-three-positions.geojson", line: 2, column: 3,
      says: "at least four positions, found 3"),
    BadInput(file: "longitude-181.geojson", line: 1, column: 85, says: "longitude 181"),
    BadInput(file: "latitude-minus-91.geojson", line: 2, column: 65, says: "latitude -91"),
    // CSV
    BadInput(file: "unterminated-quote.csv", line: 3, column: 1, says: "unterminated quoted field"),
    BadInput(
      file: "too-many-fields.csv", line: 3, column: 19, says: "row has 4 fields, the header has 3"),
    BadInput(
      file: "non-numeric-latitude.csv", line: 2, column: 21,
      says: #"latitude "-23.55S" is not a number"#),
    BadInput(file: "latitude-out-of-range.csv", line: 3, column: 8, says: "out of range [-90, 90]"),
    BadInput(
      file: "ambiguous-latitude.csv", line: 1, column: 1,
      says: #"ambiguous latitude columns "lat", "latitude""#),
    BadInput(file: "invalid-wkt.csv", line: 2, column: 19, says: "invalid WKT"),
    // Not text at all
    BadInput(file: "image.png", line: 1, column: 1, says: "PNG image"),
    BadInput(file: "database.sqlite", line: 1, column: 1, says: "SQLite database"),
  ]

  @Test func everyErrorFixtureIsInTheTable() throws {
    let files = try contents(of: Self.folder).filter { $0 != "README.md" }
    #expect(Set(files) == Set(Self.table.map(\.file)))
  }

  @Test("read reports the place of the problem", arguments: table)
  func reportsFileLineAndColumn(_ bad: BadInput) throws {
    let run = try geopipe(["read", bad.file], in: Self.folder)
    #expect(run.status == 65, "\(run)")
    #expect(!run.signaled)
    let first = try #require(run.errLines.first, "nothing on stderr")
    let location = "\(bad.file):\(bad.line):\(bad.column): error: "
    #expect(first.hasPrefix(location), "expected \(location)…, got \(first)")
    let message = first.components(separatedBy: ": error: ").dropFirst().joined(
      separator: ": error: ")
    #expect(message.contains(bad.says), "\(first) does not say \(bad.says)")
  }

  @Test("read ends its output with an error record", arguments: table)
  func endsOutputWithErrorRecord(_ bad: BadInput) throws {
    // Standard output, a pipe to the next stage, ends with a record that makes that stage
    // fail too, also when the input is refused before any feature is read.
    let run = try geopipe(["read", bad.file], in: Self.folder)
    #expect(run.status == 65)
    let last = try #require(run.outLines.last, "nothing on stdout")
    #expect(last.hasPrefix("!geopipe-error "), "last line of stdout: \(last)")
    let record = try JSON.parse(String(last.dropFirst("!geopipe-error ".count)))
    #expect(record["status"] == .integer("65"))
  }

  @Test("convert leaves neither the output nor a temporary file", arguments: table)
  func leavesNoOutputFile(_ bad: BadInput) throws {
    try withTemporaryDirectory { dir in
      let out = dir.appendingPathComponent("out")
      try FileManager.default.createDirectory(at: out, withIntermediateDirectories: false)
      for target in ["x.geojson", "x.geojsonl", "x.csv", "x.geojson.gz"] {
        let run = try geopipe(
          ["convert", bad.file, out.appendingPathComponent(target).path], in: Self.folder)
        #expect(run.status == 65, "\(target): \(run)")
        #expect(run.errLines.first?.hasPrefix("\(bad.file):") == true, "\(run.err)")
        let left = try contents(of: out)
        #expect(left == [], "left behind: \(left)")
      }
    }
  }

  @Test("a failed convert keeps the file it would have replaced")
  func failedConvertKeepsExistingOutput() throws {
    try withTemporaryDirectory { dir in
      let out = dir.appendingPathComponent("x.geojson")
      try write("previous contents\n", to: out)
      let run = try geopipe([
        "convert", Self.folder.appendingPathComponent("too-many-fields.csv").path, out.path,
      ])
      #expect(run.status == 65)
      #expect(text(out) == "previous contents\n")
      #expect(try contents(of: dir) == ["x.geojson"])
    }
  }

  @Test("convert to a file prints the error on stderr only, nothing on stdout")
  func convertFailureWritesNothingToStdout() throws {
    try withTemporaryDirectory { dir in
      let run = try geopipe(
        ["convert", "too-many-fields.csv", dir.appendingPathComponent("x.geojson").path],
        in: Self.folder)
      #expect(run.status == 65)
      #expect(run.stdout.isEmpty, "stdout is not the output of convert, yet it got: \(run.out)")
    }
  }

  @Test func errorsOnStandardInputAreNamedStdin() throws {
    let run = try geopipe(
      ["read", "-"], stdinFile: Self.folder.appendingPathComponent("missing-comma.geojson"))
    #expect(run.status == 65)
    #expect(run.errLines.first?.hasPrefix("<stdin>:2:45: error: ") == true, "\(run.err)")
  }

  @Test func missingInputExits66() throws {
    try withTemporaryDirectory { dir in
      let run = try geopipe(["read", "does-not-exist.geojson"], in: dir)
      #expect(run.status == 66, "\(run)")
      #expect(run.err.contains("does-not-exist.geojson"))
    }
  }

  @Test func uncreatableOutputExits73() throws {
    try withTemporaryDirectory { dir in
      // Missing folders are created, but not inside a file.
      try write("text", to: dir.appendingPathComponent("plain"))
      let run = try geopipe([
        "convert", CLI.fixtures("cli/world.geojson").path,
        dir.appendingPathComponent("plain/dir/x.geojson").path,
      ])
      #expect(run.status == 73, "\(run)")
      #expect(run.err.contains("plain' is not a folder"), "\(run)")
    }
  }

  // MARK: Places after the first window of input

  @Test func locatesErrorsManyLinesIntoALargeSequence() throws {
    try withTemporaryDirectory { dir in
      var text = ""
      for k in 0..<3000 {
        text +=
          #"{"type":"Feature","properties":{"name":"Αθήνα №\#(k) 🌍"},"geometry":{"type":"Point","coordinates":[23.7,37.9]}}"#
          + "\n"
      }
      let last =
        #"{"type":"Feature","properties":{"name":"Αθήνα 🌍"},"geometry":{"type":"Point","coordinates":[23.7,97.9]}}"#
      text += last + "\n"
      try write(text, to: dir.appendingPathComponent("late.geojsonl"))
      let column =
        last.unicodeScalars.distance(
          from: last.unicodeScalars.startIndex, to: last.range(of: "97.9")!.lowerBound) + 1
      let run = try geopipe(["read", "late.geojsonl"], in: dir)
      #expect(run.status == 65)
      #expect(
        run.errLines.first?.hasPrefix("late.geojsonl:3001:\(column): error: latitude 97.9") == true,
        "\(run.err)")
    }
  }

  @Test func locatesErrorsFarIntoALongLine() throws {
    try withTemporaryDirectory { dir in
      var features: [String] = []
      for k in 0..<2000 {
        features.append(
          #"{"type":"Feature","properties":{"name":"Αθήνα №\#(k) 🌍"},"geometry":{"type":"Point","coordinates":[23.7,37.9]}}"#
        )
      }
      features.append(
        #"{"type":"Feature","properties":{"name":"x"},"geometry":{"type":"Point","coordinates":[23.7,97.9]}}"#
      )
      let line =
        #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}"
      try write(line, to: dir.appendingPathComponent("long.geojson"))
      let column =
        line.unicodeScalars.distance(
          from: line.unicodeScalars.startIndex, to: line.range(of: "97.9")!.lowerBound) + 1
      let run = try geopipe(["read", "long.geojson"], in: dir)
      #expect(run.status == 65)
      #expect(
        run.errLines.first?.hasPrefix("long.geojson:1:\(column): error: latitude 97.9") == true,
        "\(run.err)")
    }
  }

  @Test func locatesCSVErrorsAfterQuotedLineBreaks() throws {
    try withTemporaryDirectory { dir in
      var text = "name,lat,lon\n"
      for k in 0..<3000 { text += "\"Zürich\nline \(k)\",47.37,8.54\n" }
      text += "\"Genève 🇨🇭\",46.2,186.1\n"
      try write(text, to: dir.appendingPathComponent("late.csv"))
      let run = try geopipe(["read", "late.csv"], in: dir)
      #expect(run.status == 65)
      // "Genève 🇨🇭", is 12 characters: the longitude starts at column 18 of line 6002.
      #expect(
        run.errLines.first?.hasPrefix("late.csv:6002:18: error: longitude 186.1") == true,
        "\(run.err)")
    }
  }
}

/// Large inputs are parsed on several threads; the results must not depend on how many.
@Suite("Threads")
struct ThreadTests {
  /// A FeatureCollection of `count` points, one per line, about 5 MB for 40,000; features
  /// listed in `bad` get latitude 97.9.
  static func collection(count: Int, bad: Set<Int> = []) -> String {
    var features: [String] = []
    features.reserveCapacity(count)
    for k in 0..<count {
      let lat = bad.contains(k) ? "97.9" : "37.9"
      features.append(
        #"{"type":"Feature","properties":{"name":"Αθήνα №\#(k) 🌍","i":\#(k)},"geometry":{"type":"Point","coordinates":[23.7,\#(lat)]}}"#
      )
    }
    return "{\"type\":\"FeatureCollection\",\"features\":[\n" + features.joined(separator: ",\n")
      + "\n]}\n"
  }

  /// Runs `arguments` with 1 and with 4 parsing threads and checks both runs agree.
  private func agree(_ arguments: [String], in dir: URL) throws -> Run {
    let one = try geopipe(arguments, in: dir, environment: ["GEOPIPE_THREADS": "1"])
    let four = try geopipe(arguments, in: dir, environment: ["GEOPIPE_THREADS": "4"])
    #expect(
      one.status == four.status,
      "\(arguments): status \(one.status) with 1 thread, \(four.status) with 4")
    #expect(one.stdout == four.stdout, "\(arguments): different output with 1 and 4 threads")
    #expect(one.err == four.err, "\(arguments):\n1 thread:  \(one.err)\n4 threads: \(four.err)")
    return one
  }

  @Test func largeCollectionReadsTheSameWithAnyNumberOfThreads() throws {
    try withTemporaryDirectory { dir in
      try write(Self.collection(count: 40_000), to: dir.appendingPathComponent("big.geojson"))
      let run = try agree(["read", "big.geojson"], in: dir)
      #expect(run.status == 0)
      let lines = run.outLines
      #expect(lines.count == 40_000)
      // In input order.
      #expect(lines.enumerated().allSatisfy { $0.element.contains(#""i":\#($0.offset)}"#) })
    }
  }

  @Test func largeCollectionFailsAtTheFirstBadFeature() throws {
    try withTemporaryDirectory { dir in
      try write(
        Self.collection(count: 40_000, bad: [25_000, 35_000]),
        to: dir.appendingPathComponent("big.geojson"))
      let run = try agree(["read", "big.geojson"], in: dir)
      #expect(run.status == 65)
      // Feature k is on line k + 2; "97.9" starts at column 115 for k = 25000.
      #expect(
        run.errLines.first?.hasPrefix("big.geojson:25002:115: error: latitude 97.9") == true,
        "\(run.err)")
      #expect(run.outLines.count == 25_001)
      let skipped = try agree(["read", "--on-error", "skip", "big.geojson"], in: dir)
      #expect(skipped.status == 0)
      #expect(skipped.outLines.count == 39_998)
      #expect(skipped.err.contains("skipped 2"))
    }
  }

  @Test func largeSequenceSyntaxErrorIsTheSameWithAnyNumberOfThreads() throws {
    try withTemporaryDirectory { dir in
      var text = ""
      for k in 0..<40_000 {
        let position = k == 12_000 ? "[23.7,37.9" : "[23.7,37.9]"
        text +=
          #"{"type":"Feature","properties":{"name":"Αθήνα №\#(k) 🌍","i":\#(k)},"geometry":{"type":"Point","coordinates":\#(position)}}"#
          + "\n"
      }
      try write(text, to: dir.appendingPathComponent("big.geojsonl"))
      let run = try agree(["read", "big.geojsonl"], in: dir)
      #expect(run.status == 65)
      #expect(
        run.errLines.first?.hasPrefix("big.geojsonl:12001:119: error: ") == true, "\(run.err)")
      let skipped = try agree(["read", "--on-error", "skip", "big.geojsonl"], in: dir)
      #expect(skipped.status == 0)
      #expect(skipped.outLines.count == 39_999)
    }
  }
}
