import GeoPipeCore
import GeoPipeFlatGeobuf
import GeoPipeGeoPackage
import GeoPipeIO
import GeoPipeParquet
import GeoPipePostgreSQL
import GeoPipeShapefile
import GeoPipeStageKit
import GeoPipeXML

/// The formats `read` and `write` offer: GeoPipeIO's own and those of the format modules,
/// registered here once, one line a module.
public enum Formats {
  /// Registers the format modules' formats with `FeatureFormats` (once, on first use).
  public static let registered: Void = {
    FeatureFormats.register(GeoPackage.format)
    FeatureFormats.register(.shapefile)
    FeatureFormats.register(KML.format)
    FeatureFormats.register(GPX.format)
    FeatureFormats.register(FlatGeobuf.format)
    FeatureFormats.register(PostgreSQL.format)
    FeatureFormats.register(GeoParquet.format)
  }()

  /// Every format, after registration.
  public static var all: [FeatureFormat] {
    _ = registered
    return FeatureFormats.all
  }

  /// The formats geopipe reads.
  public static var readable: [FeatureFormat] {
    _ = registered
    return FeatureFormats.readable
  }

  /// The formats geopipe writes.
  public static var writable: [FeatureFormat] {
    _ = registered
    return FeatureFormats.writable
  }

  /// The format named `name` (as `--input-format`/`--output-format` take it).
  public static func named(_ name: String) -> FeatureFormat? {
    _ = registered
    return FeatureFormats.named(name)
  }

  /// The options the formats geopipe reads (files and URLs) add to `read`.
  static var readFormatOptions: [FormatOption] {
    all.filter { $0.open != nil || $0.openURL != nil }.flatMap(\.readOptions)
  }

  /// The options the formats geopipe writes (files and URLs) add to `write`.
  static var writeFormatOptions: [FormatOption] {
    all.filter { $0.create != nil || $0.createURL != nil }.flatMap(\.writeOptions)
  }

  /// The options the formats add to `read`, as option specs (each name once).
  static var readOptions: [OptionSpec] { specs(readFormatOptions) }

  /// The options the formats add to `write`, as option specs (each name once).
  static var writeOptions: [OptionSpec] { specs(writeFormatOptions) }

  /// Copies the formats' option values into `values`.
  static func formatValues(_ options: [FormatOption], from values: OptionValues)
    -> FormatOptionValues
  {
    var result = FormatOptionValues()
    for option in options {
      switch option.kind {
      case .flag: if values.flag(option.name) { result.set(option.name, "true") }
      case .integer: if let n = values.integer(option.name) { result.set(option.name, String(n)) }
      case .string, .choice:
        if let text = values.string(option.name) { result.set(option.name, text) }
      }
    }
    return result
  }

  private static func specs(_ options: [FormatOption]) -> [OptionSpec] {
    var seen = Set<String>()
    var specs: [OptionSpec] = []
    for option in options where seen.insert(option.name).inserted {
      let kind: OptionKind =
        switch option.kind {
        case .flag: .flag
        case .string: .string
        case .integer: .integer
        case .choice(let words): .choice(words)
        }
      specs.append(OptionSpec(option.name, kind, help: option.help))
    }
    return specs
  }
}
