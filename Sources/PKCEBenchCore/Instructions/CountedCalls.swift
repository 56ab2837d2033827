internal import CPKCEHarness

/// What a worker did under Callgrind, for ``InstructionCounter`` to match with Callgrind's
/// profiles.
package struct CountedCalls: Sendable, Equatable, Codable {
    package struct Case: Sendable, Equatable, Codable {
        package var key: CaseKey
        /// N: the first counted call ran N iterations, the second 2N.
        package var iterations: Int
        /// How many counted calls were made: 2, or fewer when the case failed.
        package var calls: Int
        package var failure: String?
    }

    /// The CPU features CPUID reported to the worker.
    package var cpuFlags: String
    /// The `PKCEBackend.library` of each counted case's backend, as the worker saw it under
    /// Valgrind, whose CPU has none of the SHA extensions: the pure-Swift hash names its portable
    /// path there. `nil` from a worker that predates the field.
    package var libraries: [String: String]?
    /// The cases, in the order their calls were made.
    package var cases: [Case]

    /// The function Callgrind counts in; `@_silgen_name` gives `countedLoop(_:_:)` this symbol.
    package static let function = "PKCEBenchKit_countedLoop"

    /// The shorter of a case's two counted calls: enough operations that the count is mostly the
    /// loop, few enough that the default suite runs in a minute under Callgrind.
    package static func iterations(for key: CaseKey) -> Int {
        max(8, min(512, 100_000 / (64 + key.size)))
    }

    /// Makes each case's counted calls, in a worker that ``InstructionCounter`` runs under
    /// Callgrind, and returns the account of them.
    ///
    /// Each case is prepared and warmed up with N uncounted iterations (first calls fill caches,
    /// resolve symbols and set up the libraries' state), then run for N and for 2N iterations
    /// inside the counted function.
    static func make(_ cases: [BenchmarkCase]) -> CountedCalls {
        // The account is made whole before the first case: between counted calls nothing else
        // allocates, since the heap's state moves the count of the cases that allocate.
        var account = CountedCalls(
            cpuFlags: cpuidFlags(),
            libraries: Dictionary(cases.map { ($0.backend.name, $0.backend.library) }) { first, _ in first },
            cases: cases.map { .init(key: $0.key, iterations: iterations(for: $0.key), calls: 0) })
        for (index, benchmark) in cases.enumerated() {
            let iterations = account.cases[index].iterations
            do {
                let loop = try CaseLoop(benchmark)
                _ = try loop.run(iterations: iterations)
                for multiple in [1, 2] {
                    account.cases[index].calls += 1
                    _ = try countedLoop(loop, iterations * multiple)
                }
            } catch {
                account.cases[index].failure = logDescription(of: error)
            }
        }
        return account
    }

    /// Writes what the worker saw under Valgrind over `environment`'s facts: a report of its
    /// counts records them in place of what `bench` sees natively, another CPU on which some
    /// backends take other paths.
    package func record(in environment: inout RunEnvironment) {
        environment.cpuFlags = cpuFlags
        environment.libraries.merge(libraries ?? [:]) { _, counted in counted }
    }

    /// Which of `sha_ni avx2 avx512f` CPUID reports to this process.
    static func cpuidFlags() -> String {
        let features = CPKCEHarness_cpuidFeatures()
        return zip(SystemFacts.relevantFlags, [1, 2, 4]).filter { features & $0.1 != 0 }.map(\.0)
            .joined(separator: " ")
    }
}

/// Runs `iterations` of a case's loop: the one function whose instructions Callgrind counts.
///
/// It keeps one symbol, `PKCEBenchKit_countedLoop`, that Callgrind's options can name: never
/// inlined, and never optimised, so that no specialised copy under another name is called
/// instead. Its own few instructions per call cancel in the difference of two calls. The symbol
/// keeps the core's name from before it was renamed PKCEBenchCore: the parent names it to
/// Callgrind when it counts a worker of an older build too.
@inline(never)
@_optimize(none)
@_silgen_name("PKCEBenchKit_countedLoop")
func countedLoop(_ loop: CaseLoop, _ iterations: Int) throws -> UInt64 {
    try loop.run(iterations: iterations)
}
