import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Helpers for the command-line tests: find the built `geopipe`, run it with arguments and
// standard input, capture standard output, standard error and the exit status, and give each
// test a fresh temporary directory.

/// Where the tests find things.
enum CLI {
  /// The repository root, three levels above this file (`Tests/CLITests/Support.swift`).
  static let root: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// `Fixtures/<relative>`.
  static func fixtures(_ relative: String) -> URL {
    root.appendingPathComponent("Fixtures").appendingPathComponent(relative)
  }

  /// The binary under test: `$GEOPIPE_BIN` if set, else the `geopipe` executable found by
  /// walking up from the running test bundle (`swift test` puts both in the same folder).
  static let binary: URL? = {
    if let given = ProcessInfo.processInfo.environment["GEOPIPE_BIN"], !given.isEmpty {
      return URL(fileURLWithPath: given)
    }
    var folder = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
      .deletingLastPathComponent()
    while true {
      let candidate = folder.appendingPathComponent("geopipe")
      if isExecutableFile(candidate) { return candidate }
      let parent = folder.deletingLastPathComponent()
      if parent.path == folder.path { return nil }
      folder = parent
    }
  }()

  private static func isExecutableFile(_ url: URL) -> Bool {
    let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
    guard attributes?[.type] as? FileAttributeType == .typeRegular else { return false }
    return FileManager.default.isExecutableFile(atPath: url.path)
  }

  /// The binary, or a failed test that says how to point at it.
  static func requireBinary(sourceLocation: SourceLocation = #_sourceLocation) throws -> URL {
    try #require(
      binary,
      "no geopipe binary next to \(CommandLine.arguments[0]); build it or set GEOPIPE_BIN",
      sourceLocation: sourceLocation)
  }
}

/// What a finished process left behind.
struct Run: Sendable, CustomStringConvertible {
  /// The exit status (or the signal number when `signaled`).
  var status: Int32
  /// True when the process was killed by a signal instead of exiting.
  var signaled: Bool
  /// Everything written to standard output.
  var stdout: Data
  /// Everything written to standard error.
  var stderr: Data

  /// Standard output as text.
  var out: String { String(decoding: stdout, as: UTF8.self) }
  /// Standard error as text.
  var err: String { String(decoding: stderr, as: UTF8.self) }
  /// Standard output's lines (without the final empty one).
  var outLines: [String] { lines(out) }
  /// Standard error's lines (without the final empty one).
  var errLines: [String] { lines(err) }

  var description: String {
    "status \(status)\(signaled ? " (signal)" : "")\n--- stdout ---\n\(out.prefix(2000))\n--- stderr ---\n\(err.prefix(2000))"
  }

  private func lines(_ text: String) -> [String] {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if lines.last == "" { lines.removeLast() }
    return lines
  }
}

/// Runs the geopipe binary with `arguments`, feeding `stdin` (nothing when nil), in
/// `directory` (the current one when nil).
@discardableResult
func geopipe(
  _ arguments: [String], stdin: Data? = nil, in directory: URL? = nil,
  environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
) throws -> Run {
  let binary = try CLI.requireBinary(sourceLocation: sourceLocation)
  return try runProcess(binary, arguments, stdin: stdin, in: directory, environment: environment)
}

/// Runs the geopipe binary with the bytes of a file as standard input.
@discardableResult
func geopipe(
  _ arguments: [String], stdinFile: URL, in directory: URL? = nil,
  sourceLocation: SourceLocation = #_sourceLocation
) throws -> Run {
  try geopipe(
    arguments, stdin: try Data(contentsOf: stdinFile), in: directory, sourceLocation: sourceLocation
  )
}

/// Runs `script` with `/bin/sh -c`; `$GEOPIPE` names the binary under test.
@discardableResult
func shell(
  _ script: String, in directory: URL, stdin: Data? = nil,
  sourceLocation: SourceLocation = #_sourceLocation
) throws -> Run {
  let binary = try CLI.requireBinary(sourceLocation: sourceLocation)
  return try runProcess(
    URL(fileURLWithPath: "/bin/sh"), ["-c", script], stdin: stdin, in: directory,
    environment: ["GEOPIPE": binary.path])
}

