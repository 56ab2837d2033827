import PKCE
import PKCEBenchCLI

await Bench.main(backends: [try URandomBackend(), SwiftBackend()])
