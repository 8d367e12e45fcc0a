import GeoPipeCore
import GeoPipeIO

/// GeoPackage geometry BLOBs (GeoPackage 1.4 §2.1.3, "GeoPackageBinary"): the `GP` header
/// (magic, version, flags, srs_id, envelope) followed by ISO WKB.
public enum GeoPackageBlob {
  /// Why a BLOB cannot be read, with the byte offset in it.
  public struct Failure: Error, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// 0-based byte offset in the BLOB.
    public var offset: Int

    /// The message with its offset.
    public var description: String { "\(message) (byte \(offset) of the geometry BLOB)" }
  }

  /// A decoded BLOB.
  public struct Decoded {
    /// The geometry; nil for an empty one (the header's empty flag, an empty point, or a
    /// geometry without positions).
    public var geometry: Geometry?
    /// The srs_id in the header.
    public var srsID: Int32
  }

  /// The bytes each envelope type (flags bits 1–3) takes: none, xy, xyz, xym, xyzm.
  static let envelopeSizes = [0, 32, 48, 48, 64]

  /// Decodes a BLOB: checks the header against the bytes available, then reads the WKB after
  /// it (any byte order, 2D, Z, M or ZM).
  public static func decode(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> Decoded {
    guard bytes.count >= 8 else {
      throw Failure(message: "\(bytes.count) bytes are too few for a GeoPackage header", offset: 0)
    }
    guard bytes[0] == 0x47, bytes[1] == 0x50 else {
      throw Failure(
        message: "the magic is 0x\(hex(bytes[0]))\(hex(bytes[1])), not 'GP'", offset: 0)
    }
    guard bytes[2] == 0 else {
      throw Failure(message: "version \(bytes[2]) is not 0 (GeoPackage 1.x)", offset: 2)
    }
    let flags = bytes[3]
    guard flags & 0xC0 == 0 else {
      throw Failure(message: "the reserved flag bits are set (flags 0x\(hex(flags)))", offset: 3)
    }
    guard flags & 0x20 == 0 else {
      throw Failure(
        message: "an extended geometry type (GeoPackage extension) is not supported", offset: 3)
    }
    let empty = flags & 0x10 != 0
    let envelopeType = Int((flags >> 1) & 0x07)
    guard envelopeType < envelopeSizes.count else {
      throw Failure(message: "envelope type \(envelopeType) is not 0 to 4", offset: 3)
    }
    let littleEndian = flags & 0x01 != 0
    let raw = bytes.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
    let srsID = Int32(bitPattern: littleEndian ? UInt32(littleEndian: raw) : UInt32(bigEndian: raw))
    let start = 8 + envelopeSizes[envelopeType]
    guard bytes.count >= start else {
      throw Failure(
        message: "the envelope (type \(envelopeType), \(envelopeSizes[envelopeType]) bytes) "
          + "does not fit in the \(bytes.count) bytes of the BLOB", offset: 8)
    }
    if empty { return Decoded(geometry: nil, srsID: srsID) }
    let wkb = UnsafeRawBufferPointer(rebasing: bytes[start...])
    do {
      let geometry = try WKBReader.parse(wkb).geometry
      // A geometry without positions (an empty collection) is none, as for the empty flag.
      return Decoded(geometry: geometry?.bbox == nil ? nil : geometry, srsID: srsID)
    } catch {
      throw Failure(message: "bad WKB: \(error.message)", offset: start + error.offset)
    }
  }

  /// Appends the BLOB of `geometry` to `out`: little-endian header, srs_id, an envelope (xy,
  /// or xyz when the geometry has altitudes) for all but points, and little-endian ISO WKB; a
  /// geometry without positions has the empty flag and no envelope.
  ///
  /// Returns the geometry's xy envelope, nil for an empty one.
  @discardableResult
  public static func append(_ geometry: Geometry, srsID: Int32, to out: inout [UInt8]) -> BBox? {
    out.append(0x47)
    out.append(0x50)
    out.append(0)
    guard let box = geometry.bbox else {
      out.append(0x10 | 0x01)
      int32(srsID, &out)
      WKBWriter.append(geometry, to: &out)
      return nil
    }
    if case .point = geometry {
      out.append(0x01)
      int32(srsID, &out)
    } else {
      var low = Double.infinity
      var high = -Double.infinity
      geometry.forEachZ { z in
        low = min(low, z)
        high = max(high, z)
      }
      let hasZ = low <= high
      out.append((hasZ ? 2 << 1 : 1 << 1) | 0x01)
      int32(srsID, &out)
      for value in [box.west, box.east, box.south, box.north] { double(value, &out) }
      if hasZ {
        double(low, &out)
        double(high, &out)
      }
    }
    WKBWriter.append(geometry, to: &out)
    return box
  }

  private static func int32(_ value: Int32, _ out: inout [UInt8]) {
    withUnsafeBytes(of: value.littleEndian) { out.appendBytes($0) }
  }

  private static func double(_ value: Double, _ out: inout [UInt8]) {
    withUnsafeBytes(of: value.bitPattern.littleEndian) { out.appendBytes($0) }
  }

  private static func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
  }
}
