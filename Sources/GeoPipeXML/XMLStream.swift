internal import CLibXML2
import GeoPipeCore
import GeoPipeIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A forward-only walk over an XML document's nodes, parsed by libxml2's SAX2 push parser.
///
/// The parser is given a `ByteSource` (so standard input and gzip work) a block at a time,
/// and its callbacks queue the nodes of that block (start and end tags with their names and
/// attributes, text), which `read()` hands out one by one. Memory is bounded by a block's
/// nodes and the longest text, not by the document, and no tree is built.
///
/// No network, no DTD loading, no external entities (the external entity loader refuses every
/// request) and no entities of the document's own: a reference to one stops the parser before
/// it is expanded, so neither XXE nor "billion laughs" documents get anywhere.
final class XMLStream {
  /// The kinds of node the readers look at; the rest (comments, processing instructions, the
  /// doctype) is `other`.
  enum Kind {
    case element
    case endElement
    case text
    case other
  }

  /// The input's name, for messages.
  let name: String
  private let parser: Parser
  /// The queued node being looked at, an index into `parser.events`.
  private var current = -1
  /// How many nodes have been read: lets `forEachChild` tell whether a handler consumed a child.
  private(set) var readCount = 0
  /// The current node's kind.
  private(set) var kind = Kind.other

  /// Opens a stream on `source`, whose messages name `name`.
  init(source: ByteSource, name: String) throws {
    _ = Self.setUp
    // Encoding and I/O errors are also printed through the generic handler, which is kept per
    // thread: silence it here; the structured handler records them.
    geopipe_xml_silence_generic_errors()
    self.name = name
    parser = try Parser(source: source, name: name)
  }

  /// Initialises libxml2 once and makes its external entity loader refuse everything.
  private static let setUp: Void = {
    xmlInitParser()
    xmlSetExternalEntityLoader { _, _, _ in nil }
  }()

  /// Decompressed bytes read so far.
  var bytesRead: Int { parser.bytesRead }

  /// Moves to the next node; false at the end of the document.
  func read() throws -> Bool {
    readCount &+= 1
    if current + 1 >= parser.events.count {
      parser.clear()
      current = -1
      try parser.parse(until: 1)
    }
    guard current + 1 < parser.events.count else {
      kind = .other
      try parser.checkEnd()
      return false
    }
    current += 1
    let event = parser.events[current]
    if let entity = event.entity {
      kind = .other
      throw error(
        "the document refers to the entity &\(entity);, which is not expanded (entity "
          + "declarations are refused: they can hide external files or expand without bound)")
    }
    kind = event.kind
    if kind == .element && current + 1 == parser.events.count {
      // Whether the element is empty shows in the node after it: parse that far.
      try parser.parse(until: current + 2)
    }
    return true
  }

  private var event: Parser.Event? {
    current >= 0 && current < parser.events.count ? parser.events[current] : nil
  }

  /// The current node's depth: the root element is 0.
  var depth: Int { Int(event?.depth ?? 0) }

  /// Whether the current element has no children and no text (`<name/>`, or `<name></name>`):
  /// there is no end element to read.
  var isEmptyElement: Bool { event?.isEmpty ?? false }

  /// The current node's name without its namespace prefix.
  var localName: String {
    guard let event else { return "" }
    return parser.string(event.name)
  }

  /// Where the node ends in the input (the parser's place when it was read), for messages.
  var location: SourceLocation {
    let (line, column) = event.map { (Int($0.line), Int($0.column)) } ?? parser.position
    return SourceLocation(file: name, line: line, column: column)
  }

  /// A bad-data error at the current node.
  func error(_ message: String, problem: InputProblem = .structure) -> GeoPipeError {
    .data(message, at: location, problem: problem)
  }

  /// The value of the current element's attribute `name` (as written, prefix included).
  func attribute(_ name: String) -> String? {
    withAttribute(name) { bytes in bytes.map { String(decoding: $0, as: UTF8.self) } }
  }

