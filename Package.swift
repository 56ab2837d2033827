// swift-tools-version:6.2
import PackageDescription

// MARK: - The instruction sets of the SHA-256 paths

/// The compiler flags that let PKCESHAExtensions use the x86 SHA instructions (and SSSE3's byte
/// shuffle), set on an x86-64 machine: there is no per-architecture setting, so a build for
/// another architecture there (an Intel Mac building for iOS) gets them too. They are clang's
/// `-target-feature`, which such a build ignores with a warning, where `-msha` would stop it.
/// Elsewhere the module is compiled without them and holds no SHA path: the code asks
/// `canImport(CPKCESystem.SHAExtensions)`, so an x86-64 slice built on an Arm Mac compiles too, with
/// the portable path only. Unsafe flags need swift-tools-version 6.2 in a package used as a
/// versioned dependency.
#if arch(x86_64)
let shaExtensionFlags = targetFeatures("+sha", "+ssse3")
/// The flags of PKCESHAAVX2, the same way: AVX2, and BMI1's `andn` and BMI2's `rorx` for the rounds;
/// and LLVM's machine scheduler off, so that each round's instructions stay in the order the
/// source writes them, which is OpenSSL's (Performance.md, "Pure-Swift SHA-256 on AVX2").
let avx2Flags = targetFeatures("+avx2", "+bmi", "+bmi2") + ["-Xllvm", "-enable-misched=false"]
#else
let shaExtensionFlags: [String] = []
let avx2Flags: [String] = []
#endif

/// The Swift compiler's flags that pass clang's `-target-feature` for each of `features`.
func targetFeatures(_ features: String...) -> [String] {
    features.flatMap { ["-Xcc", "-Xclang", "-Xcc", "-target-feature", "-Xcc", "-Xclang", "-Xcc", $0] }
}

