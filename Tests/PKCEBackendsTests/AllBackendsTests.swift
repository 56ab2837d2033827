import PKCEBackends
import Testing

@Test("allBackends() has one backend of each kind, in the documented order, named as allBackendNames says")
func allBackendsInOrder() throws {
    let names = try allBackends().map(\.name)
    #expect(names == ["openssl", "sodium", "swift", "crypto"])
    #expect(names == allBackendNames)
}

@Test("The loaded C libraries report their versions")
func libraryVersions() {
    let versions = loadedLibraryVersions()
    #expect(versions["openssl"]?.hasPrefix("OpenSSL ") == true)
    #expect(versions["sodium"]?.split(separator: ".").count == 3)
}
