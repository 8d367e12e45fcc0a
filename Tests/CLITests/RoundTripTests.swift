import Foundation
import Testing

/// Every file in `Fixtures/roundtrip/` survives read → write → read with its coordinates and
/// properties unchanged, through GeoJSONSeq and through a GeoJSON FeatureCollection.
@Suite("Round trips")
struct RoundTripTests {
  static let folder = CLI.fixtures("roundtrip")

  /// The fixtures and how many features each holds.
  static let featureCounts: [String: Int] = [
    "awkward.geojson": 10,
    "compressed.geojsonl.gz": 4,
    "features.geojsonl": 5,
    "features.geojsons": 5,
    "no-coordinates.csv": 3,
    "one-line.geojson": 4,
    "semicolons.csv": 4,
    "wkt.csv": 13,
  ]

  /// Every data file in the folder (README.md describes them and is not one).
  static let files: [String] = {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.filter { $0 != "README.md" && !$0.hasPrefix(".") }.sorted()
  }()

  @Test func everyRoundTripFixtureIsListed() {
    #expect(Set(Self.files) == Set(Self.featureCounts.keys))
  }

  @Test(
    "read → .geojsonl → read and read → .geojson → read give the same features", arguments: files)
  func keepsEveryCoordinateAndProperty(file: String) throws {
    try withTemporaryDirectory { dir in
      let input = Self.folder.appendingPathComponent(file).path
      let b = dir.appendingPathComponent("b.geojsonl")
      let c = dir.appendingPathComponent("c.geojsonl")
      let d = dir.appendingPathComponent("d.geojson")
      let e = dir.appendingPathComponent("e.geojsonl")
      let f = dir.appendingPathComponent("f.geojson")

      for (from, to) in [
        (input, b.path), (b.path, c.path), (input, d.path), (d.path, e.path), (b.path, f.path),
      ] {
        let run = try geopipe(["convert", from, to])
        #expect(run.status == 0, "convert \(from) \(to): \(run)")
        #expect(run.err.isEmpty, "convert \(from) \(to) printed on stderr: \(run.err)")
      }
      let seq = bytes(b)
      #expect(!seq.isEmpty)
      // `read --rewind` streams what `convert` writes to a .geojsonl file.
      let read = try geopipe(["read", "--rewind", input])
      #expect(read.status == 0, "\(read)")
      #expect(read.stdout == seq)
      #expect(seq == bytes(c), "GeoJSONSeq → GeoJSONSeq changed the features")
      #expect(seq == bytes(e), "GeoJSON → GeoJSONSeq differs from the direct conversion")
      // Features are the same by either route; only FC → FC keeps the collection's own
      // members (a GeoJSONSeq has nowhere to carry them).
      #expect(featuresPart(bytes(d)) == featuresPart(bytes(f)), "the features differ by route")
      #expect(lines(of: String(decoding: seq, as: UTF8.self)).count == Self.featureCounts[file])

      // Both outputs are JSON an independent parser accepts, with the same features.
      let sequence = try JSON.parseSequence(seq)
      let collection = try JSON.parse(Array(bytes(d)))
      #expect(collection["type"] == .string("FeatureCollection"))
      #expect(collection["features"]?.array == sequence)
    }
  }

  @Test("--no-rewind round trips keep rings as given", arguments: files)
  func keepsRingsWithNoRewind(file: String) throws {
    try withTemporaryDirectory { dir in
      let input = Self.folder.appendingPathComponent(file).path
      let b = dir.appendingPathComponent("b.geojsonl")
      let c = dir.appendingPathComponent("c.geojsonl")
      let d = dir.appendingPathComponent("d.geojson")
      let e = dir.appendingPathComponent("e.geojsonl")
      for (from, to) in [(input, b.path), (b.path, c.path), (input, d.path), (d.path, e.path)] {
        let run = try geopipe(["convert", "--no-rewind", from, to])
        #expect(run.status == 0, "convert --no-rewind \(from) \(to): \(run)")
      }
      #expect(bytes(b) == bytes(c))
      #expect(bytes(b) == bytes(e))
      // `read` streams rings as given, as `convert --no-rewind` writes them to a file, and
      // `read --rewind` as `convert` does.
      let read = try geopipe(["read", input])
      #expect(read.status == 0, "\(read)")
      #expect(read.stdout == bytes(b))
      let rewound = try geopipe(["read", "--rewind", input])
      let converted = dir.appendingPathComponent("f.geojsonl")
      #expect(try geopipe(["convert", input, converted.path]).status == 0)
      #expect(rewound.status == 0, "\(rewound)")
      #expect(rewound.stdout == bytes(converted))
    }
  }

