import Foundation
import GeoPipeCore
import GeoPipeGeocoding
import GeoPipeStages

/// `geopipe gazetteer build` and `geopipe gazetteer info`.
struct GazetteerCommand {
  let words: [String]

  static let abstract = "Build a local gazetteer from GeoNames dumps, or describe one."

  static let buildOptions: [OptionSpec] = [
    OptionSpec(
      "path", .path, positional: true,
      help: "The gazetteer file to write (replaced atomically when the build succeeds)."),
    OptionSpec(
      "geonames", .path,
      help: "A geoname-table file: cities15000.txt, cities500.txt, allCountries.txt (or .gz)."),
    OptionSpec("admin1", .path, help: "admin1CodesASCII.txt (or .gz)."),
    OptionSpec("countries", .path, help: "countryInfo.txt (or .gz)."),
    OptionSpec("alternate-names", .path, help: "alternateNamesV2.txt (optional; or .gz)."),
    OptionSpec(
      "no-typo-index", .flag,
      help: "Leave out the trigram index behind typo matches: a smaller file built faster "
        + "(for dumps as large as allCountries); geocode and search then find no typos."),
    OptionSpec(
      "default", .flag,
      help: "Build the default gazetteer from the GeoNames files shipped with geopipe "
        + "(share/geopipe/geonames beside the binary, Data/geonames in a checkout, or "
        + "$GEOPIPE_DATA/geonames)."),
  ]

  static let infoOptions: [OptionSpec] = [
    OptionSpec(
      "path", .path, positional: true, help: "The gazetteer file (default: the default one).")
  ]

  static let discussion = """
    'gazetteer build' reads GeoNames dumps into one SQLite file: places, admin1 areas and
    countries with their names (primary, ASCII and alternate, folded for matching: no
    diacritics, ø→o, ß→ss, lowercase) and the full-text and trigram indexes behind geocode and
    search. The file is written beside PATH and renamed over it only
    when complete, so a failed or interrupted build leaves the previous gazetteer intact.
    Without PATH (or with --default) it writes the default gazetteer that geocode,
    reverse-geocode and search use when no --gazetteer is given: $GEOPIPE_GAZETTEER, else
    ~/.local/share/geopipe/gazetteer.sqlite. From cities500 (235k places, 1.1M names) a
    build takes about 15-20 s on 2 cores and writes 140 MB; --no-typo-index leaves out the
    trigram index (about a tenth of the file and of the time).
    'gazetteer info [PATH]' prints what a gazetteer holds: counts, sources, build date and
    the attribution GeoNames' licence (CC BY 4.0) requires.
    """

  static let examples = [
    "geopipe gazetteer build --default",
    "geopipe gazetteer build --geonames cities500.txt.gz --admin1 admin1CodesASCII.txt "
      + "--countries countryInfo.txt world.gazetteer",
    "geopipe gazetteer build --no-typo-index --geonames allCountries.txt --admin1 "
      + "admin1CodesASCII.txt --countries countryInfo.txt all.gazetteer",
    "geopipe gazetteer info world.gazetteer",
  ]

  func help() -> String {
    Help.command(
      name: "gazetteer build|info", abstract: Self.abstract, discussion: Self.discussion,
      examples: Self.examples,
      groups: [
        ("BUILD OPTIONS", Self.buildOptions), ("GLOBAL OPTIONS", Help.globalOptions),
      ])
  }

  /// The folder of the GeoNames files shipped with geopipe (see `DataDirectory`).
  static func shippedData() throws -> String {
    guard let data = DataDirectory.find() else {
      throw GeoPipeError(
        "cannot find the GeoNames files of the default gazetteer: looked in "
          + DataDirectory.searched + "; set GEOPIPE_DATA to the folder holding geonames/",
        status: .noInput)
    }
    return data + "/geonames"
  }

  func run() -> Int32 {
    guard let action = words.first, ["build", "info"].contains(action) else {
      if words.contains("--help") || words.contains("-h") || words.isEmpty {
        print(help(), terminator: "")
        return words.isEmpty ? ExitStatus.usage.rawValue : 0
      }
      Terminal.printError("error: unknown gazetteer action '\(words[0])'; use build or info")
      return ExitStatus.usage.rawValue
    }
    if words.contains("--help") || words.contains("-h") {
      print(help(), terminator: "")
      return 0
    }
    do {
      let options = (action == "build" ? Self.buildOptions : Self.infoOptions) + Help.globalOptions
      let values = try ArgumentParser(options: options).parse(
        Array(words.dropFirst()).map { $0 == "-q" ? "--quiet" : $0 })
      return try action == "build" ? build(values) : info(values)
    } catch let error as GeoPipeError {
      Terminal.printError(error.description)
      if error.status == .usage { Terminal.printError("usage: see 'geopipe gazetteer --help'") }
      return error.status.rawValue
    } catch {
      Terminal.printError("error: \(error)")
      return ExitStatus.ioError.rawValue
    }
  }

  private func build(_ values: OptionValues) throws -> Int32 {
    let quiet = values.flag("quiet")
    var sources: GazetteerSources
    if values.flag("default") || values.string("geonames") == nil {
      guard values.string("geonames") == nil else {
        throw GeoPipeError.usage("--default reads the shipped GeoNames files; leave out --geonames")
      }
      let data = try Self.shippedData()
      sources = GazetteerSources(
        geonames: data + "/cities15000.txt.gz", admin1: data + "/admin1CodesASCII.txt.gz",
        countries: data + "/countryInfo.txt.gz")
    } else {
      sources = GazetteerSources(
        geonames: values.string("geonames") ?? "", admin1: values.string("admin1"),
        countries: values.string("countries"), alternateNames: values.string("alternate-names"))
    }
    let path = values.string("path") ?? Gazetteer.defaultPath
    if values.string("path") == nil {
      try? FileManager.default.createDirectory(
        atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path,
        withIntermediateDirectories: true)
    }
    let showProgress = !quiet && (values.flag("progress") || Terminal.stderrIsTerminal)
    let started = Date()
    let meta = try GazetteerBuilder.build(
      sources, to: path, typoIndex: !values.flag("no-typo-index")
    ) { message in
      if showProgress { Terminal.printError("gazetteer: \(message)") }
    }
    if !quiet {
      let seconds = String(format: "%.1f", Date().timeIntervalSince(started))
      Terminal.printError(
        "wrote \(path): \(meta["places"] ?? "0") places, \(meta["admin1"] ?? "0") admin1 areas, "
          + "\(meta["countries"] ?? "0") countries, \(meta["names"] ?? "0") names in \(seconds) s")
    }
    return 0
  }

  private func info(_ values: OptionValues) throws -> Int32 {
    let path = values.string("path") ?? Gazetteer.defaultPath
    let gazetteer = try Gazetteer(path: path)
    var lines = ["gazetteer: \(path)"]
    for (key, value) in try gazetteer.metadata() where key != "attribution" {
      lines.append("\(key): \(value)")
    }
    lines.append(Gazetteer.attribution)
    print(lines.joined(separator: "\n"))
    return 0
  }
}
