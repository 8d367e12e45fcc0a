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
      if words.count > 1 {
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
    StageRegistry.all.map(\.name) + ["convert", "run", "check", "gazetteer", "validate", "camera"]

  static func unknownCommand(_ name: String) -> Int32 {
    let hint =
      Suggestions.closest(to: name, among: commandNames).map { "; did you mean '\($0)'?" } ?? ""
    Terminal.printError("error: unknown command '\(name)'\(hint)")
    Terminal.printError("usage: see 'geopipe --help'")
    return ExitStatus.usage.rawValue
  }

  /// On SIGINT or SIGTERM, remove partial output files before exiting.
  static func installInterruptHandlers() {
    for signalNumber in [SIGINT, SIGTERM] {
      signal(signalNumber, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
      source.setEventHandler {
        TemporaryFiles.removeAll()
        exit(128 + signalNumber)
      }
      source.resume()
      handlers.append(source)
    }
  }

  nonisolated(unsafe) static var handlers: [DispatchSourceSignal] = []
}