  @Test("GeoJSON output winds exteriors counter-clockwise and holes clockwise", arguments: files)
  func rewindsRingsToRFC7946(file: String) throws {
    try withTemporaryDirectory { dir in
      let out = dir.appendingPathComponent("out.geojson")
      let run = try geopipe(["convert", Self.folder.appendingPathComponent(file).path, out.path])
      #expect(run.status == 0, "\(run)")
      let features = try JSON.parse(Array(bytes(out)))["features"]?.array ?? []
      for feature in features {
        guard let geometry = feature["geometry"] else { continue }
        for rings in polygons(in: geometry) {
          for (k, ring) in rings.enumerated() {
            let area = signedDoubleArea(ring.array ?? [])
            if k == 0 {
              #expect(area > 0, "exterior ring is clockwise in \(feature["id"] ?? .null)")
            } else {
              #expect(area < 0, "hole is counter-clockwise in \(feature["id"] ?? .null)")
            }
          }
        }
      }
    }
  }

  @Test("CSV fixtures also survive CSV → CSV", arguments: files.filter { $0.hasSuffix(".csv") })
  func csvSurvivesWritingCSV(file: String) throws {
    try withTemporaryDirectory { dir in
      let input = Self.folder.appendingPathComponent(file).path
      let direct = try geopipe(["read", input])
      #expect(direct.status == 0)
      let csv = dir.appendingPathComponent("copy.csv").path
      let format = file == "wkt.csv" ? "wkt" : "auto"
      let written = try geopipe(["convert", "--geometry-format", format, input, csv])
      #expect(written.status == 0, "\(written)")
      let again = try geopipe(["read", csv])
      #expect(again.status == 0, "\(again)")
      #expect(again.out == direct.out)
    }
  }

  // MARK: Values compared with an independent JSON reader

  /// Features as the source says them, with bare geometries wrapped as `read` wraps them.
  private func sourceFeatures(_ file: String) throws -> [JSON] {
    let data = bytes(Self.folder.appendingPathComponent(file))
    let records: [JSON] =
      file.hasSuffix(".geojson")
      ? (try JSON.parse(Array(data))["features"]?.array ?? []) : try JSON.parseSequence(data)
    return records.map { record in
      if record["type"] == .string("Feature") { return record }
      return .object([
        .init(key: "type", value: .string("Feature")), .init(key: "properties", value: .object([])),
        .init(key: "geometry", value: record),
      ])
    }
  }

  @Test(
    "GeoJSON sources read back with identical ids, properties, geometries and foreign members",
    arguments: ["awkward.geojson", "features.geojsonl", "features.geojsons", "one-line.geojson"])
  func readsGeoJSONValuesExactly(file: String) throws {
    let expected = try sourceFeatures(file)
    let read = try geopipe(["read", Self.folder.appendingPathComponent(file).path])
    #expect(read.status == 0, "\(read)")
    let actual = try JSON.parseSequence(read.stdout)
    #expect(actual.count == expected.count)
    for (want, got) in zip(expected, actual) {
      // Members may move (geopipe writes type, id, bbox, properties, geometry, then foreign
      // members) but not change; integers stay integers and floats keep their bits.
      var wantFeature = want
      var gotFeature = got
      if case .object(var members) = wantFeature {
        members = members.map {
          $0.key == "geometry" || $0.key == "bbox"
            ? .init(key: $0.key, value: $0.value.numbersAsFloats) : $0
        }
        wantFeature = .object(members)
      }
      if case .object(var members) = gotFeature {
        members = members.map {
          $0.key == "geometry" || $0.key == "bbox"
            ? .init(key: $0.key, value: $0.value.numbersAsFloats) : $0
        }
        gotFeature = .object(members)
      }
      #expect(gotFeature.sortingKeys == wantFeature.sortingKeys, "\(got)\nis not\n\(want)")
      // Property order is kept.
      #expect(got["properties"]?.keys == want["properties"]?.keys)
    }
  }

