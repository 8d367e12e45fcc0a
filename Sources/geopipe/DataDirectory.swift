import Foundation

/// Where the data geopipe ships (the GeoNames files behind the default gazetteer, the
/// Natural Earth basemap) is found at run time, never through a path compiled in.
///
/// In order: `$GEOPIPE_DATA`; `../share/geopipe` beside the executable (an installed
/// binary: `PREFIX/bin/geopipe` reads `PREFIX/share/geopipe`); the `Data` folder of the
/// source tree the executable sits in (`.build/debug/geopipe` reads the checkout's `Data`).
enum DataDirectory {
  /// The folder holding `geonames/` and `naturalearth/`, or nil when none is found.
  static func find(environment: [String: String] = ProcessInfo.processInfo.environment)
    -> String?
  {
    if let data = environment["GEOPIPE_DATA"], !data.isEmpty { return data }
    guard let executable = executablePath() else { return nil }
    let folder = URL(fileURLWithPath: executable).deletingLastPathComponent()
    let share = folder.deletingLastPathComponent().appendingPathComponent("share/geopipe")
    if holdsData(share.path) { return share.path }
    var candidate = folder
    while candidate.path != "/" && !candidate.path.isEmpty {
      let data = candidate.appendingPathComponent("Data")
      if holdsData(data.path) { return data.path }
      candidate = candidate.deletingLastPathComponent()
    }
    return nil
  }

  /// Where the search looks, for error messages.
  static let searched =
    "$GEOPIPE_DATA, ../share/geopipe beside the executable, or Data in the source tree it was "
    + "built in"

  private static func holdsData(_ path: String) -> Bool {
    var isFolder: ObjCBool = false
    return FileManager.default.fileExists(atPath: path + "/geonames", isDirectory: &isFolder)
      && isFolder.boolValue
  }

  /// The running executable with symbolic links resolved (a link in /usr/local/bin to a
  /// binary elsewhere finds the data beside the binary).
  private static func executablePath() -> String? {
    if let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
      return link
    }
    guard let first = CommandLine.arguments.first, first.contains("/") else { return nil }
    return URL(fileURLWithPath: first).resolvingSymlinksInPath().path
  }
}
