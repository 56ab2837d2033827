import PKCEBenchCore

extension RunResult {
    /// Samples of one iteration each from nanoseconds per operation by measuring process, process
    /// by process, each process's in its order: the samples of a run whose figures a test makes up.
    package static func samples(byProcess values: [Int: [Double]]) -> [Sample] {
        values.keys.sorted().flatMap { process in
            values[process, default: []].map { Sample(iterations: 1, nanosecondsPerOperation: $0, process: process) }
        }
    }

    /// This run without its samples, as a summary file read without its samples file is.
    package var withoutSamples: RunResult {
        RunResult(environment: environment, summaries: summaries, name: name)
    }
}

extension Sample {
    /// This sample with its time multiplied by `factor`.
    package func scaled(by factor: Double) -> Sample {
        var sample = self
        sample.nanosecondsPerOperation *= factor
        return sample
    }
}