  @Test func readsTheSameFeaturesFromGzip() throws {
    let gzip = try geopipe([
      "read", Self.folder.appendingPathComponent("compressed.geojsonl.gz").path,
    ])
    let plain = try geopipe(["read", Self.folder.appendingPathComponent("one-line.geojson").path])
    #expect(gzip.status == 0 && plain.status == 0)
    #expect(gzip.stdout == plain.stdout)
    #expect(gzip.outLines.count == 4)
  }

  @Test func readsRSDelimitedLikeNewlineDelimited() throws {
    let rs = try geopipe(["read", Self.folder.appendingPathComponent("features.geojsons").path])
    let nl = try geopipe(["read", Self.folder.appendingPathComponent("features.geojsonl").path])
    #expect(rs.status == 0 && nl.status == 0)
    #expect(rs.stdout == nl.stdout)
  }

  @Test func writesRSDelimitedForGeojsonsFiles() throws {
    try withTemporaryDirectory { dir in
      let out = dir.appendingPathComponent("out.geojsons")
      let run = try geopipe([
        "convert", Self.folder.appendingPathComponent("features.geojsonl").path, out.path,
      ])
      #expect(run.status == 0)
      let written = text(out)
      let records = written.split(separator: "\n")
      #expect(records.count == 5)
      #expect(records.allSatisfy { $0.first == "\u{1E}" })
      #expect(try JSON.parseSequence(Data(written.utf8)).count == 5)
    }
  }

  // MARK: Selected values, as text

  /// The awkward fixture written as GeoJSONSeq.
  private func awkwardAsSeq(_ extra: [String] = []) throws -> String {
    try withTemporaryDirectory { dir in
      let out = dir.appendingPathComponent("out.geojsonl")
      let run = try geopipe(
        ["convert"] + extra + [
          Self.folder.appendingPathComponent("awkward.geojson").path, out.path,
        ])
      #expect(run.status == 0, "\(run)")
      return text(out)
    }
  }

  @Test func keepsNumbersTheirValueAndKind() throws {
    let out = try awkwardAsSeq()
    for fragment in [
      #""one":1.0,"#, #""negzero":-0.0,"#, #""big":12345678901234567890123,"#,
      #""denormal":5e-324,"#,
      #""max":1.7976931348623157e+308,"#, #""twoto53plus1":9007199254740993,"#,
      #""negzeroint":-0,"#,
      #""zero":0,"#, #""neg":-12,"#, #""exp":100.0,"#, #""tenth":0.1,"#,
      #""bigneg":-98765432109876543210,"#,
      #""small":-1.5e-300,"#, #""int64max":9223372036854775807,"#,
      #""int64min":-9223372036854775808,"#,
      #""pastint64":9223372036854775808}"#, #""id":42,"#, #""id":-7.5,"#, #""id":"numbers","#,
    ] {
      #expect(out.contains(fragment), "missing \(fragment)")
    }
    // 1e-7 may be spelled 1e-07 or 1e-7, but must read back as a float with the same bits.
    let first = try JSON.parse(String(lines(of: out)[0]))
    #expect(first["properties"]?["tiny"] == .float(1e-7))
  }

