import ArgumentParser
import PKCEBenchCore

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Print the names of the cases the options select, one per line: operation/backend/size, with ×THREADS above one thread."
    )

    @OptionGroup var selection: SelectionOptions

    func run() throws {
        for benchmark in try selection.selection().cases(from: CommandContext.backends) {
            print(benchmark.key)
        }
    }
}
