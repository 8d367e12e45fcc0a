import Foundation
import Testing

/// `geopipe tiles` run as a binary; what the tiles hold is checked in GeoPipeTilesTests, and
/// here with GDAL's MVT/MBTiles driver when `ogrinfo` is installed.
@Suite struct TilesTests {
  static let points = CLI.fixtures("tiles/points.geojson")

  static var ogrinfo: String? {
    ["/usr/bin/ogrinfo", "/usr/local/bin/ogrinfo"].first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
  }

  @Test func writesTilesetsGDALReads() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    for name in ["points.mbtiles", "points.pmtiles"] {
      let run = try geopipe(
        ["tiles", name, "--max-zoom", "6", "--attribution", "test data"], stdinFile: Self.points,
        in: folder)
      #expect(run.status == 0, "\(run)")
      #expect(run.out.isEmpty)
      let size =
        try FileManager.default.attributesOfItem(
          atPath: folder.appendingPathComponent(name).path)[.size] as? Int
      #expect((size ?? 0) > 1000)
    }
    guard let ogrinfo = Self.ogrinfo else { return }
    // At zoom 6 every point but the 40 whose "tippecanoe" member stops at zoom 4, in its tile
    // (360) and in the buffers of the tiles beside it (30, one across the antimeridian): the
    // zoom-6 placements of Fixtures/tiles/points-expected.json.
    let summary = try runProcess(
      URL(fileURLWithPath: ogrinfo), ["-ro", "-so", "-al", "points.mbtiles"], stdin: nil,
      in: folder)
    #expect(summary.status == 0)
    #expect(summary.out.contains("Layer name: points"))
    #expect(summary.out.contains("Feature Count: 390"))
    #expect(summary.out.contains("attribution=test data"))
    // At zoom 3 all 400 points are there.
    let zoom3 = try runProcess(
      URL(fileURLWithPath: ogrinfo), ["-ro", "-al", "-oo", "ZOOM_LEVEL=3", "points.mbtiles"],
      stdin: nil, in: folder)
    let names = Set(zoom3.outLines.filter { $0.contains("name (String) = p") })
    #expect(names.count == 400)
  }

  @Test func rejectsBadPathsAndZoomsWithoutWritingAFile() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    let text = try geopipe(["tiles", "points.txt"], stdinFile: Self.points, in: folder)
    #expect(text.status == 64)
    #expect(text.err.contains("must end in .mbtiles or .pmtiles"))
    let zooms = try geopipe(
      ["tiles", "p.pmtiles", "--min-zoom", "5", "--max-zoom", "2"], stdinFile: Self.points,
      in: folder)
    #expect(zooms.status == 64)
    // Missing folders are created, but not inside a file.
    let missing = try geopipe(
      ["tiles", "/dev/null/folder/p.mbtiles"], stdinFile: Self.points, in: folder)
    #expect(missing.status == 73)
    #expect(missing.err.contains("'/dev/null' is not a folder"))
    let bad = try geopipe(
      ["tiles", "bad.pmtiles"],
      stdin: Data(
        "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2]}} x\n".utf8),
      in: folder)
    #expect(bad.status == 65)
    #expect(bad.err.contains("<stdin>:1:"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
  }
}

extension TilesTests {
  @Test func emptyInputGivesAnEmptyTileset() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    for name in ["empty.mbtiles", "empty.pmtiles"] {
      let run = try geopipe(["tiles", name, "--max-zoom", "3"], stdin: Data(), in: folder)
      #expect(run.status == 0, "\(run)")
      #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path))
    }
  }
}

extension TilesTests {
  static let layered = Data(
    """
    {"type":"Feature","properties":{"kind":"river","name":"a"},"geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]}}
    {"type":"Feature","properties":{"kind":"town","pop":3},"geometry":{"type":"Point","coordinates":[2,2]}}
    {"type":"Feature","tippecanoe":{"layer":"lakes"},"properties":{"kind":"town"},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}}
    {"type":"Feature","properties":{"name":"b"},"geometry":{"type":"Point","coordinates":[3,3]}}

    """.utf8)

  /// The layers of an MBTiles file: the vector_layers ids in its metadata, which SQLite keeps
  /// as plain text.
  static func layerIDs(_ file: URL) throws -> [String] {
    let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
    return ["river", "town", "lakes", "other"].filter { text.contains("{\"id\":\"\($0)\"") }
  }

  @Test func layerPropertyAndTheTippecanoeMemberNameLayers() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    let run = try geopipe(
      ["tiles", "other.mbtiles", "--max-zoom", "3", "--layer-property", "kind"],
      stdin: Self.layered, in: folder)
    #expect(run.status == 0, "\(run)")
    #expect(
      try Self.layerIDs(folder.appendingPathComponent("other.mbtiles")) == [
        "river", "town", "lakes", "other",
      ])
    // The same from a pipeline file, whose stage takes the same option.
    try Data(Self.layered).write(to: folder.appendingPathComponent("in.geojsonl"))
    try Data(
      """
      version: 1
      stages:
        - read: {path: in.geojsonl}
        - tiles: {path: piped.mbtiles, max-zoom: 3, layer: other, layer-property: kind}

      """.utf8
    ).write(to: folder.appendingPathComponent("p.yaml"))
    let piped = try geopipe(["run", "p.yaml"], in: folder)
    #expect(piped.status == 0, "\(piped)")
    #expect(
      try Self.layerIDs(folder.appendingPathComponent("piped.mbtiles")) == [
        "river", "town", "lakes", "other",
      ])
    guard let ogrinfo = Self.ogrinfo else { return }
    let summary = try runProcess(
      URL(fileURLWithPath: ogrinfo), ["-ro", "-al", "-oo", "ZOOM_LEVEL=3", "other.mbtiles"],
      stdin: nil, in: folder)
    #expect(summary.status == 0)
    for name in ["river", "town", "lakes", "other"] {
      #expect(summary.out.contains("Layer name: \(name)"), "\(name)")
    }
    // The property that named the layer is not among the tiles' properties.
    #expect(!summary.out.contains("kind (String)"))
    #expect(summary.out.contains("pop (Real) = 3"))
  }
}