  @Test func keepsStringsExactly() throws {
    let out = try awkwardAsSeq()
    let feature = try JSON.parse(lines(of: out)[1])
    let properties = try #require(feature["properties"])
    #expect(
      properties["escapes"]
        == .string("quote \" backslash \\ slash / nl \n tab \t ctl \u{1} bs \u{8} ff \u{C} cr \r"))
    #expect(properties["separators"] == .string("line\u{2028}sep\u{2029}para"))
    #expect(properties["emoji"] == .string("emoji 😀 🌍 👩‍👩‍👧"))
    #expect(properties["combining"] == .string("e\u{301} cafe\u{301} n\u{303}"))
    #expect(properties["rtl"] == .string("שלום مرحبا"))
    #expect(properties["nul"] == .string("nul \u{0} end"))
    #expect(properties["empty"] == .string(""))
    #expect(properties["key with \"quotes\" and é"] == .string("k"))
    // Control characters are escaped, never written raw.
    #expect(out.contains(#"nul \u0000 end"#))
    #expect(out.contains(#"ctl \u0001 bs"#))
    #expect(!out.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
  }

  @Test func keepsNestedValuesAndForeignMembers() throws {
    let out = try awkwardAsSeq()
    #expect(
      out.contains(
        #""nested":{"arr":[1,[2,[3,[]]],{}],"obj":{"x":null,"y":true,"z":false}},"null":null,"true":true,"false":false}"#
      ))
    #expect(
      out.contains(#""geometry":null,"title":"a foreign member","extra":{"k":[1,2.5,"x",null]}}"#))
    #expect(
      out.contains(#"{"type":"Feature","properties":null,"geometry":{"type":"MultiLineString""#))
    #expect(out.contains(#""bbox":[-10,-5,10,5]"#))
  }

  @Test func keepsThreeAndFourDimensionalPositionsAndNegativeZero() throws {
    let out = try awkwardAsSeq()
    #expect(out.contains(#""coordinates":[2.3522,48.8566,35.5]"#))
    #expect(out.contains(#"[[2,2,1],[3,3],[4,4,3,7]]"#))
    #expect(out.contains(#"[[[[100,0,5],[101,0,5],[101,1,5],[100,1,5],[100,0,5]]]"#))
    #expect(out.contains(#""coordinates":[[-0,0],[179.999999,-89.5],[-180,90]]"#))
    #expect(out.contains(#"{"type":"GeometryCollection","geometries":[]}"#))
  }

  @Test func rewindsClockwiseExteriorsAndCounterClockwiseHoles() throws {
    let out = try awkwardAsSeq()
    #expect(
      out.contains(
        #""coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]],[[2,2],[2,4],[4,4],[4,2],[2,2]]]"#))
    #expect(
      out.contains(
        #"[[[102,2],[103,2],[103,3],[102,3],[102,2]],[[102.2,2.2],[102.2,2.8],[102.8,2.8],[102.8,2.2],[102.2,2.2]]]"#
      ))
  }

  @Test func noRewindKeepsRingsAsGiven() throws {
    let out = try awkwardAsSeq(["--no-rewind"])
    #expect(
      out.contains(
        #""coordinates":[[[0,0],[0,10],[10,10],[10,0],[0,0]],[[2,2],[4,2],[4,4],[2,4],[2,2]]]"#))
    #expect(
      out.contains(
        #"[[[102,2],[102,3],[103,3],[103,2],[102,2]],[[102.2,2.2],[102.8,2.2],[102.8,2.8],[102.2,2.8],[102.2,2.2]]]"#
      ))
  }

  @Test func readsQuotedSemicolonCSVWithBOM() throws {
    let run = try geopipe(["read", Self.folder.appendingPathComponent("semicolons.csv").path])
    #expect(run.status == 0, "\(run)")
    let features = try JSON.parseSequence(run.stdout)
    try #require(features.count == 4)
    // The BOM is not part of the first column's name.
    #expect(features[0]["properties"]?.keys == ["name", "note", "code"])
    #expect(features[0]["properties"]?["name"] == .string("Bruxelles; Brussel"))
    #expect(features[0]["properties"]?["note"] == .string("he said \"hi\""))
    #expect(features[0]["geometry"]?["coordinates"] == .array([.float(4.3517), .float(50.8503)]))
    #expect(features[1]["properties"]?["name"] == .string("Multi\nline \"name\""))
    #expect(features[1]["properties"]?["note"] == .string("a;b,c"))
    #expect(features[1]["properties"]?["code"] == .string("007"))
    #expect(features[2]["properties"]?["note"] == .string(""))
    #expect(features[3]["properties"]?["note"] == .string("tab\there"))
    #expect(features[3]["properties"]?["code"] == .string("-0"))
    #expect(run.out.contains(#""coordinates":[-46.63611,-23.5475]"#))
  }

  @Test func readsWKTColumn() throws {
    let run = try geopipe(["read", Self.folder.appendingPathComponent("wkt.csv").path])
    #expect(run.status == 0, "\(run)")
    let out = run.outLines
    try #require(out.count == 13)
    #expect(out[1].contains(#""coordinates":[30,10,5]"#))
    #expect(
      out[3].contains(
        #"[[[35,10],[45,45],[15,40],[10,20],[35,10]],[[20,30],[35,35],[30,20],[20,30]]]"#))
    #expect(out[5].contains(#""MultiPoint","coordinates":[[10,40],[40,30]]"#))
    #expect(out[9].contains(#"{"type":"GeometryCollection","geometries":[]}"#))
    #expect(out[10].hasSuffix(#""geometry":null}"#))
    #expect(out[11].contains(#""coordinates":[-0.5,51.5]"#))
    #expect(out[12].contains(#""coordinates":[1.5,-2.25]"#))
    #expect(!run.out.contains(#""wkt""#), "the WKT column must become the geometry, not a property")
  }

  @Test func readsCSVWithoutCoordinatesAsFeaturesWithoutGeometry() throws {
    let run = try geopipe(["read", Self.folder.appendingPathComponent("no-coordinates.csv").path])
    #expect(run.status == 0, "\(run)")
    #expect(run.outLines.count == 3)
    #expect(run.outLines.allSatisfy { $0.hasSuffix(#""geometry":null}"#) })
    #expect(
      run.outLines[2]
        == #"{"type":"Feature","properties":{"code":"CH","name":"Schweiz \"Suisse\"","population":"8902308","founded":""},"geometry":null}"#
    )
  }
}

