import GeoPipeCore
import Synchronization

/// One format geopipe reads or writes: its names, how its files are recognised, and how a
/// reader and a writer are opened.
///
/// The formats live in a registry (`FeatureFormats`); `FeatureReaders.open` and the `write`
/// stage choose from it, and the `--input-format`/`--output-format` choices, help text and
/// detection errors are made from it. A format that needs a C library other than zlib lives in
/// a module of its own, which defines its `FeatureFormat`; the application registers it with
/// one line.
public struct FeatureFormat: Sendable, CustomStringConvertible {
  /// Opens a reader on an input whose format is this one.
  public typealias Open = @Sendable (FormatInput, ReadOptions) throws -> any FeatureReader
  /// Opens a writer for an output whose format is this one.
  public typealias Create = @Sendable (FormatOutput, WriteOptions) throws -> any FeatureWriter
  /// Describes the layers of an input whose format is this one.
  public typealias Layers = @Sendable (FormatInput, ReadOptions) throws -> [LayerInfo]
  /// Opens a reader on a URL of one of the format's schemes (a database's address).
  public typealias OpenURL = @Sendable (_ url: String, ReadOptions) throws -> any FeatureReader
  /// Opens a writer to a URL of one of the format's schemes.
  public typealias CreateURL = @Sendable (_ url: String, WriteOptions) throws -> any FeatureWriter
  /// Opens a reader on the records of a file (or a database URL) that begin in one shard's
  /// share of it.
  public typealias OpenShare =
    @Sendable (_ path: String, ReadOptions, InputShare) throws -> any FeatureReader

  /// The name used by `--input-format`/`--output-format` (`geojson`, `gpkg`).
  public let name: String
  /// The name people know it by (`GeoJSON`, `GeoPackage`).
  public let title: String
  /// The file extensions, without the dot, lowercase (`.gz` is handled for all formats whose
  /// bytes are streamed).
  public let extensions: [String]
  /// The extensions its writer writes, listed in `write --help` (a shapefile's writer is
  /// chosen by `.zip` too, to say that it writes `.shp` and not zip archives).
  public private(set) var writtenExtensions: [String]
  /// Whether the first bytes of an input are this format.
  ///
  /// It is given at least 512 bytes when the input has that many (after gzip is undone). Nil
  /// for the text formats that content detection tells apart (GeoJSON, GeoJSONSeq, CSV).
  public let recognize: (@Sendable (_ head: [UInt8]) -> Bool)?
  /// Opens a reader; nil when geopipe does not read the format.
  public let open: Open?
  /// Opens a writer; nil when geopipe does not write the format.
  public let create: Create?
  /// Lists the input's layers, for `geopipe layers`; nil for single-layer formats (their one
  /// layer is described by reading it).
  public let layers: Layers?
  /// Options this format adds to `read` (and `convert`).
  public let readOptions: [FormatOption]
  /// Options this format adds to `write` (and `convert`).
  public let writeOptions: [FormatOption]
  /// For the text formats: which one content detection is to pick.
  let text: TextFormat?
  /// The URL schemes, lowercase, whose addresses (`postgresql://…`) name an input or output in
  /// this format instead of a file; empty for formats of files.
  public private(set) var schemes: [String] = []
  /// Opens a reader on a URL of `schemes`; nil when the format is not read from URLs.
  public private(set) var openURL: OpenURL?
  /// Opens a writer to a URL of `schemes`; nil when the format is not written to URLs.
  public private(set) var createURL: CreateURL?
  /// How the format's files split into shards (`run --shard`).
  ///
  /// Opens a reader on the records that begin in a share (see `InputShare` for what a
  /// record's position is). Nil when they do not split: the shard whose share holds a file's
  /// start then reads it whole.
  public private(set) var openShare: OpenShare?

  /// The format, split into shards by `open`.
  public func splitting(by open: @escaping OpenShare) -> FeatureFormat {
    var format = self
    format.openShare = open
    return format
  }

  /// Describes a format.
  public init(
    name: String, title: String, extensions: [String], writtenExtensions: [String]? = nil,
    recognize: (@Sendable (_ head: [UInt8]) -> Bool)?, open: Open? = nil, create: Create? = nil,
    layers: Layers? = nil, readOptions: [FormatOption] = [], writeOptions: [FormatOption] = []
  ) {
    self.init(
      name: name, title: title, extensions: extensions, recognize: recognize, open: open,
      create: create, layers: layers, readOptions: readOptions, writeOptions: writeOptions,
      text: nil)
    if let writtenExtensions { self.writtenExtensions = writtenExtensions }
  }

  /// Describes a format whose inputs and outputs are named by URLs of `schemes` (a database
  /// server), not files.
  public init(
    name: String, title: String, schemes: [String], openURL: OpenURL?, createURL: CreateURL?,
    readOptions: [FormatOption] = [], writeOptions: [FormatOption] = []
  ) {
    self.init(
      name: name, title: title, extensions: [], recognize: nil, open: nil, create: nil,
      layers: nil, readOptions: readOptions, writeOptions: writeOptions, text: nil)
    self.schemes = schemes
    self.openURL = openURL
    self.createURL = createURL
  }

