internal import CShapelib
import Synchronization

/// The file hooks geopipe hands shapelib (`SAHooks`): its errors are kept for geopipe's own
/// messages instead of printed, and files it creates by name are mapped to the temporary files
/// of geopipe's atomic outputs.
enum ShapelibHooks {
  /// The last error shapelib reported (through `SAHooks.Error`).
  private static let lastError = Mutex<String?>(nil)
  /// Names shapelib is given when writing (`<key>.shp`), and the files they stand for.
  private static let mapped = Mutex<[String: String]>([:])
  private static let counter = Atomic<Int>(0)

  /// Hooks for reading: geopipe's buffered files (`HookFile`), errors kept.
  static func reading() -> SAHooks {
    var hooks = SAHooks()
    SASetupDefaultHooks(&hooks)
    HookFile.install(in: &hooks) { name, mode in
      guard let name, let mode else { return nil }
      return HookFile(path: name, mode: String(cString: mode))?.handle()
    }
    hooks.Error = { message in
      let text = message.map { String(cString: $0) } ?? "unknown error"
      ShapelibHooks.lastError.withLock { $0 = text }
    }
    return hooks
  }

  /// Hooks for writing: files opened by name are looked up in the mapping made by `map`;
  /// removing a file is a no-op.
  static func writing() -> SAHooks {
    var hooks = reading()
    HookFile.install(in: &hooks) { name, mode in
      guard let name, let mode else { return nil }
      let key = String(cString: name)
      guard let path = ShapelibHooks.mapped.withLock({ $0[key] }) else { return nil }
      return HookFile(path: path, mode: String(cString: mode))?.handle()
    }
    hooks.Remove = { _ in 0 }
    return hooks
  }

  /// A new unique base name for shapelib to create files under; `files` maps each extension
  /// (`shp`, `shx`, `dbf`) to the real path written.
  static func map(_ files: [String: String]) -> String {
    let base = "/geopipe-shapefile-\(counter.wrappingAdd(1, ordering: .relaxed).newValue)"
    mapped.withLock { table in
      for (ext, path) in files { table["\(base).\(ext)"] = path }
    }
    return base
  }

  /// Forgets a base name made by `map`.
  static func unmap(_ base: String) {
    mapped.withLock { table in
      for key in table.keys where key.hasPrefix(base + ".") { table[key] = nil }
    }
  }

  /// Takes the last error shapelib reported, if any.
  static func takeError() -> String? {
    lastError.withLock { error in
      defer { error = nil }
      return error
    }
  }
}
