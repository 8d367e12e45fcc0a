import Foundation
import GeoPipeCore

/// Whole JSON documents that are small enough to hold in memory, such as a JSON Schema file.
public enum JSONText {
  /// Parses the JSON file at `path` (RFC 8259), rejecting duplicate keys.
  ///
  /// Errors name the file, line and column; a file that cannot be read is `noInput`.
  public static func parse(contentsOf path: String) throws -> JSONValue {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw GeoPipeError("cannot read \(path)", status: .noInput)
    }
    return try parse(Array(data), name: path)
  }

  /// Parses JSON text; `name` is the file name used in error locations.
  public static func parse(_ bytes: [UInt8], name: String) throws -> JSONValue {
    var text = bytes
    var start = 0
    if text.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
    let end = text.count
    // The scanner may look one byte past the end; a NUL there stops it.
    text.append(0)
    return try text.withUnsafeBufferPointer { buffer in
      guard let base = buffer.baseAddress else { throw GeoPipeError.data("empty file", at: nil) }
      var scanner = JSONScanner(base: base, end: end, isFinal: true, at: start)
      do {
        let value = try scanner.parseValue()
        scanner.skipWhitespace()
        guard scanner.i == end else {
          throw ScanError("unexpected text after the JSON value", at: scanner.i)
        }
        return value
      } catch let error as ScanError {
        throw GeoPipeError.data(
          error.message, at: location(of: error.index, in: buffer, name: name),
          problem: error.problem)
      }
    }
  }

  private static func location(of index: Int, in bytes: UnsafeBufferPointer<UInt8>, name: String)
    -> SourceLocation
  {
    var line = 1
    var column = 1
    for k in 0..<min(index, bytes.count) {
      if bytes[k] == 0x0A {
        line += 1
        column = 1
      } else if bytes[k] & 0xC0 != 0x80 {
        column += 1
      }
    }
    return SourceLocation(file: name, line: line, column: column)
  }
}
