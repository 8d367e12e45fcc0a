import Foundation
import GeoPipeCore
import GeoPipeFlatGeobuf
import GeoPipeIO
import Testing

/// Corrupt files are data errors naming the file and the feature, never a crash.
@Suite struct FlatGeobufCorruptFileTests {
  static let features: [Feature] = (0..<3).map { k in
    Feature(
      geometry: .lineString(
        CoordinateArray(storage: [Double(k), 0, Double(k) + 0.5, 1], dimension: 2)),
      properties: ["k": .integer(0x1122_3344_5566_7788 + Int64(k)), "s": .string("v\(k)")])
  }

  /// Writes the features, lets `change` alter the bytes, and writes those to `name`.
  func corrupt(
    _ scratch: Scratch, _ name: String, index: Bool, change: (inout [UInt8]) -> Void
  ) throws -> String {
    let path = try scratch.write(Self.features, to: "good-\(name)", index: index)
    var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    change(&bytes)
    let bad = scratch.path(name)
    try Data(bytes).write(to: URL(fileURLWithPath: bad))
    return bad
  }

  func dataError(_ body: () throws -> Void) -> GeoPipeError? {
    do {
      try body()
      Issue.record("no error")
      return nil
    } catch let error as GeoPipeError {
      #expect(error.status == .dataError, "\(error)")
      return error
    } catch {
      Issue.record("\(error)")
      return nil
    }
  }

  @Test func aTruncatedFeatureNamesTheFileAndFeature() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let path = try corrupt(scratch, "cut.fgb", index: false) { $0.removeLast(10) }
    let error = dataError { _ = try readAll(path) }
    #expect(
      error?.message.hasPrefix("\(path): feature 2 (byte ") == true, "\(String(describing: error))")
    #expect(error?.message.contains("run past the end of the file") == true)
  }

  @Test func aBadColumnIndexNamesTheFileAndFeature() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let path = try corrupt(scratch, "column.fgb", index: false) { bytes in
      // Feature 1's "k" value, and the column index before it.
      let value: [UInt8] = [0x89, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11]
      guard let at = (0..<bytes.count - 8).first(where: { Array(bytes[$0..<$0 + 8]) == value })
      else { return }
      bytes[at - 2] = 0xE7
      bytes[at - 1] = 0x03
    }
    let error = dataError { _ = try readAll(path) }
    #expect(
      error?.message.hasPrefix("\(path): feature 1 (byte ") == true, "\(String(describing: error))")
    #expect(error?.message.contains("column 999, but there are 2 columns") == true)
  }

  @Test(arguments: [UInt64(1 << 40), 3])
  func aBadIndexOffsetNamesTheFileAndFeature(offset: UInt64) throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let path = try corrupt(scratch, "index.fgb", index: true) { bytes in
      let headerSize = Int(bytes[8]) | Int(bytes[9]) << 8 | Int(bytes[10]) << 16
      // Three leaves under one root: the first leaf is node 1.
      let at = 12 + headerSize + 40 + 32
      for k in 0..<8 { bytes[at + k] = UInt8(truncatingIfNeeded: offset >> (8 * k)) }
    }
    let error = dataError {
      _ = try readAll(path, bbox: BBox(west: -180, south: -90, east: 180, north: 90))
    }
    #expect(error?.message.hasPrefix("\(path): feature ") == true, "\(String(describing: error))")
  }

  @Test func aHeaderCutShortIsAnError() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let path = try corrupt(scratch, "header.fgb", index: true) { $0.removeLast($0.count - 40) }
    let error = dataError { _ = try readAll(path) }
    #expect(error?.message == "\(path): the file ends inside its header")
  }

  /// Every byte of a small file set to 0xFF or 0x7F (in turn), read through and with a box:
  /// features or a data error, nothing else.
  @Test func everyDamagedByteGivesFeaturesOrADataError() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let path = try scratch.write(Self.features, to: "good.fgb")
    let good = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    let bad = scratch.path("bad.fgb")
    for position in 8..<good.count {
      for value: UInt8 in [position % 2 == 0 ? 0xFF : 0x7F] {
        var bytes = good
        bytes[position] = value
        try Data(bytes).write(to: URL(fileURLWithPath: bad))
        for box in [nil, BBox(west: -1, south: -1, east: 1, north: 2)] {
          do {
            _ = try readAll(bad, bbox: box)
          } catch let error as GeoPipeError {
            #expect(error.status == .dataError, "byte \(position): \(error)")
            #expect(error.message.hasPrefix(bad), "byte \(position): \(error)")
          }
        }
      }
    }
  }
}

extension FlatGeobufCorruptFileTests {
  /// A size prefix claiming more than the input holds fails at the end of the input, having
  /// allocated no more than the input's size (over the record limit: at once).
  @Test func aClaimedHugeFeatureIsAnErrorWithoutTheAllocation() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    for (claim, says) in [
      (UInt32(200 << 20), "run past the end of the file"),
      (UInt32.max, "over the --max-record-size limit"),
    ] {
      let path = try corrupt(scratch, "huge.fgb", index: false) { bytes in
        let headerSize = Int(bytes[8]) | Int(bytes[9]) << 8 | Int(bytes[10]) << 16
        let at = 12 + headerSize
        for k in 0..<4 { bytes[at + k] = UInt8(truncatingIfNeeded: claim >> (8 * k)) }
      }
      let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
      let error = dataError { _ = try readAll(bytes: bytes) }
      #expect(error?.message.contains("feature 0 (byte ") == true, "\(String(describing: error))")
      #expect(error?.message.contains(says) == true, "\(String(describing: error))")
    }
  }
}

extension FlatGeobufCorruptFileTests {
  /// Decoding in batches on worker threads gives the features and the error that reading on
  /// one thread gives, for every damaged byte of a file of several batches.
  @Test func workerThreadsGiveTheSameFeaturesAndErrors() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let features: [Feature] = (0..<2500).map { k in
      Feature(
        geometry: .point(Position(x: Double(k % 360) - 180, y: Double(k % 170) - 85)),
        properties: ["k": .integer(Int64(k)), "s": .string(String(repeating: "x", count: k % 7))])
    }
    let path = try scratch.write(features, to: "good.fgb", index: false)
    let good = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    #expect(try readAll(path, threads: 3).features == features)
    let bad = scratch.path("bad.fgb")
    for position in stride(from: good.count - 1, to: good.count / 2, by: -397) {
      var bytes = good
      bytes[position] = 0xFF
      try Data(bytes).write(to: URL(fileURLWithPath: bad))
      let one = Result { try readAll(bad).features }
      let three = Result { try readAll(bad, threads: 3).features }
      switch (one, three) {
      case (.success(let a), .success(let b)): #expect(a == b, "byte \(position)")
      case (.failure(let a), .failure(let b)): #expect("\(a)" == "\(b)", "byte \(position)")
      default: Issue.record("byte \(position): \(one) but \(three) with worker threads")
      }
    }
    var cut = good
    cut.removeLast(3)
    try Data(cut).write(to: URL(fileURLWithPath: bad))
    let error = dataError { _ = try readAll(bad, threads: 3) }
    #expect(error?.message.contains("feature 2499 (byte ") == true, "\(String(describing: error))")
  }
}
