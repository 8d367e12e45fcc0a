import GeoPipeCore
import GeoPipeIO

/// Reads a GeoNames dump file (tab-separated UTF-8, `\n` line ends, gzip or plain) line by
/// line, skipping empty lines and `#` comments.
final class TabFile {
  let path: String
  private let source: any ByteSource
  private var buffer = [UInt8](repeating: 0, count: 1 << 20)
  private var start = 0
  private var end = 0
  private var atEnd = false
  /// The 1-based number of the line last returned.
  private(set) var lineNumber = 0

  init(path: String) throws {
    self.path = path
    let file: any ByteSource
    do {
      file = try FileByteSource(path: path)
    } catch {
      throw GeoPipeError("cannot open \(path): \(error)", status: .noInput)
    }
    let isGzip = path.hasSuffix(".gz")
    source = isGzip ? try GzipByteSource(file) : file
  }

  /// The next line's fields, or nil at the end.
  func next() throws -> [Substring]? {
    while true {
      guard let line = try nextLine() else { return nil }
      if line.isEmpty || line.first == "#" { continue }
      return line.split(separator: "\t", omittingEmptySubsequences: false)
    }
  }

  private func nextLine() throws -> Substring? {
    while true {
      if let newline = buffer[start..<end].firstIndex(of: UInt8(ascii: "\n")) {
        let line = String(decoding: buffer[start..<newline], as: UTF8.self)
        start = newline + 1
        lineNumber += 1
        return Substring(line.hasSuffix("\r") ? String(line.dropLast()) : line)
      }
      if atEnd {
        guard start < end else { return nil }
        let line = String(decoding: buffer[start..<end], as: UTF8.self)
        start = end
        lineNumber += 1
        return Substring(line)
      }
      if start > 0 {
        buffer.replaceSubrange(0..<(end - start), with: buffer[start..<end])
        end -= start
        start = 0
      }
      if end == buffer.count {
        buffer.append(contentsOf: [UInt8](repeating: 0, count: buffer.count))
      }
      let n = try buffer.withUnsafeMutableBytes { raw in
        try source.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[end...]))
      }
      if n == 0 { atEnd = true } else { end += n }
    }
  }

  /// An error about the line last read.
  func error(_ message: String) -> GeoPipeError {
    GeoPipeError(
      message, at: SourceLocation(file: path, line: lineNumber, column: 1), status: .dataError)
  }
}
