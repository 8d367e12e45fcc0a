internal import CSQLite
import Foundation

/// An error from SQLite, with its result codes and its own message.
///
/// Tell errors apart by `code` (`SQLiteError.notADatabase` ...), never by the message, whose
/// wording SQLite does not promise.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
  /// SQLite's primary result code (`SQLITE_NOTADB` ...).
  public var code: Int32
  /// SQLite's extended result code (`sqlite3_extended_errcode`), whose low byte is `code`.
  public var extendedCode: Int32
  /// SQLite's message (`sqlite3_errmsg`), with what was being done.
  public var message: String

  /// `SQLITE_NOTADB`: the file is not an SQLite database (or is encrypted).
  public static let notADatabase = SQLITE_NOTADB
  /// `SQLITE_CONSTRAINT`: a UNIQUE, NOT NULL or other constraint was broken.
  public static let constraint = SQLITE_CONSTRAINT

  /// Creates an error; `extendedCode` defaults to `code` when SQLite gave no finer one.
  public init(code: Int32, extendedCode: Int32? = nil, message: String) {
    self.code = code & 0xFF
    self.extendedCode = extendedCode ?? code
    self.message = message
  }

  /// A sentence for the user.
  public var description: String { message }
}

/// A connection to an SQLite database file (`sqlite3_open_v2`), closed in `deinit`.
///
/// Not shared across threads: open one connection per thread.
public final class SQLiteDatabase {
  private var handle: OpaquePointer?
  private var statements: [String: SQLiteStatement] = [:]
  /// The file's path.
  public let path: String

  /// Opens a database; `readOnly` refuses writes, `create` makes the file if missing.
  public init(path: String, readOnly: Bool = false, create: Bool = false) throws(SQLiteError) {
    self.path = path
    var flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
    if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
    flags |= SQLITE_OPEN_NOMUTEX
    let status = sqlite3_open_v2(path, &handle, flags, nil)
    guard status == SQLITE_OK else {
      let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
      let extended = handle.map { sqlite3_extended_errcode($0) }
      sqlite3_close_v2(handle)
      handle = nil
      throw SQLiteError(code: status, extendedCode: extended, message: "\(path): \(message)")
    }
  }

  deinit {
    statements.removeAll()
    sqlite3_close_v2(handle)
  }

  /// Runs SQL that returns no rows (several statements allowed).
  public func execute(_ sql: String) throws(SQLiteError) {
    var error: UnsafeMutablePointer<CChar>?
    let status = sqlite3_exec(handle, sql, nil, nil, &error)
    guard status == SQLITE_OK else {
      let message = error.map { String(cString: $0) } ?? lastMessage
      sqlite3_free(error)
      throw SQLiteError(
        code: status, extendedCode: sqlite3_extended_errcode(handle),
        message: "\(path): \(message)")
    }
  }

  /// A prepared statement for `sql`, cached by its text and reset for reuse.
  public func statement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
    if let cached = statements[sql] {
      cached.reset()
      return cached
    }
    var raw: OpaquePointer?
    let status = sqlite3_prepare_v2(handle, sql, -1, &raw, nil)
    guard status == SQLITE_OK, let raw else {
      throw SQLiteError(
        code: status, extendedCode: sqlite3_extended_errcode(handle),
        message: "\(path): \(lastMessage) (in: \(sql))")
    }
    let statement = SQLiteStatement(raw, database: self)
    statements[sql] = statement
    return statement
  }

  /// Runs `body` in a transaction, committed when it returns and rolled back when it throws.
  public func transaction<T>(_ body: () throws -> T) throws -> T {
    try execute("BEGIN")
    do {
      let result = try body()
      try execute("COMMIT")
      return result
    } catch {
      try? execute("ROLLBACK")
      throw error
    }
  }

  /// The text of the first column of the first row of `sql`, if any.
  public func scalarText(_ sql: String) throws(SQLiteError) -> String? {
    let statement = try statement(sql)
    defer { statement.reset() }
    return try statement.step() ? statement.text(0) : nil
  }

  var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }
  var lastExtendedCode: Int32 { sqlite3_extended_errcode(handle) }

  var rawHandle: OpaquePointer? { handle }
}

/// A prepared statement (`sqlite3_stmt`), finalized in `deinit`.
public final class SQLiteStatement {
  private let raw: OpaquePointer
  private unowned let database: SQLiteDatabase

  init(_ raw: OpaquePointer, database: SQLiteDatabase) {
    self.raw = raw
    self.database = database
  }

  deinit {
    sqlite3_finalize(raw)
  }

  /// Clears bindings and rewinds the statement.
  public func reset() {
    sqlite3_reset(raw)
    sqlite3_clear_bindings(raw)
  }

