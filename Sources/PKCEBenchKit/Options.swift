import ArgumentParser
import Foundation
import PKCEBenchCore
import PKCEBenchReports

struct CaseFilterOptions: ParsableArguments {
    @Option(
        name: .customLong("backend"), parsing: .singleValue,
        help:
            "Backends, repeated or comma-separated: \(CommandContext.backendNames.joined(separator: ", ")). (default: all)"
    )
    var backendNames: [String] = []

    @Option(
        name: .customLong("operation"), parsing: .singleValue,
        help: ArgumentHelp(
            "Operations, repeated or comma-separated: \(BenchmarkOperation.allValueStrings.joined(separator: ", ")). (default: all)",
            valueName: "operation"),
        transform: { list in
            try list.split(separator: ",", omittingEmptySubsequences: false).map {
                try BenchmarkOperation.named($0.trimmingCharacters(in: .whitespaces))
            }
        })
    var operationLists: [[BenchmarkOperation]] = []

    @Option(
        name: .customLong("size"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "Sizes, repeated or comma-separated: SIZE for every selected operation, or OPERATION:SIZE for one (sha256:1024); the verifier length in characters (43-128) for verifier, verifier-string, challenge, challenge-string, challenge-batch and verify, bytes for sha256 and random.",
            discussion:
                "Defaults: verifier 43,128; verifier-string 43; challenge 43,55,56,128; challenge-string 43; challenge-batch 43,128; verify 43; sha256 43,64,1024,16384; random 32. Without --operation, sizes given only as OPERATION:SIZE select their operations alone."
        ))
    var sizeValues: [String] = []

    @Option(
        name: .customLong("filter"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "Only cases whose name (operation/backend/size, as 'bench list' prints) contains a match of this regular expression; repeatable, any one matching.",
            valueName: "regex"))
    var filters: [String] = []

    @Option(
        name: .customLong("skip"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "Leave out cases whose name contains a match of this regular expression; repeatable.", valueName: "regex"))
    var skips: [String] = []

    func selection(threads: Int = 1) throws(BenchError) -> Selection {
        let operations = operationLists.flatMap(\.self)
        var sizes: [Int] = []
        var scopedSizes: [BenchmarkOperation: [Int]] = [:]
        for value in split(sizeValues) {
            let parts = value.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard let size = parts.last.flatMap({ Int($0) }) else {
                throw BenchError(.usage, "size '\(value)' is not a whole number, or OPERATION:SIZE")
            }
            if parts.count == 2 {
                let operation = try BenchmarkOperation.named(parts[0])
                scopedSizes[operation, default: []].append(size)
            } else {
                sizes.append(size)
            }
        }
        let selection = Selection(
            backends: split(backendNames), operations: operations, sizes: sizes, scopedSizes: scopedSizes,
            filters: filters, skips: skips, threads: threads)
        try selection.validate(available: CommandContext.backendNames)
        return selection
    }

    private func split(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }
}

struct SelectionOptions: ParsableArguments {
    @OptionGroup var filter: CaseFilterOptions

    @Option(parsing: .unconditional, help: "Threads that run each case at once; throughput is their aggregate (1-256).")
    var threads: Int = 1

    func validate() throws {
        try usage { () throws(BenchError) in _ = try selection() }
    }

    func selection() throws(BenchError) -> Selection {
        try filter.selection(threads: threads)
    }
}

struct SamplingOptions: ParsableArguments {
    @Flag(
        help: "Run the whole default suite in a few seconds: fewer and shorter samples, for smoke tests, not decisions."
    )
    var quick = false

    @Option(parsing: .unconditional, help: "Samples per case, at least 2. (default: 90, or 10 with --quick)")
    var samples: Int?

    @Option(
        name: .customLong("sample-time"), parsing: .unconditional,
        help: "Target duration of one sample in milliseconds. (default: 5)")
    var sampleTime: Double?

    @Option(
        parsing: .unconditional,
        help: "Warm-up per case in milliseconds, after calibration. (default: 20, or 10 with --quick)")
    var warmup: Double?

    @Option(
        parsing: .unconditional,
        help:
            "Processes that measure one after another, each taking a share of the samples, 1-64. (default: 5, or 2 with --quick)"
    )
    var processes: Int?

    func validate() throws {
        try usage { () throws(BenchError) in
            _ = try plan()
            _ = try processCount()
        }
    }

    /// How many processes measure (or, for `bench ab`, pairs of processes), checked.
    func processCount(standard: Int = 5, quick quickCount: Int = 2) throws(BenchError) -> Int {
        try checked(processes ?? (quick ? quickCount : standard), "--processes", 1...64)
    }

