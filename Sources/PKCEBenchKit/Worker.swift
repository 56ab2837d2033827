import ArgumentParser
import Foundation
import PKCEBenchCore

/// `bench worker`: one of the processes that measure for a run or for `bench ab`, started by it
/// and spoken to over its standard input and output, in ``WorkerProtocol``'s requests and replies.
struct Worker: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure for a run or for bench ab, as told on standard input (see WorkerProtocol).",
        shouldDisplay: false)

    func run() throws {
        InterruptSignals.install()
        let libraries = CommandContext.libraries
        let service = WorkerService(
            backends: CommandContext.backends, facts: { .current(libraries: libraries) },
            allocationCounter: processAllocationCounter, cancellation: .signals,
            progress: { caseCount, prefix in
                // A line redrawn on a terminal; elsewhere the run reports on its processes itself.
                ProgressPrinter(
                    caseCount: caseCount, prefix: prefix,
                    style: ProgressPrinter.Style.standardError() == .redraw ? .redraw : .quiet)
            })
        let ending = service.serve(
            readLine: { Swift.readLine(strippingNewline: true) },
            write: { FileHandle.standardOutput.write(Data($0.utf8)) })
        switch ending {
        case .finished:
            return
        case .brokenRequest(let line):
            throw BenchError(
                .usage, "a worker read a line that is not a request it can carry out: '\(line.prefix(80))'")
        case .refused(let kind):
            // The reply said why; the run that started this process says it, once.
            throw ExitCode(ExitStatus(kind).rawValue)
        case .interrupted(let kind):
            throw ExitCode(ExitStatus(kind).rawValue)
        }
    }
}
