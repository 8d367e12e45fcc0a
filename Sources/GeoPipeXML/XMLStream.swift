internal import CLibXML2
import GeoPipeCore
import GeoPipeIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A forward-only walk over an XML document's nodes: libxml2's `xmlTextReader`, fed from a
/// `ByteSource` through `xmlReaderForIO`, so that standard input and gzip work and memory stays
/// bounded by the deepest element, not the document.
///
/// No network, no DTD loading, no external entities (the external entity loader refuses every
/// request) and no entity substitution: a reference to a declared entity is an error, so
/// neither XXE nor "billion laughs" documents get anywhere.
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
  private let reader: xmlTextReaderPtr
  private let input: Input
  /// How many nodes have been read: lets `forEachChild` tell whether a handler consumed a child.
  private(set) var readCount = 0
  /// The current node's kind.
  private(set) var kind = Kind.other

  /// Opens a stream on `source`, whose messages name `name`.
  init(source: ByteSource, name: String) throws {
    _ = Self.setUp
    // Encoding and I/O errors are also printed through the generic handler, which is kept per
    // thread: silence it here; the structured handler below records them.
    geopipe_xml_silence_generic_errors()
    self.name = name
    input = Input(source)
    let options =
      Int32(XML_PARSE_NONET.rawValue) | Int32(XML_PARSE_NOCDATA.rawValue)
      | Int32(XML_PARSE_COMPACT.rawValue) | Int32(XML_PARSE_NOERROR.rawValue)
      | Int32(XML_PARSE_NOWARNING.rawValue) | Int32(XML_PARSE_HUGE.rawValue)
    // The reader keeps `input` as its context; `self` keeps `input` alive as long as the reader.
    guard
      let reader = xmlReaderForIO(
        readInput, nil, Unmanaged.passUnretained(input).toOpaque(), nil, nil, options)
    else {
      throw GeoPipeError("\(name): cannot start the XML parser", status: .ioError)
    }
    self.reader = reader
    xmlTextReaderSetStructuredErrorHandler(
      reader, recordError, Unmanaged.passUnretained(input).toOpaque())
  }

  deinit {
    xmlFreeTextReader(reader)
  }

  /// Initialises libxml2 once and makes its external entity loader refuse everything.
  private static let setUp: Void = {
    xmlInitParser()
    xmlSetExternalEntityLoader { _, _, _ in nil }
  }()

  /// Decompressed bytes read so far.
  var bytesRead: Int { input.bytesRead }

  /// Moves to the next node; false at the end of the document.
  func read() throws -> Bool {
    readCount &+= 1
    let result = xmlTextReaderRead(reader)
    if result == 1 {
      switch xmlTextReaderNodeType(reader) {
      case Int32(XML_READER_TYPE_ELEMENT.rawValue): kind = .element
      case Int32(XML_READER_TYPE_END_ELEMENT.rawValue): kind = .endElement
      case Int32(XML_READER_TYPE_TEXT.rawValue), Int32(XML_READER_TYPE_CDATA.rawValue),
        Int32(XML_READER_TYPE_WHITESPACE.rawValue),
        Int32(XML_READER_TYPE_SIGNIFICANT_WHITESPACE.rawValue):
        kind = .text
      case Int32(XML_READER_TYPE_ENTITY_REFERENCE.rawValue):
        throw error(
          "the document refers to the entity &\(localName);, which is not expanded (entity "
            + "declarations are refused: they can hide external files or expand without bound)")
      default: kind = .other
      }
      return true
    }
    kind = .other
    if let failure = input.failure { throw failure }
    if result == 0 { return false }
    if let problem = input.problem {
      throw GeoPipeError.data(
        "malformed XML: \(problem.message)",
        at: SourceLocation(file: name, line: problem.line, column: problem.column),
        problem: .syntax)
    }
    throw error("malformed XML")
  }

  /// The current node's depth: the root element is 0.
  var depth: Int { Int(xmlTextReaderDepth(reader)) }

  /// Whether the current element is written `<name/>`: it has no children and no end element.
  var isEmptyElement: Bool { xmlTextReaderIsEmptyElement(reader) == 1 }

  /// The current node's name without its namespace prefix.
  var localName: String {
    guard let name = xmlTextReaderConstLocalName(reader) else { return "" }
    return String(cString: name)
  }

  /// Where the parser is, for messages.
  var location: SourceLocation {
    SourceLocation(
      file: name, line: Int(xmlTextReaderGetParserLineNumber(reader)),
      column: Int(xmlTextReaderGetParserColumnNumber(reader)))
  }

  /// A bad-data error at the parser's position.
  func error(_ message: String, problem: InputProblem = .structure) -> GeoPipeError {
    .data(message, at: location, problem: problem)
  }

  /// The value of the current element's attribute `name` (as written, prefix included).
  func attribute(_ name: String) -> String? {
    guard xmlTextReaderMoveToAttribute(reader, name) == 1 else { return nil }
    defer { xmlTextReaderMoveToElement(reader) }
    guard let value = xmlTextReaderConstValue(reader) else { return "" }
    return String(cString: value)
  }

  /// Calls `body` with the current element's attribute `name` as bytes, or nil without it.
  func withAttribute<R>(_ name: String, _ body: (UnsafeBufferPointer<UInt8>?) throws -> R)
    rethrows -> R
  {
    guard xmlTextReaderMoveToAttribute(reader, name) == 1 else { return try body(nil) }
    defer { xmlTextReaderMoveToElement(reader) }
    guard let value = xmlTextReaderConstValue(reader) else {
      return try body(UnsafeBufferPointer(start: nil, count: 0))
    }
    return try body(UnsafeBufferPointer(start: value, count: strlen(value)))
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
      case .text:
        if let value = xmlTextReaderConstValue(reader) {
          buffer.append(contentsOf: UnsafeBufferPointer(start: value, count: strlen(value)))
        }
      default: break
      }
    }
    throw error("the document ends inside an element")
  }

  /// Appends the current text node's value to `buffer`.
  func appendValue(to buffer: inout [UInt8]) {
    guard let value = xmlTextReaderConstValue(reader) else { return }
    buffer.append(contentsOf: UnsafeBufferPointer(start: value, count: strlen(value)))
  }

  /// The current element's text, or nil when it holds other elements.
  func text() throws -> String? {
    guard try readText(into: &textBuffer) else { return nil }
    return String(decoding: textBuffer, as: UTF8.self)
  }

  /// Reused by `text()`.
  private var textBuffer: [UInt8] = []
}

