// swift-tools-version: 6.1

import PackageDescription

// The same cases as `swift run bench`, in ordo-one/package-benchmark: `swift package benchmark`
// from this directory. A nested package, as in apple/swift-nio, so that the root package and its
// users never build package-benchmark.

// A path dependency's identity is its directory's name: whatever the clone is called.
let root = Context.packageDirectory.split(separator: "/").dropLast().last.map(String.init) ?? "PKCEBench"

let package = Package(
    name: "PKCEBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: "../"),
        // The trait keeps the malloc counters and leaves out the Swift 6.3 runtime interposer,
        // which is not available offline.
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "PKCEBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "PKCEBackends", package: root),
                // The core alone, not PKCEBenchKit, whose malloc would stand in front of
                // package-benchmark's.
                .product(name: "PKCEBenchCore", package: root),
            ],
            path: "PKCEBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ],
    swiftLanguageModes: [.v6]
)
