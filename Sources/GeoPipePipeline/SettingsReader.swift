import GeoPipeCore
import GeoPipeStageKit

extension SettingsFile {
  /// Installs libyaml's reader (`YAMLReader`, which reads JSON too) for the settings files
  /// that options name.
  public static func installYAML() {
    install { bytes, path in
      let (root, problems) = YAMLReader.read(bytes)
      if let problem = problems.first {
        throw GeoPipeError(
          problem.message,
          at: SourceLocation(
            file: path, line: problem.position.line, column: problem.position.column),
          status: .config)
      }
      guard let root else {
        throw GeoPipeError(
          "the file is empty", at: SourceLocation(file: path, line: 1, column: 1), status: .config)
      }
      return settingsNode(root, path: path)
    }
  }
}

/// A document node as a settings node, with the file's name in its locations.
private func settingsNode(_ node: DocumentNode, path: String) -> SettingsNode {
  let location = SourceLocation(
    file: path, line: node.position.line, column: node.position.column)
  switch node.content {
  case .scalar(let text, _):
    return SettingsNode(.scalar(text), at: location)
  case .mapping(let entries):
    return SettingsNode(
      .mapping(
        entries.map {
          (key: settingsNode($0.key, path: path), value: settingsNode($0.value, path: path))
        }),
      at: location)
  case .sequence(let items):
    return SettingsNode(.sequence(items.map { settingsNode($0, path: path) }), at: location)
  }
}
