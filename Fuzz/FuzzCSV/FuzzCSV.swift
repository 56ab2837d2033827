import PKCEBenchCore
import PKCEBenchReports

/// libFuzzer's entry point: the CSV reader and the report decoder on arbitrary bytes.
///
/// Beyond "does not crash or trap", whatever the reader accepts must survive a round trip: the
/// writer's encoding of it reads back as the same header and records.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCSV(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    if let table = try? CSV.parse(bytes) {
        let encoded = CSV.encode(header: table.header, records: table.records.map(\.fields))
        guard let again = try? CSV.parse(Array(encoded.utf8)) else {
            preconditionFailure("the writer's output does not read back")
        }
        precondition(again.header == table.header, "the header changed in a round trip")
        precondition(again.records.map(\.fields) == table.records.map(\.fields), "records changed in a round trip")
    }
    // Errors are fine; a trap is not. Every error must name the file and be one line.
    do {
        _ = try ReportFiles.summaries(from: bytes, path: "fuzz.csv")
    } catch {
        checkMessage(error, names: "fuzz.csv")
    }
    do {
        _ = try ReportFiles.samples(from: bytes, path: "fuzz.samples.csv")
    } catch {
        checkMessage(error, names: "fuzz.samples.csv")
    }
    return 0
}

private func checkMessage(_ error: BenchError, names path: String) {
    precondition(error.message.hasPrefix(path), "an error that does not name the file")
    precondition(
        !error.message.unicodeScalars.contains { $0.properties.generalCategory == .control },
        "an error that is not one line")
}
