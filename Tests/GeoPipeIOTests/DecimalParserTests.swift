import GeoPipeCore
import Testing

@testable import GeoPipeIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Parses `text` with the strict JSON-number parser.
private func parse(_ text: String) -> Double {
  Array(text.utf8).withUnsafeBufferPointer(parseDecimal)
}

/// Parses `text` with the lenient CSV/WKT parser.
private func parseLenient(_ text: String) -> Double? {
  Array(text.utf8).withUnsafeBufferPointer(parseDecimalLenient)
}

/// Returns the C library's reading of `text`, the reference for correct rounding.
private func reference(_ text: String) -> Double {
  text.withCString { strtod($0, nil) }
}

/// Compares both parsers with `strtod` on every text; returns the texts that differ.
private func mismatchesAgainstStrtod(_ texts: [String]) -> [String] {
  texts.filter { text in
    let expected = reference(text).bitPattern
    return parse(text).bitPattern != expected || parseLenient(text)?.bitPattern != expected
  }
}

/// Inputs where a naive parser typically rounds wrongly, loses a sign or over/underflows.
private let hardCases: [String] = [
  "0", "-0", "0.0", "-0.0", "0e0", "0E+0", "-0e-5", "0e99999999999999999999",
  "0.1", "0.2", "0.3", "1", "-1", "1.5", "123456789", "1e22", "1e23", "-1e-22", "8.5e-23",
  "9007199254740992", "9007199254740993", "9007199254740995", "9007199254740993.0000000001",
  "18446744073709551615", "18446744073709551616", "9999999999999999999", "10000000000000000000",
  "2.0000000000000002220446049250313080847263336181640625",
  "2.0000000000000002220446049250313080847263336181640626",
  "1.00000000000000011102230246251565404236316680908203125",
  "1.00000000000000011102230246251565404236316680908203124",
  "5e-324", "4.9406564584124654e-324", "2.4703282292062327e-324", "2.4703282292062328e-324",
  "3e-324", "7.4109846876186981e-324", "1e-323", "2.2250738585072009e-308",
  "2.2250738585072011e-308", "2.2250738585072012e-308", "2.2250738585072014e-308",
  "4.4501477170144023e-308", "1.7976931348623157e308", "1.7976931348623158e308",
  "1.7976931348623159e308", "-1.7976931348623159e308", "1e308", "1e309", "1e400", "1e-400",
  "1e-342", "1e-343", "9.999999999999999999e-343", "1e-99999999999999999999",
  "1e99999999999999999999", "-1e99999999999999999999",
  "0.000123", "0.0000000000000000000000000001234567890123456789",
  "0.00000000000000000000000000012345678901234567891", "1234567890123456789",
  "12345678901234567890", "1234567890123456789012345", "0.1000000000000000055511151231257827",
  "3.141592653589793238462643383279", "2.718281828459045235360287471352662497757",
  "-122.41941550000001", "51.5", "13.404954", "179.99999999999997", "-89.99999999999999",
  "7.2057594037927933e16", "1.448997445238699", "4.35623e-5", "1e-5", "1e-10", "1e-20",
  "9.109383701528e-31", "6.02214076e23", "1.23456789012345678e300",
]

/// Bit-exact agreement with `strtod`, rounding, overflow and input validation.
@Suite struct DecimalParserTests {
  @Test(arguments: hardCases)
  func matchesStrtodBitForBitOnHardCases(_ text: String) {
    #expect(parse(text).bitPattern == reference(text).bitPattern)
    #expect(parseLenient(text)?.bitPattern == reference(text).bitPattern)
  }

  @Test func parsesSimpleDecimalsToTheNearestDouble() {
    #expect(parse("0.1") == 0.1)
    #expect(parse("-122.41941550000001") == -122.41941550000001)
    #expect(parse("51.5") == 51.5)
    #expect(parse("1e23") == 1e23)
    #expect(parse("0.000123") == 0.000123)
  }

  @Test func roundsHalfwayToEven() {
    // 2^53 + 1 lies exactly between 2^53 and 2^53 + 2; the even significand wins.
    #expect(parse("9007199254740993") == 9_007_199_254_740_992)
    #expect(parse("9007199254740995") == 9_007_199_254_740_996)
    // 2 + 2^-52 is exactly halfway between 2 and its successor.
    #expect(parse("2.0000000000000002220446049250313080847263336181640625") == 2)
    #expect(parse("1.00000000000000011102230246251565404236316680908203125") == 1)
  }

