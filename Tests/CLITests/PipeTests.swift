import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Commands joined by shell pipes: failures travel downstream, a reader that goes away is not
/// an error, and `--on-error skip` keeps going.
@Suite("Pipes")
struct PipeTests {
  static let badCSV = CLI.fixtures("errors/too-many-fields.csv")
  static let world = CLI.fixtures("cli/world.geojson")

  /// A GeoJSONSeq file of `count` points, about 140 bytes each.
  private func writeBigSequence(to url: URL, count: Int) throws {
    var text = ""
    text.reserveCapacity(count * 140)
    for k in 0..<count {
      let lon = Double(k % 360) - 179.5
      let lat = Double(k % 180) - 89.5
      text +=
        #"{"type":"Feature","properties":{"i":\#(k),"name":"feature number \#(k)"},"geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]}}"#
        + "\n"
    }
    try write(text, to: url)
  }

  @Test func failedReadMakesWriteFailAndWriteNothing() throws {
    try withTemporaryDirectory { dir in
      let run = try shell(
        "\"$GEOPIPE\" read \(shellQuoted(Self.badCSV.path)) | \"$GEOPIPE\" write out.geojson",
        in: dir)
      #expect(run.status != 0, "the pipe succeeded: \(run)")
      #expect(run.status == 65)
      let left = try contents(of: dir)
      #expect(left == [], "left behind: \(left)")
      #expect(run.err.contains("too-many-fields.csv:3:19: error: row has 4 fields"))
    }
  }

  @Test func failureTravelsThroughAMiddleStage() throws {
    try withTemporaryDirectory { dir in
      let run = try shell(
        "\"$GEOPIPE\" read \(shellQuoted(Self.badCSV.path)) | \"$GEOPIPE\" filter --where 'lat > 0' | \"$GEOPIPE\" write out.geojsonl",
        in: dir)
      #expect(run.status == 65, "\(run)")
      #expect(try contents(of: dir) == [])
    }
  }

  @Test func failedReadEndsItsOutputWithAnErrorRecord() throws {
    let run = try geopipe(["read", Self.badCSV.path])
    #expect(run.status == 65)
    // The good row before the bad one was passed on, then the record.
    #expect(run.outLines.count == 2)
    #expect(run.outLines.first?.hasPrefix(#"{"type":"Feature""#) == true)
    let last = try #require(run.outLines.last)
    #expect(last.hasPrefix("!geopipe-error "), "last line: \(last)")
    let record = try JSON.parse(String(last.dropFirst("!geopipe-error ".count)))
    #expect(record["status"] == .integer("65"))
    #expect(record["message"]?.string?.contains("too-many-fields.csv:3:19: error:") == true)
  }

  @Test func upstreamUsageErrorMakesWriteFail() throws {
    // A stage that fails before reading anything (here: an unknown option) must still make
    // the stage after it fail, instead of it committing an empty file.
    try withTemporaryDirectory { dir in
      let run = try shell(
        "\"$GEOPIPE\" read \(shellQuoted(Self.world.path)) | \"$GEOPIPE\" filter --wher 'kind = 1' | \"$GEOPIPE\" write out.geojson",
        in: dir)
      #expect(run.status != 0, "the pipe succeeded: \(run)")
      let left = try contents(of: dir)
      #expect(left == [], "left behind: \(left)")
    }
  }

  @Test(
    "a read that fails before its first feature makes write fail",
    arguments: ["does-not-exist.geojson", "image.png", "top-level-array.geojson"])
  func failureBeforeTheFirstFeatureMakesWriteFail(_ name: String) throws {
    // A name in Fixtures/errors/, or one that exists nowhere.
    let fixture = CLI.fixtures("errors/\(name)")
    let input = FileManager.default.fileExists(atPath: fixture.path) ? fixture.path : name
    try withTemporaryDirectory { dir in
      let run = try shell(
        "\"$GEOPIPE\" read \(shellQuoted(input)) | \"$GEOPIPE\" write out.geojson", in: dir)
      #expect(run.status != 0, "the pipe succeeded: \(run)")
      let left = try contents(of: dir)
      #expect(left == [], "left behind: \(left)")
    }
  }

