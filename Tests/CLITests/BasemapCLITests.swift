import Foundation
import Testing

/// `geopipe render --map-type` through the binary.
///
/// Over the tilesets in Fixtures/render/basemap (a raster MBTiles made by GDAL and geopipe's
/// vector tiles of the same countries; see its README): SVG golden files for the three map types, and the errors
/// and warnings of sources and style files. Pixel checks against GDAL are in
/// Scripts/test-basemaps.sh.
@Suite("render basemaps")
struct BasemapCLITests {
  static let folder = CLI.fixtures("render/basemap")
  static func fixture(_ name: String) -> String { folder.appendingPathComponent(name).path }

  struct Case: Sendable, CustomTestStringConvertible {
    var expected: String
    var arguments: [String]
    var testDescription: String { expected }
  }

  static let view = ["--center", "5,20", "--zoom", "1.4", "--size", "400x300"]

  static let cases: [Case] = [
    Case(
      expected: "satellite.svg",
      arguments: view + ["--bearing", "20", "--basemap", fixture("world.mbtiles")]),
    Case(
      expected: "hybrid.svg",
      arguments: view + [
        "--map-type", "hybrid", "--basemap", fixture("world.mbtiles"), "--basemap",
        fixture("countries.pmtiles"),
      ]),
    Case(
      expected: "standard.svg", arguments: view + ["--basemap", fixture("countries.pmtiles")]),
    Case(
      expected: "standard-style.svg",
      arguments: view + [
        "--basemap", fixture("countries.pmtiles"), "--basemap-style", fixture("style.yaml"),
      ]),
  ]

  @Test("SVG matches the golden file", arguments: cases)
  func svgMatchesGolden(_ golden: Case) throws {
    let directory = try makeTemporaryDirectory(prefix: "geopipe-basemap")
    defer { try? FileManager.default.removeItem(at: directory) }
    let run = try geopipe(["render", "map.svg"] + golden.arguments, stdin: Data(), in: directory)
    #expect(run.status == 0, "\(run)")
    #expect(run.err.isEmpty, "\(run)")
    let written = try Data(contentsOf: directory.appendingPathComponent("map.svg"))
    let expected = try Data(contentsOf: Self.folder.appendingPathComponent(golden.expected))
    #expect(
      written == expected, "regenerate Fixtures/render/basemap/\(golden.expected) on purpose only")
  }

  @Test func pngOverRasterTilesIsTheSameEachRun() throws {
    let directory = try makeTemporaryDirectory(prefix: "geopipe-basemap")
    defer { try? FileManager.default.removeItem(at: directory) }
    for name in ["a.png", "b.png"] {
      let run = try geopipe(
        [
          "render", name, "--scale", "2", "--bearing", "-30", "--basemap",
          Self.fixture("world.mbtiles"),
        ]
          + Self.view, stdin: Data(), in: directory)
      #expect(run.status == 0, "\(run)")
    }
    let a = try Data(contentsOf: directory.appendingPathComponent("a.png"))
    let b = try Data(contentsOf: directory.appendingPathComponent("b.png"))
    #expect(a == b)
    #expect(a.count > 1000)
  }

  @Test func corruptTileInAFolderIsAWarningAndMissingOnesAreBackground() throws {
    let directory = try makeTemporaryDirectory(prefix: "geopipe-basemap")
    defer { try? FileManager.default.removeItem(at: directory) }
    let tiles = directory.appendingPathComponent("tiles/1/0")
    try FileManager.default.createDirectory(at: tiles, withIntermediateDirectories: true)
    try Data("not a png".utf8).write(to: tiles.appendingPathComponent("0.png"))
    let run = try geopipe(
      ["render", "map.png", "--basemap", "tms:tiles"] + Self.view, stdin: Data(), in: directory)
    #expect(run.status == 0, "\(run)")
    // TMS row 0 of zoom 1 is the southern row: XYZ tile 1/0/1.
    #expect(run.err.contains("warning: render: tiles: tile 1/0/1: it is not a PNG, JPEG or WebP"))
    #expect(
      FileManager.default.fileExists(atPath: directory.appendingPathComponent("map.png").path))
  }

  @Test func sourceAndStyleErrorsLeaveNoFile() throws {
    let directory = try makeTemporaryDirectory(prefix: "geopipe-basemap")
    defer { try? FileManager.default.removeItem(at: directory) }
    let errors: [([String], Int32, String)] = [
      (["--map-type", "satellite"], 64, "needs a --basemap of raster tiles"),
      (
        ["--map-type", "standard", "--basemap", Self.fixture("world.mbtiles")], 64,
        "not the raster tiles of"
      ),
      (
        ["--map-type", "none", "--basemap", Self.fixture("world.mbtiles")], 64,
        "leave out --basemap"
      ),
      (["--basemap", "tms:no-such-folder"], 66, "cannot open the tile folder 'no-such-folder'"),
      (
        [
          "--basemap", Self.fixture("countries.pmtiles"), "--basemap-style",
          Self.fixture("bad-style.yaml"),
        ],
        78, "bad-style.yaml:4:11: error: invalid fill 'blue'"
      ),
    ]
    for (arguments, status, message) in errors {
      let run = try geopipe(
        ["render", "map.png"] + Self.view + arguments, stdin: Data(), in: directory)
      #expect(run.status == status, "\(arguments): \(run)")
      #expect(run.err.contains(message), "\(arguments): \(run)")
      #expect(
        !FileManager.default.fileExists(atPath: directory.appendingPathComponent("map.png").path))
    }
  }
}
