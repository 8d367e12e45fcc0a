import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeParquet
import Testing

/// Corrupt files are data errors naming the file, and the row group and column where there is
/// one; never a crash.
@Suite struct GeoParquetCorruptFileTests {
  static let features: [Feature] = (0..<50).map { k in
    Feature(
      geometry: .point(Position(x: Double(k), y: 1)),
      properties: ["name": .string(String(repeating: "x", count: k))])
  }

  func message(_ bytes: [UInt8]) -> String? {
    do {
      _ = try readAll(bytes: bytes, name: "bad.parquet")
      Issue.record("no error")
      return nil
    } catch let error as GeoPipeError {
      #expect(error.status == .dataError, "\(error)")
      #expect(error.message.hasPrefix("bad.parquet: "), "\(error)")
      return error.message
    } catch {
      Issue.record("\(error)")
      return nil
    }
  }

  func good(_ options: [String: String] = [:]) throws -> [UInt8] {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let path = try scratch.write(Self.features, to: "good.parquet", options: options)
    return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  @Test func badMagic() throws {
    var bytes = try good()
    bytes[0] = 0x51
    #expect(message(bytes)?.contains("PAR1") == true)
  }

  @Test func footerLengthPastTheFile() throws {
    var bytes = try good()
    bytes[bytes.count - 5] = 0x7F
    #expect(message(bytes)?.contains("footer") == true)
  }

  /// Bytes changed anywhere in the pages give features or a data error (which the
  /// shell tests check names the row group and column), never a crash.
  @Test(arguments: ["none", "zstd", "snappy", "gzip"])
  func changedPageBytes(_ codec: String) throws {
    let bytes = try good(["compression": codec])
    let footer = Int(bytes[bytes.count - 8]) | Int(bytes[bytes.count - 7]) << 8
    for offset in stride(from: 4, to: bytes.count - 8 - footer, by: 11) {
      var changed = bytes
      changed[offset] ^= 0x5A
      do {
        _ = try readAll(bytes: changed, name: "bad.parquet")
      } catch let error as GeoPipeError {
        #expect(error.status == .dataError, "\(error)")
      }
    }
  }

  @Test func truncatedFiles() throws {
    let bytes = try good()
    for cut in stride(from: 1, to: bytes.count, by: 97) {
      _ = message(Array(bytes[0..<cut]))
    }
  }
}
