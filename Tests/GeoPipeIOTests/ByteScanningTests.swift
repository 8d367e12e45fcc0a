import GeoPipeCore
import Testing

@testable import GeoPipeIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The word-at-a-time and sixteen-bytes-at-a-time scans against byte-by-byte versions.
@Suite struct ByteScanningTests {
  /// Random bytes drawn mostly from `alphabet`.
  private func randomBytes(_ count: Int, _ alphabet: [UInt8], _ g: inout SplitMix64) -> [UInt8] {
    (0..<count).map { _ in
      Int.random(in: 0..<10, using: &g) == 0
        ? UInt8.random(in: 0...255, using: &g) : alphabet.randomElement(using: &g) ?? 0
    }
  }

  @Test func structureMasksMatchTheBytes() {
    var g = SplitMix64(seed: 1)
    let alphabet = Array("ab\"\\{}[],:".utf8)
    for _ in 0..<2000 {
      let bytes = randomBytes(64, alphabet, &g)
      bytes.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else { return }
        let (quotes, brackets, backslashes) = ByteScanning.structure(base, 0)
        for k in 0..<64 {
          let bit = (UInt64(1) << UInt64(k))
          #expect((quotes & bit != 0) == (bytes[k] == 0x22))
          #expect((brackets & bit != 0) == [0x7B, 0x7D, 0x5B, 0x5D].contains(bytes[k]))
          #expect((backslashes & bit != 0) == (bytes[k] == 0x5C))
        }
      }
    }
  }

  @Test func escapedBytesFollowOddRunsOfBackslashes() {
    var g = SplitMix64(seed: 2)
    for _ in 0..<2000 {
      // Three blocks, so that runs of backslashes cross block edges.
      let bytes = randomBytes(192, Array("a\\\\\\\"".utf8), &g)
      var expected = [Bool](repeating: false, count: bytes.count)
      var k = 0
      while k < bytes.count {
        if bytes[k] == 0x5C && k + 1 < bytes.count {
          expected[k + 1] = true
          k += 2
        } else {
          k += 1
        }
      }
      var carry: UInt64 = 0
      for block in 0..<3 {
        var backslashes: UInt64 = 0
        for k in 0..<64 where bytes[64 * block + k] == 0x5C {
          backslashes |= 1 << UInt64(k)
        }
        let escaped = ByteScanning.escaped(backslashes, carry: &carry)
        for k in 0..<64 {
          #expect((escaped & (1 << UInt64(k)) != 0) == expected[64 * block + k])
        }
      }
    }
  }

  @Test func utf8ValidationAgreesWithTheStandardLibrary() {
    var g = SplitMix64(seed: 3)
    let alphabet: [UInt8] = [
      0x61, 0x7F, 0x80, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xA0, 0xED, 0x9F, 0xEF, 0xF0, 0x90, 0xF4,
      0x8F, 0xF5,
    ]
    var valid = 0
    for length in 0..<24 {
      for _ in 0..<3000 {
        let bytes = randomBytes(length, alphabet, &g)
        let expected = String(validating: bytes, as: UTF8.self) != nil
        if expected { valid += 1 }
        #expect(bytes.withUnsafeBufferPointer(ByteScanning.isValidUTF8) == expected, "\(bytes)")
      }
    }
    #expect(valid > 1000)
    for text in ["", "plain ascii text", "é", "東京", "🌍 earth", "ĳ\u{00a0}"] {
      #expect(Array(text.utf8).withUnsafeBufferPointer(ByteScanning.isValidUTF8))
    }
  }

  @Test func digitRunsAreCountedAndValued() {
    var g = SplitMix64(seed: 4)
    for _ in 0..<20000 {
      let bytes = randomBytes(8, Array("0123456789".utf8) + [0x2E, 0x2F, 0x3A, 0x65], &g)
      let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
      let allDigits = bytes.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
      let leading = bytes.prefix { $0 >= 0x30 && $0 <= 0x39 }.count
      #expect(ByteScanning.leadingDigitCount(word) == leading)
      if allDigits {
        let value = bytes.reduce(UInt64(0)) { $0 * 10 + UInt64($1 - 0x30) }
        #expect(ByteScanning.eightDigitsValue(word) == value)
      }
    }
  }

  @Test func keyCacheGivesEachKeysOwnText() {
    var g = SplitMix64(seed: 7)
    let cache = KeyCache()
    var keys: [[UInt8]] = []
    for _ in 0..<200 {
      keys.append(
        randomBytes(Int.random(in: 1...60, using: &g), Array("abc".utf8), &g).map { $0 & 0x7F })
    }
    for _ in 0..<20000 {
      var key = keys.randomElement(using: &g) ?? [0x61]
      // Near misses: the same length, one byte changed anywhere.
      if Bool.random(using: &g) { key[Int.random(in: 0..<key.count, using: &g)] = 0x7A }
      let text = key + [0x22]
      let (string, slot) = text.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else { return ("", nil as Int?) }
        return cache.key(base, 0..<key.count)
      }
      #expect(string == String(decoding: key, as: UTF8.self))
      #expect((slot == nil) == (key.count > 48))
    }
  }

  @Test func lineCountsMatchACountByBytes() {
    var g = SplitMix64(seed: 5)
    for _ in 0..<500 {
      let count = Int.random(in: 0..<700, using: &g)
      let bytes = randomBytes(count, Array("ab\n\n é".utf8), &g)
      let from = Int.random(in: 0...count, using: &g)
      let to = Int.random(in: from...count, using: &g)
      var line = 3
      var column = 4
      bytes.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else { return }
        InputBuffer.count(base, from: from, to: to, line: &line, column: &column)
      }
      var expectedLine = 3
      var expectedColumn = 4
      for byte in bytes[from..<to] {
        if byte == 0x0A {
          expectedLine += 1
          expectedColumn = 0
        } else if byte & 0xC0 != 0x80 {
          expectedColumn += 1
        }
      }
      #expect(line == expectedLine && column == expectedColumn)
    }
  }

  @Test func jsonNumbersMatchStrtodBitForBit() throws {
    var g = SplitMix64(seed: 6)
    var texts = [
      "0", "-0", "0.0", "-0.0", "0e0", "1e23", "9007199254740993", "18446744073709551616",
      "2.0000000000000002220446049250313080847263336181640625", "5e-324", "2.4703282292062328e-324",
      "1.7976931348623159e308", "1e-400", "0.0000000000000000000000000001234567890123456789",
      "12345678901234567890", "-122.41941550000001", "179.99999999999997", "4.35623e-5",
      "123456789012345678", "1234567890123456789", "99999999.99999999", "12345678.1234567812",
    ]
    for _ in 0..<20000 {
      let digits = String(UInt64.random(in: 0...UInt64.max, using: &g))
        .prefix(Int.random(in: 1...20, using: &g))
      let point = Int.random(in: 0...digits.count, using: &g)
      var text = Bool.random(using: &g) ? "-" : ""
      text += digits.hasPrefix("0") && point != 1 ? "7" + digits.dropFirst() : String(digits)
      if point < digits.count && point > 0 {
        text.insert(".", at: text.index(text.endIndex, offsetBy: point - digits.count))
      }
      if Int.random(in: 0..<4, using: &g) == 0 {
        text += "e\(Int.random(in: -330...310, using: &g))"
      }
      texts.append(text)
    }
    for text in texts {
      let bytes = Array((text + ",").utf8)
      let expected = text.withCString { strtod($0, nil) }
      try bytes.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else { return }
        var scanner = JSONScanner(base: base, end: buffer.count, isFinal: true, at: 0)
        let value = try scanner.parseDouble().value
        #expect(value.bitPattern == expected.bitPattern, "\(text)")
        #expect(scanner.i == bytes.count - 1)
        scanner.i = 0
        switch try scanner.parseNumberValue() {
        case .double(let double): #expect(double.bitPattern == expected.bitPattern, "\(text)")
        case .integer(let integer): #expect(Double(integer) == expected, "\(text)")
        case .bigInteger(let spelled), .bigNumber(let spelled): #expect(spelled == text)
        default: Issue.record("\(text) is not a number")
        }
      }
    }
  }
}
