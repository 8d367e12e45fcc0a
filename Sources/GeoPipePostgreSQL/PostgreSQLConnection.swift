internal import CLibPQ
import Foundation
import GeoPipeCore

/// An error PostgreSQL or libpq reported: its own message, and where in the statement it is.
struct PostgreSQLError: Error, CustomStringConvertible {
  /// The message (libpq's, or the server's primary message with its detail and hint).
  var message: String
  /// The 1-based character position in the statement the error is at, when the server says.
  var position: Int?
  /// The SQLSTATE code, when the server gave one.
  var sqlState: String?

  /// The message, with the position when there is one.
  var description: String {
    position.map { "\(message) (at character \($0) of the query)" } ?? message
  }
}

/// One connection to a PostgreSQL server (libpq's `PGconn`), closed in deinit.
///
/// Not shared across threads. Every statement runs with its values as bound parameters or COPY
/// fields; identifiers are quoted by `quote(_:)` (`PQescapeIdentifier`).
final class PostgreSQLConnection {
  private let connection: OpaquePointer
  /// The connection's URL without its password, for messages.
  let name: String

  /// Connects to `url` (a `postgresql://` URL; libpq's `PG*` environment variables and
  /// `~/.pgpass` fill in what it leaves out) with UTF-8 as the client encoding.
  init(url: String) throws(PostgreSQLError) {
    name = PostgreSQL.redacted(url)
    guard let connection = PQconnectdb(url) else {
      throw PostgreSQLError(message: "out of memory")
    }
    guard PQstatus(connection) == CONNECTION_OK else {
      let message = Self.trimmed(String(cString: PQerrorMessage(connection)))
      PQfinish(connection)
      throw PostgreSQLError(message: message)
    }
    self.connection = connection
    guard PQsetClientEncoding(connection, "UTF8") == 0 else {
      throw PostgreSQLError(message: lastMessage)
    }
  }

  deinit { PQfinish(connection) }

  /// Runs a statement with text parameters (nil for NULL) and returns its rows as text.
  @discardableResult
  func execute(_ sql: String, _ parameters: [String?] = []) throws(PostgreSQLError) -> [[String?]] {
    var texts = parameters.map { $0.map { strdup($0) } ?? nil }
    defer { texts.forEach { free($0) } }
    let result = texts.withUnsafeMutableBufferPointer { buffer in
      buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { values in
        PQexecParams(
          connection, sql, Int32(parameters.count), nil, values.baseAddress, nil, nil, 0)
      }
    }
    defer { PQclear(result) }
    try check(result, expecting: [PGRES_COMMAND_OK, PGRES_TUPLES_OK])
    var rows: [[String?]] = []
    for row in 0..<PQntuples(result) {
      rows.append(
        (0..<PQnfields(result)).map { column in
          PQgetisnull(result, row, column) == 1
            ? nil : String(cString: PQgetvalue(result, row, column))
        })
    }
    return rows
  }

  /// The names and type OIDs of the columns a query returns, without running it
  /// (`PQprepare`, `PQdescribePrepared`).
  func describe(_ sql: String) throws(PostgreSQLError) -> [(
    name: String, type: UInt32, modifier: Int32
  )] {
    let prepared = PQprepare(connection, "", sql, 0, nil)
    defer { PQclear(prepared) }
    try check(prepared, expecting: [PGRES_COMMAND_OK])
    let description = PQdescribePrepared(connection, "")
    defer { PQclear(description) }
    try check(description, expecting: [PGRES_COMMAND_OK])
    return (0..<PQnfields(description)).map { k in
      (
        String(cString: PQfname(description, k)), UInt32(PQftype(description, k)),
        PQfmod(description, k)
      )
    }
  }

  /// `name` as a quoted identifier (`PQescapeIdentifier`).
  func quote(_ name: String) throws(PostgreSQLError) -> String {
    let bytes = Array(name.utf8)
    guard let quoted = PQescapeIdentifier(connection, name, bytes.count) else {
      throw PostgreSQLError(message: lastMessage)
    }
    defer { PQfreemem(quoted) }
    return String(cString: quoted)
  }