  /// Binds values to the parameters in order (`?1` first).
  @discardableResult
  public func bind(_ values: SQLiteValue...) throws(SQLiteError) -> SQLiteStatement {
    try bind(values)
  }

  /// Binds an array of values to the parameters in order (`?1` first).
  @discardableResult
  public func bind(_ values: [SQLiteValue]) throws(SQLiteError) -> SQLiteStatement {
    for (k, value) in values.enumerated() { try bind(value, at: Int32(k + 1)) }
    return self
  }

  /// Advances to the next row: true when there is one.
  public func step() throws(SQLiteError) -> Bool {
    let status = sqlite3_step(raw)
    switch status {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    default:
      throw SQLiteError(
        code: status, extendedCode: database.lastExtendedCode,
        message: "\(database.path): \(database.lastMessage)")
    }
  }

  /// Runs the statement to completion (for inserts and updates).
  public func run() throws(SQLiteError) {
    while try step() {}
    sqlite3_reset(raw)
  }

  /// Column `k` of the current row as an integer.
  public func int64(_ k: Int32) -> Int64 { sqlite3_column_int64(raw, k) }

  /// Column `k` of the current row as a double.
  public func double(_ k: Int32) -> Double { sqlite3_column_double(raw, k) }

  /// Column `k` of the current row as text ("" for NULL).
  public func text(_ k: Int32) -> String {
    guard let bytes = sqlite3_column_text(raw, k) else { return "" }
    return String(cString: bytes)
  }

  /// Whether column `k` of the current row is NULL.
  public func isNull(_ k: Int32) -> Bool { sqlite3_column_type(raw, k) == SQLITE_NULL }

  /// How many columns a row of the statement has.
  public var columnCount: Int32 { sqlite3_column_count(raw) }

  /// The storage class of column `k` of the current row (`sqlite3_column_type`).
  public func type(_ k: Int32) -> SQLiteStorageClass {
    switch sqlite3_column_type(raw, k) {
    case SQLITE_INTEGER: .integer
    case SQLITE_FLOAT: .real
    case SQLITE_TEXT: .text
    case SQLITE_BLOB: .blob
    default: .null
    }
  }

  /// Calls `body` with the bytes of column `k` of the current row (a BLOB, or the UTF-8 of
  /// text), valid only during the call; empty for NULL.
  public func withBytes<T>(_ k: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
    let pointer = sqlite3_column_blob(raw, k)
    let count = Int(sqlite3_column_bytes(raw, k))
    return try body(UnsafeRawBufferPointer(start: count > 0 ? pointer : nil, count: count))
  }

  /// Binds one value to parameter `index` (1-based).
  public func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
    let status: Int32
    switch value {
    case .null: status = sqlite3_bind_null(raw, index)
    case .integer(let n): status = sqlite3_bind_int64(raw, index, n)
    case .real(let x): status = sqlite3_bind_double(raw, index, x)
    case .text(let s): status = sqlite3_bind_text(raw, index, s, -1, geopipe_sqlite_transient())
    case .blob(let bytes):
      status = bytes.withUnsafeBytes {
        sqlite3_bind_blob(raw, index, $0.baseAddress, Int32($0.count), geopipe_sqlite_transient())
      }
    }
    guard status == SQLITE_OK else {
      throw SQLiteError(
        code: status, extendedCode: database.lastExtendedCode,
        message: "\(database.path): \(database.lastMessage)")
    }
  }

  /// Binds bytes as a BLOB to parameter `index` (1-based); SQLite copies them.
  public func bindBlob(_ bytes: UnsafeRawBufferPointer, at index: Int32) throws(SQLiteError) {
    // A zero-length BLOB needs a non-nil pointer, or SQLite binds NULL.
    let status = withUnsafeBytes(of: 0) { zero in
      sqlite3_bind_blob(
        raw, index, bytes.count > 0 ? bytes.baseAddress : zero.baseAddress, Int32(bytes.count),
        geopipe_sqlite_transient())
    }
    guard status == SQLITE_OK else {
      throw SQLiteError(
        code: status, extendedCode: database.lastExtendedCode,
        message: "\(database.path): \(database.lastMessage)")
    }
  }
}

/// The storage class of a value in a row (SQLite's five).
public enum SQLiteStorageClass: Sendable {
  case null
  case integer
  case real
  case text
  case blob
}

/// A value bound to a statement parameter.
public enum SQLiteValue: Sendable {
  case null
  case integer(Int64)
  case real(Double)
  case text(String)
  case blob([UInt8])
}

extension SQLiteDatabase {
  /// The rowid of the last row inserted.
  public var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(rawHandle) }

  /// The rows changed by the last statement.
  public var changes: Int32 { sqlite3_changes(rawHandle) }
}
