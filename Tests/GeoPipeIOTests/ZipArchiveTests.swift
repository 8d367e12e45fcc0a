import Foundation
import GeoPipeCore
import Testing

@testable import GeoPipeIO

@Suite struct ZipArchiveTests {
  /// A zip made by Python's zipfile in a fresh folder: `members` by name, stored or deflated.
  static func makeZip(_ members: [(String, [UInt8], deflated: Bool)]) throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "geopipe-zip-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    var script = "import zipfile\nwith zipfile.ZipFile('a.zip', 'w') as z:\n"
    for (k, member) in members.enumerated() {
      try Data(member.1).write(to: dir.appendingPathComponent("m\(k)"))
      let method = member.deflated ? "zipfile.ZIP_DEFLATED" : "zipfile.ZIP_STORED"
      script += "    z.write('m\(k)', '\(member.0)', \(method))\n"
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = ["-c", script]
    process.currentDirectoryURL = dir
    try process.run()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0)
    return dir
  }

  @Test func extractsStoredAndDeflatedMembers() throws {
    let big = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 7 % 251) }
    let dir = try Self.makeZip([
      ("data/a.shp", big, deflated: true), ("data/a.dbf", Array("hello".utf8), deflated: false),
      ("empty.txt", [], deflated: true),
    ])
    defer { try? FileManager.default.removeItem(at: dir) }
    let archive = try ZipArchive(path: dir.appendingPathComponent("a.zip").path, name: "a.zip")
    #expect(archive.entries.map(\.name) == ["data/a.shp", "data/a.dbf", "empty.txt"])
    #expect(archive.entries.map(\.size) == [big.count, 5, 0])
    for (k, expected) in [big, Array("hello".utf8), []].enumerated() {
      let out = dir.appendingPathComponent("out\(k)")
      try archive.extract(archive.entries[k], to: out.path)
      #expect(Array(try Data(contentsOf: out)) == expected)
    }
  }

  @Test func corruptMembersAreDataErrors() throws {
    let text = Array(String(repeating: "geopipe shapefile ", count: 200).utf8)
    let dir = try Self.makeZip([("a.dbf", text, deflated: false), ("b.shp", text, deflated: true)])
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("a.zip")
    var bytes = try Data(contentsOf: path)
    // A byte of the stored member changes: its CRC-32 no longer matches.
    bytes[30 + 5 + 10] ^= 0xFF
    try bytes.write(to: path)
    let archive = try ZipArchive(path: path.path, name: "a.zip")
    #expect {
      try archive.extract(archive.entries[0], to: dir.appendingPathComponent("x").path)
    } throws: { error in
      (error as? GeoPipeError)?.status == .dataError
        && "\(error)".contains("'a.dbf' is corrupt (its CRC-32 does not match)")
    }
    // Cut off: no end of central directory.
    try bytes.prefix(bytes.count - 30).write(to: path)
    #expect {
      _ = try ZipArchive(path: path.path, name: "a.zip")
    } throws: { error in
      (error as? GeoPipeError)?.status == .dataError
        && "\(error)".contains("no end of central directory record")
    }
    try Data([0x50, 0x4B, 0x03, 0x04]).write(to: path)
    #expect(throws: GeoPipeError.self) { _ = try ZipArchive(path: path.path, name: "a.zip") }
  }
}
