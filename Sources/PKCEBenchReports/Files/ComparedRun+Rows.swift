import PKCEBenchCore

extension ComparedRun {
    /// The run that report rows record: its environment from the first row, with the libraries
    /// of every row's backend (a file records each backend's library in that backend's rows).
    package init(name: String, summaries: [SummaryRow], samples: [SampleRow]?) {
        self.init(
            name: name, environment: SummaryRow.environment(of: summaries),
            builds: Set(summaries.map(\.environment.build)),
            summaries: summaries.map(\.summary),
            samplesByCase: samples.map { rows in
                Dictionary(grouping: rows, by: \.key).mapValues { rows in
                    Dictionary(grouping: rows, by: \.sample.process).mapValues {
                        $0.sorted { $0.index < $1.index }.map(\.sample.nanosecondsPerOperation)
                    }
                }
            })
    }

    /// Reads a summary file and the samples file beside it, when there is one.
    ///
    /// - Throws: `BenchError`: `.missingInput` when the summary is missing; `.malformedInput` when either
    ///   file is malformed.
    package static func load(summaryAt path: String) throws(BenchError) -> ComparedRun {
        let summaries = try ReportFiles.readSummary(at: path)
        let samplesPath = ReportFiles.samplesPath(for: path)
        let samples = ReportFiles.exists(samplesPath) ? try ReportFiles.readSamples(at: samplesPath) : nil
        return ComparedRun(name: path, summaries: summaries, samples: samples)
    }
}
