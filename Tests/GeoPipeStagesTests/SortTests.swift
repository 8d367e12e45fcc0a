import Foundation
import GeoPipeCore
import GeoPipeIO
import Testing

@testable import GeoPipeStageKit
@testable import GeoPipeStages

@Suite struct SortTests {
  /// Runs a sort stage over `features`.
  private func sort(
    _ features: [Feature], by properties: [String], descending: Bool = false,
    budget: Int = .max, fanIn: Int = 16, directory: String = SortRuns.temporaryDirectory
  ) throws -> (features: [Feature], spilled: Int) {
    let stage = SortStage(
      properties: properties, descending: descending, memoryBudget: budget,
      temporaryDirectory: directory, fanIn: fanIn)
    var out: [Feature] = []
    for feature in features {
      try stage.process(feature) { out.append($0) }
    }
    #expect(out.isEmpty, "sort emitted before the end")
    try stage.finish { out.append($0) }
    return (out, stage.spilledRuns)
  }

  /// Features numbered by `i`, with `v` set to each value (nil: no `v` at all).
  private func numbered(_ values: [JSONValue?]) -> [Feature] {
    values.enumerated().map { i, value in
      var properties: JSONObject = ["i": .integer(Int64(i))]
      if let value { properties["v"] = value }
      return Feature(properties: properties)
    }
  }

  private func order(_ features: [Feature]) -> [Int64] {
    features.map {
      if case .integer(let i)? = $0.properties?["i"] { i } else { -1 }
    }
  }

  private let mixed: [JSONValue?] = [
    .string("b"), .integer(10), .string("9"), .bool(true), .null, nil, .double(9.5),
    .string("a"), .bool(false), .array([.integer(1)]), .string("Z"), .string("-1e3"),
    .integer(10), .string(" 10"),
  ]

  @Test func ordersNumbersThenTextThenBooleansWithMissingLast() throws {
    let out = try sort(numbered(mixed), by: ["v"]).features
    #expect(order(out) == [11, 2, 6, 1, 12, 13, 10, 7, 0, 8, 3, 9, 4, 5])
  }

  @Test func descendingReversesValuesButKeepsMissingLastAndTiesInInputOrder() throws {
    let out = try sort(numbered(mixed), by: ["v"], descending: true).features
    #expect(order(out) == [9, 3, 8, 0, 7, 10, 1, 12, 13, 6, 2, 11, 4, 5])
  }

  @Test func comparesLargeIntegersExactly() throws {
    let values: [JSONValue?] = [
      .integer(9_007_199_254_740_993), .double(9_007_199_254_740_992), .integer(.max),
      .integer(9_007_199_254_740_992), .double(9.3e18), .bigInteger("100000000000000000000"),
      .string("9007199254740991"), .double(-9.3e18), .integer(.min),
    ]
    let out = try sort(numbered(values), by: ["v"]).features
    #expect(order(out) == [7, 8, 6, 1, 3, 0, 2, 4, 5])
  }

  @Test func ordersTextByUTF8Bytes() throws {
    // The same letter precomposed and with a combining accent: equal to Swift's ==, but
    // different bytes.
    let values: [JSONValue?] = [
      .string("\u{E9}"), .string("e\u{301}"), .string("f"), .string("Z"), .string("a"),
      .string(""), .string("ab"),
    ]
    let out = try sort(numbered(values), by: ["v"]).features
    #expect(order(out) == [5, 3, 4, 6, 1, 2, 0])
  }

