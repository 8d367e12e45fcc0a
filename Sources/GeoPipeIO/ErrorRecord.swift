import GeoPipeCore

/// The line a geopipe stage writes at the end of its output when it fails, so that the next
/// geopipe stage in a shell pipe fails too instead of committing a truncated file.
///
/// It is deliberately not JSON (`!geopipe-error {"status":65,"message":"..."}`), so other
/// GeoJSON tools reject it as malformed rather than silently accept a truncated stream.
public enum ErrorRecord {
  /// The bytes that start a record.
  public static let prefix: [UInt8] = Array("!geopipe-error ".utf8)

  /// The record for an error, ending with a newline.
  public static func encode(_ error: GeoPipeError) -> [UInt8] {
    var writer = JSONTextWriter()
    writer.bytes.append(contentsOf: prefix)
    writer.bytes.append(contentsOf: "{\"status\":".utf8)
    writer.writeInteger(Int64(error.status.rawValue))
    writer.bytes.append(contentsOf: ",\"message\":".utf8)
    writer.writeString(error.description)
    writer.bytes.append(contentsOf: "}\n".utf8)
    return writer.bytes
  }

  /// The error a reader raises on meeting a record.
  static func upstreamError(status: Int64?, at location: SourceLocation) -> GeoPipeError {
    let exit = status.flatMap { ExitStatus(rawValue: Int32(truncatingIfNeeded: $0)) } ?? .dataError
    // The stage that failed has already printed its message; say only where the input ended.
    return GeoPipeError(
      "\(location.file): the input ends with an error from an earlier geopipe stage "
        + "(exit status \(exit.rawValue))", status: exit)
  }
}
