/// A place in an input: file name, 1-based line and 1-based column counted in characters.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
  /// The file as the user named it (`-` or `<stdin>` for standard input).
  public var file: String
  /// 1-based line.
  public var line: Int
  /// 1-based column, counting characters (Unicode scalars), not bytes.
  public var column: Int

  /// Creates a location.
  public init(file: String, line: Int, column: Int) {
    self.file = file
    self.line = line
    self.column = column
  }

  /// `file:line:column`, the form compilers and editors understand.
  public var description: String { "\(file):\(line):\(column)" }
}
