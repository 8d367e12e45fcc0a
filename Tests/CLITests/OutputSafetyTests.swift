import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Output files through the binary: missing folders are created (and removed again on
/// failure), a folder given as the output is exit 73 and a full disk exit 74 for every writer,
/// the path is checked before any work, permissions of a replaced file are kept, and temporary
/// files of killed runs are cleaned up.
@Suite("output safety")
struct OutputSafetyTests {
  static let point =
    #"{"type":"Feature","properties":{"name":"Paris"},"geometry":{"type":"Point","coordinates":[2.35,48.85]}}"#
    + "\n"

  /// Points on a grid, enough for tiles and files of some size.
  static func grid(_ count: Int) -> String {
    (0..<count).map { k in
      let lon = Double(k % 100) * 3.5 - 175
      let lat = Double(k / 100) * 1.7 - 80
      return
        #"{"type":"Feature","properties":{"k":\#(k)},"geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]}}"#
    }.joined(separator: "\n") + "\n"
  }

  private func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

  private func mode(_ url: URL) -> Int {
    var info = stat()
    guard stat(url.path, &info) == 0 else { return -1 }
    return Int(info.st_mode & 0o7777)
  }

  // MARK: Folders

  @Test func writeCreatesMissingFolders() throws {
    try withTemporaryDirectory { dir in
      let run = try geopipe(["write", "a/b/c.geojson"], stdin: Data(Self.point.utf8), in: dir)
      #expect(run.status == 0, "\(run)")
      #expect(text(dir.appendingPathComponent("a/b/c.geojson")).contains("Paris"))
      #expect(try contents(of: dir.appendingPathComponent("a/b")) == ["c.geojson"])
    }
  }

  @Test(arguments: [
    ["tiles", "t/x.pmtiles", "--max-zoom", "2"], ["tiles", "t/x.mbtiles", "--max-zoom", "2"],
    ["render", "t/x.svg"], ["write", "t/x.csv"], ["write", "t/x.kml"],
  ])
  func everyWriterCreatesMissingFolders(_ arguments: [String]) throws {
    try withTemporaryDirectory { dir in
      let run = try geopipe(arguments, stdin: Data(Self.point.utf8), in: dir)
      #expect(run.status == 0, "\(run)")
      #expect(
        try contents(of: dir.appendingPathComponent("t")) == [String(arguments[1].dropFirst(2))])
    }
  }

  @Test func failedRunRemovesTheFoldersItCreated() throws {
    try withTemporaryDirectory { dir in
      try FileManager.default.createDirectory(
        at: dir.appendingPathComponent("kept"), withIntermediateDirectories: true)
      for path in ["new/deeper/x.geojson", "kept/new/x.csv"] {
        let run = try geopipe(["write", path], stdin: Data("{\"type\":".utf8), in: dir)
        #expect(run.status == 65, "\(run)")
      }
      #expect(try contents(of: dir) == ["kept"])
      #expect(try contents(of: dir.appendingPathComponent("kept")) == [])
    }
  }

  @Test func readmePipelineRunsWithoutAnOutFolder() throws {
    try withTemporaryDirectory { dir in
      // The pipeline shown in the README, as it is there.
      let readme = text(CLI.root.appendingPathComponent("README.md"))
      let start = try #require(readme.range(of: "```yaml\nversion: 1\n"))
      let end = try #require(readme[start.upperBound...].range(of: "```"))
      let yaml = String(readme[readme.index(start.lowerBound, offsetBy: 8)..<end.lowerBound])
      #expect(yaml.contains("out/big.geojson"))
      try write(yaml, to: dir.appendingPathComponent("example.yaml"))
      let input = CLI.fixtures("places/places.csv").path
      let run = try geopipe(["run", "example.yaml", "--var", "input=\(input)"], in: dir)
      #expect(run.status == 0, "\(run)")
      #expect(text(dir.appendingPathComponent("out/big.geojson")).contains("FeatureCollection"))
      #expect(exists(dir.appendingPathComponent("out/all.geojsonl")))
    }
  }

  // MARK: Exit codes of output failures

  /// Each writer with a folder as its output: exit 73 before any input is read (the input here
  /// is malformed, which would be exit 65 if it were read first).
  @Test(arguments: [
    ["write", "dir.geojson"], ["write", "dir"], ["tiles", "dir.pmtiles"], ["tiles", "dir.mbtiles"],
    ["render", "dir.png"],
  ])
  func folderAsOutputIs73BeforeTheWork(_ arguments: [String]) throws {
    try withTemporaryDirectory { dir in
      try FileManager.default.createDirectory(
        at: dir.appendingPathComponent(arguments[1]), withIntermediateDirectories: true)
      let run = try geopipe(arguments, stdin: Data("not json".utf8), in: dir)
      #expect(run.status == 73, "\(run)")
      #expect(run.err.contains("cannot create '\(arguments[1])': it is a folder"), "\(run)")
      #expect(try contents(of: dir.appendingPathComponent(arguments[1])) == [])
    }
  }

  @Test func gazetteerBuildIntoAFolderIs73BeforeReadingTheDumps() throws {
    try withTemporaryDirectory { dir in
      try FileManager.default.createDirectory(
        at: dir.appendingPathComponent("g.sqlite"), withIntermediateDirectories: true)
      let run = try geopipe(
        ["gazetteer", "build", "--geonames", "missing.txt", "g.sqlite"], in: dir)
      #expect(run.status == 73, "\(run)")
      #expect(run.err.contains("it is a folder"), "\(run)")
    }
  }

  @Test func validateFixIntoAFolderIs73() throws {
    try withTemporaryDirectory { dir in
      try write(Self.point, to: dir.appendingPathComponent("a.geojsonl"))
      try FileManager.default.createDirectory(
        at: dir.appendingPathComponent("a.fixed.geojsonl"), withIntermediateDirectories: true)
      let run = try geopipe(["validate", "--fix", "a.geojsonl"], in: dir)
      #expect(run.status == 73, "\(run)")
      #expect(run.err.contains("it is a folder"), "\(run)")
    }
  }

  @Test(arguments: ["geojson", "geojsonseq", "csv", "kml"])
  func fullDiskIs74(_ format: String) throws {
    try withTemporaryDirectory { dir in
      let run = try geopipe(
        ["write", "--output-format", format, "/dev/full"], stdin: Data(Self.point.utf8), in: dir)
      #expect(run.status == 74, "\(run)")
      #expect(run.err.contains("cannot write '/dev/full': no space left on the device"), "\(run)")
    }
  }

  /// A file size limit (`ulimit -f`) makes writes fail as a full disk does; tiles and
  /// gazetteers (SQLite, and PMTiles' scratch file) report it as an I/O error naming the path.
  @Test(arguments: ["t.pmtiles", "t.mbtiles"])
  func tilesetThatCannotBeWrittenIs74(_ path: String) throws {
    try withTemporaryDirectory { dir in
      try write(Self.grid(3000), to: dir.appendingPathComponent("in.geojsonl"))
      let run = try shell(
        "trap '' XFSZ; ulimit -f 128; \"$GEOPIPE\" tiles \(path) --max-zoom 9 < in.geojsonl",
        in: dir)
      #expect(run.status == 74, "\(run)")
      #expect(run.err.contains("'\(path)'"), "\(run)")
      #expect(!run.err.contains("NSCocoaErrorDomain"), "\(run)")
      #expect(try contents(of: dir) == ["in.geojsonl"])
    }
  }

  @Test func gazetteerThatCannotBeWrittenIs74() throws {
    try withTemporaryDirectory { dir in
      let run = try shell(
        "trap '' XFSZ; ulimit -f 64; \"$GEOPIPE\" gazetteer build --default g.sqlite", in: dir)
      #expect(run.status == 74, "\(run)")
      #expect(run.err.contains("cannot write 'g.sqlite'"), "\(run)")
      #expect(try contents(of: dir) == [])
    }
  }

  @Test(.enabled(if: getuid() != 0, "root may write anywhere"))
  func permissionProblemsSaySo() throws {
    try withTemporaryDirectory { dir in
      let locked = dir.appendingPathComponent("locked")
      try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
      chmod(locked.path, 0o500)
      defer { chmod(locked.path, 0o700) }
      for arguments in [["write", "locked/x.geojson"], ["tiles", "locked/x.pmtiles"]] {
        let run = try geopipe(arguments, stdin: Data(Self.point.utf8), in: dir)
        #expect(run.status == 73, "\(run)")
        #expect(run.err.contains("permission denied"), "\(run)")
      }
    }
  }

  // MARK: Durability

  @Test(arguments: ["x.geojson", "x.csv.gz", "x.pmtiles", "x.mbtiles", "x.svg"])
  func replacedFileKeepsItsMode(_ path: String) throws {
    try withTemporaryDirectory { dir in
      let command = path.hasSuffix("tiles") ? "tiles" : path.hasSuffix(".svg") ? "render" : "write"
      let url = dir.appendingPathComponent(path)
      var run = try geopipe([command, path], stdin: Data(Self.point.utf8), in: dir)
      #expect(run.status == 0, "\(run)")
      let mask = umask(0)
      umask(mask)
      #expect(mode(url) == 0o666 & ~Int(mask))
      chmod(url.path, 0o640)
      run = try geopipe([command, path], stdin: Data(Self.point.utf8), in: dir)
      #expect(run.status == 0, "\(run)")
      #expect(mode(url) == 0o640)
    }
  }

  @Test func symbolicLinkStaysALink() throws {
    try withTemporaryDirectory { dir in
      try FileManager.default.createDirectory(
        at: dir.appendingPathComponent("data"), withIntermediateDirectories: true)
      try write("old", to: dir.appendingPathComponent("data/real.geojson"))
      try FileManager.default.createSymbolicLink(
        atPath: dir.appendingPathComponent("link.geojson").path,
        withDestinationPath: "data/real.geojson")
      let run = try geopipe(["write", "link.geojson"], stdin: Data(Self.point.utf8), in: dir)
      #expect(run.status == 0, "\(run)")
      let destination = try FileManager.default.destinationOfSymbolicLink(
        atPath: dir.appendingPathComponent("link.geojson").path)
      #expect(destination == "data/real.geojson")
      #expect(text(dir.appendingPathComponent("data/real.geojson")).contains("Paris"))
      #expect(try contents(of: dir.appendingPathComponent("data")) == ["real.geojson"])
    }
  }

  @Test func temporaryFilesOfDeadRunsAreRemoved() throws {
    try withTemporaryDirectory { dir in
      // A process id that is not running, and this test's own, which is.
      var dead: Int32 = 4_000_000
      while kill(dead, 0) == 0 || errno != ESRCH { dead -= 1 }
      let stale = ".x.geojson.geopipe-\(dead)-abc123"
      let live = ".x.geojson.geopipe-\(getpid())-def456"
      let other = ".y.geojson.geopipe-\(dead)-ghi789"
      for name in [stale, live, other] {
        try write("partial", to: dir.appendingPathComponent(name))
      }
      let run = try geopipe(["write", "x.geojson"], stdin: Data(Self.point.utf8), in: dir)
      #expect(run.status == 0, "\(run)")
      #expect(try contents(of: dir) == [live, other, "x.geojson"].sorted())
    }
  }

  @Test func temporaryFileHasARecognisableName() throws {
    try withTemporaryDirectory { dir in
      // Standard input stays open until the temporary file has been seen.
      let script = """
        (
          cat in.geojsonl
          for i in $(seq 200); do
            ls -a | grep -q '^[.]out[.]geojson[.]geopipe-' && break
            sleep 0.1
          done
          ls -a > seen
        ) | "$GEOPIPE" write out.geojson
        """
      // More than input detection reads first (64 KiB), so the output is opened at once.
      try write(
        String(repeating: Self.point, count: 2000), to: dir.appendingPathComponent("in.geojsonl"))
      let run = try shell(script, in: dir)
      #expect(run.status == 0, "\(run)")
      let seen = lines(of: text(dir.appendingPathComponent("seen")))
      #expect(seen.contains { $0.hasPrefix(".out.geojson.geopipe-") }, "\(seen)")
    }
  }
}
