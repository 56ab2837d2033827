import PKCEBenchKit

await Bench.main(backends: [try URandomBackend(), SwiftBackend()])
