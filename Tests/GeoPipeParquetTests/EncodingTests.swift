import Testing

@testable import GeoPipeParquet

/// The level and integer encodings against their specification's examples and round trips.
@Suite struct ParquetEncodingTests {
  @Test(arguments: [
    [UInt32](repeating: 1, count: 100), (0..<100).map { UInt32($0 % 2) },
    [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0], [], [1],
  ])
  func hybridRoundTrips(_ values: [UInt32]) throws {
    let encoded = HybridEncoder.encode(values, bitWidth: 1)
    var decoded: [UInt32] = []
    try encoded.withUnsafeBytes { raw in
      var cursor = ByteCursor(raw)
      try HybridDecoder.decode(&cursor, bitWidth: 1, count: values.count, into: &decoded)
    }
    #expect(decoded == values)
  }

  /// The example of the Parquet encodings document: 0..7 bit-packed with width 3.
  @Test func bitPackedExample() throws {
    let bytes: [UInt8] = [0x03, 0b1000_1000, 0b1100_0110, 0b1111_1010]
    var decoded: [UInt32] = []
    try bytes.withUnsafeBytes { raw in
      var cursor = ByteCursor(raw)
      try HybridDecoder.decode(&cursor, bitWidth: 3, count: 8, into: &decoded)
    }
    #expect(decoded == [0, 1, 2, 3, 4, 5, 6, 7])
  }

  @Test func thriftRoundTrip() throws {
    var w = ThriftWriter()
    w.structBody { w in
      w.i32(1, -5)
      w.i64(20, 1 << 40)
      w.string(21, "geo")
      w.bool(22, true)
    }
    var seen: [Int16: String] = [:]
    try w.bytes.withUnsafeBytes { raw in
      var r = ThriftReader(raw)
      try r.readStruct { r, id, _ in
        switch id {
        case 1: seen[id] = String(try r.i32())
        case 20: seen[id] = String(try r.i64())
        case 21: seen[id] = try r.string()
        case 22: seen[id] = String(r.bool())
        default: return false
        }
        return true
      }
    }
    #expect(seen == [1: "-5", 20: String(1 << 40), 21: "geo", 22: "true"])
  }

  @Test func datesAndTimestamps() {
    #expect(ValueConversion.date(0) == "1970-01-01")
    #expect(ValueConversion.date(19_000) == "2022-01-08")
    #expect(ValueConversion.date(-1) == "1969-12-31")
    #expect(
      ValueConversion.timestamp(1_700_000_000_123, .millis, utc: true)
        == "2023-11-14T22:13:20.123Z")
    #expect(ValueConversion.timestamp(-1, .micros, utc: false) == "1969-12-31T23:59:59.999999")
    #expect(ValueConversion.decimal(-12345, scale: 2) == .bigNumber("-123.45"))
    #expect(ValueConversion.decimal(5, scale: 3) == .bigNumber("0.005"))
  }
}
