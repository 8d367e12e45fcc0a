internal import CGEOS
import GeoPipeCore

/// One GEOS context (`GEOS_init_r`): the handle every reentrant GEOS call runs in.
///
/// A context is not thread-safe: create one per thread or worker and keep it for the worker's
/// lifetime (creating one is cheap, but not free). Errors that GEOS reports through its message
/// handler are captured and thrown as ``GEOSError`` with GEOS's own text. No GEOS type appears in
/// this module's public API: geometries go in and come out as GeoPipeCore ``Geometry`` values,
/// copied in bulk (`GEOSCoordSeq_copyFromBuffer_r` / `GEOSCoordSeq_copyToBuffer_r`).
public final class GEOSContext {
  let handle: OpaquePointer
  private let messages: MessageBox

  /// Creates a context with an error handler that records GEOS's messages.
  public init() throws {
    guard let handle = GEOS_init_r() else { throw GEOSError.contextUnavailable }
    self.handle = handle
    messages = MessageBox()
    // The box lives as long as the context, which is destroyed first in deinit.
    let box = Unmanaged.passUnretained(messages).toOpaque()
    _ = GEOSContext_setErrorMessageHandler_r(
      handle,
      { message, userData in
        guard let message, let userData else { return }
        Unmanaged<MessageBox>.fromOpaque(userData).takeUnretainedValue().last =
          String(cString: message)
      }, box)
    _ = GEOSContext_setNoticeMessageHandler_r(handle, { _, _ in }, nil)
  }

  deinit {
    GEOS_finish_r(handle)
  }

  /// The GEOS library version (`GEOSversion`), such as `3.11.1-CAPI-1.17.1`.
  public static var version: String { String(cString: GEOSversion()) }

  /// An error for a failed call, carrying the last message GEOS reported.
  func failure(_ operation: String) -> GEOSError {
    let message = messages.last
    messages.last = ""
    return .operationFailed(operation: operation, message: message)
  }

  /// Clears a stale message before a call whose failure is reported by its return value.
  func clearMessage() {
    messages.last = ""
  }
}

/// Holds the last error message GEOS reported in one context.
private final class MessageBox {
  var last = ""
}
