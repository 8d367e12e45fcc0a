import Foundation
import GeoPipeCore
import Testing

@testable import GeoPipeIO

/// Files written with direct I/O hold exactly the bytes written, in writes of any size, on a
/// file system with direct I/O and on one without (tmpfs), and leave nothing when aborted.
@Suite struct DirectOutputTests {
  private static func folder(in parent: String? = nil) throws -> String {
    let base = parent.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory
    let folder = base.appendingPathComponent("geopipe-direct-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.path
  }

  /// Writes `total` pseudo-random bytes in pieces of `piece` bytes; returns them.
  private static func write(_ total: Int, piece: Int, to path: String) throws -> [UInt8] {
    var random = SplitMix64(seed: UInt64(total &* 31 &+ piece))
    let bytes = (0..<total).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    let file = try OutputFile(path: path, direct: true)
    var offset = 0
    while offset < total {
      let n = min(piece, total - offset)
      try bytes[offset..<offset + n].withUnsafeBytes { try file.write($0) }
      offset += n
    }
    try file.commit()
    return bytes
  }

  @Test(arguments: [
    (0, 1), (1, 1), (4095, 4095), (4096, 4096), (4097, 1000),
    (DirectStaging.blockSize - 1, 65_536), (DirectStaging.blockSize, 1 << 20),
    (DirectStaging.blockSize + 1, 3 << 20), (2 * DirectStaging.blockSize + 12_345, 999_999),
    (3 * DirectStaging.blockSize, 3 * DirectStaging.blockSize),
  ])
  func holdsEveryByteWritten(total: Int, piece: Int) throws {
    var folders = [try Self.folder()]
    // tmpfs has no direct I/O: the bytes go through the page cache instead.
    if FileManager.default.fileExists(atPath: "/dev/shm") {
      folders.append(try Self.folder(in: "/dev/shm"))
    }
    for folder in folders {
      let path = folder + "/out.bin"
      let bytes = try Self.write(total, piece: piece, to: path)
      #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == bytes, "\(folder)")
      #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out.bin"])
      try FileManager.default.removeItem(atPath: folder)
    }
  }

  @Test func abortedLeavesNothing() throws {
    let folder = try Self.folder()
    let file = try OutputFile(path: folder + "/new/out.bin", direct: true)
    let bytes = [UInt8](repeating: 7, count: DirectStaging.blockSize + 5)
    try bytes.withUnsafeBytes { try file.write($0) }
    file.abort()
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
  }
}
