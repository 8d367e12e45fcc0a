import Foundation
import GeoPipeCore
import GeoPipePostgreSQL
import Testing

/// The binary COPY decoder on data PostgreSQL 15 wrote (`Fuzz/seeds/FuzzPostgreSQLCopy`), cut
/// anywhere, and URL redaction; no server needed.
@Suite struct CopyDecodingTests {
  static let rows: [UInt8] = {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../Fuzz/seeds/FuzzPostgreSQLCopy/rows.bin")
    return (try? [UInt8](Data(contentsOf: url))) ?? []
  }()

  @Test(arguments: [1, 7, 19, 100, 1000])
  func decodesRowsCutIntoAnyMessages(size: Int) throws {
    let chunks = stride(from: 0, to: Self.rows.count, by: size).map {
      Array(Self.rows[$0..<min($0 + size, Self.rows.count)])
    }
    let features = try PostgreSQL.features(copyData: chunks)
    #expect(features.count == 2)
    #expect(features[0].id == .integer(3))
    #expect(features[0].geometry == .point(Position(x: 1, y: 2, z: 3)))
    let first = features[0].properties ?? JSONObject()
    #expect(
      first.members.map(\.value) == [
        .bool(true), .integer(1), .integer(2), .double(1.5), .double(2.5), .string("é"),
        .object(["a": .integer(1)]), .array([.integer(1), .object(["b": .null])]),
      ])
    let second = features[1].properties ?? JSONObject()
    #expect(second["float4"] == .string("NaN") && second["float8"] == .string("-Infinity"))
    #expect(second["int4"] == .integer(-2) && second["text"] == .null)
    #expect(features[1].geometry?.typeName == "Polygon")
  }

  @Test func dataCutShortIsADataError() {
    #expect {
      _ = try PostgreSQL.features(copyData: [Array(Self.rows.dropLast(2))])
    } throws: { error in
      (error as? GeoPipeError)?.status == .dataError
        && "\(error)".contains("row 3 of the COPY data: the data ends inside a row")
    }
  }

  @Test(arguments: [
    ("postgresql://user:secret@host:5432/db", "postgresql://user@host:5432/db"),
    ("postgres://:pw@/db?host=/tmp", "postgres://@/db?host=/tmp"),
    ("postgresql:///db?password=x&sslmode=require", "postgresql:///db?sslmode=require"),
    ("postgresql://a@b/c?Password=x", "postgresql://a@b/c"),
    ("postgresql:///db", "postgresql:///db"),
  ])
  func redactsPasswords(url: String, shown: String) {
    #expect(PostgreSQL.redacted(url) == shown)
  }
}