  init(
    name: String, title: String, extensions: [String],
    recognize: (@Sendable (_ head: [UInt8]) -> Bool)?, open: Open?, create: Create?,
    layers: Layers?, readOptions: [FormatOption], writeOptions: [FormatOption], text: TextFormat?
  ) {
    self.name = name
    self.title = title
    self.extensions = extensions
    writtenExtensions = extensions
    self.recognize = recognize
    self.open = open
    self.create = create
    self.layers = layers
    self.readOptions = readOptions
    self.writeOptions = writeOptions
    self.text = text
  }

  /// The format's name.
  public var description: String { name }
}

extension FeatureFormat: Equatable {
  /// Formats are the same when their names are.
  public static func == (a: FeatureFormat, b: FeatureFormat) -> Bool { a.name == b.name }
}

/// An option a format adds to `read` or `write` (`--layer`, `--no-index`).
public struct FormatOption: Sendable {
  /// What the option takes.
  public enum Kind: Sendable, Equatable {
    /// No value.
    case flag
    /// Any text.
    case string
    /// A whole number.
    case integer
    /// One of these words.
    case choice([String])
  }

  /// The kebab-case name, without dashes.
  public let name: String
  /// What it takes.
  public let kind: Kind
  /// One or two sentences for `--help`, starting with the format it applies to
  /// ("GeoPackage: …").
  public let help: String

  /// Describes an option.
  public init(_ name: String, _ kind: Kind, help: String) {
    self.name = name
    self.kind = kind
    self.help = help
  }
}

/// The values given for formats' options, by option name (flags given are "true").
public struct FormatOptionValues: Sendable {
  private var values: [String: String] = [:]

  /// No values.
  public init() {}

  /// Sets an option's value.
  public mutating func set(_ name: String, _ value: String) { values[name] = value }

  /// A text or choice option's value.
  public func string(_ name: String) -> String? { values[name] }

  /// Whether a flag was given.
  public func flag(_ name: String) -> Bool { values[name] == "true" }

  /// An integer option's value.
  public func integer(_ name: String) -> Int? { values[name].flatMap { Int($0) } }
}

/// An input handed to a format's `open`.
public struct FormatInput {
  /// The path as given (`-` for standard input).
  public let path: String
  /// The name for messages (`<stdin>` for standard input).
  public let name: String
  /// The input's bytes from the start, gzip already undone.
  public let source: ByteSource
  /// Its first bytes (as `FeatureFormat.recognize` saw them).
  public let head: [UInt8]
  /// Whether the bytes were gzip-compressed (formats read by seeking cannot be).
  public let isCompressed: Bool

  /// Describes an input.
  public init(
    path: String, name: String, source: ByteSource, head: [UInt8], isCompressed: Bool = false
  ) {
    self.path = path
    self.name = name
    self.source = source
    self.head = head
    self.isCompressed = isCompressed
  }

  /// The path of a regular file to open by name (a database, a file read by seeking), or an
  /// error naming the format when the input is standard input or compressed.
  public func seekablePath(for format: String) throws -> String {
    if path == "-" {
      throw GeoPipeError(
        "\(format) cannot be read from standard input: give the file's path", status: .noInput)
    }
    if isCompressed {
      throw GeoPipeError(
        "\(name): \(format) cannot be read gzip-compressed: decompress it first (gunzip)",
        status: .noInput)
    }
    return path
  }
}

/// An output handed to a format's `create`: the path and the atomic file opened for it.
public struct FormatOutput {
  /// The path as given (`-` for standard output).
  public let path: String
  /// The atomic output file (a temporary file renamed into place on commit).
  public let file: OutputFile

  /// Describes an output.
  public init(path: String, file: OutputFile) {
    self.path = path
    self.file = file
  }

  /// Whether the path ends in `.gz`.
  public var isCompressed: Bool { path.lowercased().hasSuffix(".gz") }

  /// The sink for a streamed format: the file, through gzip when the path ends in `.gz`.
  public func sink() throws -> ByteSink {
    isCompressed ? try GzipSink(file) : file
  }

  /// The path of the temporary file that becomes the output on commit, for formats written
  /// by a library that opens files by name (SQLite); an error naming the format for standard
  /// output, a device, or a `.gz` path.
  public func temporaryPath(for format: String) throws -> String {
    guard let temporary = file.temporaryPath else {
      throw GeoPipeError.usage(
        "\(format) cannot be written to standard output or a device: give a file path")
    }
    if isCompressed {
      throw GeoPipeError.usage("\(format) cannot be written gzip-compressed: drop the .gz")
    }
    return temporary
  }
}

/// What `geopipe layers` tells about one layer of an input.
public struct LayerInfo: Sendable {
  /// The layer's name.
  public var name: String
  /// Its geometry type as the format declares it (`Point`, `MultiPolygon`, `Geometry`).
  public var geometryType: String?
  /// How many features it holds, when known without reading them.
  public var count: Int?
  /// Its CRS (`EPSG:4326`, or a WKT/PROJ definition).
  public var crs: String?
  /// Its fields: name and type as the format calls it.
  public var fields: [(name: String, type: String)]
  /// The extent the file declares, in the layer's CRS.
  public var bounds: BBox?