/// Runs a program to completion, with standard output and error captured in files (so a chatty
/// program can never block on a full pipe).
///
/// Kills it after `timeout` seconds.
func runProcess(
  _ executable: URL, _ arguments: [String], stdin: Data?, in directory: URL?,
  environment: [String: String] = [:], timeout: TimeInterval = 300
) throws -> Run {
  let scratch = try makeTemporaryDirectory(prefix: "geopipe-cli-io")
  defer { try? FileManager.default.removeItem(at: scratch) }
  let outURL = scratch.appendingPathComponent("stdout")
  let errURL = scratch.appendingPathComponent("stderr")
  let inURL = scratch.appendingPathComponent("stdin")
  try (stdin ?? Data()).write(to: inURL)
  try Data().write(to: outURL)
  try Data().write(to: errURL)
  let input = try FileHandle(forReadingFrom: inURL)
  let output = try FileHandle(forWritingTo: outURL)
  let error = try FileHandle(forWritingTo: errURL)
  defer {
    try? input.close()
    try? output.close()
    try? error.close()
  }

  let process = Process()
  process.executableURL = executable
  process.arguments = arguments
  if let directory { process.currentDirectoryURL = directory }
  var env = ProcessInfo.processInfo.environment
  for (key, value) in environment { env[key] = value }
  process.environment = env
  process.standardInput = input
  process.standardOutput = output
  process.standardError = error
  try process.run()
  let deadline = Date().addingTimeInterval(timeout)
  while process.isRunning {
    if Date() > deadline {
      process.terminate()
      process.waitUntilExit()
      Issue.record("\(executable.lastPathComponent) \(arguments) ran longer than \(timeout) s")
      break
    }
    usleep(2_000)
  }
  process.waitUntilExit()
  return Run(
    status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal,
    stdout: try Data(contentsOf: outURL), stderr: try Data(contentsOf: errURL))
}

/// Creates a fresh, empty directory under the system's temporary directory.
func makeTemporaryDirectory(prefix: String = "geopipe-cli") throws -> URL {
  let url = FileManager.default.temporaryDirectory
    .appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
  try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  return url.resolvingSymlinksInPath()
}

/// Calls `body` with a fresh temporary directory and removes it afterwards.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
  let url = try makeTemporaryDirectory()
  defer { try? FileManager.default.removeItem(at: url) }
  return try body(url)
}

/// The names in a directory (hidden ones included), sorted.
func contents(of directory: URL) throws -> [String] {
  try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
}

/// The bytes of a file, or empty data with a recorded issue when it cannot be read.
func bytes(_ url: URL, sourceLocation: SourceLocation = #_sourceLocation) -> Data {
  do {
    return try Data(contentsOf: url)
  } catch {
    Issue.record("cannot read \(url.lastPathComponent): \(error)", sourceLocation: sourceLocation)
    return Data()
  }
}

/// The text of a file.
func text(_ url: URL, sourceLocation: SourceLocation = #_sourceLocation) -> String {
  String(decoding: bytes(url, sourceLocation: sourceLocation), as: UTF8.self)
}

/// Lines of text without the final empty one.
func lines(of text: String) -> [String] {
  var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  if lines.last == "" { lines.removeLast() }
  return lines
}

/// Writes UTF-8 text to a file.
func write(_ text: String, to url: URL) throws {
  try Data(text.utf8).write(to: url)
}

