/// Which properties (attributes) go into tiles: tippecanoe's `--include` (`-y`), `--exclude`
/// (`-x`) and `--exclude-all` (`-X`).
///
/// An include list keeps only the names it lists (as tippecanoe, where `-y` implies `-X`);
/// exclude-all keeps none but those included; an exclude list then removes its names.
public struct TileAttributeFilter: Hashable, Sendable {
  /// The names kept when any are listed.
  public var include: Set<String>
  /// The names left out.
  public var exclude: Set<String>
  /// Whether every name not included is left out.
  public var excludeAll: Bool

  /// Creates a filter; with no arguments it keeps every property.
  public init(include: [String] = [], exclude: [String] = [], excludeAll: Bool = false) {
    self.include = Set(include)
    self.exclude = Set(exclude)
    self.excludeAll = excludeAll
  }

  /// Whether the filter keeps every property.
  public var keepsAll: Bool { include.isEmpty && exclude.isEmpty && !excludeAll }

  /// Whether the property called `key` goes into tiles.
  public func keeps(_ key: String) -> Bool {
    if exclude.contains(key) { return false }
    return include.isEmpty && !excludeAll ? true : include.contains(key)
  }

  /// The names the filter lists, include list first, each sorted: the ones to look for among
  /// the input's properties.
  public var namedProperties: [String] { include.sorted() + exclude.sorted() }

  /// The listed names that are none of `keys` (the properties the input had), in the order of
  /// ``namedProperties``: most likely misspelt, to be reported (a warning, or an error when
  /// strict, as `select` does).
  public func unmatched(among keys: some Sequence<String>) -> [String] {
    let present = Set(keys)
    return namedProperties.filter { !present.contains($0) }
  }
}