  /// A `[schema.]name` table name, quoted.
  func quote(table: (schema: String?, name: String)) throws(PostgreSQLError) -> String {
    let name = try quote(table.name)
    guard let schema = table.schema else { return name }
    return try quote(schema) + "." + name
  }

  /// Whether a table (quoted, as `quote(table:)` makes it) exists.
  func tableExists(_ quoted: String) throws(PostgreSQLError) -> Bool {
    try execute("SELECT to_regclass($1) IS NOT NULL", [quoted]).first?.first == "t"
  }

  /// Starts `COPY … FROM STDIN`.
  func beginCopyIn(_ sql: String) throws(PostgreSQLError) {
    let result = PQexec(connection, sql)
    defer { PQclear(result) }
    try check(result, expecting: [PGRES_COPY_IN])
  }

  /// Sends COPY data (`PQputCopyData`, blocking).
  func putCopyData(_ bytes: UnsafeRawBufferPointer) throws(PostgreSQLError) {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
    let sent = base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
      PQputCopyData(connection, $0, Int32(bytes.count))
    }
    guard sent == 1 else { throw PostgreSQLError(message: lastMessage) }
  }

  /// Ends COPY data (`PQputCopyEnd`) and waits for the statement's result.
  func endCopyIn() throws(PostgreSQLError) {
    guard PQputCopyEnd(connection, nil) == 1 else { throw PostgreSQLError(message: lastMessage) }
    try finishResults()
  }

  /// Starts `COPY … TO STDOUT`.
  func beginCopyOut(_ sql: String) throws(PostgreSQLError) {
    let result = PQexec(connection, sql)
    defer { PQclear(result) }
    try check(result, expecting: [PGRES_COPY_OUT])
  }

  /// The next message of COPY data (`PQgetCopyData`), handed to `body`; false at the end.
  func nextCopyData(_ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
    var buffer: UnsafeMutablePointer<CChar>?
    let count = PQgetCopyData(connection, &buffer, 0)
    guard count >= 0, let buffer else {
      if count == -2 { throw PostgreSQLError(message: lastMessage) }
      try finishResults()
      return false
    }
    defer { PQfreemem(buffer) }
    try body(UnsafeRawBufferPointer(start: buffer, count: Int(count)))
    return true
  }

  private func finishResults() throws(PostgreSQLError) {
    var failure: PostgreSQLError?
    while let result = PQgetResult(connection) {
      defer { PQclear(result) }
      do throws(PostgreSQLError) {
        try check(result, expecting: [PGRES_COMMAND_OK])
      } catch {
        failure = failure ?? error
      }
    }
    if let failure { throw failure }
  }

  private var lastMessage: String { Self.trimmed(String(cString: PQerrorMessage(connection))) }

  private func check(_ result: OpaquePointer?, expecting: [ExecStatusType])
    throws(PostgreSQLError)
  {
    guard let result else { throw PostgreSQLError(message: lastMessage) }
    let status = PQresultStatus(result)
    guard !expecting.contains(status) else { return }
    func field(_ code: UInt8) -> String? {
      PQresultErrorField(result, Int32(code)).map { String(cString: $0) }
    }
    guard let primary = field(UInt8(ascii: "M")) else {
      let message = Self.trimmed(String(cString: PQresultErrorMessage(result)))
      throw PostgreSQLError(
        message: message.isEmpty
          ? "unexpected result \(String(cString: PQresStatus(status)))"
          : message)
    }
    var message = primary
    if let detail = field(UInt8(ascii: "D")) { message += " (\(detail))" }
    if let hint = field(UInt8(ascii: "H")) { message += "; hint: \(hint)" }
    throw PostgreSQLError(
      message: message, position: field(UInt8(ascii: "P")).flatMap { Int($0) },
      sqlState: field(UInt8(ascii: "C")))
  }

  private static func trimmed(_ message: String) -> String {
    message.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty }.joined(separator: "; ")
  }
}
