import Foundation

/// The decimals a run's figures are kept to: those its report files keep, so that what a run
/// prints, draws and compares is what its files say.
package enum Precision {
    /// Nanoseconds per operation, of a sample and of a summary: 0.001 ns.
    package static let nanoseconds = 3
    package static let coefficientOfVariation = 5
    package static let operationsPerSecond = 1
    package static let megabytesPerSecond = 3
    package static let allocationsPerOperation = 6
    package static let instructionsPerOperation = 3

    /// `value` to `decimals` decimals, as `%.Nf` writes it.
    package static func kept(_ value: Double, decimals: Int) -> Double {
        Double(String(format: "%.\(decimals)f", value)) ?? value
    }
}

extension CaseSummary {
    var atReportPrecision: CaseSummary {
        func kept(_ value: Double, _ decimals: Int) -> Double { Precision.kept(value, decimals: decimals) }
        var summary = self
        summary.allocationsPerOperation = allocationsPerOperation.map { kept($0, Precision.allocationsPerOperation) }
        switch outcome {
        case .timed(var times):
            let nanoseconds = Precision.nanoseconds
            times.median = kept(times.median, nanoseconds)
            times.p10 = kept(times.p10, nanoseconds)
            times.p90 = kept(times.p90, nanoseconds)
            times.fastest = kept(times.fastest, nanoseconds)
            times.mean = kept(times.mean, nanoseconds)
            times.standardDeviation = kept(times.standardDeviation, nanoseconds)
            times.coefficientOfVariation = kept(times.coefficientOfVariation, Precision.coefficientOfVariation)
            times.operationsPerSecond = times.operationsPerSecond.map { kept($0, Precision.operationsPerSecond) }
            times.megabytesPerSecond = times.megabytesPerSecond.map { kept($0, Precision.megabytesPerSecond) }
            summary.outcome = .timed(times)
        case .counted(let instructions):
            summary.outcome = .counted(instructionsPerOperation: kept(instructions, Precision.instructionsPerOperation))
        case .failed:
            break
        }
        return summary
    }
}

extension Sample {
    /// This sample with its time kept to ``Precision/nanoseconds``: what `bench ab`'s gate decides
    /// on while it measures, as the comparison it reports does.
    package var atReportPrecision: Sample {
        var sample = self
        sample.nanosecondsPerOperation = Precision.kept(nanosecondsPerOperation, decimals: Precision.nanoseconds)
        return sample
    }
}