  /// Describes a layer.
  public init(
    name: String, geometryType: String? = nil, count: Int? = nil, crs: String? = nil,
    fields: [(name: String, type: String)] = [], bounds: BBox? = nil
  ) {
    self.name = name
    self.geometryType = geometryType
    self.count = count
    self.crs = crs
    self.fields = fields
    self.bounds = bounds
  }
}

/// The formats geopipe knows: the built-in ones (GeoJSON, GeoJSONSeq, CSV, KML) and those
/// registered by other modules.
public enum FeatureFormats {
  private static let registry = Mutex<[FeatureFormat]>(
    [.geoJSON, .geoJSONSeq, .csv, .kml])

  /// Every format, in registration order.
  public static var all: [FeatureFormat] { registry.withLock { $0 } }

  /// The formats of files geopipe reads (`--input-format` offers them; formats read from URLs
  /// are chosen by the URL).
  public static var readable: [FeatureFormat] { all.filter { $0.open != nil } }

  /// The formats of files geopipe writes (`--output-format` offers them).
  public static var writable: [FeatureFormat] { all.filter { $0.create != nil } }

  /// Adds a format, or replaces the one with its name.
  public static func register(_ format: FeatureFormat) {
    registry.withLock { formats in
      if let k = formats.firstIndex(where: { $0.name == format.name }) {
        formats[k] = format
      } else {
        formats.append(format)
      }
    }
  }

  /// The format with this name.
  public static func named(_ name: String) -> FeatureFormat? {
    all.first { $0.name == name }
  }

  /// The format whose URL scheme `path` starts with (`postgresql://…`), if any.
  public static func addressed(by path: String) -> FeatureFormat? {
    guard let end = path.range(of: "://") else { return nil }
    let scheme = path[..<end.lowerBound].lowercased()
    return all.first { $0.schemes.contains(scheme) }
  }

  /// The extension of a path's last component, lowercase, after a `.gz` suffix is taken off;
  /// nil for `-`, names without one, and names that are only an extension (`.geojson`).
  public static func fileExtension(of path: String) -> String? {
    var name = Substring(path.lowercased())
    if let slash = name.lastIndex(of: "/") { name = name[name.index(after: slash)...] }
    if name.hasSuffix(".gz") { name = name.dropLast(3) }
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
    return String(name[name.index(after: dot)...])
  }

  /// The readable format a path's extension names.
  public static func reading(_ path: String) -> FeatureFormat? {
    guard let ext = fileExtension(of: path) else { return nil }
    return readable.first { $0.extensions.contains(ext) }
  }

  /// The writable format a path's extension names.
  public static func writing(_ path: String) -> FeatureFormat? {
    guard let ext = fileExtension(of: path) else { return nil }
    return writable.first { $0.extensions.contains(ext) }
  }

  /// The titles of `formats`, as a list in prose ("GeoJSON, GeoJSONSeq and CSV").
  public static func titles(_ formats: [FeatureFormat]) -> String {
    let titles = formats.map(\.title)
    guard titles.count > 1 else { return titles.first ?? "" }
    return titles.dropLast().joined(separator: ", ") + " and " + (titles.last ?? "")
  }
}

extension LayerInfo {
  /// Describes the one layer of an input by reading it through: the geometry types seen
  /// (`Point`, or `Mixed (Point, Polygon)`), the count, the CRS it declares (WGS84 when it
  /// declares none), each property with the JSON kinds of its values, and the bounds.
  public init(reading reader: any FeatureReader, name: String) throws {
    var kinds: [String] = []
    var count = 0
    var fields: [String] = []
    var types: [String: [String]] = [:]
    var bounds = BBox.empty
    while let feature = try reader.next() {
      count += 1
      if let geometry = feature.geometry {
        if !kinds.contains(geometry.typeName) { kinds.append(geometry.typeName) }
        geometry.forEachXY { x, y in bounds.extend(x: x, y: y) }
      }
      for member in feature.properties?.members ?? [] {
        let kind = member.value.typeName
        if types[member.key] == nil { fields.append(member.key) }
        if !(types[member.key]?.contains(kind) ?? false) {
          types[member.key, default: []].append(kind)
        }
      }
    }
    let geometryType =
      kinds.count == 1
      ? kinds[0] : kinds.isEmpty ? "None" : "Mixed (\(kinds.joined(separator: ", ")))"
    self.init(
      name: name, geometryType: geometryType, count: count,
      crs: reader.declaredCRS ?? "EPSG:4326",
      fields: fields.map { field in
        let seen = types[field] ?? []
        let real = seen.filter { $0 != "null" }
        return (field, real.isEmpty ? "null" : real.joined(separator: "|"))
      }, bounds: bounds.isEmpty ? nil : bounds)
  }
}
