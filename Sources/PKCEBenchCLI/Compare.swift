import ArgumentParser
import Foundation
import PKCEBenchKit
import PKCEBenchReports

/// `bench compare`: regression tracking between two runs.
struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare two runs case by case; exit 1 when a case regressed, 2 when one is inconclusive.",
        discussion: """
            Reads each summary CSV and the .samples.csv beside it when there is one. Each \
            measuring process counts once, by its fastest sample: Welch's t-test on their logs \
            estimates each case's change with a 95% confidence interval. A case regressed when the \
            change is at least --threshold percent and significant at --alpha over all cases \
            together (Holm); improved symmetrically; unchanged when the interval's upper bound lies \
            below the threshold (not slower by that much); otherwise inconclusive. When one run was measured on a busier machine, \
            the verdicts that busyness could explain become inconclusive. Without samples, the \
            threshold alone decides, and the output says so. Runs made apart cannot see small \
            changes on a shared machine: 'bench ab' measures two builds side by side. Files of \
            instruction counts (bench --metric instructions) are compared exactly: a change of at \
            least --threshold (default 0.1) percent either way is a regression or an improvement.
            """)

    @Argument(help: ArgumentHelp("The baseline summary CSV.", valueName: "baseline"))
    var baselinePath: String

    @Argument(help: ArgumentHelp("The current summary CSV.", valueName: "current"))
    var currentPath: String

    @OptionGroup var criteria: CriteriaOptions
    @OptionGroup var format: FormatOptions

    func run() throws {
        _ = try criteria.criteria()
        let format = try format.format()
        let exports = try self.format.exports()
        try exports.check()
        let baseline = try RunData.load(summaryAt: baselinePath)
        let current = try RunData.load(summaryAt: currentPath)
        let metric = try Comparison.requireSameMetric(baseline, current)
        let criteria = try criteria.criteria(defaultThreshold: metric.defaultThreshold)
        let comparison = try Comparison(baseline: baseline, current: current, criteria: criteria)
        for warning in comparison.warnings {
            Terminal.note(warning)
        }
        try exports.write { ComparisonFormatter.render(comparison, as: $0) }
        Terminal.write(ComparisonFormatter.render(comparison, as: format), as: format)
        try comparison.status.exitUnlessOK()
    }
}