  @Test func writeToAFilePrintsNothingOnStdout() throws {
    try withTemporaryDirectory { dir in
      let run = try geopipe(
        ["write", dir.appendingPathComponent("out.geojson").path],
        stdin: Data("{\"type\": 1}\n".utf8))
      #expect(run.status == 65)
      #expect(run.stdout.isEmpty, "write's output is the file, yet stdout got: \(run.out)")
      #expect(try contents(of: dir) == [])
    }
  }

  @Test func readerGoingAwayIsQuietSuccess() throws {
    try withTemporaryDirectory { dir in
      try writeBigSequence(to: dir.appendingPathComponent("big.geojsonl"), count: 30_000)
      let run = try shell(
        "{ \"$GEOPIPE\" read big.geojsonl 2>err.txt; echo $? >status.txt; } | head -1", in: dir)
      #expect(run.status == 0)
      #expect(run.outLines.count == 1)
      #expect(run.outLines.first?.hasPrefix(#"{"type":"Feature","properties":{"i":0,"#) == true)
      #expect(text(dir.appendingPathComponent("status.txt")) == "0\n")
      #expect(
        text(dir.appendingPathComponent("err.txt")) == "",
        "stderr: \(text(dir.appendingPathComponent("err.txt")))")
    }
  }

  @Test func readerGoingAwayMidPipelineIsQuietSuccess() throws {
    try withTemporaryDirectory { dir in
      try writeBigSequence(to: dir.appendingPathComponent("big.geojsonl"), count: 30_000)
      let run = try shell(
        "\"$GEOPIPE\" read big.geojsonl 2>>err.txt | { \"$GEOPIPE\" filter --bbox -180,-90,0,90 2>>err.txt; echo $? >status.txt; } | head -2",
        in: dir)
      #expect(run.status == 0)
      #expect(run.outLines.count == 2)
      #expect(text(dir.appendingPathComponent("status.txt")) == "0\n")
      #expect(text(dir.appendingPathComponent("err.txt")) == "")
    }
  }

  /// A GeoJSONSeq with two bad lines: a syntax error on line 2 and a longitude out of range
  /// on line 4.
  static let twoBadLines = """
    {"type":"Feature","properties":{"n":1},"geometry":{"type":"Point","coordinates":[1,2]}}
    {"type":"Feature","properties":{"n":2},"geometry":{"type":"Point","coordinates":[1,2}}
    {"type":"Feature","properties":{"n":3},"geometry":{"type":"Point","coordinates":[1,2]}}
    {"type":"Feature","properties":{"n":4},"geometry":{"type":"Point","coordinates":[200,2]}}
    {"type":"Feature","properties":{"n":5},"geometry":null}

    """

  @Test func onErrorSkipKeepsTheGoodFeatures() throws {
    try withTemporaryDirectory { dir in
      try write(Self.twoBadLines, to: dir.appendingPathComponent("two-bad.geojsonl"))
      let run = try geopipe(["read", "--on-error", "skip", "two-bad.geojsonl"], in: dir)
      #expect(run.status == 0, "\(run)")
      let kept = try JSON.parseSequence(run.stdout).map { $0["properties"]?["n"] }
      #expect(kept == [.integer("1"), .integer("3"), .integer("5")])
      #expect(run.err.contains("skipped 2"), "stderr: \(run.err)")
      #expect(run.errLines.contains { $0.hasPrefix("two-bad.geojsonl:2:85: warning: skipped: ") })
      #expect(
        run.errLines.contains {
          $0.hasPrefix("two-bad.geojsonl:4:82: warning: skipped: longitude 200")
        })
      #expect(!run.out.contains("!geopipe-error"))
    }
  }

  @Test func onErrorSkipInConvertWritesTheGoodFeatures() throws {
    try withTemporaryDirectory { dir in
      try write(Self.twoBadLines, to: dir.appendingPathComponent("two-bad.geojsonl"))
      let run = try geopipe(
        ["convert", "--on-error=skip", "two-bad.geojsonl", "good.geojson"], in: dir)
      #expect(run.status == 0, "\(run)")
      #expect(run.err.contains("skipped 2"))
      let features = try JSON.parse(Array(bytes(dir.appendingPathComponent("good.geojson"))))[
        "features"]?.array
      #expect(features?.count == 3)
    }
  }

  @Test func skipWarningNamesTheSameFeatureAsTheError() throws {
    // With and without --on-error skip, the message about one bad feature is the same.
    try withTemporaryDirectory { dir in
      let text = """
        {"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[1,2]}}
        {"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[200,2]}}

        """
      try write(text, to: dir.appendingPathComponent("one-bad.geojsonl"))
      let failing = try geopipe(["read", "one-bad.geojsonl"], in: dir)
      let skipping = try geopipe(["read", "--on-error", "skip", "one-bad.geojsonl"], in: dir)
      let error = try #require(failing.errLines.first)
      let warning = try #require(skipping.errLines.first)
      #expect(error.hasSuffix("(feature 1)"), "\(error)")
      #expect(
        warning.replacingOccurrences(of: ": warning: skipped: ", with: ": error: ") == error,
        "warning \(warning) and error \(error) disagree")
    }
  }

  @Test func interruptedWriteRemovesItsTemporaryFile() throws {
    let binary = try CLI.requireBinary()
    try withTemporaryDirectory { dir in
      // Standard input is a socket, so that writing to it after geopipe has gone away is an
      // error and not a SIGPIPE for the test process.
      let input = try SocketPair()
      let process = Process()
      process.executableURL = binary
      process.arguments = ["write", dir.appendingPathComponent("out.geojson").path]
      process.standardInput = input.childEnd
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      input.closeChildEnd()
      // Feed features until the temporary output file appears, then keep the input open.
      var chunk = ""
      for k in 0..<1000 {
        chunk +=
          #"{"type":"Feature","properties":{"k":\#(k)},"geometry":{"type":"Point","coordinates":[1,2]}}"#
        chunk += "\n"
      }
      let deadline = Date().addingTimeInterval(60)
      var during: [String] = []
      while during.isEmpty && Date() < deadline && process.isRunning {
        guard input.send(Data(chunk.utf8)) else { break }
        usleep(20_000)
        during = try contents(of: dir)
      }
      #expect(
        during.count == 1 && during.first?.hasPrefix(".out.geojson.geopipe-") == true,
        "while writing: \(during)")
      process.terminate()
      process.waitUntilExit()
      input.close()
      #expect(process.terminationReason == .exit)
      #expect(process.terminationStatus == 128 + SIGTERM)
      let left = try contents(of: dir)
      #expect(left == [], "left behind: \(left)")
    }
  }
}

