import ArgumentParser
import Foundation
import PKCEBenchKit

/// `bench compare`: regression tracking between two runs.
struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare two runs case by case; exit 1 when a case regressed.",
        discussion: """
            Reads each summary CSV and the .samples.csv beside it when there is one. A case \
            regressed when its median and its fastest sample are both slower by more than \
            --threshold percent and a two-sided Mann-Whitney U test on the samples gives \
            p < --alpha; improved symmetrically. (A busy machine slows some samples, a slower \
            build every one, the fastest included.) Without samples, the threshold alone decides, \
            and the output says so.
            """)

    @Argument(help: ArgumentHelp("The baseline summary CSV.", valueName: "baseline"))
    var baselinePath: String

    @Argument(help: ArgumentHelp("The current summary CSV.", valueName: "current"))
    var currentPath: String

    @OptionGroup var criteria: CriteriaOptions
    @OptionGroup var format: FormatOptions

    func run() throws {
        let criteria = try criteria.criteria()
        let format = try format.format()
        let baseline = try RunData.load(summaryAt: baselinePath)
        let current = try RunData.load(summaryAt: currentPath)
        let comparison = try Comparison(baseline: baseline, current: current, criteria: criteria)
        for warning in comparison.warnings {
            FileHandle.standardError.write(Data("bench: \(warning)\n".utf8))
        }
        print(ComparisonFormatter.render(comparison, as: format), terminator: "")
        if comparison.hasRegression {
            throw ExitCode(ExitStatus.regression.rawValue)
        }
    }
}
