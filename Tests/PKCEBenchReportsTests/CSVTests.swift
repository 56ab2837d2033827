@testable import PKCEBenchCore
@testable import PKCEBenchReports
import Testing

@Suite("RFC 4180 CSV")
struct CSVTests {
    static func parse(_ text: String) throws(CSVError) -> CSVTable {
        try CSV.parse(Array(text.utf8))
    }

    @Test("Values with quotes, commas, line breaks and edge spaces survive a round trip")
    func roundTrip() throws {
        let header = ["name", "value", "note"]
        let records = [
            ["plain", "1", ""],
            ["with,comma", "say \"hi\"", "line one\nline two"],
            ["crlf\r\ninside", " padded ", "\"\""],
            ["", "", "ünïcödé ✓"],
        ]
        let text = CSV.encode(header: header, records: records)
        let table = try CSVTests.parse(text)
        #expect(table.header == header)
        #expect(table.records.map(\.fields) == records)
        // The second record starts on line 3, the third on line 5 (the second spans two lines).
        #expect(table.records.map(\.line) == [2, 3, 5, 7])
    }

    @Test("LF line ends, for standard output: the same records, round trip included")
    func lineFeeds() throws {
        let header = ["name", "note"]
        let records = [["crlf\r\ninside", "x"], ["", ""], ["plain", "y"]]
        let lf = CSV.encode(header: header, records: records, lineEnding: .lf)
        #expect(lf == "name,note\n\"crlf\r\ninside\",x\n,\nplain,y\n")
        #expect(try CSVTests.parse(lf).records.map(\.fields) == records)
        #expect(CSV.encodeRecord([""], lineEnding: .lf) == "\"\"\n")
        // Only the records' ends differ from the file form; a CR inside a field stays.
        #expect(CSV.encode(header: header, records: records) == "name,note\r\n\"crlf\r\ninside\",x\r\n,\r\nplain,y\r\n")
    }

