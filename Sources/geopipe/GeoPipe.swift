import Foundation
import GeoPipeCore
import GeoPipeIO
import GeoPipePipeline
import GeoPipeStageKit
import GeoPipeStages

@main
enum GeoPipe {
  static func main() {
    signal(SIGPIPE, SIG_IGN)
    installInterruptHandlers()
    SettingsFile.installYAML()
    let words = Array(CommandLine.arguments.dropFirst())
    exit(CommandTable.run(words))
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
