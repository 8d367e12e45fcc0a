import Foundation
import GeoPipeCore
import GeoPipeGeocoding
import GeoPipeStageKit
import GeoPipeStages

/// `geopipe gazetteer build` and `geopipe gazetteer info`.
enum GazetteerCommand {

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
      "boundaries", .path,
      help: "Country polygons in any format geopipe reads (GeoJSON, Shapefile or its .zip, "
        + "GeoPackage, ...): reverse-geocode takes a point's country from the one holding it."),
    OptionSpec(
      "admin1-boundaries", .path,
      help: "Admin1 polygons (states, provinces) in any readable format, for admin1 the same way."),
    OptionSpec(
      "no-boundaries", .flag,
      help: "With --default: leave out the shipped Natural Earth countries (countries then "
        + "come from the nearest place only)."),
    OptionSpec(
      "no-typo-index", .flag,
      help: "Leave out the trigram index behind typo matches: a smaller file built faster "
        + "(for dumps as large as allCountries); geocode and search then find no typos."),
    OptionSpec(
      "default", .flag,
      help: "Build the default gazetteer from the GeoNames files and Natural Earth countries "
        + "shipped with geopipe (share/geopipe beside the binary, Data in a checkout, or "
        + "$GEOPIPE_DATA)."),
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
    --boundaries stores country polygons (--admin1-boundaries: admin1 polygons) in the file,
    as WKB with an SQLite R*Tree of their boxes; reverse-geocode then names the country (and
    admin1 area) whose polygon holds each point, and geocode checks its results against them.
    Each feature's country code is the first two-letter code among ISO_A2, ISO_A2_EH, WB_A2,
    ADM0_A3 (through countryInfo's alpha-3 codes) and country_code (Natural Earth writes -99
    where it has none: France and Norway have their codes in ISO_A2_EH, Kosovo in WB_A2);
    features with none are left out and listed by 'gazetteer info'. Admin1 polygons take
    their code from gn_a1_code, admin1_code or iso_3166_2, and their name from name.
    The default gazetteer has the Natural Earth 1:10m countries (version 5.1.1, public
    domain) shipped in naturalearth/ beside the GeoNames files.
    'gazetteer info [PATH]' prints what a gazetteer holds: counts, sources, build date and
    the attribution GeoNames' licence (CC BY 4.0) requires.
    """

  static let examples = [
    "geopipe gazetteer build --default",
    "geopipe gazetteer build --geonames cities500.txt.gz --admin1 admin1CodesASCII.txt "
      + "--countries countryInfo.txt world.gazetteer",
    "geopipe gazetteer build --no-typo-index --geonames allCountries.txt --admin1 "
      + "admin1CodesASCII.txt --countries countryInfo.txt all.gazetteer",
    "geopipe gazetteer build --geonames cities500.txt.gz --admin1 admin1CodesASCII.txt "
      + "--countries countryInfo.txt --boundaries ne_10m_admin_0_countries.zip "
      + "--admin1-boundaries ne_10m_admin_1_states_provinces.zip world.gazetteer",
    "geopipe gazetteer build --default --no-boundaries nearest-only.gazetteer",
    "geopipe gazetteer info world.gazetteer",
  ]

  static let entry = CommandEntry(
    name: "gazetteer", abstract: abstract, discussion: discussion, examples: examples,
    groups: [("BUILD OPTIONS", buildOptions), ("GLOBAL OPTIONS", Help.globalOptions)],
    actions: [
      .init(name: "build", options: buildOptions), .init(name: "info", options: infoOptions),
    ],
    run: { action, values in
      do {
        return try action == "build" ? build(values) : info(values)
      } catch let error as GeoPipeError {
        CommandEntry.printUsageError(error, command: "gazetteer")
        return error.status.rawValue
      } catch {
        Terminal.printError("error: \(error)")
        return ExitStatus.ioError.rawValue
      }
    })

  /// The folder of the data shipped with geopipe (see `DataDirectory`).
  static func shippedData() throws -> String {
    guard let data = DataDirectory.find() else {
      throw GeoPipeError(
        "cannot find the GeoNames files of the default gazetteer: looked in "
          + DataDirectory.searched + "; set GEOPIPE_DATA to the folder holding geonames/",
        status: .noInput)
    }
    return data
  }

  /// The context for reading boundaries files (their notes on standard error).
  private static func context(_ quiet: Bool) -> StageContext {
    Command.context(quiet: quiet)
  }

  private static func build(_ values: OptionValues) throws -> Int32 {
    let quiet = values.flag("quiet")
    var sources: GazetteerSources
    if values.flag("default") || values.string("geonames") == nil {
      guard values.string("geonames") == nil else {
        throw GeoPipeError.usage("--default reads the shipped GeoNames files; leave out --geonames")
      }
      let data = try shippedData()
      sources = .shipped(in: data + "/geonames")
      if !values.flag("no-boundaries") && values.string("boundaries") == nil {
        let countries = data + "/" + GazetteerSources.shippedCountries
        guard FileManager.default.fileExists(atPath: countries) else {
          throw GeoPipeError(
            "cannot find the Natural Earth countries of the default gazetteer at \(countries); "
              + "restore geopipe's data, or build without them with --no-boundaries",
            status: .noInput)
        }
        sources.boundaries.append(
          BoundaryFile(
            path: countries, level: .country,
            features: try FeatureFile.readAll(countries, context: context(quiet))))
      }
    } else {
      guard !values.flag("no-boundaries") else {
        throw GeoPipeError.usage("--no-boundaries goes with --default")
      }
      sources = GazetteerSources(
        geonames: values.string("geonames") ?? "", admin1: values.string("admin1"),
        countries: values.string("countries"), alternateNames: values.string("alternate-names"))
    }
    for (option, level) in [
      ("boundaries", BoundaryArea.Level.country), ("admin1-boundaries", .admin1),
    ] {
      guard let file = values.string(option) else { continue }
      sources.boundaries.append(
        BoundaryFile(
          path: file, level: level,
          features: try FeatureFile.readAll(file, context: context(quiet))))
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
      Terminal.printError(
        GazetteerBuilder.summary(
          of: meta, path: path, seconds: Date().timeIntervalSince(started)))
    }
    return 0
  }

  private static func info(_ values: OptionValues) throws -> Int32 {
    print(try Gazetteer.description(ofFileAt: values.string("path") ?? Gazetteer.defaultPath))
    return 0
  }
}
