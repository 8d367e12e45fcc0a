import Foundation
import Testing

/// `dedupe`, `rename-layer`, `read` of several files and boxes written with spaces, through
/// the binary.
@Suite("Small operations")
struct SmallOperationsTests {
  private static func feature(_ properties: String, _ geometry: String) -> String {
    "{\"type\":\"Feature\",\"properties\":{\(properties)},\"geometry\":\(geometry)}"
  }

  private static let point = "{\"type\":\"Point\",\"coordinates\":[1,2]}"
  private static let other = "{\"type\":\"Point\",\"coordinates\":[1,2.000000001]}"

  @Test func dedupeKeepsTheFirstOfEachGeometry() throws {
    let lines = [
      Self.feature("\"n\":1", Self.point), Self.feature("\"n\":2", Self.other),
      Self.feature("\"n\":3", Self.point), Self.feature("\"n\":4", "null"),
      Self.feature("\"n\":5", "null"), Self.feature("\"n\":6", Self.other),
    ]
    let run = try geopipe(["dedupe"], stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
    #expect(run.status == 0, "\(run)")
    #expect(run.outLines.filter { !$0.isEmpty } == [lines[0], lines[1], lines[3], lines[4]])
    #expect(
      run.err == "note: dedupe: dropped 2 features with the same geometry as an earlier one\n")
  }

