import Testing

@testable import GeoPipeParquet

/// Record assembly of GeoArrow list encodings from repetition and definition levels, worked by
/// hand for a polygon column (`optional` list of rings, each a list of coordinates): levels
/// 1 = the row's list is there, 2 = it has a ring, 3 = the ring has a coordinate.
@Suite struct GeoArrowTests {
  func shape(_ row: [GeoArrowColumns.Nested]?) -> [[Int]]? {
    row.map { rings in
      rings.map { ring in
        guard case .list(let coordinates) = ring else { return [-1] }
        return coordinates.map { if case .coordinate(let k) = $0 { k } else { -1 } }
      }
    }
  }

  @Test func assemblesRingsRowsNullsAndEmpties() throws {
    // Row 0: two rings of 3 and 2 coordinates; row 1: null; row 2: no rings; row 3: one ring
    // without coordinates; row 4: one ring of one coordinate.
    let column = DecodedColumn(
      definitionLevels: [3, 3, 3, 3, 3, 0, 1, 2, 3],
      repetitionLevels: [0, 2, 2, 1, 2, 0, 0, 0, 0],
      values: .doubles([]), entryCount: 9)
    let rows = try GeoArrowColumns.assemble(
      column, rows: 5, present: 1, elements: [2, 3], value: 3)
    #expect(rows.map(shape) == [[[0, 1, 2], [3, 4]], nil, [], [[]], [[5]]])
  }

  @Test func refusesLevelsThatDoNotMakeRows() {
    let column = DecodedColumn(
      definitionLevels: [3, 3], repetitionLevels: [2, 0], values: .doubles([]), entryCount: 2)
    #expect(throws: ParquetError.self) {
      try GeoArrowColumns.assemble(column, rows: 1, present: 1, elements: [2, 3], value: 3)
    }
  }
}