/// What libxml2's callbacks share with the stream: the byte source, and the first error.
private final class Input {
  let source: ByteSource
  var bytesRead = 0
  /// An error of the byte source (a read error, corrupt gzip), rethrown as it is.
  var failure: Error?
  /// libxml2's first error.
  var problem: (message: String, line: Int, column: Int)?

  init(_ source: ByteSource) {
    self.source = source
  }
}

/// `xmlInputReadCallback`: fills libxml2's buffer from the byte source; -1 on failure.
private func readInput(
  _ context: UnsafeMutableRawPointer?, _ buffer: UnsafeMutablePointer<CChar>?, _ length: Int32
) -> Int32 {
  guard let context, let buffer, length > 0 else { return -1 }
  let input = Unmanaged<Input>.fromOpaque(context).takeUnretainedValue()
  do {
    let n = try input.source.read(
      into: UnsafeMutableRawBufferPointer(start: buffer, count: Int(length)))
    input.bytesRead += n
    return Int32(n)
  } catch {
    input.failure = error
    return -1
  }
}

/// `xmlStructuredErrorFunc`: keeps the first error (warnings are not kept).
private func recordError(_ context: UnsafeMutableRawPointer?, _ error: xmlErrorPtr?) {
  guard let context, let error, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else {
    return
  }
  let input = Unmanaged<Input>.fromOpaque(context).takeUnretainedValue()
  guard input.problem == nil else { return }
  var message = error.pointee.message.map { String(cString: $0) } ?? "parse error"
  while message.last?.isWhitespace == true { message.removeLast() }
  input.problem = (message, Int(error.pointee.line), Int(error.pointee.int2))
}
