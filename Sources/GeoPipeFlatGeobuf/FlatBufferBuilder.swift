/// Writes FlatBuffers front to back: a table first, then what its offsets point at.
///
/// Positions are counted from the start of `bytes`, which is where the size prefix of the
/// finished buffer goes, and values are aligned to their size from there, as FlatBuffers'
/// own builder aligns a size-prefixed buffer. Offsets to strings, vectors and subtables point
/// forward, as FlatBuffers' verifier requires, and each vtable sits just before its table.
struct FlatBufferBuilder {
  var bytes: [UInt8] = []
  /// The positions of the fields of the table written last, in the order given.
  var fieldPositions: [Int] = []

  /// A field of a table being written: its vtable slot and its width in bytes (1, 2, 4 or 8;
  /// 4 for an offset).
  struct Field {
    var slot: Int
    var width: Int
  }

  var position: Int { bytes.count }

  mutating func reset() { bytes.removeAll(keepingCapacity: true) }

  /// Pads with zeros until `position + extra` is a multiple of `alignment`.
  mutating func align(_ alignment: Int, extra: Int = 0) {
    while (bytes.count + extra) % alignment != 0 { bytes.append(0) }
  }

  mutating func append8(_ value: UInt8) { bytes.append(value) }

  mutating func append16(_ value: UInt16) {
    bytes.append(UInt8(truncatingIfNeeded: value))
    bytes.append(UInt8(truncatingIfNeeded: value >> 8))
  }

  mutating func append32(_ value: UInt32) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }

  mutating func append64(_ value: UInt64) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }

  mutating func set16(_ value: UInt16, at position: Int) {
    bytes[position] = UInt8(truncatingIfNeeded: value)
    bytes[position + 1] = UInt8(truncatingIfNeeded: value >> 8)
  }

  mutating func set32(_ value: UInt32, at position: Int) {
    for k in 0..<4 { bytes[position + k] = UInt8(truncatingIfNeeded: value >> (8 * k)) }
  }

  mutating func set64(_ value: UInt64, at position: Int) {
    for k in 0..<8 { bytes[position + k] = UInt8(truncatingIfNeeded: value >> (8 * k)) }
  }

  /// Writes a vtable and a zeroed table holding `fields`; returns the table's position.
  ///
  /// Widest fields first keep padding small. Each field's position, for the caller to fill, is
  /// in `fieldPositions` until the next table is written.
  mutating func table(_ fields: [Field]) -> Int {
    var slots = 0
    var alignment = 4
    for field in fields {
      slots = max(slots, field.slot + 1)
      if field.width == 8 { alignment = 8 }
    }
    let vtableSize = 4 + 2 * slots
    // The table starts aligned, right after its vtable.
    align(alignment, extra: vtableSize)
    let vtable = position
    bytes.append(contentsOf: repeatElement(0, count: vtableSize))
    let table = position
    append32(UInt32(vtableSize))  // soffset: the vtable is this far before the table
    fieldPositions.removeAll(keepingCapacity: true)
    for field in fields {
      align(field.width)
      fieldPositions.append(position)
      set16(UInt16(position - table), at: vtable + 4 + 2 * field.slot)
      bytes.append(contentsOf: repeatElement(0, count: field.width))
    }
    set16(UInt16(vtableSize), at: vtable)
    set16(UInt16(position - table), at: vtable + 2)
    return table
  }

  /// Points the offset field at `field` to `target` (which is after it).
  mutating func link(_ field: Int, to target: Int) {
    set32(UInt32(target - field), at: field)
  }

  /// Writes a string (length, UTF-8 bytes, a terminating NUL); returns its position.
  mutating func string(_ text: String) -> Int {
    align(4)
    let start = position
    var text = text
    text.withUTF8 { utf8 in
      append32(UInt32(utf8.count))
      bytes.append(contentsOf: utf8)
    }
    bytes.append(0)
    return start
  }

  /// Writes a vector of bytes; returns its position.
  mutating func vector(bytes content: some Collection<UInt8>) -> Int {
    align(4)
    let start = position
    append32(UInt32(content.count))
    bytes.append(contentsOf: content)
    return start
  }

  /// Writes a vector of doubles (its elements 8-aligned); returns its position.
  mutating func vector(doubles values: [Double]) -> Int {
    let start = beginVector(doubles: values.count)
    for value in values { append64(value.bitPattern) }
    return start
  }

  /// Starts a vector of `count` doubles (its elements 8-aligned), which the caller appends;
  /// returns its position.
  mutating func beginVector(doubles count: Int) -> Int {
    align(8, extra: 4)
    let start = position
    append32(UInt32(count))
    bytes.reserveCapacity(bytes.count + 8 * count)
    return start
  }

  /// Writes a vector of 32-bit unsigned integers; returns its position.
  mutating func vector(uint32s values: [UInt32]) -> Int {
    align(4)
    let start = position
    append32(UInt32(values.count))
    for value in values { append32(value) }
    return start
  }

  /// Writes a vector of `count` offsets, to be linked later; returns its position.
  mutating func offsetVector(count: Int) -> Int {
    align(4)
    let start = position
    append32(UInt32(count))
    bytes.append(contentsOf: repeatElement(0, count: 4 * count))
    return start
  }
}
