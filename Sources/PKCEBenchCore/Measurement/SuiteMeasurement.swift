import PKCE

/// How a run takes each case's figure: the one thing in which `bench --processes 1`, `bench` and
/// `bench --metric instructions` differ.
package enum SampleSource {
    /// Samples taken in this process, allocations counted with the counter when there is one.
    case inProcess(allocationCounter: AllocationCounter?)
    /// Samples taken in worker processes, one after another, and pooled.
    case processes(MeasuringProcesses)
    /// Instructions counted under Callgrind, in one worker.
    case instructions(InstructionCounter)

    /// What the source measures.
    package var metric: Metric {
        if case .instructions = self { return .instructions }
        return .time
    }
}

/// One build's run of the selected cases, from the correctness check to the measurements: what
/// `bench` does before anything is written.
package struct SuiteMeasurement {
    /// The backends to choose cases from, in report order.
    package var backends: [any PKCEBackend]
    /// Which cases to measure.
    package var selection: Selection
    /// How long and how often, when timed.
    package var plan: SamplingPlan
    /// How each case's figure is taken.
    package var source: SampleSource
    /// Receives progress and warnings.
    package var progress: ProgressPrinter
    /// Asked between samples whether a signal asked the run to stop.
    package var interruption: () -> Int32?

    /// Creates a measurement; see the properties for what each argument is.
    package init(
        backends: [any PKCEBackend], selection: Selection, plan: SamplingPlan, source: SampleSource,
        progress: ProgressPrinter, interruption: @escaping () -> Int32?
    ) {
        self.backends = backends
        self.selection = selection
        self.plan = plan
        self.source = source
        self.progress = progress
        self.interruption = interruption
    }

    /// Checks the backends `cases` use, then measures the cases.
    ///
    /// A backend that fails the correctness check refuses the whole run before anything is timed.
    /// A case that fails while measured is failed; the others complete.
    ///
    /// - Returns: One measurement per case and, when counted, what the worker saw under Valgrind.
    /// - Throws: ``BenchError``: 70 when a backend fails the correctness check (naming it and the first input it
    ///   gets wrong) or the Callgrind worker failed; 130 or 143 when a signal stopped the run.
    package func measure(_ cases: [BenchmarkCase]) throws(BenchError) -> (
        measurements: [CaseMeasurement], counted: CountedEnvironment?
    ) {
        // Correctness before speed: a backend that gives a wrong answer is not timed, nor is
        // anything else.
        try Correctness.require(backends, usedBy: cases)
        defer { progress.finish() }
        switch source {
        case .inProcess(let allocationCounter):
            var sampler = Sampler(cases: cases, plan: plan, observer: progress, interruption: interruption)
            sampler.allocationCounter = allocationCounter
            do {
                return (try sampler.run(), nil)
            } catch {
                throw InterruptSignals.error(for: error.signal)
            }
        case .processes(let processes):
            let measurements = try processes.measure(
                cases, selection: narrowed(to: cases), plan: plan, progress: progress)
            for measurement in measurements {
                if let failure = measurement.failure {
                    progress.failed(measurement.key, reason: failure)
                } else {
                    progress.finished(measurement.key, nanosecondsPerOperation: measurement.nanosecondsPerOperation)
                }
            }
            return (measurements, nil)
        case .instructions(let counter):
            progress.info("counting the instructions of \(cases.count) case(s) under Callgrind")
            let counted = try counter.measure(cases, selection: narrowed(to: cases))
            return (counted.measurements, counted.counted)
        }
    }

    /// The selection without the backends none of `cases` uses: those that failed the correctness check.
    private func narrowed(to cases: [BenchmarkCase]) -> Selection {
        var narrowed = selection
        narrowed.backends = backends.map(\.name).filter { name in cases.contains { $0.backend.name == name } }
        return narrowed
    }
}