  /// Calls `body` with the current element's attribute `name` as bytes, or nil without it.
  func withAttribute<R>(_ name: String, _ body: (UnsafeBufferPointer<UInt8>?) throws -> R)
    rethrows -> R
  {
    guard let event, event.kind == .element else { return try body(nil) }
    var wanted = name
    return try wanted.withUTF8 { wanted in
      for k in event.attributes {
        let attribute = parser.attributes[k]
        if parser.bytes(attribute.name).elementsEqual(wanted) {
          return try parser.withBytes(attribute.value, body)
        }
      }
      return try body(nil)
    }
  }

  /// Calls `body` with each child element's local name.
  ///
  /// `body` either consumes the child (up to and including its end) or leaves it, and then it
  /// is skipped. The stream ends on the current element's end.
  func forEachChild(_ body: (String) throws -> Void) throws {
    guard !isEmptyElement else { return }
    let level = depth
    while try read() {
      switch kind {
      case .endElement where depth == level: return
      case .element:
        let before = readCount
        try body(localName)
        if readCount == before { try skip() }
      default: break
      }
    }
    throw error("the document ends inside an element")
  }

  /// Skips the current element with everything in it.
  func skip() throws {
    guard kind == .element, !isEmptyElement else { return }
    let level = depth
    while try read() {
      if kind == .endElement && depth == level { return }
    }
    throw error("the document ends inside an element")
  }

  /// Reads the current element's text into `buffer` (replacing what it held) and moves to its
  /// end; false when the element holds other elements (which are skipped, their text left out).
  func readText(into buffer: inout [UInt8]) throws -> Bool {
    buffer.removeAll(keepingCapacity: true)
    guard kind == .element, !isEmptyElement else { return true }
    let level = depth
    var simple = true
    while try read() {
      switch kind {
      case .endElement where depth == level: return simple
      case .element: simple = false
      case .text: appendValue(to: &buffer)
      default: break
      }
    }
    throw error("the document ends inside an element")
  }

  /// Appends the current text node's value to `buffer`.
  func appendValue(to buffer: inout [UInt8]) {
    guard let event, event.kind == .text else { return }
    parser.withBytes(event.text) { bytes in
      if let bytes { buffer.append(contentsOf: bytes) }
    }
  }

  /// The current element's text, or nil when it holds other elements.
  func text() throws -> String? {
    guard try readText(into: &textBuffer) else { return nil }
    return String(decoding: textBuffer, as: UTF8.self)
  }

  /// Reused by `text()`.
  private var textBuffer: [UInt8] = []
}

/// The push parser and what its callbacks queue: the nodes of the input parsed so far and not
/// yet handed out, their names, attribute values and text in one byte arena.
private final class Parser {
  struct Event {
    var kind: XMLStream.Kind
    var depth: Int32
    var isEmpty = false
    var line: Int32
    var column: Int32
    /// The local name (elements), in the arena.
    var name: Range<Int> = 0..<0
    /// The text (text nodes), in the arena.
    var text: Range<Int> = 0..<0
    /// The attributes (elements), in `attributes`.
    var attributes: Range<Int> = 0..<0
    /// The entity a reference names: reading it is an error.
    var entity: String?
  }

  struct Attribute {
    /// The qualified name (`prefix:local`, or `local`), in the arena.
    var name: Range<Int>
    var value: Range<Int>
  }

  static let blockSize = 1 << 16

  let source: ByteSource
  let name: String
  private(set) var bytesRead = 0
  var events: [Event] = []
  var attributes: [Attribute] = []
  private var arena: [UInt8] = []
  /// The depth the next element starts at.
  private var depth: Int32 = 0
  private var context: xmlParserCtxtPtr?
  private var block: UnsafeMutablePointer<CChar>
  private var finished = false
  /// An error of the byte source (a read error, corrupt gzip), rethrown as it is.
  private var failure: Error?
  /// libxml2's first error.
  private var problem: (message: String, line: Int, column: Int)?

