import GeoPipeCore
import GeoPipeIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder of extracted files, removed (with its files) when released.
final class TemporaryFolder {
  let path: String
  private var files: [String] = []

  init() throws {
    var template = Array("\(ScratchFile.temporaryFolder)/geopipe-shapefile-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer in
      buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) }
    }
    guard let made else {
      throw GeoPipeError(
        "cannot create a temporary folder in '\(ScratchFile.temporaryFolder)' to unzip into: "
          + String(cString: strerror(errno)), status: .ioError)
    }
    path = made
    TemporaryFiles.registerFolder(path)
  }

  /// A path in the folder for a file about to be written, removed with the folder.
  func file(_ name: String) -> String {
    let file = "\(path)/\(name)"
    files.append(file)
    TemporaryFiles.register(file)
    return file
  }

  deinit {
    for file in files {
      unlink(file)
      TemporaryFiles.unregister(file)
    }
    rmdir(path)
    TemporaryFiles.unregisterFolder(path)
  }
}

/// The shapefiles in a zip archive, as downloads come (`roads.zip` holding `roads.shp`,
/// `roads.shx`, `roads.dbf`, `roads.prj`, `roads.cpg`, perhaps in a folder).
enum ZippedShapefile {
  /// The archive's `.shp` members, by path in the archive (macOS resource forks left out).
  static func layers(_ archive: ZipArchive) -> [ZipArchive.Entry] {
    archive.entries.filter { entry in
      entry.name.lowercased().hasSuffix(".shp") && !entry.name.hasPrefix("__MACOSX/")
        && !entry.name.split(separator: "/").contains { $0.hasPrefix("._") }
    }
  }

  /// A layer's name: its file name without `.shp`.
  static func layerName(_ entry: ZipArchive.Entry) -> String {
    let file = entry.name.split(separator: "/").last.map(String.init) ?? entry.name
    return String(file.dropLast(4))
  }

  /// The error for a zip archive that holds no shapefile.
  static func noShapefile(_ name: String) -> GeoPipeError {
    GeoPipeError.data(
      "the input is a zip archive with no shapefile (.shp) in it (a KMZ or a zipped GeoPackage?), "
        + "which geopipe does not read; unzip it first",
      at: SourceLocation(file: name, line: 1, column: 1))
  }

  /// The `.shp` member `layer` names (its name, or its path in the archive), or the only one.
  static func choose(_ archive: ZipArchive, layer: String?) throws -> ZipArchive.Entry {
    let shapefiles = layers(archive)
    if shapefiles.isEmpty { throw noShapefile(archive.name) }
    let names = shapefiles.map(layerName).joined(separator: ", ")
    if let layer {
      guard
        let entry = shapefiles.first(where: { layerName($0) == layer || $0.name == layer })
          ?? shapefiles.first(where: { layerName($0).lowercased() == layer.lowercased() })
      else {
        throw GeoPipeError.usage(
          "\(archive.name) has no shapefile named '\(layer)'; its layers are: \(names)")
      }
      return entry
    }
    guard shapefiles.count == 1 else {
      throw GeoPipeError.usage(
        "\(archive.name) holds \(shapefiles.count) shapefiles: choose one with --layer "
          + "(\(names))")
    }
    return shapefiles[0]
  }

  /// Extracts the `.shp` member and its companions into a new temporary folder; returns the
  /// folder and the extracted `.shp`'s path.
  static func extract(_ archive: ZipArchive, _ shp: ZipArchive.Entry) throws
    -> (folder: TemporaryFolder, path: String)
  {
    let folder = try TemporaryFolder()
    let stem = String(shp.name.dropLast(4)).lowercased()
    let layer = "layer"
    for entry in archive.entries {
      let lower = entry.name.lowercased()
      guard lower.hasPrefix(stem + "."), lower.count == stem.count + 4 else { continue }
      let ext = String(lower.suffix(3))
      guard ["shp", "shx", "dbf", "prj", "cpg"].contains(ext) else { continue }
      try archive.extract(entry, to: folder.file("\(layer).\(ext)"))
    }
    return (folder, "\(folder.path)/\(layer).shp")
  }
}
