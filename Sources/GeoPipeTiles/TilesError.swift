/// An error writing a tileset, with what was being done.
public struct TilesError: Error, Sendable, CustomStringConvertible {
  /// A sentence for the user.
  public var description: String

  init(_ description: String) { self.description = description }
}
