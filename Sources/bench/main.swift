import PKCEBackends
import PKCEBenchKit

// The project's own bench: the command line of PKCEBenchKit with the four backends this package ships,
// and the commit it is built from, which the PKCEBenchBuildCommit plugin records.
await Bench.main(backends: try allBackends(), buildCommit: pkceBenchBuildCommit)
