import Foundation
@testable import PKCE
import PKCEBackends
import Testing

@Test("allBackends() has one backend of each kind, in the documented order")
func allBackendsInOrder() throws {
    #expect(try allBackends().map(\.name) == ["openssl", "sodium", "swift", "crypto"])
}

@Test(
    "Each backend names its library, the C libraries with the version loaded, and says whether its randomness can fail")
func libraries() throws {
    let backends = try allBackends()
    let libraries = Dictionary(uniqueKeysWithValues: backends.map { ($0.name, $0.library) })
    #expect(libraries["openssl"]?.hasPrefix("OpenSSL 3.") == true)
    #expect(libraries["sodium"].map { $0.wholeMatch(of: /libsodium \d+\.\d+\.\d+/) != nil } == true)
    // The pure-Swift hash names the path it runs on, and the variable that chose it or was ignored.
    let path = SHA256.Implementation.selected
    let setting = ProcessInfo.processInfo.environment["PKCE_SWIFT_SHA256"].map { value in
        ", PKCE_SWIFT_SHA256=\(value)" + (SHA256.Implementation(environmentValue: value) == path ? "" : " ignored")
    }
    #expect(libraries["swift"] == "PKCE (pure Swift, \(path.name)\(setting ?? ""))")
    let portable = SHA256.Implementation.portable
    #expect(
        SwiftBackend.portable.library == "PKCE (pure Swift, \(portable.name)\(portable == path ? setting ?? "" : ""))")
    // A mask that hides CPU features from OpenSSL (and BoringSSL) is recorded with the name.
    let mask = ProcessInfo.processInfo.environment["OPENSSL_ia32cap"].map { " (OPENSSL_ia32cap=\($0))" }
    #expect(libraries["crypto"] == "swift-crypto" + (mask ?? ""))
    #expect(backends.map(\.randomnessCanFail) == [true, false, true, false])
}
