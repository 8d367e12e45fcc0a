import GeoPipeCore
import GeoPipeIO

extension PostgreSQLWriter {
  /// Reads the scratch file back and hands `send` each row as a COPY tuple.
  ///
  /// A scratch record is its length (UInt32), the geometry's COPY field, the id's kind tag
  /// (0 for none) and COPY field, then per property its column (UInt32), kind tag and COPY
  /// field. A row has every column, NULL where the feature had no value, and integers in a
  /// double precision column sent as doubles (when they are exactly one).
  func rows(_ scratch: ScratchFile, _ send: (UnsafeRawBufferPointer) throws -> Void)
    throws
  {
    let idField = fidColumn == nil ? 0 : 1
    let fieldCount = idField + 1 + columns.count
    let isReal = columns.map { $0.kinds.contains(.real) }
    var starts = [Int](repeating: -1, count: columns.count)
    var tuple: [UInt8] = []
    var pending: [UInt8] = []
    try scratch.readAll { block in
      pending.append(contentsOf: block)
      var offset = 0
      try pending.withUnsafeBytes { bytes in
        while offset + 4 <= bytes.count {
          let length = Int(CopyBinary.load(UInt32.self, bytes, at: offset))
          guard offset + 4 + length <= bytes.count else { break }
          let record = UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<(offset + 4 + length)])
          offset += 4 + length
          tuple.removeAll(keepingCapacity: true)
          CopyBinary.append(Int16(fieldCount), to: &tuple)
          var i = 0
          let geometryLength = Int(CopyBinary.load(Int32.self, record, at: 0))
          let geometry = record[0..<(4 + max(0, geometryLength))]
          i = geometry.count
          let idTag = record[i]
          i += 1
          if idTag != 0 {
            let n = Int(CopyBinary.load(Int32.self, record, at: i))
            tuple.append(contentsOf: record[i..<(i + 4 + n)])
            i += 4 + n
          } else if idField == 1 {
            CopyBinary.append(Int32(-1), to: &tuple)
          }
          tuple.append(contentsOf: geometry)
          for k in starts.indices { starts[k] = -1 }
          while i < record.count {
            let k = Int(CopyBinary.load(UInt32.self, record, at: i))
            starts[k] = i + 4
            i += 5 + 4 + Int(CopyBinary.load(Int32.self, record, at: i + 5))
          }
          for k in starts.indices {
            let start = starts[k]
            guard start >= 0 else {
              CopyBinary.append(Int32(-1), to: &tuple)
              continue
            }
            let n = Int(CopyBinary.load(Int32.self, record, at: start + 1))
            if isReal[k] && record[start] == ColumnKinds.integer.rawValue {
              let value = CopyBinary.load(Int64.self, record, at: start + 5)
              guard Int64(exactly: Double(value)) == value else {
                throw GeoPipeError.data(
                  "\(name): table '\(tableText)': property '\(columns[k].name)' holds numbers "
                    + "and the integer \(value), which a double precision column cannot hold "
                    + "exactly", at: nil)
              }
              CopyBinary.append(Int32(8), to: &tuple)
              CopyBinary.append(Double(value).bitPattern, to: &tuple)
            } else {
              tuple.append(contentsOf: record[(start + 1)..<(start + 5 + n)])
            }
          }
          try tuple.withUnsafeBytes(send)
        }
      }
      pending.removeFirst(offset)
    }
  }
}
