import Foundation
import Testing

/// How inputs are chosen and interpreted: `-` for standard input, `--input-format`, `--crs`.
@Suite("Input options")
struct InputOptionTests {
  static let world = CLI.fixtures("cli/world.geojson")
  static let places = CLI.fixtures("cli/places.csv")

  // MARK: Standard input

  @Test func dashReadsStandardInput() throws {
    let fromFile = try geopipe(["read", Self.world.path])
    let fromStdin = try geopipe(["read", "-"], stdinFile: Self.world)
    let byDefault = try geopipe(["read"], stdinFile: Self.world)
    #expect(fromFile.status == 0 && fromStdin.status == 0 && byDefault.status == 0)
    #expect(fromStdin.stdout == fromFile.stdout)
    #expect(byDefault.stdout == fromFile.stdout)
  }

  @Test func convertReadsStandardInputAndWritesStandardOutput() throws {
    try withTemporaryDirectory { dir in
      let viaFile = try geopipe([
        "convert", Self.places.path, dir.appendingPathComponent("p.geojson").path,
      ])
      #expect(viaFile.status == 0)
      let viaStdio = try geopipe(["convert", "-", "-"], stdinFile: Self.places)
      #expect(viaStdio.status == 0, "\(viaStdio)")
      #expect(viaStdio.stdout == bytes(dir.appendingPathComponent("p.geojson")))
      let fromStdin = try geopipe(
        ["convert", "-", dir.appendingPathComponent("q.geojson").path], stdinFile: Self.places)
      #expect(fromStdin.status == 0)
      #expect(bytes(dir.appendingPathComponent("q.geojson")) == viaStdio.stdout)
    }
  }

  @Test func readBBoxKeepsTheFeaturesMeetingTheBox() throws {
    let all = try geopipe(["read", Self.world.path])
    let near = try geopipe(["read", "--bbox", "170,-25,180,-10", Self.world.path])
    #expect(all.status == 0 && near.status == 0, "\(near)")
    #expect(near.outLines.count < all.outLines.count && !near.outLines.isEmpty)
    #expect(near.out.contains("Suva") && !near.out.contains("Apia"))
    // The same as filtering with filter's --bbox, which tests each geometry too.
    let filtered = try geopipe(["filter", "--bbox", "170,-25,180,-10"], stdinFile: Self.world)
    #expect(near.stdout == filtered.stdout)
    let converted = try geopipe(["convert", "--bbox", "170,-25,180,-10", Self.world.path, "-"])
    #expect(converted.out.contains("\"Suva\"") && !converted.out.contains("Apia"))
  }

  @Test func infoReadsStandardInput() throws {
    let named = try geopipe(["info", Self.world.path])
    let dash = try geopipe(["info", "-"], stdinFile: Self.world)
    let implicit = try geopipe(["info"], stdinFile: Self.world)
    #expect(named.status == 0 && dash.status == 0 && implicit.status == 0)
    #expect(named.out.hasPrefix("features: 12\n"))
    #expect(dash.stdout == named.stdout)
    #expect(implicit.stdout == named.stdout)
  }

  @Test func writeWithoutPathWritesAFeatureCollectionToStandardOutput() throws {
    let run = try geopipe(["write"], stdinFile: CLI.fixtures("cli/world.read.geojsonl"))
    #expect(run.status == 0)
    #expect(run.stdout == bytes(CLI.fixtures("cli/world.convert.geojson")))
  }

  @Test func emptyInputGivesNoFeatures() throws {
    let read = try geopipe(["read", "-"], stdin: Data())
    #expect(read.status == 0)
    #expect(read.stdout.isEmpty)
    let write = try geopipe(["write", "-"], stdin: Data())
    #expect(write.status == 0)
    #expect(write.out == "{\"type\":\"FeatureCollection\",\"features\":[]}\n")
    let info = try geopipe(["info"], stdin: Data())
    #expect(info.out == "features: 0\n")
  }

  // MARK: Formats

