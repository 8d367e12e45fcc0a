import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small mistakes at the command line get an error and a usage exit status, never a silent
/// default.
@Suite("Command-line front end")
struct FrontEndTests {
  @Test func helpForAnUnknownCommandIsAUsageError() throws {
    let typo = try geopipe(["help", "filtr"])
    #expect(typo.status == 64, "\(typo)")
    #expect(typo.errLines.first == "error: unknown command 'filtr'; did you mean 'filter'?")
    #expect(typo.out.isEmpty)
    let unknown = try geopipe(["help", "nosuch"])
    #expect(unknown.status == 64, "\(unknown)")
    #expect(unknown.errLines.first == "error: unknown command 'nosuch'")
    let known = try geopipe(["help", "filter"])
    #expect(known.status == 0)
    #expect(known.out.hasPrefix("OVERVIEW: "))
  }

  @Test func precisionMustBeInRange() throws {
    let feature =
      #"{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[1.123456,2]}}"#
    try withTemporaryDirectory { directory in
      let run = try geopipe(
        ["write", "--precision", "-1", "x.geojson"], stdin: Data(feature.utf8), in: directory)
      #expect(run.status == 64, "\(run)")
      #expect(
        run.errLines.first
          == "error: invalid value '-1' for --precision: expected a whole number from 0 to 17")
      #expect(try contents(of: directory).isEmpty)
      let fine = try geopipe(
        ["write", "--precision", "2", "x.geojsonl"], stdin: Data(feature.utf8), in: directory)
      #expect(fine.status == 0, "\(fine)")
      #expect(text(directory.appendingPathComponent("x.geojsonl")).contains("[1.12,2]"))
    }
  }

  @Test func anUnknownCRSIsNamed() throws {
    let unknown = try geopipe(["reproject", "--to", "EPSG:99999"], stdin: Data())
    #expect(unknown.status == 64, "\(unknown)")
    #expect(
      unknown.errLines.first
        == "error: invalid value 'EPSG:99999' for --to: unknown CRS 'EPSG:99999' (give an EPSG "
        + "code such as EPSG:3857, a PROJ string or WKT)")
    let number = try geopipe(["reproject", "--to", "3857"], stdin: Data())
    #expect(number.status == 64, "\(number)")
    #expect(number.err.contains("unknown CRS '3857'; did you mean 'EPSG:3857'?"))
    let read = try geopipe(["read", "--crs", "EPSG:99999", "-"], stdin: Data())
    #expect(read.status == 64, "\(read)")
    #expect(read.err.contains("unknown CRS 'EPSG:99999'"))
    #expect(!read.err.contains("Unknown error"))
    let bare = try geopipe(["read", "--crs", "2154", "-"], stdin: Data())
    #expect(bare.status == 64, "\(bare)")
    #expect(bare.err.contains("unknown CRS '2154'; did you mean 'EPSG:2154'?"))
  }

  @Test func validateOfAMissingFileIsAnError() throws {
    try withTemporaryDirectory { directory in
      let run = try geopipe(["validate", "nothere.geojson"], in: directory)
      #expect(run.status == 66, "\(run)")
      #expect(run.errLines.first?.hasPrefix("error: cannot open 'nothere.geojson'") == true)
      #expect(!run.out.contains("no problems"))
      #expect(run.out == "validate: 0 files, 0 features: 1 file could not be opened\n")
    }
  }

  /// With a terminal on standard input, a command that reads it says it is waiting; with a
  /// pipe or a file it says nothing.
  @Test func aTerminalOnStandardInputIsToldItIsRead() throws {
    let binary = try CLI.requireBinary()
    var controller: Int32 = -1
    var terminal: Int32 = -1
    try #require(openpty(&controller, &terminal, nil, nil, nil) == 0)
    let scratch = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let errURL = scratch.appendingPathComponent("stderr")
    let outURL = scratch.appendingPathComponent("stdout")
    try Data().write(to: errURL)
    try Data().write(to: outURL)
    let process = Process()
    process.executableURL = binary
    process.arguments = ["info"]
    process.standardInput = FileHandle(fileDescriptor: terminal, closeOnDealloc: true)
    process.standardOutput = try FileHandle(forWritingTo: outURL)
    process.standardError = try FileHandle(forWritingTo: errURL)
    try process.run()
    // Wait for the message, then hang up: the command sees the end of its input.
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline && (try? Data(contentsOf: errURL))?.isEmpty != false {
      usleep(20_000)
    }
    close(controller)
    process.waitUntilExit()
    let err = String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
    #expect(
      err.hasPrefix(
        "info: waiting for features on standard input (end with Ctrl-D), or give a file: "
          + "geopipe info FILE\n"), "\(err)")
    let piped = try geopipe(["info"], stdin: Data())
    #expect(piped.status == 0)
    #expect(piped.err.isEmpty)
  }
}