/// Quotes a word for `/bin/sh`.
func shellQuoted(_ word: String) -> String {
  "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

// MARK: - A small JSON reader, independent of geopipe's own parser

/// A JSON value that keeps what the text said: integer literals keep their digits, floats are
/// compared by bit pattern (so `-0.0` differs from `0.0`), objects keep member order.
indirect enum JSON: Equatable, CustomStringConvertible {
  case null
  case bool(Bool)
  /// An integer literal, as written.
  case integer(String)
  /// A literal with a fraction or an exponent.
  case float(Double)
  case string(String)
  case array([JSON])
  case object([Member])

  struct Member: Equatable {
    var key: String
    var value: JSON
  }

  static func == (a: JSON, b: JSON) -> Bool {
    switch (a, b) {
    case (.null, .null): true
    case (.bool(let x), .bool(let y)): x == y
    case (.integer(let x), .integer(let y)): x == y
    case (.float(let x), .float(let y)): x.bitPattern == y.bitPattern
    case (.string(let x), .string(let y)): x.unicodeScalars.elementsEqual(y.unicodeScalars)
    case (.array(let x), .array(let y)): x == y
    case (.object(let x), .object(let y)): x == y
    default: false
    }
  }

  subscript(key: String) -> JSON? {
    if case .object(let members) = self { return members.first { $0.key == key }?.value }
    return nil
  }

  var array: [JSON]? {
    if case .array(let items) = self { return items }
    return nil
  }

  var string: String? {
    if case .string(let s) = self { return s }
    return nil
  }

  /// The value of a number of either kind.
  var number: Double? {
    switch self {
    case .integer(let digits): Double(digits)
    case .float(let x): x
    default: nil
    }
  }

  /// The member names of an object, in order.
  var keys: [String] {
    if case .object(let members) = self { return members.map(\.key) }
    return []
  }

  /// The same value with object members sorted by name (for order-insensitive comparison).
  var sortingKeys: JSON {
    switch self {
    case .array(let items): .array(items.map(\.sortingKeys))
    case .object(let members):
      .object(
        members.map { Member(key: $0.key, value: $0.value.sortingKeys) }
          .sorted {
            Array($0.key.unicodeScalars.map(\.value)).lexicographicallyPrecedes(
              $1.key.unicodeScalars.map(\.value))
          })
    default: self
    }
  }

  /// The same value with every number turned into a float (coordinates are numbers whatever
  /// their spelling: `-0` and `-0.0` are the same coordinate).
  var numbersAsFloats: JSON {
    switch self {
    case .integer(let digits): .float(Double(digits) ?? .nan)
    case .array(let items): .array(items.map(\.numbersAsFloats))
    case .object(let members):
      .object(members.map { Member(key: $0.key, value: $0.value.numbersAsFloats) })
    default: self
    }
  }

  var description: String {
    switch self {
    case .null: "null"
    case .bool(let b): b ? "true" : "false"
    case .integer(let digits): digits
    case .float(let x): "\(x)"
    case .string(let s):
      "\"\(s.unicodeScalars.map { $0.value < 0x20 ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined())\""
    case .array(let items): "[" + items.map(\.description).joined(separator: ",") + "]"
    case .object(let members):
      "{" + members.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
    }
  }

  struct ParseError: Error, CustomStringConvertible {
    var message: String
    var offset: Int
    var description: String { "\(message) at byte \(offset)" }
  }

  /// Parses one JSON text (RFC 8259), allowing surrounding whitespace.
  static func parse(_ text: String) throws -> JSON {
    try parse(Array(text.utf8))
  }

  /// Parses one JSON text from UTF-8 bytes.
  static func parse(_ bytes: [UInt8]) throws -> JSON {
    var parser = Parser(bytes: bytes)
    parser.skipSpace()
    let value = try parser.value()
    parser.skipSpace()
    guard parser.i == bytes.count else {
      throw ParseError(message: "trailing text", offset: parser.i)
    }
    return value
  }

  /// Parses GeoJSONSeq: one value per line or per RS-introduced record; blank records skipped.
  static func parseSequence(_ data: Data) throws -> [JSON] {
    var records: [[UInt8]] = [[]]
    for byte in data {
      if byte == 0x0A || byte == 0x1E {
        records.append([])
      } else {
        records[records.count - 1].append(byte)
      }
    }
    return try records.filter { $0.contains { ![0x20, 0x09, 0x0D].contains($0) } }.map {
      try parse($0)
    }
  }

  private struct Parser {
    let bytes: [UInt8]
    var i = 0

    mutating func skipSpace() {
      while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
    }

    func fail(_ message: String) -> ParseError { ParseError(message: message, offset: i) }

    mutating func value() throws -> JSON {
      skipSpace()
      guard i < bytes.count else { throw fail("unexpected end") }
      switch bytes[i] {
      case UInt8(ascii: "{"):
        i += 1
        var members: [Member] = []
        skipSpace()
        if i < bytes.count && bytes[i] == UInt8(ascii: "}") {
          i += 1
          return .object(members)
        }
        while true {
          skipSpace()
          guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else {
            throw fail("expected a key")
          }
          let key = try string()
          skipSpace()
          guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':'") }
          i += 1
          members.append(Member(key: key, value: try value()))
          skipSpace()
          guard i < bytes.count else { throw fail("unexpected end") }
          if bytes[i] == UInt8(ascii: ",") {
            i += 1
            continue
          }
          guard bytes[i] == UInt8(ascii: "}") else { throw fail("expected ',' or '}'") }
          i += 1
          return .object(members)
        }
      case UInt8(ascii: "["):
        i += 1
        var items: [JSON] = []
        skipSpace()
        if i < bytes.count && bytes[i] == UInt8(ascii: "]") {
          i += 1
          return .array(items)
        }
        while true {
          items.append(try value())
          skipSpace()
          guard i < bytes.count else { throw fail("unexpected end") }
          if bytes[i] == UInt8(ascii: ",") {
            i += 1
            continue
          }
          guard bytes[i] == UInt8(ascii: "]") else { throw fail("expected ',' or ']'") }
          i += 1
          return .array(items)
        }
      case UInt8(ascii: "\""):
        return .string(try string())
      case UInt8(ascii: "t"):
        try literal("true")
        return .bool(true)
      case UInt8(ascii: "f"):
        try literal("false")
        return .bool(false)
      case UInt8(ascii: "n"):
        try literal("null")
        return .null
      default:
        return try number()
      }
    }

    mutating func literal(_ word: String) throws {
      let w = Array(word.utf8)
      guard i + w.count <= bytes.count, Array(bytes[i..<(i + w.count)]) == w else {
        throw fail("bad literal")
      }
      i += w.count
    }

    mutating func number() throws -> JSON {
      let start = i
      func digits() -> Int {
        let from = i
        while i < bytes.count, bytes[i] >= 0x30 && bytes[i] <= 0x39 { i += 1 }
        return i - from
      }
      if i < bytes.count && bytes[i] == UInt8(ascii: "-") { i += 1 }
      let intStart = i
      let n = digits()
      guard n > 0 else { throw fail("expected a number") }
      guard n == 1 || bytes[intStart] != 0x30 else { throw fail("leading zero") }
      var isFloat = false
      if i < bytes.count && bytes[i] == UInt8(ascii: ".") {
        i += 1
        isFloat = true
        guard digits() > 0 else { throw fail("expected a digit after '.'") }
      }
      if i < bytes.count && (bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E")) {
        i += 1
        isFloat = true
        if i < bytes.count && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) {
          i += 1
        }
        guard digits() > 0 else { throw fail("expected an exponent") }
      }
      let text = String(decoding: bytes[start..<i], as: UTF8.self)
      if isFloat {
        guard let value = Double(text) else { throw fail("bad number \(text)") }
        return .float(value)
      }
      return .integer(text)
    }

    mutating func hex4() throws -> UInt32 {
      guard i + 4 <= bytes.count,
        let value = UInt32(String(decoding: bytes[i..<(i + 4)], as: UTF8.self), radix: 16)
      else { throw fail("bad \\u escape") }
      i += 4
      return value
    }

    mutating func string() throws -> String {
      i += 1
      var utf8: [UInt8] = []
      while true {
        guard i < bytes.count else { throw fail("unterminated string") }
        let c = bytes[i]
        i += 1
        if c == UInt8(ascii: "\"") { break }
        guard c >= 0x20 else { throw fail("control character in a string") }
        guard c == UInt8(ascii: "\\") else {
          utf8.append(c)
          continue
        }
        guard i < bytes.count else { throw fail("unterminated escape") }
        let e = bytes[i]
        i += 1
        var scalar: UInt32
        switch e {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalar = UInt32(e)
        case UInt8(ascii: "b"): scalar = 0x08
        case UInt8(ascii: "f"): scalar = 0x0C
        case UInt8(ascii: "n"): scalar = 0x0A
        case UInt8(ascii: "r"): scalar = 0x0D
        case UInt8(ascii: "t"): scalar = 0x09
        case UInt8(ascii: "u"):
          scalar = try hex4()
          if scalar >= 0xD800 && scalar < 0xDC00, i + 6 <= bytes.count,
            bytes[i] == UInt8(ascii: "\\"),
            bytes[i + 1] == UInt8(ascii: "u")
          {
            i += 2
            let low = try hex4()
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
          }
        default: throw fail("bad escape")
        }
        let character = String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}")
        utf8.append(contentsOf: character.utf8)
      }
      guard let text = String(validating: utf8, as: UTF8.self) else { throw fail("invalid UTF-8") }
      return text
    }
  }
}

