import PKCEBackends
import PKCEBenchCLI

// The project's own bench: the command line of PKCEBenchCLI with the four backends this package ships.
await Bench.main(backends: try allBackends())
