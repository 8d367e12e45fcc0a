import GeoPipeCore
import Testing

@testable import GeoPipeShapefile

@Suite struct DBaseRecordDecoderTests {
  /// One field of `type`, `width` and `decimals`, decoding `text` (padded to the width).
  static func decode(_ type: Character, _ width: Int, _ decimals: Int, _ text: String) throws
    -> JSONValue?
  {
    let field = DBaseField(
      name: "f", type: UInt8(ascii: type.unicodeScalars.first ?? "C"), offset: 1, width: width,
      decimals: decimals)
    let decoder = try #require(
      DBaseRecordDecoder(fields: [field], recordLength: 1 + width, codePage: .automatic))
    var record = [UInt8](repeating: 0x20, count: 1 + width)
    for (k, byte) in text.utf8.enumerated() where k < width { record[1 + k] = byte }
    return try record.withUnsafeBytes { try decoder.decode($0) }["f"]
  }

  static let cases: [(Character, Int, Int, String, JSONValue)] = [
    ("N", 10, 0, "        42", .integer(42)),
    ("N", 10, 0, "       -42", .integer(-42)),
    ("N", 20, 0, "9223372036854775807", .integer(Int64.max)),
    ("N", 20, 0, "9223372036854775808", .double(9_223_372_036_854_775_808)),
    ("N", 10, 0, "", .null),
    ("N", 10, 0, "**********", .null),
    ("N", 24, 15, "     1.500000000000000", .double(1.5)),
    ("N", 10, 0, "       1.5", .double(1.5)),
    ("F", 10, 0, "        12", .double(12)),
    ("L", 1, 0, "T", .bool(true)),
    ("L", 1, 0, "y", .bool(true)),
    ("L", 1, 0, "F", .bool(false)),
    ("L", 1, 0, "n", .bool(false)),
    ("L", 1, 0, "?", .null),
    ("L", 1, 0, " ", .null),
    ("D", 8, 0, "20210304", .string("2021-03-04")),
    ("D", 8, 0, "00000000", .null),
    ("D", 8, 0, "", .null),
    ("C", 10, 0, "  abc  ", .string("abc")),
    ("C", 10, 0, "", .null),
    ("C", 10, 0, "Zürich", .string("Zürich")),
  ]

  @Test(arguments: cases)
  func decodesValuesAsGDALDoes(
    _ type: Character, _ width: Int, _ decimals: Int, _ text: String, _ expected: JSONValue
  ) throws {
    #expect(try Self.decode(type, width, decimals, text) == expected)
  }

  @Test(arguments: [("N", "12abc"), ("L", "X"), ("D", "2021-3-4")])
  func rejectsMalformedValues(_ type: String, _ text: String) throws {
    #expect(throws: DBaseValueError.self) {
      _ = try Self.decode(Character(type), 10, 0, text)
    }
  }

  @Test func refusesFieldsOutsideTheRecord() {
    let field = DBaseField(name: "f", type: UInt8(ascii: "C"), offset: 1, width: 10, decimals: 0)
    #expect(DBaseRecordDecoder(fields: [field], recordLength: 5, codePage: .utf8) == nil)
  }

  @Test func deletedRecordsAreMarkedByAnAsterisk() {
    #expect([UInt8(ascii: "*"), 0x20].withUnsafeBytes { DBaseRecordDecoder.isDeleted($0) })
    #expect(![UInt8(0x20), 0x20].withUnsafeBytes { DBaseRecordDecoder.isDeleted($0) })
  }

  @Test(arguments: [
    ("1252", "CP1252"), ("88591", "ISO-8859-1"), ("885915", "ISO-8859-15"),
    ("8859-5", "ISO-8859-5"),
    ("UTF-8\n", "UTF-8"), ("65001", "UTF-8"), ("ANSI 1251", "CP1251"), ("Big5", "Big5"),
  ])
  func readsCodePageNamesAsGDALDoes(_ cpg: String, _ iconv: String) {
    #expect(CodePage.cpgName(cpg) == iconv)
  }

  @Test func decodesThroughIconv() throws {
    let page = try #require(CodePage.named("CP1252"))
    let bytes: [UInt8] = [0x43, 0x61, 0x66, 0xE9, 0x20, 0x80]
    #expect(bytes.withUnsafeBytes { page.decode($0) } == "Café €")
    #expect(CodePage.ldidName(0x57) == "ISO-8859-1")
    #expect(CodePage.ldidName(0x03) == "CP1252")
    #expect(CodePage.ldidName(0) == nil)
  }
}