    @Test("A record of one empty field survives a round trip (found by FuzzCSV)")
    func loneEmptyField() throws {
        // The fuzzer's input: a one-column file whose records are quoted empty fields. Written
        // unquoted, each record was an empty line, which the reader skips.
        let table = try CSVTests.parse("<\n\"\"\n\"\"\n")
        #expect(table.records.map(\.fields) == [[""], [""]])
        let encoded = CSV.encode(header: table.header, records: table.records.map(\.fields))
        #expect(encoded == "<\r\n\"\"\r\n\"\"\r\n")
        #expect(
            try CSVTests.parse(encoded)
                == CSVTable(
                    header: ["<"],
                    records: [
                        CSVRecord(line: 2, fields: [""]), CSVRecord(line: 3, fields: [""]),
                    ]))
    }

    @Test("A quote followed by a combining mark is doubled (found by FuzzCSV)")
    func quoteBeforeCombiningMark() throws {
        // U+07EB, an N'Ko combining mark, joins the quote before it into one Character; escaping
        // by Character left that quote single, and the output did not read back.
        let records = [["\"\u{07EB}x"], [" \u{0301}"]]
        let encoded = CSV.encode(header: ["h"], records: records)
        #expect(encoded == "h\r\n\"\"\"\u{07EB}x\"\r\n\" \u{0301}\"\r\n")
        let table = try CSVTests.parse(encoded)
        #expect(table.records.map { $0.fields.map { Array($0.utf8) } } == records.map { $0.map { Array($0.utf8) } })
    }

    @Test("The writer quotes only what needs it and ends records with CRLF")
    func encoding() {
        #expect(CSV.encodeRecord(["a", "b c", "d,e", "f\"g", ""]) == "a,b c,\"d,e\",\"f\"\"g\",\r\n")
    }

    @Test("LF line ends, a missing final line break and blank lines are accepted")
    func lenientWhereHarmless() throws {
        let table = try CSVTests.parse("a,b\n1,2\n\n3,4")
        #expect(table.records.map(\.fields) == [["1", "2"], ["3", "4"]])
        #expect(table.records.map(\.line) == [2, 4])
    }

    struct Malformed: Sendable, CustomTestStringConvertible {
        let text: String
        let line: Int
        let column: Int?
        let message: String
        var testDescription: String { message }
    }

    static let malformed = [
        Malformed(text: "", line: 1, column: nil, message: "the file is empty; a header row was expected"),
        Malformed(text: "\n\r\n", line: 1, column: nil, message: "the file is empty; a header row was expected"),
        Malformed(
            text: "a,b\n1,x\"y\n", line: 2, column: 4,
            message: "a quote inside an unquoted field; such a field must be quoted as a whole"),
        Malformed(
            text: "a,b\n1,\"x\"y\n", line: 2, column: 6,
            message: "text after a closing quote; a quote inside a quoted field is written twice"),
        Malformed(
            text: "a,b\n1,2\n3,\"open\n", line: 3, column: 3, message: "the quoted field opened here is never closed"),
        Malformed(text: "a,b\n1,2\r3,4\n", line: 2, column: 4, message: "a carriage return without a line feed"),
        Malformed(
            text: "a,b\n1,2,3\n", line: 2, column: 5, message: "the record has more than 2 fields; the header has 2"),
        Malformed(text: "a,b\n1\n", line: 2, column: nil, message: "the record has 1 fields; the header has 2"),
        Malformed(text: "a,,c\n", line: 1, column: nil, message: "header column 2 has no name"),
        Malformed(text: "a,b,a\n", line: 1, column: nil, message: "the header names column 'a' twice"),
        Malformed(text: "a,b\n1,\u{0}\n", line: 2, column: 3, message: "a NUL byte: this is not a text file"),
    ]

    @Test("Malformed input is an error with its line and column", arguments: malformed)
    func rejects(malformed: Malformed) {
        #expect(throws: CSVError(line: malformed.line, column: malformed.column, message: malformed.message)) {
            try CSVTests.parse(malformed.text)
        }
    }

    @Test("Bytes that are not UTF-8 are an error, not a guess")
    func rejectsBinary() {
        let bytes: [UInt8] = Array("a,b\n1,".utf8) + [0xFF, 0xFE, 0x0A]
        #expect(throws: CSVError(line: 2, column: 3, message: "bytes that are not UTF-8: this is not a text file")) {
            try CSV.parse(bytes)
        }
    }

    @Test("A field over its column's limit ends the reading at its start; one at the limit reads")
    func fieldLimits() throws {
        let limits = CSV.Limits(columns: 3, fieldBytes: ["id": 4], otherFieldBytes: 6)
        let atLimits = try CSV.parse(Array("id,note\n\"a\"\"bc\",123456\n".utf8), limits: limits)
        // Bytes are counted unquoted: `"a""bc"` holds four.
        #expect(atLimits.records.map(\.fields) == [["a\"bc", "123456"]])
        #expect(throws: CSVError(line: 2, column: 6, message: "the note field is longer than 6 bytes")) {
            try CSV.parse(Array("id,note\nabcd,1234567\n".utf8), limits: limits)
        }
        #expect(throws: CSVError(line: 3, column: 1, message: "the id field is longer than 4 bytes")) {
            try CSV.parse(Array("id,note\n1,2\n\"abcde\",x\n".utf8), limits: limits)
        }
        // A quoted field over its limit is read to its close, unkept: an unclosed quote is named as such.
        #expect(throws: CSVError(line: 2, column: 6, message: "the quoted field opened here is never closed")) {
            try CSV.parse(Array("id,note\n1234,\"1234567\n".utf8), limits: limits)
        }
        #expect(throws: CSVError(line: 2, column: 6, message: "the note field is longer than 6 bytes")) {
            try CSV.parse(Array("id,note\n1234,\"1234\n567\"\n".utf8), limits: limits)
        }
        #expect(throws: CSVError(line: 1, column: 3, message: "header column 2 is longer than 6 bytes")) {
            try CSV.parse(Array("a,bcdefgh\n".utf8), limits: limits)
        }
        #expect(throws: CSVError(line: 1, column: 7, message: "the header has more than 3 columns")) {
            try CSV.parse(Array("a,b,c,d\n".utf8), limits: limits)
        }
    }

    @Test("A line of commas stops at its first empty name or its first field beyond the header")
    func linesOfCommas() {
        let commas = [UInt8](repeating: UInt8(ascii: ","), count: 1 << 16)
        #expect(throws: CSVError(line: 1, column: nil, message: "header column 1 has no name")) {
            try CSV.parse(commas)
        }
        #expect(throws: CSVError(line: 2, column: 3, message: "the record has more than 2 fields; the header has 2")) {
            try CSV.parse(Array("a,b\n".utf8) + commas)
        }
    }

    @Test("The reader gives each record before it reads the next, and stops at the first bad one")
    func recordByRecord() throws {
        var reader = try CSVReader(Array("a,b\n1,2\n3,\"4\n".utf8))
        #expect(reader.header == ["a", "b"])
        #expect(try reader.next() == CSVRecord(line: 2, fields: ["1", "2"]))
        #expect(throws: CSVError(line: 3, column: 3, message: "the quoted field opened here is never closed")) {
            try reader.next()
        }
        var complete = try CSVReader(Array("a\n1\n".utf8))
        #expect(try complete.next() == CSVRecord(line: 2, fields: ["1"]))
        #expect(try complete.next() == nil)
    }

    @Test("Text is checked up to the first error in the CSV: a binary file says so")
    func textBeforeStructure() {
        #expect(throws: CSVError(line: 2, column: 2, message: "a NUL byte: this is not a text file")) {
            try CSV.parse(Array("a\nx\u{0}y\"z\n".utf8))
        }
        #expect(throws: CSVError(line: 2, column: 3, message: "bytes that are not UTF-8: this is not a text file")) {
            try CSV.parse(Array("a\n\"x".utf8) + [0xC3])
        }
    }

    @Test("Columns count characters, not bytes")
    func columnsCountCharacters() {
        #expect(throws: CSVError(line: 1, column: 4, message: "a carriage return without a line feed")) {
            try CSVTests.parse("éé,\r")
        }
    }
}
