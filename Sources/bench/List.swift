import ArgumentParser
import PKCEBackends
import PKCEBenchKit
import PKCEBenchReports

/// `bench list`: the cases a run with the same options would measure.
struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Print the names of the cases the options select, one per line: operation/backend/size, with ×THREADS above one thread."
    )

    @OptionGroup var selection: SelectionOptions

    func run() throws {
        let available = allBackendNames.map(ListedBackend.init)
        for benchmark in try selection.selection().cases(from: available) {
            print(benchmark.key)
        }
    }
}

/// A backend known by name only: listing cases sets no library up.
private struct ListedBackend: PKCEBackend {
    let name: String

    func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws {
        preconditionFailure("a listed backend is never run")
    }

    func sha256(_ message: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
        preconditionFailure("a listed backend is never run")
    }
}