    func plan(standard: SamplingPlan = .standard, quick quickPlan: SamplingPlan = .quick) throws(BenchError)
        -> SamplingPlan
    {
        var plan = quick ? quickPlan : standard
        if let samples {
            plan.samples = try checked(samples, "--samples", 2...100_000)
        }
        if let sampleTime {
            plan.sampleTime = try milliseconds(sampleTime, option: "--sample-time", allowZero: false)
        }
        if let warmup {
            plan.warmup = try milliseconds(warmup, option: "--warmup", allowZero: true)
        }
        return plan
    }

    private func milliseconds(_ value: Double, option: String, allowZero: Bool) throws(BenchError) -> Duration {
        let lowest = allowZero ? "at least 0" : "more than 0"
        guard value.isFinite, allowZero ? value >= 0 : value > 0, value <= 60_000 else {
            throw BenchError(.usage, "\(option) must be \(lowest) and at most 60000 milliseconds, not \(value)")
        }
        // Below a nanosecond the duration is zero, which the workers would refuse one by one.
        let nanoseconds = Int64(value * 1e6)
        guard allowZero || nanoseconds > 0 else {
            throw BenchError(.usage, "\(option) must be at least 0.000001 milliseconds (1 ns), not \(value)")
        }
        return .nanoseconds(nanoseconds)
    }
}

struct MetricOptions: ParsableArguments {
    @Option(
        name: .customLong("metric"),
        help: ArgumentHelp(
            "time (sampled wall-clock time) or instructions (instructions per operation counted under Callgrind, "
                + "exact and repeatable; needs valgrind; the sampling options do not apply).",
            valueName: "metric"))
    var metric = Metric.time
}

struct ProgressOptions: ParsableArguments {
    @Flag(
        name: .shortAndLong,
        help: ArgumentHelp(
            "Show no progress on standard error: only the results, warnings and errors.",
            discussion: "Progress is one line redrawn on a terminal, and a line per step elsewhere or with TERM=dumb."))
    var quiet = false

    var style: ProgressPrinter.Style { quiet ? .quiet : .standardError() }
}

struct DirectoryOptions: ParsableArguments {
    @Option(name: .customLong("output"), help: "The results directory; created when missing.")
    var path = "results"
}

struct StoreOptions: ParsableArguments {
    @Option(
        name: .customLong("store"),
        help: ArgumentHelp(
            "The history's PostgreSQL database, where runs are stored and read: postgresql://user@host:port/db?sslmode=MODE "
                + "(default: $\(StoreAddress.environmentVariable); PGHOST, PGUSER, PGPASSWORD, … fill in what it "
                + "leaves out). Needs a bench built with the PostgreSQL trait.",
            valueName: "url"))
    var url: String?

    /// Checks the URL; a command checks in ``store()`` that bench has the store, before it measures.
    func validate() throws {
        try usage { () throws(BenchError) in _ = try StoreAddress.chosen(url) }
    }

    /// The store that `--store` or the environment names, `nil` when neither does.
    ///
    /// - Throws: `BenchError` (`.usage`): a URL bench does not read, or a bench built without the store.
    func store() throws(BenchError) -> HistoryStore? {
        try StoreAddress.chosen(url).map { address throws(BenchError) in try HistoryStore(checking: address) }
    }
}

struct FormatOptions: ParsableArguments {
    @Option(name: .customLong("format"), help: "What standard output shows.")
    var format = OutputFormat.table

    @Option(
        name: .customLong("export-json"),
        help: ArgumentHelp("Also write the JSON that --format json prints to this file.", valueName: "file"))
    var jsonFile: String?

    @Option(
        name: .customLong("export-markdown"),
        help: ArgumentHelp("Also write the Markdown that --format markdown prints to this file.", valueName: "file"))
    var markdownFile: String?

    @Option(
        name: .customLong("export-csv"),
        help: ArgumentHelp(
            "Also write the CSV that --format csv prints to this file. Each export is written whole or not at all, "
                + "whatever standard output shows.",
            valueName: "file"))
    var csvFile: String?

    func validate() throws {
        try usage { () throws(BenchError) in _ = try exports() }
    }

    /// The export files, checked: no two name the same file.
    func exports() throws(BenchError) -> OutputFiles {
        var paths: [OutputFormat: String] = [:]
        for case let (format, path?) in [(OutputFormat.json, jsonFile), (.markdown, markdownFile), (.csv, csvFile)] {
            let url = URL(fileURLWithPath: path).standardizedFileURL
            if let other = paths.first(where: { URL(fileURLWithPath: $0.value).standardizedFileURL == url }) {
                throw BenchError(
                    .usage, "--export-\(other.key.rawValue) and --export-\(format.rawValue) both name \(path)")
            }
            paths[format] = path
        }
        return OutputFiles(paths)
    }
}

