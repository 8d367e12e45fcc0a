import GeoPipeCore
import GeoPipeShapefile

/// libFuzzer entry point: a table layout and records made from the bytes go through the dBASE
/// record decoder, which must return properties or a `DBaseValueError`, never crash.
///
/// Byte 0 is the field count (up to 16) and the code page; then three bytes a field (type
/// letter, width, decimals); the rest is records.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDBase(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = UnsafeRawBufferPointer(start: data, count: size)
  guard let first = bytes.first else { return 0 }
  let count = Int(first & 0x0F)
  guard size >= 1 + 3 * count else { return 0 }
  var fields: [DBaseField] = []
  var offset = 1
  for k in 0..<count {
    let type = bytes[1 + 3 * k]
    let width = Int(bytes[2 + 3 * k])
    fields.append(
      DBaseField(
        name: "f\(k)", type: type, offset: offset, width: width,
        decimals: Int(bytes[3 + 3 * k])))
    offset += width
  }
  let codePage = first & 0x10 != 0 ? CodePage.named("CP1252") ?? .automatic : .automatic
  guard let decoder = DBaseRecordDecoder(fields: fields, recordLength: offset, codePage: codePage)
  else { return 0 }
  var p = 1 + 3 * count
  while p + offset <= size {
    let record = UnsafeRawBufferPointer(rebasing: bytes[p..<(p + offset)])
    if !DBaseRecordDecoder.isDeleted(record) {
      _ = try? decoder.decode(record)
    }
    p += offset
  }
  return 0
}
