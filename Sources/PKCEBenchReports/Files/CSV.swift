package struct CSVRecord: Sendable, Equatable {
    /// The 1-based line the record starts on; a quoted field may carry it over several lines.
    package let line: Int
    /// The fields, unquoted.
    package let fields: [String]
}

package struct CSVTable: Sendable, Equatable {
    package let header: [String]
    /// Each with as many fields as the header.
    package let records: [CSVRecord]
}

package struct CSVError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The 1-based line.
    package let line: Int
    /// The 1-based column, in characters, where one applies.
    package let column: Int?
    package let message: String

    package var description: String {
        "line \(line)" + (column.map { ", column \($0)" } ?? "") + ": \(message)"
    }
}

/// RFC 4180 CSV: the writer quotes what needs quoting, the reader accepts nothing else.
///
/// The reader is strict where lenient readers guess (stray quotes and carriage returns, NUL,
/// invalid UTF-8, ragged records are errors with a line and column); lines end in CRLF or LF, empty
/// ones are skipped. yaslab/CSV.swift accepts malformed quoting silently and reports no positions.
package enum CSV {
    package enum LineEnding: String, Sendable {
        /// CRLF, as RFC 4180 has it: every file this package writes.
        case crlf = "\r\n"
        /// LF: everything written to standard output, for `awk`, `cut` and `grep`.
        case lf = "\n"
    }

    /// A field is quoted when it contains a comma, a double quote, CR or LF, or starts or ends
    /// with a space, and when it is the only field of its record and empty; double quotes in it
    /// are doubled.
    package static func encodeRecord(_ fields: [String], lineEnding: LineEnding = .crlf) -> String {
        // A record of one empty field would be an empty line, which readers skip: quote it.
        if fields == [""] { return "\"\"" + lineEnding.rawValue }
        return fields.map(encodeField).joined(separator: ",") + lineEnding.rawValue
    }

    package static func encode(header: [String], records: [[String]], lineEnding: LineEnding = .crlf) -> String {
        ([header] + records).map { encodeRecord($0, lineEnding: lineEnding) }.joined()
    }

    /// Works on UTF-8 bytes, as the reader does. A `Character` would not do: a quote followed by a
    /// combining mark is one character that is not `"`, and would go out undoubled.
    private static func encodeField(_ field: String) -> String {
        let needsQuotes =
            field.utf8.contains { $0 == comma || $0 == quote || $0 == cr || $0 == lf }
            || field.utf8.first == space || field.utf8.last == space
        guard needsQuotes else { return field }
        var quoted: [UInt8] = [quote]
        quoted.reserveCapacity(field.utf8.count + 2)
        for byte in field.utf8 {
            if byte == quote { quoted.append(quote) }
            quoted.append(byte)
        }
        quoted.append(quote)
        return String(decoding: quoted, as: UTF8.self)
    }

    private static let comma = UInt8(ascii: ","), quote = UInt8(ascii: "\""), cr = UInt8(ascii: "\r"),
        lf = UInt8(ascii: "\n"), space = UInt8(ascii: " ")

    /// The first record is the header. Throws ``CSVError`` at the first thing that is not RFC 4180
    /// CSV, an empty file included.
    package static func parse(_ bytes: some Collection<UInt8>) throws(CSVError) -> CSVTable {
        let bytes = Array(bytes)
        try checkText(bytes)
        var reader = Reader(bytes: bytes)
        let records = try reader.records()
        guard let header = records.first else {
            throw CSVError(line: 1, column: nil, message: "the file is empty; a header row was expected")
        }
        var seen = Set<String>()
        for (index, name) in header.fields.enumerated() {
            guard !name.isEmpty else {
                throw CSVError(line: header.line, column: nil, message: "header column \(index + 1) has no name")
            }
            guard seen.insert(name).inserted else {
                throw CSVError(line: header.line, column: nil, message: "the header names column '\(name)' twice")
            }
        }
        for record in records.dropFirst() where record.fields.count != header.fields.count {
            throw CSVError(
                line: record.line, column: nil,
                message: "the record has \(record.fields.count) fields; the header has \(header.fields.count)")
        }
        return CSVTable(header: header.fields, records: Array(records.dropFirst()))
    }

    /// Rejects a NUL byte or bytes that are not UTF-8: the signs of a binary file.
    private static func checkText(_ bytes: [UInt8]) throws(CSVError) {
        var line = 1
        var column = 1
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar == "\0" {
                    throw CSVError(line: line, column: column, message: "a NUL byte: this is not a text file")
                }
                if scalar == "\n" {
                    line += 1
                    column = 1
                } else {
                    column += 1
                }
            case .error:
                throw CSVError(line: line, column: column, message: "bytes that are not UTF-8: this is not a text file")
            case .emptyInput:
                return
            }
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0
        var line = 1
        var column = 1

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        mutating func records() throws(CSVError) -> [CSVRecord] {
            var records: [CSVRecord] = []
            while index < bytes.count {
                if bytes[index] == lf || (bytes[index] == cr && peek(1) == lf) {
                    // An empty line holds no record.
                    advance(bytes[index] == cr ? 2 : 1, newline: true)
                    continue
                }
                let start = line
                var fields: [String] = []
                while true {
                    fields.append(try field())
                    if index == bytes.count { break }
                    if bytes[index] == comma {
                        advance(1)
                        continue
                    }
                    // field() stops only at a comma, the end, or a line break it has checked.
                    advance(bytes[index] == cr ? 2 : 1, newline: true)
                    break
                }
                records.append(CSVRecord(line: start, fields: fields))
            }
            return records
        }

        private mutating func field() throws(CSVError) -> String {
            var value: [UInt8] = []
            if index < bytes.count && bytes[index] == quote {
                let (openLine, openColumn) = (line, column)
                advance(1)
                while true {
                    guard index < bytes.count else {
                        throw CSVError(
                            line: openLine, column: openColumn, message: "the quoted field opened here is never closed")
                    }
                    let byte = bytes[index]
                    if byte == quote {
                        if peek(1) == quote {
                            value.append(quote)
                            advance(2)
                            continue
                        }
                        advance(1)
                        break
                    }
                    value.append(byte)
                    advance(1, newline: byte == lf)
                }
                guard index == bytes.count || bytes[index] == comma || atLineBreak() else {
                    throw CSVError(
                        line: line, column: column,
                        message: "text after a closing quote; a quote inside a quoted field is written twice")
                }
            } else {
                while index < bytes.count && bytes[index] != comma && bytes[index] != lf {
                    let byte = bytes[index]
                    if byte == quote {
                        throw CSVError(
                            line: line, column: column,
                            message: "a quote inside an unquoted field; such a field must be quoted as a whole")
                    }
                    if byte == cr {
                        if peek(1) == lf { break }
                        throw CSVError(line: line, column: column, message: "a carriage return without a line feed")
                    }
                    value.append(byte)
                    advance(1)
                }
            }
            return String(decoding: value, as: UTF8.self)
        }

        private func peek(_ offset: Int) -> UInt8? {
            index + offset < bytes.count ? bytes[index + offset] : nil
        }

        private func atLineBreak() -> Bool {
            bytes[index] == lf || (bytes[index] == cr && peek(1) == lf)
        }

        /// Moves past `count` bytes; columns count characters, not UTF-8 continuation bytes.
        private mutating func advance(_ count: Int, newline: Bool = false) {
            for offset in 0..<count where bytes[index + offset] & 0xC0 != 0x80 {
                column += 1
            }
            index += count
            if newline {
                line += 1
                column = 1
            }
        }
    }
}
