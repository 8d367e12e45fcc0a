/// PostgreSQL's binary COPY format.
///
/// An 11-byte signature, 32-bit flags and a 32-bit header
/// extension length; then tuples, each a 16-bit field count and per field a 32-bit length
/// (-1 for NULL) and the value in its type's binary send format; then a 16-bit -1.
/// All integers are big-endian.
enum CopyBinary {
  /// The header, with no flags and no extension.
  static let header: [UInt8] =
    Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00]
    + [UInt8](
      repeating: 0, count: 8)
  /// The trailer.
  static let trailer: [UInt8] = [0xFF, 0xFF]
  /// The version byte that starts a jsonb value.
  static let jsonbVersion: UInt8 = 1

  static func append<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
    withUnsafeBytes(of: value.bigEndian) { out.append(contentsOf: $0) }
  }

  /// A big-endian integer at `offset`.
  static func load<T: FixedWidthInteger>(_: T.Type, _ bytes: UnsafeRawBufferPointer, at offset: Int)
    -> T
  {
    T(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
  }
}
