import Foundation
import Testing

/// What an installed geopipe relies on: shell completions and man pages generated from the
/// command table, and the shipped data found beside the binary rather than in the checkout.
@Suite struct InstallTests {
  /// Runs `script` in bash with the bash completion loaded.
  private func bashCompletion(_ script: String) throws -> Run {
    let completion = try geopipe(["completions", "bash"])
    #expect(completion.status == 0)
    return try withTemporaryDirectory { folder in
      let file = folder.appendingPathComponent("geopipe.bash")
      try completion.out.write(to: file, atomically: true, encoding: .utf8)
      return try runProcess(
        URL(fileURLWithPath: "/bin/bash"), ["-c", "source '\(file.path)'\n" + script],
        stdin: nil, in: folder)
    }
  }

  @Test func bashCompletionLoadsAndCompletesCommandsOptionsAndChoices() throws {
    let loaded = try bashCompletion("complete -p geopipe")
    #expect(loaded.status == 0, "\(loaded)")
    #expect(loaded.out == "complete -o filenames -F _geopipe geopipe\n")
    let commands = try bashCompletion(
      "COMP_WORDS=(geopipe re); COMP_CWORD=1; _geopipe; echo \"${COMPREPLY[*]}\"")
    #expect(commands.out == "read rename-layer reproject reverse-geocode render\n")
    let options = try bashCompletion(
      "COMP_WORDS=(geopipe simplify --tol); COMP_CWORD=2; _geopipe; echo \"${COMPREPLY[*]}\"")
    #expect(options.out == "--tolerance\n")
    let choices = try bashCompletion(
      "COMP_WORDS=(geopipe read --input-format ''); COMP_CWORD=3; _geopipe; "
        + "echo \"${COMPREPLY[*]}\"")
    #expect(
      choices.out == "auto geojson geojsonseq csv kml gpkg shapefile gpx flatgeobuf parquet\n")
    let actions = try bashCompletion(
      "COMP_WORDS=(geopipe gazetteer ''); COMP_CWORD=2; _geopipe; echo \"${COMPREPLY[*]}\"")
    #expect(actions.out == "build info\n")
    // `tiles` takes an action or, as the stage, the tileset to write.
    let actionsOrFiles = try bashCompletion(
      "touch world.pmtiles; COMP_WORDS=(geopipe tiles ''); COMP_CWORD=2; _geopipe; "
        + "echo \"${COMPREPLY[*]}\"")
    #expect(actionsOrFiles.out.hasPrefix("info decode join "), "\(actionsOrFiles)")
    #expect(actionsOrFiles.out.contains("world.pmtiles"), "\(actionsOrFiles)")
  }

  @Test func zshAndFishCompletionsCoverEveryCommand() throws {
    let overview = try geopipe(["--help"]).out
    let commands = overview.components(separatedBy: "COMMANDS:\n")[1]
      .components(separatedBy: "\n\n")[0].split(separator: "\n")
      .compactMap { $0.split(separator: " ").first.map(String.init) }
    #expect(commands.contains("completions"))
    let zsh = try geopipe(["completions", "zsh"])
    #expect(zsh.status == 0)
    #expect(zsh.out.hasPrefix("#compdef geopipe\n"))
    let fish = try geopipe(["completions", "fish"])
    #expect(fish.status == 0)
    for command in commands {
      #expect(zsh.out.contains("\n    \(command))\n"), "zsh: \(command)")
      #expect(
        fish.out.contains("-n __fish_use_subcommand -a \(command) -d '"), "fish: \(command)")
    }
    #expect(zsh.out.contains("'--input-format[The input format"))
    #expect(
      zsh.out.contains(
        ":input-format:(auto geojson geojsonseq csv kml gpkg shapefile gpx flatgeobuf parquet)'"))
    #expect(
      fish.out.contains(
        "complete -c geopipe -n '__fish_seen_subcommand_from filter' -l where -x -d 'Keep"))
  }

  @Test func completionsRejectAnUnknownShell() throws {
    let run = try geopipe(["completions", "tcsh"])
    #expect(run.status == 64)
    #expect(run.out.isEmpty)
    #expect(run.err.contains("error: unknown shell 'tcsh'; give one shell: bash, zsh or fish"))
    #expect(try geopipe(["completions"]).status == 64)
  }

  @Test func manPagesComeFromTheHelp() throws {
    let read = try geopipe(["help", "--man", "read"])
    #expect(read.status == 0)
    #expect(read.out.hasPrefix(".TH GEOPIPE-READ 1 \"\" \"geopipe "))
    #expect(read.out.contains("\n.SH NAME\ngeopipe\\-read \\- Read GeoJSON"))
    #expect(read.out.contains("\n.SH OPTIONS\n"))
    #expect(
      read.out.contains(
        "\n.TP\n.B \\-\\-input\\-format <auto|geojson|geojsonseq|csv|kml|gpkg|shapefile|gpx|flatgeobuf|parquet>\n"
      ))
    #expect(read.out.contains("\n.SH EXAMPLES\n"))
    #expect(!read.out.contains("\n.  "), "no line may start with a roff control character")
    let overview = try geopipe(["help", "--man"])
    #expect(overview.status == 0)
    #expect(overview.out.hasPrefix(".TH GEOPIPE 1 "))
    #expect(overview.out.contains("\n.TP\n.BR geopipe\\-gazetteer (1)\n"))
    let ascii = overview.out.unicodeScalars.allSatisfy { $0.isASCII }
    #expect(ascii)
    let unknown = try geopipe(["help", "--man", "nosuch"])
    #expect(unknown.status == 64)
    #expect(unknown.err.contains("error: unknown command 'nosuch'"))
  }

  @Test func manPagesRenderWithoutWarnings() throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/groff") else { return }
    for command in ["gazetteer", "validate", "convert", "completions"] {
      let page = try geopipe(["help", "--man", command])
      let render = try runProcess(
        URL(fileURLWithPath: "/usr/bin/groff"), ["-man", "-Tutf8", "-ww", "-z"],
        stdin: Data(page.out.utf8), in: nil)
      #expect(render.status == 0)
      #expect(!render.err.contains("invalid input character"), "\(command): \(render.err)")
      #expect(!render.err.contains("not defined"), "\(command): \(render.err)")
    }
  }

  /// A copy of the binary in PREFIX/bin with the GeoNames files and the Natural Earth
  /// countries in PREFIX/share/geopipe.
  @Test func anInstalledBinaryFindsItsDataBesideItself() throws {
    let binary = try CLI.requireBinary()
    try withTemporaryDirectory { folder in
      let manager = FileManager.default
      let bin = folder.appendingPathComponent("prefix/bin")
      let geonames = folder.appendingPathComponent("prefix/share/geopipe/geonames")
      try manager.createDirectory(at: bin, withIntermediateDirectories: true)
      try manager.createDirectory(at: geonames, withIntermediateDirectories: true)
      let copy = bin.appendingPathComponent("geopipe")
      try manager.copyItem(at: binary, to: copy)
      for file in ["cities15000.txt.gz", "admin1CodesASCII.txt.gz", "countryInfo.txt.gz"] {
        try manager.copyItem(
          at: CLI.root.appendingPathComponent("Data/geonames/\(file)"),
          to: geonames.appendingPathComponent(file))
      }
      let home = folder.appendingPathComponent("data-home")
      let environment = ["GEOPIPE_DATA": "", "GEOPIPE_GAZETTEER": "", "XDG_DATA_HOME": home.path]
      let arguments = ["gazetteer", "build", "--default", "--no-typo-index", "-q"]
      // Without the countries the default build says what is missing, and writes nothing.
      let missing = try runProcess(
        copy, arguments, stdin: nil, in: folder, environment: environment)
      #expect(missing.status == 66, "\(missing)")
      #expect(missing.err.contains("cannot find the Natural Earth countries"), "\(missing)")
      #expect(!manager.fileExists(atPath: home.path + "/geopipe/gazetteer.sqlite"))
      let naturalEarth = folder.appendingPathComponent("prefix/share/geopipe/naturalearth")
      try manager.createDirectory(at: naturalEarth, withIntermediateDirectories: true)
      try manager.copyItem(
        at: CLI.root.appendingPathComponent(
          "Data/naturalearth/ne_10m_admin_0_countries.geojsonl.gz"),
        to: naturalEarth.appendingPathComponent("ne_10m_admin_0_countries.geojsonl.gz"))
      let run = try runProcess(copy, arguments, stdin: nil, in: folder, environment: environment)
      #expect(run.status == 0, "\(run)")
      #expect(manager.fileExists(atPath: home.path + "/geopipe/gazetteer.sqlite"))
      let info = try runProcess(
        copy, ["gazetteer", "info"], stdin: nil, in: folder, environment: environment)
      #expect(info.out.contains("country_areas: 244"), "\(info)")
    }
  }

  @Test func aBinaryWithoutDataSaysWhereItLooked() throws {
    let binary = try CLI.requireBinary()
    try withTemporaryDirectory { folder in
      let copy = folder.appendingPathComponent("geopipe")
      try FileManager.default.copyItem(at: binary, to: copy)
      let run = try runProcess(
        copy, ["gazetteer", "build", "--default"], stdin: nil, in: folder,
        environment: [
          "GEOPIPE_DATA": "", "GEOPIPE_GAZETTEER": folder.path + "/out.sqlite",
        ])
      #expect(run.status == 66)
      #expect(run.err.contains("error: cannot find the GeoNames files of the default gazetteer"))
      #expect(run.err.contains("set GEOPIPE_DATA"))
      #expect(!FileManager.default.fileExists(atPath: folder.path + "/out.sqlite"))
    }
  }
}
