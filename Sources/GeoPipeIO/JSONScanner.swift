import GeoPipeCore

/// Thrown when a record runs past the end of the window and more input may follow.
struct NeedMoreInput: Error {}

/// A syntax or structure error at a byte index in the window.
struct ScanError: Error {
  var message: String
  var index: Int
  /// True when the JSON itself was well formed up to here, so the value can be skipped.
  var isStructural: Bool
  /// What kind of problem it is.
  var problem: InputProblem

  init(_ message: String, at index: Int, structural: Bool = false, problem: InputProblem? = nil) {
    self.message = message
    self.index = index
    isStructural = structural
    self.problem = problem ?? (structural ? .structure : .syntax)
  }
}

/// A byte-level JSON scanner over one window of input (RFC 8259).
///
/// It allocates nothing for punctuation, keys it recognises or numbers, and reports errors
/// by byte index so the caller can turn them into lines and columns.
struct JSONScanner {
  let base: UnsafePointer<UInt8>
  let end: Int
  /// True when no bytes follow `end`: running out is then an error, not a reason to refill.
  let isFinal: Bool
  var i: Int
  let maxDepth: Int
  let keys: KeyCache?

  init(
    base: UnsafePointer<UInt8>, end: Int, isFinal: Bool, at index: Int, maxDepth: Int = 512,
    keys: KeyCache? = nil
  ) {
    self.base = base
    self.end = end
    self.isFinal = isFinal
    i = index
    self.maxDepth = maxDepth
    self.keys = keys
  }

  // MARK: Tokens

  /// The error to throw on running out of bytes.
  func ranOut() -> Error {
    isFinal ? ScanError("unexpected end of input", at: end) : NeedMoreInput()
  }

  @inline(__always)
  mutating func skipWhitespace() {
    while i < end {
      let c = base[i]
      guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
      i += 1
    }
  }

  /// Skips whitespace and RS characters (the separators of RFC 8142 sequences).
  @inline(__always)
  mutating func skipSeparators() {
    while i < end {
      let c = base[i]
      guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 || c == 0x1E else { return }
      i += 1
    }
  }

  /// The next non-whitespace byte, not consumed.
  @inline(__always)
  mutating func peek() throws -> UInt8 {
    skipWhitespace()
    guard i < end else { throw ranOut() }
    return base[i]
  }

  /// Consumes `byte` after optional whitespace, or throws naming what was expected.
  @inline(__always)
  mutating func expect(_ byte: UInt8, _ expected: @autoclosure () -> String) throws {
    let c = try peek()
    guard c == byte else { throw unexpected(expected()) }
    i += 1
  }

  /// An error saying what was found at the current index instead of `expected`.
  func unexpected(_ expected: String) -> ScanError {
    ScanError("expected \(expected), found \(describeByte(at: i))", at: i)
  }

  func describeByte(at index: Int) -> String {
    guard index < end else { return "end of input" }
    let c = base[index]
    switch c {
    case 0x21...0x7E: return "'\(Character(Unicode.Scalar(c)))'"
    case 0x1E: return "a record separator (RS)"
    case 0x00: return "a NUL byte"
    default: return c < 0x80 ? "byte 0x\(String(c, radix: 16, uppercase: true))" : "non-ASCII text"
    }
  }

  // MARK: Values

  /// Parses any JSON value.
  mutating func parseValue(depth: Int = 0) throws -> JSONValue {
    let c = try peek()
    switch c {
    case 0x22: return .string(try parseString())
    case 0x7B: return .object(try parseObject(depth: depth + 1))
    case 0x5B: return .array(try parseArray(depth: depth + 1))
    case 0x74: try literal("true"); return .bool(true)
    case 0x66: try literal("false"); return .bool(false)
    case 0x6E: try literal("null"); return .null
    case 0x2D, 0x30...0x39: return try parseNumberValue()
    default: throw unexpected("a JSON value")
    }
  }

