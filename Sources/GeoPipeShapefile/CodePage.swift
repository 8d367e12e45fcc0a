#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The character set of a dBASE table's text, turned into Swift strings through iconv.
public final class CodePage {
  /// The name iconv knows it by (`UTF-8`, `CP1252`, `ISO-8859-1`), or `UTF-8 or ISO-8859-1`
  /// when the table does not say.
  public let name: String
  private let kind: Kind
  private var converter: iconv_t?
  private var output: [UInt8] = []

  private enum Kind {
    case utf8
    case latin1
    /// Unknown: UTF-8 when the bytes are valid UTF-8, else ISO-8859-1.
    case automatic
    case iconv
  }

  private init(name: String, kind: Kind, converter: iconv_t? = nil) {
    self.name = name
    self.kind = kind
    self.converter = converter
  }

  deinit {
    if let converter { iconv_close(converter) }
  }

  /// UTF-8.
  public static var utf8: CodePage { CodePage(name: "UTF-8", kind: .utf8) }

  /// No code page declared: UTF-8 where the bytes are UTF-8, else ISO-8859-1.
  public static var automatic: CodePage { CodePage(name: "UTF-8 or ISO-8859-1", kind: .automatic) }

  /// The code page iconv calls `name`, or nil when iconv does not know it.
  public static func named(_ name: String) -> CodePage? {
    let upper = name.uppercased()
    if upper == "UTF-8" || upper == "UTF8" { return .utf8 }
    if upper == "ISO-8859-1" || upper == "LATIN1" {
      return CodePage(name: "ISO-8859-1", kind: .latin1)
    }
    let converter = iconv_open("UTF-8", name)
    guard let converter, converter != iconv_t(bitPattern: -1) else { return nil }
    return CodePage(name: name, kind: .iconv, converter: converter)
  }

  /// The iconv name of what a `.cpg` file says (GDAL's reading: `1252` is CP1252, `88591`
  /// ISO-8859-1, `8859-5` ISO-8859-5, `65001` UTF-8, other text as iconv knows it).
  public static func cpgName(_ text: String) -> String {
    let trimmed = text.trimmingCharacters { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }
    let upper = trimmed.uppercased()
    if upper.hasPrefix("8859") {
      let rest = upper.dropFirst(4)
      return "ISO-8859-" + (rest.hasPrefix("-") ? rest.dropFirst() : rest)
    }
    let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
    if let n = Int(digits), n != 0 {
      return n == 65001 ? "UTF-8" : "CP\(n)"
    }
    if upper.hasPrefix("ANSI "), let n = Int(upper.dropFirst(5)) { return "CP\(n)" }
    if upper.hasPrefix("UTF-8") || upper == "UTF8" { return "UTF-8" }
    return trimmed
  }

  /// The iconv name of a dBASE language driver id (header byte 29), as GDAL maps them; nil for
  /// 0 and ids GDAL does not know.
  public static func ldidName(_ id: Int) -> String? {
    if id == 87 { return "ISO-8859-1" }
    let pages: [Int: Int] = [
      1: 437, 2: 850, 3: 1252, 4: 10000, 8: 865, 10: 850, 11: 437, 13: 437, 14: 850, 15: 437,
      16: 850, 17: 437, 18: 850, 19: 932, 20: 850, 21: 437, 22: 850, 23: 865, 24: 437, 25: 437,
      26: 850, 27: 437, 28: 863, 29: 850, 31: 852, 34: 852, 35: 852, 36: 860, 37: 850, 38: 866,
      55: 850, 64: 852, 77: 936, 78: 949, 79: 950, 80: 874, 88: 1252, 89: 1252, 100: 852,
      101: 866, 102: 865, 103: 861, 104: 895, 105: 620, 106: 737, 107: 857, 108: 863, 120: 950,
      121: 949, 122: 936, 123: 932, 124: 874, 134: 737, 135: 852, 136: 857, 150: 10007,
      151: 10029, 200: 1250, 201: 1251, 202: 1254, 203: 1253, 204: 1257,
    ]
    return pages[id].map { "CP\($0)" }
  }

  /// A code page of the same name with a converter of its own, for another thread.
  public func copy() -> CodePage {
    guard kind == .iconv else { return CodePage(name: name, kind: kind) }
    return CodePage.named(name) ?? CodePage(name: name, kind: kind)
  }

  /// Decodes text in this code page.
  public func decode(_ bytes: UnsafeRawBufferPointer) -> String {
    if kind == .utf8 || bytes.allSatisfy({ $0 < 0x80 }) {
      return String(decoding: bytes, as: UTF8.self)
    }
    switch kind {
    case .utf8: return String(decoding: bytes, as: UTF8.self)
    case .automatic:
      if let text = String(validating: bytes, as: UTF8.self) { return text }
      return latin1(bytes)
    case .latin1: return latin1(bytes)
    case .iconv: return convert(bytes)
    }
  }

  private func latin1(_ bytes: UnsafeRawBufferPointer) -> String {
    var scalars = String.UnicodeScalarView()
    for byte in bytes { scalars.append(UnicodeScalar(byte)) }
    return String(scalars)
  }

  private func convert(_ bytes: UnsafeRawBufferPointer) -> String {
    guard let converter else { return String(decoding: bytes, as: UTF8.self) }
    // Four bytes of UTF-8 per input byte are always enough.
    let capacity = bytes.count * 4 + 4
    if output.count < capacity { output = [UInt8](repeating: 0, count: capacity) }
    iconv(converter, nil, nil, nil, nil)
    var inputLeft = bytes.count
    var outputLeft = capacity
    let produced = output.withUnsafeMutableBytes { out -> Int in
      var input = UnsafeMutablePointer(
        mutating: bytes.baseAddress?.assumingMemoryBound(to: CChar.self))
      var next = out.baseAddress?.assumingMemoryBound(to: CChar.self)
      while inputLeft > 0 {
        if iconv(converter, &input, &inputLeft, &next, &outputLeft) == -1 {
          // A byte the code page does not define: U+FFFD, and go on.
          guard errno == EILSEQ || errno == EINVAL, outputLeft >= 3, let at = next else { break }
          at[0] = CChar(bitPattern: 0xEF)
          at[1] = CChar(bitPattern: 0xBF)
          at[2] = CChar(bitPattern: 0xBD)
          next = at + 3
          outputLeft -= 3
          input = input.map { $0 + 1 }
          inputLeft -= 1
        }
      }
      return capacity - outputLeft
    }
    return String(decoding: output[0..<produced], as: UTF8.self)
  }
}

extension String {
  fileprivate func trimmingCharacters(_ isTrimmed: (Character) -> Bool) -> String {
    var text = Substring(self)
    while let first = text.first, isTrimmed(first) { text = text.dropFirst() }
    while let last = text.last, isTrimmed(last) { text = text.dropLast() }
    return String(text)
  }
}
