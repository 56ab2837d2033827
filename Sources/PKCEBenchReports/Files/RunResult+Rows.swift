import PKCEBenchCore

extension RunResult {
    /// The run that report rows record, called `name`: its environment from the first row, with
    /// the library of every row's backend (a file records each backend's library in that
    /// backend's rows), and each case's samples from `samples`, when its samples file was read.
    ///
    /// - Throws: ``BenchError`` (`.malformedInput`) when the rows mix debug and release builds: a
    ///   file put together from several runs must be of one build.
    package init(name: String, summaries: [SummaryRow], samples: [SampleRow]?) throws(BenchError) {
        let builds = Set(summaries.map(\.environment.build))
        guard builds.count <= 1 else {
            throw BenchError(.malformedInput, "\(name): its rows mix debug and release builds")
        }
        self.init(
            environment: SummaryRow.environment(of: summaries) ?? .unrecorded, summaries: summaries.map(\.summary),
            samples: samples.map { rows in
                Dictionary(grouping: rows, by: \.key).mapValues { $0.sorted { $0.index < $1.index }.map(\.sample) }
            },
            name: name)
    }
}

extension RunEnvironment {
    /// What a file with no cases records: nothing. ``RunResult/recordedEnvironment`` is `nil` for
    /// its run, so no report shows these values.
    fileprivate static let unrecorded = RunEnvironment(
        runID: "", timestamp: "", commit: .unknown, build: .release, targetCPU: "", cpu: "", cpuFlags: "", cores: 0,
        kernel: "", swift: "", libraries: [:])
}

extension ReportFiles {
    /// Reads a summary file and the samples file beside it, when there is one, as one run called
    /// by the summary's path, as a comparison takes a side; ``runs(inSummaryAt:)`` reads a file's
    /// runs one by one, without their samples.
    ///
    /// - Throws: `BenchError`: `.missingInput` when the summary is missing; `.malformedInput` when either
    ///   file is malformed, or the summary mixes debug and release builds.
    package static func run(summaryAt path: String) throws(BenchError) -> RunResult {
        let summaries = try readSummary(at: path)
        let samplesPath = samplesPath(for: path)
        let samples = exists(samplesPath) ? try readSamples(at: samplesPath) : nil
        return try RunResult(name: path, summaries: summaries, samples: samples)
    }
}
