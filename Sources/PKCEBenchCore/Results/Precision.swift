import Foundation

/// The decimals a run's figures are kept to: those its report files keep, so that what a run
/// prints, draws and compares is what its files say, and what `bench compare` of those files
/// finds.
package enum Precision {
    /// Nanoseconds per operation, of a sample and of a summary: 0.001 ns.
    package static let nanoseconds = 3
    /// The coefficient of variation.
    package static let coefficientOfVariation = 5
    /// Operations per second.
    package static let operationsPerSecond = 1
    /// Megabytes per second.
    package static let megabytesPerSecond = 3
    /// Heap allocations per operation.
    package static let allocationsPerOperation = 6
    /// Instructions per operation.
    package static let instructionsPerOperation = 3

    /// `value` to `decimals` decimals, as `%.Nf` writes it.
    package static func kept(_ value: Double, decimals: Int) -> Double {
        Double(String(format: "%.\(decimals)f", value)) ?? value
    }
}

extension CaseSummary {
    /// This summary with each figure kept to its ``Precision``.
    var atReportPrecision: CaseSummary {
        func kept(_ value: Double?, _ decimals: Int) -> Double? {
            value.map { Precision.kept($0, decimals: decimals) }
        }
        var summary = self
        summary.median = kept(median, Precision.nanoseconds)
        summary.p10 = kept(p10, Precision.nanoseconds)
        summary.p90 = kept(p90, Precision.nanoseconds)
        summary.fastest = kept(fastest, Precision.nanoseconds)
        summary.mean = kept(mean, Precision.nanoseconds)
        summary.standardDeviation = kept(standardDeviation, Precision.nanoseconds)
        summary.coefficientOfVariation = kept(coefficientOfVariation, Precision.coefficientOfVariation)
        summary.operationsPerSecond = kept(operationsPerSecond, Precision.operationsPerSecond)
        summary.megabytesPerSecond = kept(megabytesPerSecond, Precision.megabytesPerSecond)
        summary.allocationsPerOperation = kept(allocationsPerOperation, Precision.allocationsPerOperation)
        summary.instructionsPerOperation = kept(instructionsPerOperation, Precision.instructionsPerOperation)
        return summary
    }
}

extension CaseMeasurement {
    /// This measurement with each sample's time kept to ``Precision/nanoseconds``.
    var atReportPrecision: CaseMeasurement {
        guard case .sampled(let samples) = outcome else { return self }
        return CaseMeasurement(
            key: key,
            samples: samples.map { sample in
                var sample = sample
                sample.nanosecondsPerOperation = Precision.kept(
                    sample.nanosecondsPerOperation, decimals: Precision.nanoseconds)
                return sample
            }, failure: nil)
    }
}
