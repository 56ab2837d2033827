import Foundation

/// Which run one side of a comparison is, as its rows say.
public struct RunIdentity: Sendable, Equatable {
    /// What the comparison calls the run: usually its file's path.
    public var name: String
    /// Its run id; empty when it has no rows.
    public var runID: String
    /// The commit it measured, as its rows give it (`unknown` outside a Git checkout).
    public var commit: String
    /// Where and how it was measured, as its first row records it; `nil` when it has no rows.
    public var environment: RunEnvironment?

    /// The identity of `run`, from its first row.
    public init(_ run: RunData) {
        name = run.name
        runID = run.summaries.first?.runID ?? ""
        commit = run.summaries.first?.commit ?? ""
        environment = run.summaries.first?.environment
    }
}

/// A run to compare: its summary rows and, when there are any, its samples.
public struct RunData: Sendable {
    /// What to call the run in messages: usually its file's path.
    public let name: String
    /// One row per case.
    public let summaries: [SummaryRow]
    /// Nanoseconds per operation of each sample, by case and then by measuring process, in the
    /// order taken; `nil` when there is no samples file.
    public let samplesByCase: [CaseKey: [Int: [Double]]]?

    /// Creates run data from rows in memory.
    public init(name: String, summaries: [SummaryRow], samples: [SampleRow]?) {
        self.name = name
        self.summaries = summaries
        self.samplesByCase = samples.map { rows in
            Dictionary(grouping: rows, by: \.key).mapValues { rows in
                Dictionary(grouping: rows, by: \.process).mapValues {
                    $0.sorted { $0.sample < $1.sample }.map(\.nsPerOp)
                }
            }
        }
    }

    /// Reads a summary file and the samples file beside it, when there is one.
    ///
    /// - Throws: ``BenchError``: 66 when the summary is missing; 65 when either file is malformed.
    ///   A samples file that is there but malformed is an error, never silently ignored.
    public static func load(summaryAt path: String) throws(BenchError) -> RunData {
        let summaries = try ReportFiles.readSummary(at: path)
        let samplesPath = ReportFiles.samplesPath(for: path)
        let samples = ReportFiles.exists(samplesPath) ? try ReportFiles.readSamples(at: samplesPath) : nil
        return RunData(name: path, summaries: summaries, samples: samples)
    }

    /// Whether a samples file came with the summary.
    public var hasSamples: Bool { samplesByCase != nil }

    /// What the run measured.
    ///
    /// - Throws: ``BenchError`` (65) when its rows mix timings and instruction counts.
    public func metric() throws(BenchError) -> Metric {
        let metrics = Set(summaries.map(\.metric))
        guard metrics.count <= 1 else {
            throw BenchError(.malformedInput, "\(name): its rows mix timings and instruction counts")
        }
        return metrics.first ?? .time
    }

    /// The samples of `key` by process; `nil` without any.
    func samplesByProcess(of key: CaseKey) -> [Int: [Double]]? {
        samplesByCase?[key].flatMap { $0.isEmpty ? nil : $0 }
    }
}
