import Foundation
import Testing

/// `geopipe render` through the binary: SVG golden files, PNG size and determinism, and
/// usage and data errors that leave no file behind.
@Suite("render")
struct RenderTests {
  static let folder = CLI.fixtures("render")
  static let input = folder.appendingPathComponent("overlays.geojson")

  struct Case: Sendable, CustomTestStringConvertible {
    var expected: String
    var arguments: [String]
    var testDescription: String { expected }
  }

  static let cases: [Case] = [
    Case(expected: "overlays-fit.svg", arguments: ["--fit", "--size", "480x360"]),
    Case(
      expected: "overlays-bearing.svg",
      arguments: [
        "--center", "2.5,48.85", "--zoom", "8.5", "--bearing", "45", "--size", "400x300",
      ]),
  ]

  @Test("SVG matches the golden file", arguments: cases)
  func svgMatchesGolden(_ golden: Case) throws {
    let directory = try makeTemporaryDirectory(prefix: "geopipe-render")
    defer { try? FileManager.default.removeItem(at: directory) }
    let run = try geopipe(
      ["render", "map.svg"] + golden.arguments, stdinFile: Self.input, in: directory)
    #expect(run.status == 0, "\(run)")
    let written = try Data(contentsOf: directory.appendingPathComponent("map.svg"))
    let expected = try Data(contentsOf: Self.folder.appendingPathComponent(golden.expected))
    #expect(written == expected, "regenerate Fixtures/render/\(golden.expected) on purpose only")
  }

  /// The width and height in a PNG's IHDR chunk.
  private func pngSize(_ data: Data) -> (Int, Int)? {
    let bytes = [UInt8](data)
    guard bytes.count > 24, bytes[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    else { return nil }
    func word(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
    return (word(16), word(20))
  }

  @Test func pngHasTheSizeTimesTheScaleAndTheSameBytesEachRun() throws {
    let directory = try makeTemporaryDirectory(prefix: "geopipe-render")
    defer { try? FileManager.default.removeItem(at: directory) }
    for name in ["a.png", "b.png"] {
      let run = try geopipe(
        ["render", name, "--size", "300x200", "--scale", "2"], stdinFile: Self.input,
        in: directory)
      #expect(run.status == 0, "\(run)")
    }
    let a = try Data(contentsOf: directory.appendingPathComponent("a.png"))
    let b = try Data(contentsOf: directory.appendingPathComponent("b.png"))
    #expect(pngSize(a).map { [$0.0, $0.1] } == [600, 400])
    #expect(a == b)
  }

  @Test func clustersFromTheClusterStageAreDrawnWithTheirCounts() throws {
    let directory = try makeTemporaryDirectory(prefix: "geopipe-render")
    defer { try? FileManager.default.removeItem(at: directory) }
    let places = CLI.fixtures("style/places.csv")
    let run = try shell(
      "\"$GEOPIPE\" read '\(places.path)' | \"$GEOPIPE\" cluster --zoom 2 --count-by country "
        + "| \"$GEOPIPE\" render map.svg --fit-bounds -10,40,10,55 --size 300x300",
      in: directory)
    #expect(run.status == 0, "\(run)")
    let svg = try String(contentsOf: directory.appendingPathComponent("map.svg"), encoding: .utf8)
    // At zoom 2 the French and Belgian places make two clusters: Paris and Brussels (FR 1,
    // BE 1), and the three in the south (FR 3).
    #expect(svg.contains(">2</text>") && svg.contains(">3</text>"), "\(svg)")
    #expect(svg.contains(">FR</text>") && svg.contains(">BE</text>"))
  }

  @Test(
    "usage errors exit 64 and write nothing",
    arguments: [
      (["map.jpg"], "must end in .png or .svg"),
      (["map.png", "--center", "2,48"], "--center needs --zoom"),
      (
        ["map.png", "--fit", "--fit-bounds", "0,0,1,1"],
        "give one of --fit, --fit-bounds or --center"
      ),
      (["map.png", "--size", "0x10"], "expected WxH"),
      (["map.png", "--center", "2,48", "--zoom", "30"], "--zoom must be 0 to 24"),
    ])
  func usageErrors(_ arguments: [String], _ message: String) throws {
    let directory = try makeTemporaryDirectory(prefix: "geopipe-render")
    defer { try? FileManager.default.removeItem(at: directory) }
    let run = try geopipe(["render"] + arguments, stdinFile: Self.input, in: directory)
    #expect(run.status == 64, "\(run)")
    #expect(run.err.contains(message), "\(run)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
  }

  @Test func nothingToFitIsADataErrorAndLeavesNoFile() throws {
    let directory = try makeTemporaryDirectory(prefix: "geopipe-render")
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = Data(#"{"type":"Feature","geometry":null,"properties":{}}"#.utf8)
    let run = try geopipe(["render", "map.png"], stdin: input, in: directory)
    #expect(run.status == 65, "\(run)")
    #expect(run.err.contains("no feature has a geometry to fit"), "\(run)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
  }

  @Test func aMissingBasemapCannotBeOpenedAndLeavesNoFile() throws {
    let directory = try makeTemporaryDirectory(prefix: "geopipe-render")
    defer { try? FileManager.default.removeItem(at: directory) }
    let run = try geopipe(
      ["render", "map.png", "--basemap", "none.geojson"], stdinFile: Self.input, in: directory)
    #expect(run.status == 66, "\(run)")
    #expect(run.err.contains("cannot open 'none.geojson'"), "\(run)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
  }
}