  /// Keys compare as DISTINCT does: 1 and 1.0 are one value, missing and null are one, and
  /// a number is not its text.
  @Test func dedupeByComparesAsDistinct() throws {
    let lines = [
      Self.feature("\"k\":1,\"c\":\"a\"", "null"), Self.feature("\"k\":1.0,\"c\":\"a\"", "null"),
      Self.feature("\"k\":\"1\",\"c\":\"a\"", "null"), Self.feature("\"k\":null", "null"),
      Self.feature("\"c\":null", "null"), Self.feature("\"k\":1,\"c\":\"b\"", "null"),
    ]
    let run = try geopipe(
      ["dedupe", "--by", "k,c"], stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
    #expect(run.status == 0, "\(run)")
    #expect(run.outLines.filter { !$0.isEmpty } == [lines[0], lines[2], lines[3], lines[5]])
    #expect(run.err.contains("dropped 2 features with the same k, c as an earlier one"))
    let typo = try geopipe(
      ["dedupe", "--by", "kk", "--strict"], stdin: Data((lines[0] + "\n").utf8))
    #expect(typo.status == 65, "\(typo)")
    #expect(typo.err.contains("no feature has a property 'kk'; did you mean 'k'?"))
  }

  @Test func renameLayerSetsTheTileLayer() throws {
    let input = Data(
      (Self.feature("\"n\":1", Self.point) + "\n"
        + "{\"type\":\"Feature\",\"properties\":{\"n\":2},\"geometry\":null,"
        + "\"tippecanoe\":{\"layer\":\"roads\",\"minzoom\":3}}\n").utf8)
    let all = try geopipe(["rename-layer", "streets"], stdin: input)
    #expect(all.status == 0, "\(all)")
    #expect(all.outLines[0].hasSuffix(",\"tippecanoe\":{\"layer\":\"streets\"}}"), "\(all.out)")
    #expect(all.outLines[1].hasSuffix("\"tippecanoe\":{\"layer\":\"streets\",\"minzoom\":3}}"))
    let some = try geopipe(["rename-layer", "streets", "--from", "roads"], stdin: input)
    #expect(some.outLines[0] == Self.feature("\"n\":1", Self.point))
    #expect(some.outLines[1].hasSuffix("\"tippecanoe\":{\"layer\":\"streets\",\"minzoom\":3}}"))
    let missing = try geopipe(["rename-layer"], stdin: input)
    #expect(missing.status == 64, "\(missing)")
  }

  /// In a pipeline the collection's name (GDAL's layer name for GeoJSON) is renamed too, and
  /// `read` takes a list of files.
  @Test func pipelinesRenameTheCollectionAndReadSeveralFiles() throws {
    try withTemporaryDirectory { directory in
      try Data(
        "{\"type\":\"FeatureCollection\",\"name\":\"roads\",\"features\":[\(Self.feature("\"a\":1", Self.point))]}"
          .utf8
      ).write(to: directory.appendingPathComponent("a.geojson"))
      try Data("b,lat,lon\nx,10,20\n".utf8).write(to: directory.appendingPathComponent("b.csv"))
      try Data(
        """
        version: 1
        stages:
          - {id: src, read: [a.geojson, b.csv]}
          - rename-layer: {name: streets, from: roads}
          - write: out.geojson
          - {input: src, write: out.csv}

        """.utf8
      ).write(to: directory.appendingPathComponent("p.yaml"))
      let run = try geopipe(["run", "p.yaml"], in: directory)
      #expect(run.status == 0, "\(run)")
      let text = try String(
        contentsOf: directory.appendingPathComponent("out.geojson"), encoding: .utf8)
      #expect(text.contains("\"name\":\"streets\""), "\(text)")
      #expect(text.components(separatedBy: "\"type\":\"Feature\"").count == 3)
      let csv = try String(contentsOf: directory.appendingPathComponent("out.csv"), encoding: .utf8)
      #expect(csv.hasPrefix("longitude,latitude,a,b\n"), "\(csv)")
      #expect(csv.split(separator: "\n").count == 3, "\(csv)")
    }
  }

  @Test func readConcatenatesFilesWithTheirOwnSchemas() throws {
    try withTemporaryDirectory { directory in
      try Data((Self.feature("\"a\":1", Self.point) + "\n").utf8)
        .write(to: directory.appendingPathComponent("a.geojsonl"))
      try Data("b,lat,lon\nx,10,20\n".utf8).write(to: directory.appendingPathComponent("b.csv"))
      let run = try geopipe(["read", "a.geojsonl", "b.csv"], in: directory)
      #expect(run.status == 0, "\(run)")
      #expect(
        run.outLines.filter { !$0.isEmpty } == [
          Self.feature("\"a\":1", Self.point),
          Self.feature("\"b\":\"x\"", "{\"type\":\"Point\",\"coordinates\":[20,10]}"),
        ])
      let missing = try geopipe(["read", "a.geojsonl", "nope.csv"], in: directory)
      #expect(missing.status == 66, "\(missing)")
      #expect(missing.outLines.first?.hasPrefix("!geopipe-error") == true, "\(missing.out)")
      let twice = try geopipe(["read", "-", "a.geojsonl", "-"], stdin: Data(), in: directory)
      #expect(twice.status == 64, "\(twice)")
      #expect(twice.err.contains("standard input ('-') can be read only once"))
    }
  }

  /// fio writes boxes as "W, S, E, N"; every option that takes a box or a point takes spaces.
  @Test func boxesMayHaveSpacesAfterTheCommas() throws {
    let input = Data(
      (Self.feature("\"n\":1", Self.point) + "\n"
        + Self.feature("\"n\":2", "{\"type\":\"Point\",\"coordinates\":[30,40]}") + "\n").utf8)
    let spaced = try geopipe(["filter", "--bbox", "0, 1, 5, 3"], stdin: input)
    #expect(spaced.status == 0, "\(spaced)")
    #expect(spaced.outLines.filter { !$0.isEmpty } == [Self.feature("\"n\":1", Self.point)])
    let read = try geopipe(["read", "--bbox", " 25 ,35, 35 , 45 "], stdin: input)
    #expect(read.outLines.filter { !$0.isEmpty }.count == 1, "\(read)")
    let camera = try geopipe(["camera", "--fit-bounds", "-10, 35, 30, 60"])
    #expect(camera.status == 0, "\(camera)")
    #expect(camera.out == (try geopipe(["camera", "--fit-bounds", "-10,35,30,60"])).out)
    let bad = try geopipe(["filter", "--bbox", "0, 1, 5"], stdin: input)
    #expect(bad.status == 64, "\(bad)")
    #expect(bad.err.contains("expected W,S,E,N (four numbers, west first)"))
  }
}
