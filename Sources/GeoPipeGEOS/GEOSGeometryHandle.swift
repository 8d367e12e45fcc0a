internal import CGEOS

/// A GEOS geometry that Swift owns: destroyed in deinit unless its ownership was passed on.
final class GEOSGeometryHandle {
  let context: GEOSContext
  private var owned: OpaquePointer?

  /// Takes ownership of `pointer`, which `context` created.
  init(_ pointer: OpaquePointer, context: GEOSContext) {
    owned = pointer
    self.context = context
  }

  deinit {
    if let owned { GEOSGeom_destroy_r(context.handle, owned) }
  }

  /// The geometry, still owned by this handle.
  var pointer: OpaquePointer {
    guard let owned else { preconditionFailure("GEOS geometry used after its ownership passed on") }
    return owned
  }

  /// Gives up ownership: the caller hands the pointer to a GEOS call that takes it.
  func release() -> OpaquePointer {
    let pointer = self.pointer
    owned = nil
    return pointer
  }
}
