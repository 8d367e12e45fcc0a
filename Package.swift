// swift-tools-version:6.2
import Foundation
import PackageDescription

let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]
// The parsers and writers access class state in their inner loops; release builds skip the
// run-time exclusivity checks there (debug builds and tests keep them).
let fast: [SwiftSetting] =
  strict + [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

var targets: [Target] = [
  .systemLibrary(
    name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
    providers: [.apt(["zlib1g-dev"])]),
  .systemLibrary(
    name: "CPROJ", path: "Sources/CPROJ", pkgConfig: "proj",
    providers: [.apt(["libproj-dev"])]),
  .systemLibrary(
    name: "CYAML", path: "Sources/CYAML", pkgConfig: "yaml-0.1",
    providers: [.apt(["libyaml-dev"])]),
  .systemLibrary(
    name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
    providers: [.apt(["libsqlite3-dev"])]),
  .target(name: "GeoPipeCore", swiftSettings: fast),
  .target(name: "GeoPipeSQLite", dependencies: ["CSQLite"], swiftSettings: strict),
  .target(
    name: "GeoPipeGeocoding", dependencies: ["GeoPipeCore", "GeoPipeIO", "GeoPipeSQLite"],
    swiftSettings: fast),
  .target(name: "GeoPipeIO", dependencies: ["GeoPipeCore", "CZlib"], swiftSettings: fast),
  .target(name: "GeoPipeSpatialIndex", swiftSettings: fast),
  .target(name: "GeoPipeMercator", swiftSettings: fast),
  .target(
    name: "GeoPipeTiles",
    dependencies: ["GeoPipeCore", "GeoPipeIO", "GeoPipeMercator", "GeoPipeSQLite", "CZlib"],
    swiftSettings: fast),
  .target(
    name: "GeoPipeClustering", dependencies: ["GeoPipeSpatialIndex"], swiftSettings: fast),
  .target(name: "GeoPipeGeometry", dependencies: ["GeoPipeCore", "CPROJ"], swiftSettings: strict),
  .target(
    name: "GeoPipeStages",
    dependencies: [
      "GeoPipeCore", "GeoPipeIO", "GeoPipeGeometry", "GeoPipeClustering", "GeoPipeGeocoding",
      "GeoPipeTiles",
    ],
    swiftSettings: fast),
  .target(
    name: "GeoPipePipeline", dependencies: ["GeoPipeCore", "GeoPipeIO", "GeoPipeStages", "CYAML"],
    swiftSettings: strict),
  // jemalloc replaces the C allocator: features are built on one thread and freed on another,
  // a pattern glibc's malloc handles slowly.
  .executableTarget(
    name: "geopipe", dependencies: ["GeoPipeStages", "GeoPipePipeline", "GeoPipeMercator"],
    swiftSettings: strict,
    linkerSettings: [.linkedLibrary("jemalloc")]),
  .testTarget(name: "GeoPipeCoreTests", dependencies: ["GeoPipeCore"], swiftSettings: strict),
  .testTarget(
    name: "GeoPipeIOTests", dependencies: ["GeoPipeIO"], swiftSettings: strict),
  .testTarget(
    name: "GeoPipeStagesTests", dependencies: ["GeoPipeStages", "GeoPipeClustering"],
    swiftSettings: strict),
  .testTarget(
    name: "GeoPipeClusteringTests", dependencies: ["GeoPipeClustering", "GeoPipeIO"],
    swiftSettings: strict),
  .testTarget(
    name: "GeoPipeGeocodingTests", dependencies: ["GeoPipeGeocoding"], swiftSettings: strict),
  .testTarget(
    name: "GeoPipePipelineTests", dependencies: ["GeoPipePipeline"], swiftSettings: strict),
  .testTarget(
    name: "GeoPipeMercatorTests", dependencies: ["GeoPipeMercator"], swiftSettings: strict),
  .testTarget(
    name: "GeoPipeTilesTests",
    dependencies: ["GeoPipeTiles", "GeoPipeSQLite", "GeoPipeIO", "GeoPipeCore", "GeoPipeMercator"],
    swiftSettings: strict),
  .testTarget(name: "CLITests", dependencies: ["geopipe"], swiftSettings: strict),
]

var products: [Product] = [
  .executable(name: "geopipe", targets: ["geopipe"]),
  .library(name: "GeoPipe", targets: ["GeoPipeCore", "GeoPipeIO", "GeoPipeStages", "GeoPipePipeline"]),
]

// libFuzzer targets are built only by `make fuzz`, which sets GEOPIPE_FUZZ=1: they have no
// `main` of their own and link only with `--sanitize fuzzer`.
if ProcessInfo.processInfo.environment["GEOPIPE_FUZZ"] != nil {
  for name in ["FuzzGeoJSON", "FuzzCSV", "FuzzWKT", "FuzzPipeline"] {
    let dependency: Target.Dependency = name == "FuzzPipeline" ? "GeoPipePipeline" : "GeoPipeIO"
    targets.append(.executableTarget(name: name, dependencies: [dependency], path: "Fuzz/\(name)"))
    products.append(.executable(name: name, targets: [name]))
  }
}

// Benchmark harnesses are built only by `make bench`, which sets GEOPIPE_BENCH=1.
if ProcessInfo.processInfo.environment["GEOPIPE_BENCH"] != nil {
  targets.append(
    .executableTarget(
      name: "ClusterBench", dependencies: ["GeoPipeClustering", "GeoPipeIO"],
      path: "bench/ClusterBench", swiftSettings: strict))
  products.append(.executable(name: "ClusterBench", targets: ["ClusterBench"]))
}

let package = Package(
  name: "geopipe",
  platforms: [.macOS(.v14)],
  products: products,
  targets: targets
)
