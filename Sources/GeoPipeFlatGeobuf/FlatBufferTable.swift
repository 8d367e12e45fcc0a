/// A FlatBuffers decoding failure: what is wrong and at which byte of the buffer.
struct FlatBufferError: Error {
  var message: String
  /// 0-based offset in the buffer.
  var offset: Int

  init(_ message: String, at offset: Int) {
    self.message = message
    self.offset = offset
  }
}

/// A FlatBuffers buffer read with every offset and length checked against its bytes.
///
/// The buffer is what follows a size prefix: its first four bytes are the root table's offset
/// (FlatBuffers' `GetRoot`). Nothing is assumed about alignment: values are loaded unaligned.
struct FlatBuffer {
  let bytes: UnsafeRawBufferPointer

  var count: Int { bytes.count }

  /// The root table.
  func root() throws -> FlatTable {
    guard count >= 4 else {
      throw FlatBufferError("a buffer of \(count) bytes has no root", at: 0)
    }
    return try table(at: Int(u32(0)))
  }

  /// The table at `position`, its vtable checked.
  func table(at position: Int) throws -> FlatTable {
    guard position >= 0, position <= count - 4 else {
      throw FlatBufferError("table offset \(position) is outside the buffer", at: position)
    }
    let vtable = position - Int(i32(position))
    guard vtable >= 0, vtable <= count - 4 else {
      throw FlatBufferError("vtable offset \(vtable) is outside the buffer", at: position)
    }
    let vtableSize = Int(u16(vtable))
    let tableSize = Int(u16(vtable + 2))
    guard vtableSize >= 4, vtable + vtableSize <= count, tableSize >= 4,
      position + tableSize <= count
    else {
      throw FlatBufferError("a vtable's sizes run past the buffer", at: vtable)
    }
    return FlatTable(
      buffer: self, position: position, vtable: vtable, fieldSlots: (vtableSize - 4) / 2,
      size: tableSize)
  }

  /// The target of the offset stored at `position` (which must be inside the buffer).
  func target(ofOffsetAt position: Int) throws -> Int {
    let target = position + Int(u32(position))
    guard target <= count - 4 else {
      throw FlatBufferError("offset \(target) is outside the buffer", at: position)
    }
    return target
  }

  // Unchecked loads: callers have checked the range.
  func u8(_ at: Int) -> UInt8 { bytes[at] }
  func u16(_ at: Int) -> UInt16 {
    UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt16.self))
  }
  func u32(_ at: Int) -> UInt32 {
    UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self))
  }
  func i32(_ at: Int) -> Int32 {
    Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: Int32.self))
  }
  func u64(_ at: Int) -> UInt64 {
    UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self))
  }
  func f64(_ at: Int) -> Double { Double(bitPattern: u64(at)) }
}

/// A vector in a buffer: where its first element is and how many there are.
struct FlatVector {
  /// The offset of the first element.
  var start: Int
  var count: Int
}

/// A table in a `FlatBuffer`, its fields looked up through its vtable.
struct FlatTable {
  let buffer: FlatBuffer
  let position: Int
  let vtable: Int
  let fieldSlots: Int
  let size: Int

  /// Where field `slot`'s value is, checked to hold `width` bytes inside the table; nil when
  /// the field is absent (its default applies).
  func field(_ slot: Int, width: Int) throws -> Int? {
    guard slot < fieldSlots else { return nil }
    let offset = Int(buffer.u16(vtable + 4 + 2 * slot))
    if offset == 0 { return nil }
    guard offset + width <= size else {
      throw FlatBufferError("field \(slot) runs past its table", at: position)
    }
    return position + offset
  }

  func uint8(_ slot: Int, default value: UInt8 = 0) throws -> UInt8 {
    guard let at = try field(slot, width: 1) else { return value }
    return buffer.u8(at)
  }

  func bool(_ slot: Int, default value: Bool = false) throws -> Bool {
    guard let at = try field(slot, width: 1) else { return value }
    return buffer.u8(at) != 0
  }

  func uint16(_ slot: Int, default value: UInt16 = 0) throws -> UInt16 {
    guard let at = try field(slot, width: 2) else { return value }
    return buffer.u16(at)
  }

  func int32(_ slot: Int, default value: Int32 = 0) throws -> Int32 {
    guard let at = try field(slot, width: 4) else { return value }
    return buffer.i32(at)
  }

  func uint64(_ slot: Int, default value: UInt64 = 0) throws -> UInt64 {
    guard let at = try field(slot, width: 8) else { return value }
    return buffer.u64(at)
  }

  /// A vector of `elementSize`-byte elements, checked to lie inside the buffer.
  func vector(_ slot: Int, elementSize: Int) throws -> FlatVector? {
    guard let at = try field(slot, width: 4) else { return nil }
    let target = try buffer.target(ofOffsetAt: at)
    let count = Int(buffer.u32(target))
    guard count <= (buffer.count - target - 4) / elementSize else {
      throw FlatBufferError(
        "a vector of \(count) elements runs past the buffer", at: target)
    }
    return FlatVector(start: target + 4, count: count)
  }

  /// A string's bytes.
  func bytes(_ slot: Int) throws -> UnsafeRawBufferPointer? {
    guard let vector = try vector(slot, elementSize: 1) else { return nil }
    return UnsafeRawBufferPointer(
      rebasing: buffer.bytes[vector.start..<vector.start + vector.count])
  }

  /// A string, which must be UTF-8.
  func string(_ slot: Int) throws -> String? {
    guard let vector = try vector(slot, elementSize: 1) else { return nil }
    let bytes = UnsafeRawBufferPointer(
      rebasing: buffer.bytes[vector.start..<vector.start + vector.count])
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw FlatBufferError("a string is not valid UTF-8", at: vector.start)
    }
    return text
  }

  /// A subtable.
  func table(_ slot: Int) throws -> FlatTable? {
    guard let at = try field(slot, width: 4) else { return nil }
    return try buffer.table(at: buffer.target(ofOffsetAt: at))
  }

  /// The table at index `index` of a vector of tables.
  func table(in vector: FlatVector, at index: Int) throws -> FlatTable {
    try buffer.table(at: buffer.target(ofOffsetAt: vector.start + 4 * index))
  }
}