  /// Parses an object, rejecting duplicate keys.
  mutating func parseObject(depth: Int) throws -> JSONObject {
    guard depth <= maxDepth else {
      throw ScanError("nesting deeper than \(maxDepth) levels", at: i)
    }
    try expect(0x7B, "'{'")
    // The members are gathered in a local array: growing it here is cheaper than through
    // JSONObject's methods.
    var members: [JSONMember] = []
    if try peek() == 0x7D {
      i += 1
      return JSONObject(members: members)
    }
    members.reserveCapacity(8)
    // Equal keys have the same cache slot, so while every key is cached, one whose slot (modulo
    // 64) is new cannot repeat an earlier one and need not be compared with them.
    var slotsSeen: UInt64 = 0
    var allCached = keys != nil
    var duplicates = DuplicateKeyFinder()
    while true {
      guard try peek() == 0x22 else { throw unexpected("a string key") }
      let keyIndex = i
      var key = ""
      var slot: Int?
      if let raw = try scanString(decoded: &key) {
        if let keys {
          (key, slot) = keys.key(base, raw)
        } else {
          key = String(
            decoding: UnsafeBufferPointer(start: base + raw.lowerBound, count: raw.count),
            as: UTF8.self)
        }
      }
      try expect(0x3A, "':' after an object key")
      let value = try parseValue(depth: depth)
      let bit: UInt64 = slot.map { 1 << UInt64($0 & 63) } ?? 0
      try duplicates.check(
        key, among: members, at: keyIndex,
        mayRepeat: !allCached || bit == 0 || slotsSeen & bit != 0)
      allCached = allCached && bit != 0
      slotsSeen |= bit
      members.append(JSONMember(key, value))
      let c = try peek()
      i += 1
      if c == 0x7D { return JSONObject(members: members) }
      guard c == 0x2C else {
        i -= 1
        throw unexpected("',' or '}' after an object member")
      }
    }
  }

  /// Parses an array.
  mutating func parseArray(depth: Int) throws -> [JSONValue] {
    guard depth <= maxDepth else {
      throw ScanError("nesting deeper than \(maxDepth) levels", at: i)
    }
    try expect(0x5B, "'['")
    var array: [JSONValue] = []
    if try peek() == 0x5D {
      i += 1
      return array
    }
    while true {
      array.append(try parseValue(depth: depth))
      let c = try peek()
      i += 1
      if c == 0x5D { return array }
      guard c == 0x2C else {
        i -= 1
        throw unexpected("',' or ']' after an array element")
      }
    }
  }

  /// Skips one value, checking its syntax only (used to step over a rejected feature).
  mutating func skipValue(depth: Int = 0) throws {
    guard depth <= maxDepth else {
      throw ScanError("nesting deeper than \(maxDepth) levels", at: i)
    }
    let c = try peek()
    switch c {
    case 0x22:
      var ignored = ""
      _ = try scanString(decoded: &ignored)
    case 0x7B, 0x5B:
      let close: UInt8 = c == 0x7B ? 0x7D : 0x5D
      i += 1
      if try peek() == close {
        i += 1
        return
      }
      while true {
        if c == 0x7B {
          guard try peek() == 0x22 else { throw unexpected("a string key") }
          var ignored = ""
          _ = try scanString(decoded: &ignored)
          try expect(0x3A, "':' after an object key")
        }
        try skipValue(depth: depth + 1)
        let next = try peek()
        i += 1
        if next == close { return }
        guard next == 0x2C else {
          i -= 1
          throw unexpected(
            c == 0x7B ? "',' or '}' after an object member" : "',' or ']' after an array element")
        }
      }
    case 0x74: try literal("true")
    case 0x66: try literal("false")
    case 0x6E: try literal("null")
    case 0x2D, 0x30...0x39: _ = try scanNumber()
    default: throw unexpected("a JSON value")
    }
  }

  private mutating func literal(_ word: StaticString) throws {
    let count = word.utf8CodeUnitCount
    let bytes = word.utf8Start
    for k in 0..<count {
      guard i + k < end else { throw ranOut() }
      guard base[i + k] == bytes[k] else {
        throw ScanError("invalid literal: expected '\(word)'", at: i)
      }
    }
    i += count
  }

  /// Whether the bytes at `range` spell `word` exactly.
  @inline(__always)
  func matches(_ range: Range<Int>, _ word: StaticString) -> Bool {
    let count = word.utf8CodeUnitCount
    guard range.count == count else { return false }
    let bytes = word.utf8Start
    for k in 0..<count where base[range.lowerBound + k] != bytes[k] { return false }
    return true
  }
}

/// Finds a key that repeats an earlier one in the same object: by comparing while the object
/// is small, through a set of its keys once it is large, so that an object with many keys
/// costs linear time rather than quadratic.
struct DuplicateKeyFinder {
  /// Objects with more members than this keep a set of their keys.
  private static let largeObject = 16
  private var keys: Set<String>?

  /// Throws when `key`, about to follow `members`, repeats one of their keys; `mayRepeat`
  /// false says that the caller knows it cannot (comparisons can then be skipped).
  mutating func check(
    _ key: String, among members: [JSONMember], at index: Int, mayRepeat: Bool = true
  ) throws {
    if keys == nil && members.count >= Self.largeObject {
      keys = Set(members.map(\.key))
    }
    let repeated: Bool
    if keys != nil {
      repeated = keys?.insert(key).inserted == false
    } else {
      repeated = mayRepeat && members.contains { $0.key == key }
    }
    if repeated {
      throw ScanError("duplicate key \"\(key)\" in an object", at: index, structural: true)
    }
  }
}