  @Test func roundsUpJustAboveHalfway() {
    #expect(parse("9007199254740993.0000000001") == 9_007_199_254_740_994)
    #expect(
      parse("2.0000000000000002220446049250313080847263336181640626") == (2.0).nextUp)
  }

  @Test func parsesSubnormalsAndTheNormalBoundary() {
    #expect(parse("5e-324") == .leastNonzeroMagnitude)
    #expect(parse("4.9406564584124654e-324") == .leastNonzeroMagnitude)
    #expect(parse("2.4703282292062328e-324") == .leastNonzeroMagnitude)
    #expect(parse("2.2250738585072011e-308").bitPattern == 0x000F_FFFF_FFFF_FFFF)
    #expect(parse("2.2250738585072012e-308") == .leastNormalMagnitude)
  }

  @Test func overflowsToSignedInfinity() {
    #expect(parse("1.7976931348623157e308") == .greatestFiniteMagnitude)
    #expect(parse("1.7976931348623159e308") == .infinity)
    #expect(parse("-1.7976931348623159e308") == -.infinity)
    #expect(parse("1e400") == .infinity)
    #expect(parse("1e99999999999999999999") == .infinity)
    #expect(parse("-1e99999999999999999999") == -.infinity)
  }

  @Test func underflowsToSignedZero() {
    #expect(parse("2.4703282292062327e-324") == 0)
    #expect(parse("1e-400").bitPattern == (0.0).bitPattern)
    #expect(parse("-1e-400").bitPattern == (-0.0).bitPattern)
    #expect(parse("1e-99999999999999999999").bitPattern == (0.0).bitPattern)
  }

  @Test(arguments: [
    "-0", "-0.0", "-0e5", "-0.000000000000000000000000", "-0E-99999999999999999999",
  ])
  func keepsTheSignOfNegativeZero(_ text: String) {
    #expect(parse(text).bitPattern == (-0.0).bitPattern)
  }

  @Test(arguments: ["0e0", "0E+0", "0.0e-10", "0", "0.00000000000000000000000000000"])
  func parsesZeroWithAnyExponentAsPositiveZero(_ text: String) {
    #expect(parse(text).bitPattern == (0.0).bitPattern)
  }

  @Test func stopsAtTheEndOfTheBuffer() {
    // The bytes after the slice are digits; reading them would change the value.
    let bytes = Array("1234.5678e12".utf8)
    bytes.withUnsafeBufferPointer { buffer in
      #expect(parseDecimal(UnsafeBufferPointer(rebasing: buffer[0..<2])) == 12)
      #expect(parseDecimal(UnsafeBufferPointer(rebasing: buffer[0..<6])) == 1234.5)
      #expect(parseDecimal(UnsafeBufferPointer(rebasing: buffer[0..<11])) == 1234.5678e1)
      #expect(parseDecimalLenient(UnsafeBufferPointer(rebasing: buffer[0..<5])) == 1234)
    }
    #expect(parseDecimal(UnsafeBufferPointer(start: nil, count: 0)).isNaN)
    #expect(parseDecimalLenient(UnsafeBufferPointer(start: nil, count: 0)) == nil)
  }

  @Test(arguments: [
    (".5", 0.5), ("5.", 5), ("+1", 1), ("-.5e3", -500), ("1E5", 1e5), ("+0", 0), ("007", 7),
    ("+.25E-1", 0.025), ("-5.e2", -500),
  ])
  func lenientParserAcceptsCSVAndWKTForms(_ text: String, _ expected: Double) {
    #expect(parseLenient(text) == expected)
  }

  @Test(arguments: [
    "", "-", "+", ".", "-.", "e5", ".e1", "1e", "1e+", "1e-", "nan", "NaN", "inf", "-Infinity",
    "0x10", " 1", "1 ", "1..2", "1.2.3", "--1", "+-1", "1e5.5", "1,5", "1e5e5", "1f", "1_0",
  ])
  func lenientParserRejectsMalformedInput(_ text: String) {
    #expect(parseLenient(text) == nil)
  }

  @Test func neverTrapsAndAgreesWithStrtodOnRandomBytes() {
    var generator = SplitMix64(seed: 7)
    let alphabet = Array("0123456789+-.eE x".utf8)
    var mismatches: [String] = []
    for _ in 0..<100_000 {
      let length = Int.random(in: 0...12, using: &generator)
      let bytes = (0..<length).map { _ in
        alphabet.randomElement(using: &generator) ?? UInt8(ascii: "0")
      }
      _ = bytes.withUnsafeBufferPointer(parseDecimal)
      guard let value = bytes.withUnsafeBufferPointer(parseDecimalLenient) else { continue }
      // Whatever the lenient parser accepts, strtod must read in full and agree with.
      let text = String(decoding: bytes, as: UTF8.self)
      let consumedAll = text.withCString { start in
        var end: UnsafeMutablePointer<CChar>?
        _ = strtod(start, &end)
        return end.map { $0 - UnsafeMutablePointer(mutating: start) } == length
      }
      if !consumedAll || value.bitPattern != reference(text).bitPattern { mismatches.append(text) }
    }
    let mismatchCount = mismatches.count
    #expect(mismatchCount == 0, "e.g. \(mismatches.prefix(10))")
  }

  /// dBASE pads numbers with zeros ("23135.510000000000000"): they are not significant, and
  /// the value is the one strtod reads.
  @Test func lenientParserMatchesStrtodOnZeroPaddedFractions() {
    var generator = SplitMix64(seed: 3)
    var mismatches: [String] = []
    for index in 0..<50_000 {
      let value = Double.random(in: -1e7...1e7, using: &generator)
      let digits = index % 4 == 0 ? 2 : Int.random(in: 0...8, using: &generator)
      let short = String(format: "%.\(digits)f", value)
      for text in [
        short + String(repeating: "0", count: Int.random(in: 1...20, using: &generator)),
        short + "0000000000000000000000000e-3",
        "0.000" + short.filter(\.isNumber) + "00000000000000000000",
      ] where parseLenient(text)?.bitPattern != reference(text).bitPattern {
        mismatches.append(text)
      }
    }
    for text in [
      "23135.510000000000000", "-0.100000000000000000000", "12345678901234567.000",
      "1234567890123456789.00", "12345678901234567890.00", "100000000000000000000.000",
    ] where parseLenient(text)?.bitPattern != reference(text).bitPattern {
      mismatches.append(text)
    }
    let mismatchCount = mismatches.count
    #expect(mismatchCount == 0, "e.g. \(mismatches.prefix(10))")
  }

  @Test func matchesStrtodOnRandomDoubleDescriptions() {
    var generator = SplitMix64(seed: 1)
    var texts: [String] = []
    for index in 0..<200_000 {
      let value: Double
      if index.isMultiple(of: 2) {
        // Any finite double, including subnormals and huge magnitudes.
        let exponentField = (generator.next() % 0x7FF) << 52
        value = Double(bitPattern: generator.next() & ~(0x7FF << 52) | exponentField)
      } else {
        value = Double.random(in: -180...180, using: &generator)
      }
      texts.append(value.description)
    }
    let mismatches = mismatchesAgainstStrtod(texts)
    let mismatchCount = mismatches.count
    #expect(mismatchCount == 0, "e.g. \(mismatches.prefix(10))")
  }

  @Test func matchesStrtodOnRandomShortDecimals() {
    var generator = SplitMix64(seed: 2)
    var texts: [String] = []
    for _ in 0..<200_000 {
      texts.append(randomDecimal(digits: Int.random(in: 6...17, using: &generator), &generator))
    }
    let mismatches = mismatchesAgainstStrtod(texts)
    let mismatchCount = mismatches.count
    #expect(mismatchCount == 0, "e.g. \(mismatches.prefix(10))")
  }

  @Test func matchesStrtodOnRandomLongMantissas() {
    var generator = SplitMix64(seed: 3)
    var texts: [String] = []
    for _ in 0..<20_000 {
      texts.append(randomDecimal(digits: Int.random(in: 17...25, using: &generator), &generator))
    }
    let mismatches = mismatchesAgainstStrtod(texts)
    let mismatchCount = mismatches.count
    #expect(mismatchCount == 0, "e.g. \(mismatches.prefix(10))")
  }
}

/// Returns a random JSON number with `digits` significant digits, a random decimal point
/// position, sometimes leading fraction zeros and sometimes an exponent anywhere in range.
private func randomDecimal(digits: Int, _ generator: inout SplitMix64) -> String {
  var significand = String(Int.random(in: 1...9, using: &generator))
  for _ in 1..<digits { significand.append(String(Int.random(in: 0...9, using: &generator))) }
  let pointPosition = Int.random(in: 0...digits, using: &generator)
  var text = Bool.random(using: &generator) ? "-" : ""
  if pointPosition == 0 {
    let leadingZeros = Int.random(in: 0...4, using: &generator)
    text += "0." + String(repeating: "0", count: leadingZeros) + significand
  } else {
    text += significand.prefix(pointPosition)
    if pointPosition < digits { text += "." + significand.dropFirst(pointPosition) }
  }
  if Int.random(in: 0..<3, using: &generator) == 0 {
    text += "e" + String(Int.random(in: -345...310, using: &generator))
  }
  return text
}