  init(source: ByteSource, name: String) throws {
    self.source = source
    self.name = name
    block = .allocate(capacity: Self.blockSize)
    // Only these callbacks: no document is built, no DTD kept, comments and processing
    // instructions pass unseen (libxml2's default handlers would add them to a document).
    var sax = xmlSAXHandler()
    sax.initialized = UInt32(XML_SAX2_MAGIC)
    sax.startElementNs = startElement
    sax.endElementNs = endElement
    sax.characters = characters
    sax.ignorableWhitespace = characters
    sax.cdataBlock = characters
    sax.reference = nil
    sax.getEntity = refuseEntity
    sax.getParameterEntity = refuseEntity
    sax.serror = recordError
    // The first bytes let libxml2 tell the encoding.
    let first = try readBlock()
    context = xmlCreatePushParserCtxt(
      &sax, Unmanaged.passUnretained(self).toOpaque(), block, Int32(min(first, 4)), name)
    guard let context else {
      block.deallocate()
      throw GeoPipeError("\(name): cannot start the XML parser", status: .ioError)
    }
    let options =
      Int32(XML_PARSE_NONET.rawValue) | Int32(XML_PARSE_NOCDATA.rawValue)
      | Int32(XML_PARSE_COMPACT.rawValue) | Int32(XML_PARSE_HUGE.rawValue)
    xmlCtxtUseOptions(context, options)
    pending = first > 4 ? (4, first) : nil
    if first == 0 { finish() }
  }

  deinit {
    if let context {
      if let document = context.pointee.myDoc { xmlFreeDoc(document) }
      xmlFreeParserCtxt(context)
    }
    block.deallocate()
  }

  /// Bytes of `block` read but not yet given to the parser.
  private var pending: (start: Int, end: Int)?

  /// Forgets the queued nodes (all handed out).
  func clear() {
    events.removeAll(keepingCapacity: true)
    attributes.removeAll(keepingCapacity: true)
    arena.removeAll(keepingCapacity: true)
  }

  /// Parses until `count` nodes are queued, or the input ends, or it fails.
  func parse(until count: Int) throws {
    while events.count < count && !finished && problem == nil {
      if let failure { throw failure }
      if let (start, end) = pending {
        pending = nil
        xmlParseChunk(context, block + start, Int32(end - start), 0)
        continue
      }
      let n = try readBlock()
      if n == 0 {
        finish()
      } else {
        xmlParseChunk(context, block, Int32(n), 0)
      }
    }
    if let failure { throw failure }
  }

  /// Throws what ended the document early, if anything did.
  func checkEnd() throws {
    if let failure { throw failure }
    if let problem {
      throw GeoPipeError.data(
        "malformed XML: \(problem.message)",
        at: SourceLocation(file: name, line: problem.line, column: problem.column),
        problem: .syntax)
    }
  }

  private func finish() {
    finished = true
    xmlParseChunk(context, nil, 0, 1)
  }

  private func readBlock() throws -> Int {
    do {
      let n = try source.read(
        into: UnsafeMutableRawBufferPointer(start: block, count: Self.blockSize))
      bytesRead += n
      return n
    } catch {
      failure = error
      throw error
    }
  }

  /// The parser's place in the input.
  var position: (line: Int, column: Int) {
    guard let input = context?.pointee.input else { return (0, 0) }
    return (Int(input.pointee.line), Int(input.pointee.col))
  }

  private func event(_ kind: XMLStream.Kind, depth: Int32) -> Event {
    let (line, column) = position
    return Event(kind: kind, depth: depth, line: Int32(line), column: Int32(column))
  }

  /// Copies `count` bytes at `pointer` into the arena; their range.
  private func store(_ pointer: UnsafePointer<UInt8>?, count: Int) -> Range<Int> {
    let start = arena.count
    if let pointer, count > 0 {
      arena.append(contentsOf: UnsafeBufferPointer(start: pointer, count: count))
    }
    return start..<arena.count
  }

  func string(_ range: Range<Int>) -> String {
    String(decoding: arena[range], as: UTF8.self)
  }

  func bytes(_ range: Range<Int>) -> ArraySlice<UInt8> { arena[range] }

