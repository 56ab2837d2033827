import PKCEBackends
import PKCEBenchKit

// The project's own bench: the command line of PKCEBenchKit with the four backends this package ships.
await Bench.main(backends: try allBackends())