/// A connected pair of sockets: one end becomes a child's standard input, the test writes to
/// the other without risking SIGPIPE.
final class SocketPair {
  let childEnd: FileHandle
  private let parent: Int32
  private var childOpen = true

  init() throws {
    var fds: [Int32] = [-1, -1]
    #if canImport(Glibc)
    let made = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds)
    #else
    let made = socketpair(AF_UNIX, SOCK_STREAM, 0, &fds)
    #endif
    guard made == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    #if !canImport(Glibc)
    var on: Int32 = 1
    setsockopt(fds[1], SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
    #endif
    childEnd = FileHandle(fileDescriptor: fds[0], closeOnDealloc: false)
    parent = fds[1]
  }

  /// Closes this process's copy of the child's end (the child keeps its own).
  func closeChildEnd() {
    if childOpen { try? childEnd.close() }
    childOpen = false
  }

  /// Sends all of `data`; false when the other end is gone.
  func send(_ data: Data) -> Bool {
    #if canImport(Glibc)
    let flags = Int32(MSG_NOSIGNAL)
    #else
    let flags: Int32 = 0
    #endif
    return data.withUnsafeBytes { buffer in
      var offset = 0
      while offset < buffer.count {
        #if canImport(Glibc)
        let n = Glibc.send(parent, buffer.baseAddress! + offset, buffer.count - offset, flags)
        #else
        let n = Darwin.send(parent, buffer.baseAddress! + offset, buffer.count - offset, flags)
        #endif
        if n < 0 {
          if errno == EINTR { continue }
          return false
        }
        offset += n
      }
      return true
    }
  }

  /// Closes both ends.
  func close() {
    closeChildEnd()
    #if canImport(Glibc)
    _ = Glibc.close(parent)
    #else
    _ = Darwin.close(parent)
    #endif
  }
}