let package = Package(
    name: "PKCEBench",
    // The library products build for Apple platforms by construction; only Linux is built and
    // tested here (Sources/PKCE/PKCE.docc/GettingStarted.md says which is which). The harness
    // measures on Linux.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "PKCE", targets: ["PKCE"]),
        .library(name: "PKCEOpenSSL", targets: ["PKCEOpenSSL"]),
        .library(name: "PKCESodium", targets: ["PKCESodium"]),
        .library(name: "PKCECrypto", targets: ["PKCECrypto"]),
        .library(name: "PKCEBackends", targets: ["PKCEBackends"]),
        // The harness, for a package's own benchmark executable: `import PKCEBenchKit`, then
        // `await Bench.main(backends: …)`. It links the malloc interposer that counts allocations.
        .library(name: "PKCEBenchKit", targets: ["PKCEBenchKit"]),
        // The harness's core without the command line, the reports and the malloc interposer, for a
        // program with a main and an allocation counter of its own, as Benchmarks/'s
        // package-benchmark suite has.
        .library(name: "PKCEBenchCore", targets: ["PKCEBenchCore"]),
        .executable(name: "bench", targets: ["bench"]),
        // Records the commit a benchmark executable is built from, for `Bench.main(backends:buildCommit:)`.
        .plugin(name: "PKCEBenchBuildCommit", targets: ["PKCEBenchBuildCommit"]),
    ],
    // A history kept in PostgreSQL (`--store`), for a fleet of machines: off by default, so that a
    // build without it resolves and compiles no SwiftNIO.
    traits: [
        .trait(name: "PostgreSQL", description: "bench keeps its history in PostgreSQL with --store (postgres-nio)")
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // `swift package generate-documentation`: builds the DocC catalogs (CI, with warnings as errors).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // MARK: - C libraries

        // The PKCE module's calls into the C library, portable to Linux and Apple platforms:
        // getentropy(3), a wipe the compiler cannot remove, and the SIMD width the compiler targets;
        // XGETBV; and CPKCESystem.SHAExtensions and CPKCESystem.AVX2, which import only where
        // the compiler may emit those instructions.
        .systemLibrary(name: "CPKCESystem"),
        // The harness's: CPU affinity (Linux only), what the compiler targets, CPUID.
        .systemLibrary(name: "CPKCEHarness"),
        .systemLibrary(
            name: "CPKCEOpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"]), .yum(["openssl-devel"])]
        ),
        .systemLibrary(
            name: "CPKCESodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"]), .brew(["libsodium"]), .yum(["libsodium-devel"])]
        ),

        // MARK: - The library and its backends

        // SHA-256's compression function on the CPU's SHA instructions, in Swift through the
        // compiler's intrinsics. Only this module is compiled for them (`shaExtensionFlags`), and PKCE
        // calls it only after CPUID has found them, so nothing else is compiled for a CPU the program
        // may not run on.
        .target(
            name: "PKCESHAExtensions", dependencies: ["CPKCESystem"],
            swiftSettings: [.unsafeFlags(shaExtensionFlags)]),
        // The same for CPUs without them: the message schedule of two blocks at once in AVX2's
        // 256-bit registers, the rounds with BMI1 and BMI2, entered after CPUID and XGETBV.
        .target(
            name: "PKCESHAAVX2", dependencies: ["CPKCESystem"],
            swiftSettings: [.unsafeFlags(avx2Flags)]),
        .target(name: "PKCE", dependencies: ["CPKCESystem", "PKCESHAExtensions", "PKCESHAAVX2"]),
        .target(name: "PKCEOpenSSL", dependencies: ["PKCE", "CPKCEOpenSSL"]),
        .target(name: "PKCESodium", dependencies: ["PKCE", "CPKCESodium"]),
        .target(name: "PKCECrypto", dependencies: ["PKCE", .product(name: "Crypto", package: "swift-crypto")]),
        .target(name: "PKCEBackends", dependencies: ["PKCE", "PKCEOpenSSL", "PKCESodium", "PKCECrypto"]),

        // MARK: - The benchmark

        // The harness's core: cases, sampling, workers, statistics, comparison, over typed results.
        // It takes its backends and its allocation counter from the caller, so it links no C
        // library, and it never imports the reports.
        .target(name: "PKCEBenchCore", dependencies: ["PKCE", "CPKCEHarness"]),
        // The reports at the edge: CSV files, JSON, HTML, SVG, Markdown, exports, and the results
        // directory that stores them. It depends on the core; nothing in the core depends on it.
        // With the PostgreSQL trait, also the store of the history in PostgreSQL.
        .target(
            name: "PKCEBenchReports",
            dependencies: [
                "PKCEBenchCore", "PKCE",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["PostgreSQL"])),
            ]),
        // Counts allocations per thread by defining malloc and its kin in the executable that links
        // it: a benchmark executable, through PKCEBenchKit, and the tests; never a product that a
        // user of PKCE links, so no app gets an interposed malloc, nor PKCEBenchCore, whose
        // users may count allocations their own way.
        .target(name: "CPKCEMallocCounter"),
        // The bench command line as a library: `Bench.main(backends:)`, for this package's bench
        // and for a package's own executable with its own backends. Named as the product its users
        // depend on, and re-exports PKCE, so that `import PKCEBenchKit` is all a main.swift needs.
        .target(
            name: "PKCEBenchKit",
            dependencies: [
                "PKCE", "PKCEBenchCore", "PKCEBenchReports", "CPKCEMallocCounter",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "bench", dependencies: ["PKCEBenchKit", "PKCEBackends"], plugins: ["PKCEBenchBuildCommit"]),
        .plugin(name: "PKCEBenchBuildCommit", capability: .buildTool(), path: "Plugins/PKCEBenchBuildCommit"),

        // MARK: - Tests

        .testTarget(name: "PKCETests", dependencies: ["PKCE"]),
        .testTarget(
            name: "PKCEBackendsTests",
            dependencies: ["PKCE", "PKCEBackends", "CPKCEOpenSSL"],
            resources: [.copy("Vectors")]
        ),
        .target(
            name: "PKCEBenchTestSupport", dependencies: ["PKCEBenchCore", "PKCE"], path: "Tests/PKCEBenchTestSupport"),
        .target(
            name: "PKCEBenchReportsTestSupport",
            dependencies: ["PKCEBenchCore", "PKCEBenchReports", "PKCEBenchTestSupport"],
            path: "Tests/PKCEBenchReportsTestSupport"),
        .testTarget(
            name: "PKCEBenchCoreTests",
            dependencies: ["PKCEBenchCore", "PKCE", "PKCEBenchTestSupport"],
            resources: [.copy("Reference")]
        ),
        .testTarget(
            name: "PKCEBenchReportsTests",
            dependencies: [
                "PKCEBenchCore", "PKCEBenchReports", "PKCE", "PKCEBenchTestSupport", "PKCEBenchReportsTestSupport",
            ]),
        .testTarget(
            name: "BenchTests",
            dependencies: [
                "PKCEBenchCore", "PKCEBenchReports", "PKCEBenchKit", "PKCEBackends", "PKCEBenchTestSupport",
                "PKCEBenchReportsTestSupport", "bench",
            ]),
        // Compares two secrets with `==` many times, for PKCETests to count under Callgrind.
        .executableTarget(name: "PKCECompareProbe", dependencies: ["PKCE"], path: "Tests/PKCECompareProbe"),
    ],
    swiftLanguageModes: [.v6]
)

// MARK: - Fuzzing

// libFuzzer targets, built only by Fuzz/run with PKCEBENCH_FUZZ set: libFuzzer supplies their
// main, so an ordinary build could not link them. They depend on nothing that needs a C library
// beyond libc, so a fuzzing build does not compile swift-crypto.
if Context.environment["PKCEBENCH_FUZZ"] != nil {
    let fuzzTargets: [(String, [Target.Dependency])] = [
        ("FuzzVerifier", ["PKCE"]), ("FuzzChallenge", ["PKCE"]), ("FuzzTokenEndpoint", ["PKCE"]),
        ("FuzzSHA256", ["PKCE"]), ("FuzzWorkerReply", ["PKCEBenchCore", "PKCEBenchReports"]),
        ("FuzzCSV", ["PKCEBenchCore", "PKCEBenchReports"]),
    ]
    for (name, dependencies) in fuzzTargets {
        package.targets.append(
            .executableTarget(
                name: name, dependencies: dependencies, path: "Fuzz/\(name)",
                swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
    }
}