  @Test func inputFormatCSVOverridesDetection() throws {
    // "[" first looks like a JSON array to the detector.
    let csv = Data("[id],lat,lon\nA,1.5,2.5\n".utf8)
    let detected = try geopipe(["read", "-"], stdin: csv)
    #expect(detected.status == 65)
    #expect(detected.err.contains("JSON array"))
    let forced = try geopipe(["read", "--input-format", "csv", "-"], stdin: csv)
    #expect(forced.status == 0, "\(forced)")
    #expect(
      forced.out
        == #"{"type":"Feature","properties":{"[id]":"A"},"geometry":{"type":"Point","coordinates":[2.5,1.5]}}"#
        + "\n")
  }

  @Test func inputFormatGeoJSONOverridesDetection() throws {
    let csv = Data("name,lat,lon\nA,1,2\n".utf8)
    let forced = try geopipe(["read", "--input-format=geojson", "-"], stdin: csv)
    #expect(forced.status == 65)
    #expect(forced.errLines.first?.hasPrefix("<stdin>:1:1: error: ") == true, "\(forced.err)")
  }

  @Test func csvColumnsCanBeNamed() throws {
    let csv = Data("ort;breite;laenge\nKöln;50,94;6,96\n".utf8)
    let run = try geopipe(
      ["read", "--lat", "breite", "--lon", "laenge", "--delimiter", ";", "-"], stdin: csv)
    #expect(run.status == 0, "\(run)")
    #expect(
      run.out
        == #"{"type":"Feature","properties":{"ort":"Köln"},"geometry":{"type":"Point","coordinates":[6.96,50.94]}}"#
        + "\n")
  }

  @Test func legacyCRSMemberIsDroppedWithANote() throws {
    let text =
      #"{"type":"FeatureCollection","crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:OGC:1.3:CRS84"}},"features":[]}"#
    let run = try geopipe(["read", "-"], stdin: Data(text.utf8))
    #expect(run.status == 0)
    #expect(run.err.contains("note: dropped the legacy \"crs\" member"))
    let quiet = try geopipe(["read", "--quiet", "-"], stdin: Data(text.utf8))
    #expect(quiet.status == 0)
    #expect(quiet.err.isEmpty)
  }

  // MARK: Coordinate reference systems

  static let mercator = """
    x,y,name
    20037508.342789244,0,east
    -20037508.342789244,0,west
    0,6446275.841017158,fifty north

    """

  private func coordinates(_ run: Run) throws -> [[Double]] {
    try JSON.parseSequence(run.stdout).map { feature in
      (feature["geometry"]?["coordinates"]?.array ?? []).compactMap(\.number)
    }
  }

  @Test func crsReprojectsToWGS84() throws {
    let run = try geopipe(["read", "--crs", "EPSG:3857", "-"], stdin: Data(Self.mercator.utf8))
    #expect(run.status == 0, "\(run)")
    let points = try coordinates(run)
    try #require(points.count == 3)
    #expect(abs(points[0][0] - 180) < 1e-9 && abs(points[0][1]) < 1e-9, "\(points[0])")
    #expect(abs(points[1][0] + 180) < 1e-9 && abs(points[1][1]) < 1e-9, "\(points[1])")
    #expect(abs(points[2][0]) < 1e-9 && abs(points[2][1] - 50) < 1e-9, "\(points[2])")
  }

  @Test func crsReprojectsGeoJSONToo() throws {
    let feature =
      #"{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[0,0],[20037508.342789244,6446275.841017158]]}}"#
    let run = try geopipe(["read", "--crs=EPSG:3857", "-"], stdin: Data(feature.utf8))
    #expect(run.status == 0, "\(run)")
    let line = try JSON.parseSequence(run.stdout).first?["geometry"]?["coordinates"]?.array ?? []
    let end = line.last?.array?.compactMap(\.number) ?? []
    #expect(end.count == 2 && abs(end[0] - 180) < 1e-9 && abs(end[1] - 50) < 1e-9, "\(end)")
  }

  @Test func keepCRSKeepsTheNumbers() throws {
    let run = try geopipe(
      ["read", "--crs", "EPSG:3857", "--keep-crs", "-"], stdin: Data(Self.mercator.utf8))
    #expect(run.status == 0, "\(run)")
    #expect(run.outLines.count == 3)
    #expect(run.outLines[0].contains(#""coordinates":[20037508.342789244,0]"#))
    #expect(run.outLines[1].contains(#""coordinates":[-20037508.342789244,0]"#))
    #expect(run.outLines[2].contains(#""coordinates":[0,6446275.841017158]"#))
  }

  @Test func projectedNumbersWithoutCRSAreOutOfRange() throws {
    let run = try geopipe(["read", "-"], stdin: Data(Self.mercator.utf8))
    #expect(run.status == 65)
    #expect(
      run.errLines.first?.hasPrefix(
        "<stdin>:2:1: error: longitude 20037508.342789244 is out of range") == true, "\(run.err)")
    #expect(run.err.contains("--crs"))
  }

  @Test func unknownCRSIsAUsageError() throws {
    let run = try geopipe(["read", "--crs", "EPSG:999999", "-"], stdin: Data(Self.mercator.utf8))
    #expect(run.status == 64, "\(run)")
  }
}
