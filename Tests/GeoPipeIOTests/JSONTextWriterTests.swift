import GeoPipeCore
import Testing

@testable import GeoPipeIO

@Suite struct JSONTextWriterTests {
  private func float(_ value: Double) -> String {
    var w = JSONTextWriter()
    w.writeFloat(value)
    return String(decoding: w.bytes, as: UTF8.self)
  }

  private func coordinate(_ value: Double, precision: Int? = nil) -> String {
    var w = JSONTextWriter()
    w.writeCoordinate(value, precision: precision)
    return String(decoding: w.bytes, as: UTF8.self)
  }

  @Test func floatsMatchSwiftsShortestRoundTripForm() {
    var generator = SystemRandomNumberGenerator()
    var checked = 0
    for _ in 0..<200_000 {
      let kind = Int.random(in: 0..<4, using: &generator)
      let value: Double
      switch kind {
      case 0: value = Double.random(in: -180...180, using: &generator)
      case 1:
        let digits = Int.random(in: 1...9, using: &generator)
        value =
          (Double.random(in: -180...180, using: &generator) * pow10(digits)).rounded()
          / pow10(digits)
      case 2: value = Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &generator))
      default: value = Double(Int.random(in: -1_000_000...1_000_000, using: &generator)) / 8
      }
      guard value.isFinite else { continue }
      #expect(float(value) == value.description)
      #expect(Double(coordinate(value)) == value)
      checked += 1
    }
    #expect(checked > 100_000)
  }

  private func pow10(_ k: Int) -> Double { (0..<k).reduce(1.0) { acc, _ in acc * 10 } }

  @Test(arguments: [
    (1.0, "1.0", "1"), (-0.0, "-0.0", "-0"), (0.0, "0.0", "0"), (0.1, "0.1", "0.1"),
    (1e-05, "1e-05", "1e-05"), (123456.789, "123456.789", "123456.789"),
    (1e16, "1e+16", "1e+16"), (-122.41941550000001, "-122.41941550000001", "-122.41941550000001"),
    (0.0001, "0.0001", "0.0001"),
  ])
  func writesNumbers(value: Double, asFloat: String, asCoordinate: String) {
    #expect(float(value) == asFloat)
    #expect(coordinate(value) == asCoordinate)
  }

  @Test func precisionRoundsCoordinates() {
    #expect(coordinate(2.3522219, precision: 3) == "2.352")
    #expect(coordinate(-0.00049, precision: 3) == "-0")
  }

  @Test func escapesStrings() {
    var w = JSONTextWriter()
    w.writeString("plain ascii text that is long\"q\\b\n\t\u{1}é🌍\u{2028}")
    #expect(
      String(decoding: w.bytes, as: UTF8.self)
        == #""plain ascii text that is long\"q\\b\n\t\u0001é🌍\#u{2028}""#)
  }
}
