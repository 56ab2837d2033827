import ArgumentParser
import PKCEBenchCore
import PKCEBenchReports

struct Overhead: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure the harness's own cost per operation: the sha256 case with a backend that does nothing.")

    @OptionGroup var sampling: SamplingOptions

    func run() throws {
        InterruptSignals.install()
        let statistics = try HarnessOverhead.measure(plan: sampling.plan(), cancellation: .signals)
        guard let statistics else { throw BenchError(.internalFailure, "the empty case took no samples") }
        let figures = [statistics.median, statistics.p10, statistics.p90].map(NumberFormat.nanoseconds)
        print(
            "harness overhead (\(BuildConfiguration.current) build): median \(figures[0]) ns per operation, p10 \(figures[1]), p90 \(figures[2]), over \(statistics.count) samples"
        )
    }
}
