// swift-tools-version:6.1
import PackageDescription

// A package of a user's own, outside PKCEBench, that measures its backend with the whole bench
// command line. A copy of yours names PKCEBench by its URL and a version; the test that builds
// this one (Tests/BenchTests/OwnBackendPackageTests.swift) copies it beside a link, named
// PKCEBench, to the checkout under test.
let package = Package(
    name: "OwnBackend",
    dependencies: [
        .package(path: "../PKCEBench")
    ],
    targets: [
        .executableTarget(
            name: "ownbench",
            dependencies: [
                // The one product a bench of your own needs: it re-exports PKCE.
                .product(name: "PKCEBenchKit", package: "PKCEBench")
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