struct GateOptions: ParsableArguments {
    @Option(
        name: .customLong("max-pairs"), parsing: .unconditional,
        help: ArgumentHelp(
            "The most pairs of processes a case is measured in: after every --processes pairs the gate decides what it can, and measures only the cases still open in the next, up to this many (rounded down to a multiple of --processes), 1-640. (default: four looks, 80 pairs with the default --processes; one look with --quick)",
            valueName: "n"))
    var maxPairs: Int?

    /// The most looks, `--max-pairs` over `pairs` pairs per look, checked.
    func looks(pairs: Int, quick: Bool) throws(BenchError) -> Int {
        let maxPairs = try checked(
            maxPairs ?? (quick ? 1 : PairedProcesses.standardLooks) * pairs, "--max-pairs", 1...640)
        guard maxPairs >= pairs else {
            throw BenchError(
                .usage, "--max-pairs \(maxPairs) is fewer than the \(pairs) pairs of one look (--processes)")
        }
        return maxPairs / pairs
    }
}

struct CriteriaOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            """
            The smallest change, in percent, that counts as a regression or an improvement. \
            (default: \(defaultText(.time, .independent)) for runs made apart, \
            \(defaultText(.time, .byProcess)) for ab and pair, \
            \(defaultText(.instructions, .independent)) for instruction counts)
            """
        ))
    var threshold: Double?

    @Option(
        parsing: .unconditional,
        help: "The family-wise significance level, over all cases together (Holm), more than 0 and less than 1.")
    var alpha: Double = 0.01

    func validate() throws {
        try usage { () throws(BenchError) in _ = try criteria(of: .time, pairing: .independent) }
    }

    /// The default threshold, in percent, as the help gives it in any locale: `5`, `0.1`.
    static func defaultText(_ metric: Metric, _ pairing: Pairing) -> String {
        let value = ComparisonCriteria.defaultThresholdPercent(of: metric, pairing: pairing)
        return value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// The criteria; without `--threshold`, with the default threshold of `metric` and `pairing`.
    func criteria(of metric: Metric, pairing: Pairing) throws(BenchError) -> ComparisonCriteria {
        let threshold = threshold ?? ComparisonCriteria.defaultThresholdPercent(of: metric, pairing: pairing)
        guard threshold.isFinite, threshold >= 0, threshold < 1000 else {
            throw BenchError(.usage, "--threshold must be a percentage from 0 to 1000, not \(threshold)")
        }
        guard alpha.isFinite, alpha > 0, alpha < 1 else {
            throw BenchError(.usage, "--alpha must be more than 0 and less than 1, not \(alpha)")
        }
        return ComparisonCriteria(threshold: threshold / 100, alpha: alpha)
    }
}

// The values of --metric, --format, export's --format and --operation: argument-parser reads
// them, lists them in the help and refuses any other, by their raw values.
extension Metric: ExpressibleByArgument {}
extension OutputFormat: ExpressibleByArgument {}
extension ExportFormat: ExpressibleByArgument {}
extension BenchmarkOperation: ExpressibleByArgument {
    /// The operation called `name`, or a usage error that lists the valid names, which
    /// argument-parser's own would put on lines of their own: `--operation` takes a list, and
    /// `--size` an `OPERATION:SIZE`.
    static func named(_ name: String) throws(BenchError) -> BenchmarkOperation {
        guard let operation = BenchmarkOperation(rawValue: name) else {
            throw BenchError(
                .usage, "unknown operation '\(name)'; valid operations: \(allValueStrings.joined(separator: ", "))")
        }
        return operation
    }
}

/// `value` when `range` holds it, or a usage error: `--samples must be 2 to 100000, not 1`.
private func checked(_ value: Int, _ option: String, _ range: ClosedRange<Int>) throws(BenchError) -> Int {
    guard range.contains(value) else {
        throw BenchError(.usage, "\(option) must be \(range.lowerBound) to \(range.upperBound), not \(value)")
    }
    return value
}

/// Runs `body`, turning a ``BenchError`` into the `ValidationError` argument-parser reports as a
/// usage error (64).
func usage(_ body: () throws(BenchError) -> Void) throws {
    do {
        try body()
    } catch {
        throw ValidationError(error.message)
    }
}