  func withBytes<R>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>?) throws -> R)
    rethrows -> R
  {
    try arena.withUnsafeBufferPointer { all in
      try body(UnsafeBufferPointer(rebasing: all[range]))
    }
  }

  // MARK: The callbacks' work

  fileprivate func started(
    _ localName: UnsafePointer<UInt8>?, _ count: Int,
    _ attributeFields: UnsafeMutablePointer<UnsafePointer<UInt8>?>?
  ) {
    var node = event(.element, depth: depth)
    node.name = store(
      localName,
      count: localName.map { strlen(UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) } ?? 0
    )
    let first = attributes.count
    if let attributeFields {
      // Five pointers an attribute: local name, prefix, URI, value start, value end.
      for k in 0..<count {
        let local = attributeFields[5 * k]
        let prefix = attributeFields[5 * k + 1]
        let start = arena.count
        if let prefix {
          _ = store(
            prefix, count: strlen(UnsafeRawPointer(prefix).assumingMemoryBound(to: CChar.self)))
          arena.append(UInt8(ascii: ":"))
        }
        _ = store(
          local,
          count: local.map { strlen(UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) } ?? 0
        )
        let qualified = start..<arena.count
        let valueStart = attributeFields[5 * k + 3]
        let valueEnd = attributeFields[5 * k + 4]
        let length = valueStart.flatMap { s in valueEnd.map { $0 - s } } ?? 0
        let value = store(valueStart, count: max(length, 0))
        attributes.append(Attribute(name: qualified, value: value))
      }
    }
    node.attributes = first..<attributes.count
    events.append(node)
    depth += 1
  }

  fileprivate func ended() {
    depth -= 1
    if let last = events.indices.last, events[last].kind == .element,
      events[last].depth == depth, !events[last].isEmpty
    {
      events[last].isEmpty = true
      return
    }
    events.append(event(.endElement, depth: depth))
  }

  fileprivate func text(_ pointer: UnsafePointer<UInt8>?, _ count: Int) {
    guard count > 0 else { return }
    if let last = events.indices.last, events[last].kind == .text,
      events[last].text.upperBound == arena.count
    {
      _ = store(pointer, count: count)
      events[last].text = events[last].text.lowerBound..<arena.count
      return
    }
    var node = event(.text, depth: depth)
    node.text = store(pointer, count: count)
    events.append(node)
  }

  fileprivate func refused(_ entity: String) {
    var node = event(.other, depth: depth)
    node.entity = entity
    events.append(node)
    finished = true
    xmlStopParser(context)
  }

  fileprivate func failed(_ message: String, line: Int, column: Int) {
    guard problem == nil else { return }
    problem = (message, line, column)
  }
}

private func parser(_ context: UnsafeMutableRawPointer?) -> Parser? {
  context.map { Unmanaged<Parser>.fromOpaque($0).takeUnretainedValue() }
}

private func startElement(
  _ context: UnsafeMutableRawPointer?, _ localName: UnsafePointer<UInt8>?,
  _ prefix: UnsafePointer<UInt8>?, _ uri: UnsafePointer<UInt8>?, _ namespaceCount: Int32,
  _ namespaces: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, _ attributeCount: Int32,
  _ defaulted: Int32, _ attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?
) {
  parser(context)?.started(localName, Int(attributeCount), attributes)
}

private func endElement(
  _ context: UnsafeMutableRawPointer?, _ localName: UnsafePointer<UInt8>?,
  _ prefix: UnsafePointer<UInt8>?, _ uri: UnsafePointer<UInt8>?
) {
  parser(context)?.ended()
}

private func characters(
  _ context: UnsafeMutableRawPointer?, _ text: UnsafePointer<UInt8>?, _ length: Int32
) {
  parser(context)?.text(text, Int(length))
}

/// `getEntity`: every entity of the document's own is refused (the predefined ones, `&amp;`
/// and the like, never get here).
private func refuseEntity(
  _ context: UnsafeMutableRawPointer?, _ name: UnsafePointer<UInt8>?
) -> xmlEntityPtr? {
  let entity = name.map { String(cString: $0) } ?? ""
  parser(context)?.refused(entity)
  return nil
}

/// `xmlStructuredErrorFunc`: keeps the first error (warnings are not kept).
private func recordError(_ context: UnsafeMutableRawPointer?, _ error: xmlErrorPtr?) {
  guard let error, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
  var message = error.pointee.message.map { String(cString: $0) } ?? "parse error"
  while message.last?.isWhitespace == true { message.removeLast() }
  parser(context)?.failed(message, line: Int(error.pointee.line), column: Int(error.pointee.int2))
}