  @Test func laterPropertiesBreakTies() throws {
    let features = [("FR", 3), ("BE", 1), ("FR", 1), ("BE", 2), ("FR", 2)].enumerated().map {
      Feature(properties: [
        "i": .integer(Int64($0)), "country": .string($1.0), "rank": .integer(Int64($1.1)),
      ])
    }
    #expect(order(try sort(features, by: ["country", "rank"]).features) == [1, 3, 2, 4, 0])
    #expect(
      order(try sort(features, by: ["country", "rank"], descending: true).features)
        == [0, 4, 2, 3, 1])
  }

  @Test(arguments: [false, true])
  func spilledRunsMergeToTheSameOrderAsInMemory(descending: Bool) throws {
    var random = SplitMix64(seed: descending ? 7 : 11)
    let features = (0..<700).map { i in randomFeature(i, &random) }
    let inMemory = try sort(features, by: ["a", "b"], descending: descending)
    #expect(inMemory.spilled == 0)
    let spilled = try sort(
      features, by: ["a", "b"], descending: descending, budget: 4000, fanIn: 3)
    #expect(spilled.spilled > 27, "too few runs to merge on several levels")
    #expect(order(spilled.features) == order(inMemory.features))
    let unchanged = spilled.features == inMemory.features
    #expect(unchanged, "features changed on their way through the files")
    #expect(order(inMemory.features) == oracle(features, by: ["a", "b"], descending: descending))
  }

  @Test func spilledFeaturesComeBackExactly() throws {
    let features = awkwardFeatures()
    let inMemory = try sort(features, by: ["k"]).features
    let spilled = try sort(features, by: ["k"], budget: 1, fanIn: 2)
    #expect(spilled.spilled == features.count)
    let unchanged = spilled.features == inMemory
    #expect(unchanged, "features changed on their way through the files")
    let sameBytes = try encoded(spilled.features) == encoded(inMemory)
    #expect(sameBytes, "features encode differently after their way through the files")
    #expect(order(inMemory) == [5, 4, 3, 2, 0, -1])
  }

  @Test func temporaryFilesHaveNoNameAndAreClosedAtTheEnd() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("geopipe-sort-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let stage = SortStage(
      properties: ["i"], descending: true, memoryBudget: 1000, temporaryDirectory: folder.path)
    for feature in numbered(Array(repeating: .integer(1), count: 100)) {
      try stage.process(feature) { _ in }
    }
    #expect(stage.spilledRuns > 1)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [])
    #if os(Linux)
    #expect(openFiles(in: folder.path) > 0)
    #endif
    var out: [Feature] = []
    try stage.finish { out.append($0) }
    #expect(order(out) == Array((0..<100).reversed()))
    #if os(Linux)
    #expect(openFiles(in: folder.path) == 0)
    #endif

    let aborted = SortStage(
      properties: ["i"], descending: false, memoryBudget: 1000, temporaryDirectory: folder.path)
    for feature in numbered(Array(repeating: nil, count: 50)) {
      try aborted.process(feature) { _ in }
    }
    aborted.abort()
    #if os(Linux)
    #expect(openFiles(in: folder.path) == 0)
    #endif
  }

  @Test func saysWhereItCannotSpill() throws {
    do {
      _ = try sort(
        numbered([.integer(1), .integer(2)]), by: ["v"], budget: 1, directory: "/nonexistent")
      Issue.record("sorted without a folder to spill to")
    } catch let error as GeoPipeError {
      #expect(error.status == .cannotCreate)
      #expect(error.message.contains("'/nonexistent'"))
      #expect(error.message.contains("TMPDIR"))
    }
  }

  @Test(arguments: [("by", ","), ("memory", "0"), ("memory", "-5"), ("memory", "lots")])
  func rejectsBadOptionValues(option: String, text: String) throws {
    let spec = try #require(SortStage.definition.option(option))
    #expect(throws: ValueProblem.self) { try spec.value(from: text) }
  }

  // MARK: Data and oracle

  /// A feature with `a` and `b` drawn from few values of every kind, so ties are common.
  private func randomFeature(_ i: Int, _ random: inout SplitMix64) -> Feature {
    let pool: [JSONValue?] = [
      nil, .null, .integer(1), .integer(2), .integer(-3), .double(1.5), .double(2),
      .string("2"), .string("1.5"), .string("x"), .string("X"), .string("é"), .string(""),
      .bool(true), .bool(false), .array([]), .object(["o": .integer(1)]),
    ]
    var properties: JSONObject = ["i": .integer(Int64(i))]
    for key in ["a", "b"] {
      if let value = pool[Int(random.next() % UInt64(pool.count))] { properties[key] = value }
    }
    properties["pad"] = .string(String(repeating: "p", count: Int(random.next() % 200)))
    let x = Double(Int(random.next() % 36000)) / 100 - 180
    return Feature(geometry: .point(Position(x: x, y: 0)), properties: properties)
  }

  /// The expected order, worked out plainly: each value's class and its place in it.
  private func oracle(_ features: [Feature], by keys: [String], descending: Bool) -> [Int64] {
    func rank(_ value: JSONValue?) -> (Int, Double, [UInt8], Bool) {
      switch value {
      case nil, .null?: return (4, 0, [], false)
      case .integer(let n)?: return (0, Double(n), [], false)
      case .double(let x)?: return (0, x, [], false)
      case .string(let s)?:
        if let x = Double(s) { return (0, x, [], false) }
        return (1, 0, Array(s.utf8), false)
      case .bool(let b)?: return (2, 0, [], b)
      default: return (3, 0, [], false)
      }
    }
    func compare(_ a: JSONValue?, _ b: JSONValue?) -> Int {
      let x = rank(a)
      let y = rank(b)
      if x.0 == 4 || y.0 == 4 { return x.0 == y.0 ? 0 : (x.0 == 4 ? 2 : -2) }
      var c = 0
      if x.0 != y.0 {
        c = x.0 < y.0 ? -1 : 1
      } else if x.1 != y.1 {
        c = x.1 < y.1 ? -1 : 1
      } else if x.2 != y.2 {
        c = x.2.lexicographicallyPrecedes(y.2) ? -1 : 1
      } else if x.3 != y.3 {
        c = x.3 ? 1 : -1
      }
      return descending ? -c : c
    }
    let sorted = features.enumerated().sorted { p, q in
      for key in keys {
        let c = compare(p.element.properties?[key], q.element.properties?[key])
        if c != 0 { return c < 0 }
      }
      return p.offset < q.offset
    }
    return order(sorted.map(\.element))
  }

  /// Features that test the round trip through a file: every geometry type, rings wound
  /// against RFC 7946, 3D positions, ids, boxes, foreign members, awkward numbers and text.
  private func awkwardFeatures() -> [Feature] {
    let ring = CoordinateArray([
      Position(x: 0, y: 0), Position(x: 0, y: 1), Position(x: 1, y: 1), Position(x: 0, y: 0),
    ])
    let line3D = CoordinateArray(storage: [0.1, 0.2, 0.3, -0.0, 1e-7, 12345.678], dimension: 3)
    let geometries: [Geometry?] = [
      .point(Position(x: 178.44, y: -18.14)),
      .polygon([ring, ring]),
      .lineString(line3D),
      .multiPolygon([[ring], [ring]]),
      .geometryCollection([.point(Position(x: 1, y: 2)), .multiPoint(line3D)]),
      nil,
    ]
    let properties: [JSONObject?] = [
      [
        "text": .string("tab\t \"quote\" ü 🌍 \u{1} \\ /"),
        "big": .bigInteger("123456789012345678901234567890"),
        "huge": .bigNumber("1e400"), "tenth": .double(0.1), "negativeZero": .double(-0.0),
        "whole": .double(1),
        "nested": .object(["list": .array([.null, .bool(false), .integer(-1)])]),
      ],
      nil, [:], ["x": .string("")], ["n": .integer(.min)], ["": .string("empty key")],
    ]
    return geometries.indices.map { i in
      var feature = Feature(
        id: i % 2 == 0 ? .integer(Int64(i)) : .string("f\(i)"), geometry: geometries[i],
        properties: properties[i], bbox: i == 1 ? [0, 0, 1, 1] : nil,
        foreignMembers: i == 0 ? ["title": .string("first"), "extra": .array([])] : [:])
      // k orders the features backwards, so every one moves; the one without properties
      // (and so without k) goes last.
      if feature.properties != nil {
        feature[property: "k"] = .integer(Int64(10 - i))
        feature[property: "i"] = .integer(Int64(i))
      }
      return feature
    }
  }

  private func encoded(_ features: [Feature]) throws -> [UInt8] {
    let sink = MemorySink()
    var options = WriteOptions()
    options.rewind = false
    let writer = GeoJSONSeqWriter(sink: sink, options: options)
    for feature in features { try writer.write(feature) }
    try writer.finish()
    return sink.bytes
  }

  #if os(Linux)
  /// How many of this process's open descriptors are files (deleted or not) in `folder`.
  private func openFiles(in folder: String) -> Int {
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return descriptors.filter { fd in
      let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")
      return target?.hasPrefix(folder + "/") == true
    }.count
  }
  #endif
}
