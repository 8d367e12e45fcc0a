import GeoPipeCore
import Testing

@testable import GeoPipeIO

@Suite struct WriterTests {
  private func features(_ n: Int) -> [Feature] {
    (0..<n).map { (k: Int) -> Feature in
      let x = Double(k % 360) - 180
      let y = Double(k % 180) / 2 - 45
      let geometry: Geometry? = k % 7 == 0 ? nil : .point(Position(x: x, y: y))
      var properties = JSONObject()
      properties["k"] = .integer(Int64(k))
      properties["name"] = .string("place \(k) \"q\"")
      return Feature(id: .integer(Int64(k)), geometry: geometry, properties: properties)
    }
  }

  private func written(_ features: [Feature], format: FeatureFormat, threads: Int) throws -> [UInt8]
  {
    let sink = MemorySink()
    var options = WriteOptions()
    options.threads = threads
    let writer: any FeatureWriter =
      switch format.name {
      case "geojson": GeoJSONWriter(sink: sink, options: options)
      case "csv": CSVWriter(sink: sink, options: options)
      case "kml": KMLWriter(sink: sink, options: options)
      default: GeoJSONSeqWriter(sink: sink, options: options)
      }
    for feature in features { try writer.write(feature) }
    try writer.finish()
    #expect(sink.isCommitted)
    return sink.bytes
  }

  @Test(arguments: [0, 1, 2047, 2048, 2049, 10_000])
  func parallelEncodingGivesTheSameBytes(count: Int) throws {
    let input = features(count)
    for format in [FeatureFormat.geoJSON, .geoJSONSeq] {
      let one = try written(input, format: format, threads: 1)
      #expect(try written(input, format: format, threads: 2) == one)
      #expect(try written(input, format: format, threads: 3) == one)
      let text = String(decoding: one, as: UTF8.self)
      let reread = try readAll(text)
      #expect(reread == input)
    }
  }

  @Test func emptyCollectionIsValidGeoJSON() throws {
    let text = String(decoding: try written([], format: .geoJSON, threads: 1), as: UTF8.self)
    #expect(text == "{\"type\":\"FeatureCollection\",\"features\":[]}\n")
  }

  @Test func csvUsesCoordinateColumnsForPointsAndQuotesFields() throws {
    let text = String(decoding: try written(features(3), format: .csv, threads: 1), as: UTF8.self)
    #expect(
      text == """
        longitude,latitude,k,name
        ,,0,"place 0 ""q\"""
        -179,-44.5,1,"place 1 ""q\"""
        -178,-44,2,"place 2 ""q\"""

        """)
  }

  @Test func csvColumnsAreTheUnionOfAllProperties() throws {
    let sink = MemorySink()
    let writer = CSVWriter(sink: sink)
    try writer.write(Feature(properties: ["a": .integer(1)]))
    try writer.write(Feature(properties: ["b": .integer(2), "a": .integer(3)]))
    try writer.finish()
    #expect(String(decoding: sink.bytes, as: UTF8.self) == "longitude,latitude,a,b\n,,1,\n,,3,2\n")
  }

  @Test func csvColumnsGivenLeaveOtherPropertiesOut() throws {
    let sink = MemorySink()
    var options = WriteOptions()
    options.csv.columns = ["b"]
    let writer = CSVWriter(sink: sink, options: options)
    try writer.write(Feature(properties: ["a": .integer(1)]))
    try writer.write(Feature(properties: ["b": .integer(2), "a": .integer(3)]))
    try writer.finish()
    #expect(String(decoding: sink.bytes, as: UTF8.self) == "longitude,latitude,b\n,,\n,,2\n")
  }
}

@Suite struct CollectionMembersTests {
  @Test func readersKeepCollectionMembersAndTheWriterWritesThem() throws {
    let text =
      #"{"type":"FeatureCollection","name":"places","features":[{"type":"Feature","properties":{},"geometry":null}],"bbox":[0,0,1,1],"extra":[1]}"#
    for threads in [1, 2] {
      var options = ReadOptions()
      options.threads = threads
      options.batchBytes = 16
      let reader = try FeatureReaders.open(
        source: MemoryByteSource(Array(text.utf8)), name: "test", options: options)
      var features: [Feature] = []
      while let feature = try reader.next() { features.append(feature) }
      #expect(reader.collectionMembers.keys == ["name", "extra"])
      let sink = MemorySink()
      let writer = GeoJSONWriter(sink: sink)
      writer.collectionMembers = reader.collectionMembers
      for feature in features { try writer.write(feature) }
      try writer.finish()
      #expect(
        String(decoding: sink.bytes, as: UTF8.self)
          == "{\"type\":\"FeatureCollection\",\"features\":[\n"
          + "{\"type\":\"Feature\",\"properties\":{},\"geometry\":null}\n],\"name\":\"places\",\"extra\":[1]}\n"
      )
    }
  }
}
