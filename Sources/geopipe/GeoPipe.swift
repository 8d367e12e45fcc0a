import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipeStages

@main
enum GeoPipe {
  static func main() {
    signal(SIGPIPE, SIG_IGN)
    installInterruptHandlers()
    let words = Array(CommandLine.arguments.dropFirst())
    exit(run(words))
  }

  static func run(_ words: [String]) -> Int32 {
    guard let first = words.first else {
      Terminal.printError(Help.overview())
      return ExitStatus.usage.rawValue
    }
    switch first {
    case "--help", "-h":
      print(Help.overview(), terminator: "")
      return 0
    case "help":
      if words.count > 1 && words[1] == "--markdown" {
        print(StageReference.markdown(), terminator: "")
        return 0
      }
      if words.count > 1 && words[1] == "--man" {
        let command = words.count > 2 ? words[2] : nil
        guard let page = Manual.page(for: command) else { return unknownCommand(words[2]) }
        print(page, terminator: "")
        return 0
      }
      if words.count > 1 {
        if words[1] == "completions" { return Completions.run(["--help"]) }
        if words[1] == "gazetteer" { return GazetteerCommand(words: ["--help"]).run() }
        if words[1] == "validate" { return ValidateCommand(words: ["--help"]).run() }
        if words[1] == "camera" { return CameraCommand(words: ["--help"]).run() }
        if PipelineCommand.abstracts[words[1]] != nil {
          return PipelineCommand(name: words[1], words: ["--help"]).run()
        }
        guard commandNames.contains(words[1]) else { return unknownCommand(words[1]) }
        return Command(name: words[1], words: ["--help"]).run()
      }
      print(Help.overview(), terminator: "")
      return 0
    case "--version", "version":
      print(Help.version)
      return 0
    default:
      break
    }
    if first == "completions" { return Completions.run(Array(words.dropFirst())) }
    if first == "gazetteer" { return GazetteerCommand(words: Array(words.dropFirst())).run() }
    if first == "validate" { return ValidateCommand(words: Array(words.dropFirst())).run() }
    if first == "camera" { return CameraCommand(words: Array(words.dropFirst())).run() }
    if PipelineCommand.abstracts[first] != nil {
      return PipelineCommand(name: first, words: Array(words.dropFirst())).run()
    }
    guard commandNames.contains(first) else { return unknownCommand(first) }
    return Command(name: first, words: Array(words.dropFirst())).run()
  }

  static let commandNames =
    StageRegistry.all.map(\.name) + [
      "convert", "run", "check", "gazetteer", "validate", "camera", "completions",
    ]

  static func unknownCommand(_ name: String) -> Int32 {
    let hint =
      Suggestions.closest(to: name, among: commandNames).map { "; did you mean '\($0)'?" } ?? ""
    Terminal.printError("error: unknown command '\(name)'\(hint)")
    Terminal.printError("usage: see 'geopipe --help'")
    return ExitStatus.usage.rawValue
  }

  /// Handles the signals that can end a run.
  ///
  /// On SIGINT, SIGTERM or SIGHUP: end a stream of features on standard output with an error
  /// record, remove partial output files, and exit with 128 + the signal's number. On a crash
  /// (SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE, SIGTRAP): write the error record with write(2)
  /// alone, then let the signal take its course.
  static func installInterruptHandlers() {
    let interrupts: [(Int32, String)] = [
      (SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP"),
    ]
    for (signalNumber, name) in interrupts {
      signal(signalNumber, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
      source.setEventHandler {
        SignalRecord.endOutput(interruptedBy: name) {
          TemporaryFiles.removeAll()
          exit(128 + signalNumber)
        }
      }
      source.resume()
      handlers.append(source)
    }
    CrashRecords.install([
      (SIGSEGV, "SIGSEGV"), (SIGBUS, "SIGBUS"), (SIGABRT, "SIGABRT"), (SIGILL, "SIGILL"),
      (SIGFPE, "SIGFPE"), (SIGTRAP, "SIGTRAP"),
    ])
  }

  nonisolated(unsafe) static var handlers: [DispatchSourceSignal] = []
}

/// The records written on a crash, made before any crash can happen, and the actions the
/// signals had before (the Swift runtime's backtracer, or the default).
private enum CrashRecords {
  static let slots = 65
  /// Per signal number: the record's bytes and length, and the previous action.
  nonisolated(unsafe) static let records = UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>
    .allocate(capacity: slots)
  nonisolated(unsafe) static let lengths = UnsafeMutablePointer<Int>.allocate(capacity: slots)
  nonisolated(unsafe) static let previous = UnsafeMutablePointer<sigaction>.allocate(
    capacity: slots)

  static func install(_ signals: [(Int32, String)]) {
    records.initialize(repeating: nil, count: slots)
    lengths.initialize(repeating: 0, count: slots)
    previous.initialize(repeating: sigaction(), count: slots)
    _ = SignalRecord.isArmed
    // A crash signal blocked by the parent (the mask is inherited) would never reach us.
    var unblocked = sigset_t()
    sigemptyset(&unblocked)
    for (number, _) in signals { sigaddset(&unblocked, number) }
    pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
    for (number, name) in signals where number > 0 && Int(number) < slots {
      let bytes = SignalRecord.record(for: name, crashed: true)
      let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
      copy.initialize(from: bytes, count: bytes.count)
      records[Int(number)] = copy
      lengths[Int(number)] = bytes.count
      var action = sigaction()
      action.__sigaction_handler.sa_handler = crashHandler
      action.sa_flags = Int32(SA_ONSTACK)
      sigemptyset(&action.sa_mask)
      sigaction(number, &action, previous + Int(number))
    }
  }
}

/// Writes the record (write(2) only: nothing else is safe after a crash), puts back the
/// previous action and raises the signal again, which that action then handles when this
/// handler returns.
private func crashHandler(_ number: Int32) {
  let slot = Int(number)
  if slot > 0 && slot < CrashRecords.slots, SignalRecord.isArmed,
    let record = CrashRecords.records[slot]
  {
    _ = write(1, record, CrashRecords.lengths[slot])
  }
  if slot > 0 && slot < CrashRecords.slots {
    sigaction(number, CrashRecords.previous + slot, nil)
  } else {
    signal(number, SIG_DFL)
  }
  raise(number)
}