/// Every output format geopipe writes can be read back to the same features.
@Suite("Output formats")
struct OutputFormatTests {
  static let extensions = [
    "geojson", "json", "geojsonl", "geojsonseq", "ndjson", "jsonl", "ldjson", "geojsons", "csv",
    "tsv", "txt",
    "geojson.gz", "geojsonl.gz", "geojsons.gz", "csv.gz", "tsv.gz",
  ]

  @Test("places.csv → places.EXT → read gives what reading places.csv gives", arguments: extensions)
  func readsBackWhatItWrites(_ ext: String) throws {
    try withTemporaryDirectory { dir in
      let places = CLI.fixtures("cli/places.csv").path
      let out = dir.appendingPathComponent("places.\(ext)").path
      let direct = try geopipe(["read", places])
      let convert = try geopipe(["convert", places, out])
      #expect(convert.status == 0, "\(convert)")
      let back = try geopipe(["read", out])
      #expect(back.status == 0, "\(back)")
      #expect(back.out == direct.out)
      #expect(try contents(of: dir) == ["places.\(ext)"])
    }
  }

  @Test func gzipOutputIsGzip() throws {
    try withTemporaryDirectory { dir in
      let out = dir.appendingPathComponent("w.geojson.gz")
      let run = try geopipe(["convert", CLI.fixtures("cli/world.geojson").path, out.path])
      #expect(run.status == 0)
      #expect(bytes(out).prefix(2) == Data([0x1F, 0x8B]))
    }
  }

  @Test func outputFormatOptionOverridesTheExtension() throws {
    try withTemporaryDirectory { dir in
      let out = dir.appendingPathComponent("features.out")
      let run = try geopipe([
        "convert", "--no-rewind", "--output-format", "geojsonseq",
        CLI.fixtures("cli/world.geojson").path, out.path,
      ])
      #expect(run.status == 0, "\(run)")
      #expect(text(out) == text(CLI.fixtures("cli/world.read.geojsonl")))
    }
  }

  @Test func precisionRoundsCoordinatesOnly() throws {
    let feature =
      #"{"type":"Feature","properties":{"x":1.23456789},"geometry":{"type":"Point","coordinates":[1.23456789,-2.98765432]}}"#
    let run = try geopipe(["convert", "--precision", "3", "-", "-"], stdin: Data(feature.utf8))
    #expect(run.status == 0, "\(run)")
    #expect(run.out.contains(#""coordinates":[1.235,-2.988]"#), "\(run.out)")
    #expect(run.out.contains(#""x":1.23456789"#))
  }
}

/// A written FeatureCollection up to the end of its features array.
private func featuresPart(_ data: Data) -> String {
  let text = String(decoding: data, as: UTF8.self)
  guard let end = text.range(of: "\n]", options: .backwards) else { return text }
  return String(text[..<end.lowerBound])
}
