import Foundation
import GeoPipeCore
import Synchronization

/// A node of a settings file that an option names, YAML or JSON, with the place it starts.
///
/// Scalars keep their text as written (`render --basemap-style` reads one).
public struct SettingsNode: Sendable {
  /// What the node holds.
  public indirect enum Content: Sendable {
    /// A scalar's text.
    case scalar(String)
    /// A mapping's keys and values in order.
    case mapping([(key: SettingsNode, value: SettingsNode)])
    /// A sequence's items in order.
    case sequence([SettingsNode])
  }

  /// What the node holds.
  public var content: Content
  /// Where the node starts.
  public var location: SourceLocation

  /// Creates a node.
  public init(_ content: Content, at location: SourceLocation) {
    self.content = content
    self.location = location
  }

  /// The scalar's text, or nil.
  public var text: String? {
    if case .scalar(let text) = content { text } else { nil }
  }

  /// A configuration error at this node (exit 78).
  public func error(_ message: String) -> GeoPipeError {
    GeoPipeError(message, at: location, status: .config)
  }
}

/// Reads settings files.
///
/// The YAML reader lives with libyaml in GeoPipePipeline, above the
/// stages, so the executable installs it at start-up.
public enum SettingsFile {
  /// Parses a file's bytes (its path for locations) into its root node; errors carry the
  /// file, line and column.
  public typealias Reader = @Sendable (_ bytes: [UInt8], _ path: String) throws -> SettingsNode

  private static let installed = Mutex<Reader?>(nil)

  /// Installs the reader of YAML (and JSON) settings files.
  public static func install(_ reader: @escaping Reader) {
    installed.withLock { $0 = reader }
  }

  /// Reads the settings file at `path`.
  public static func read(path: String) throws -> SettingsNode {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw GeoPipeError("cannot open '\(path)': no such file or not readable", status: .noInput)
    }
    guard let reader = installed.withLock({ $0 }) else {
      throw GeoPipeError(
        "cannot read the settings file '\(path)': no YAML reader is installed", status: .config)
    }
    return try reader(Array(data), path)
  }
}