/// Twice the signed area of a ring of JSON positions (positive when counter-clockwise).
func signedDoubleArea(_ ring: [JSON]) -> Double {
  let points = ring.compactMap { position -> (Double, Double)? in
    guard let xy = position.array, xy.count >= 2, let x = xy[0].number, let y = xy[1].number else {
      return nil
    }
    return (x, y)
  }
  guard points.count > 2 else { return 0 }
  var sum = 0.0
  for k in 0..<(points.count - 1) {
    sum += points[k].0 * points[k + 1].1 - points[k + 1].0 * points[k].1
  }
  return sum
}

/// Every polygon (a list of rings) in a GeoJSON geometry, collections included.
func polygons(in geometry: JSON) -> [[JSON]] {
  switch geometry["type"]?.string {
  case "Polygon":
    return [geometry["coordinates"]?.array ?? []]
  case "MultiPolygon":
    return (geometry["coordinates"]?.array ?? []).map { $0.array ?? [] }
  case "GeometryCollection":
    return (geometry["geometries"]?.array ?? []).flatMap(polygons(in:))
  default:
    return []
  }
}

/// A gazetteer built once per test run from the GeoNames files shipped in `Data/geonames`
/// (the same as the default gazetteer), in a temporary folder.
enum TestGazetteer {
  static let path: Result<String, any Error> = Result {
    let folder = try makeTemporaryDirectory(prefix: "geopipe-gazetteer")
    let path = folder.appendingPathComponent("cities15000.sqlite").path
    let run = try geopipe(["gazetteer", "build", "--default", "-q", path])
    guard run.status == 0 else { throw GazetteerBuildFailure(run: run) }
    return path
  }

  struct GazetteerBuildFailure: Error, CustomStringConvertible {
    var run: Run
    var description: String { "gazetteer build failed: \(run)" }
  }
}
