/// RFC 4180 CSV as ``CSV/parse(_:limits:)`` reads it, one record at a time, so that a caller can
/// decode each as it comes and stop at the first bad one: memory holds the bytes and one record.
///
/// A record ends at the first field beyond the header's number and a field at the first byte
/// beyond its limit, so neither a line of commas nor one long field is read further. Text is
/// checked field by field: a NUL byte or bytes that are not UTF-8 are an error at their place.
package struct CSVReader {
    /// The column names of the first record, each given once.
    package let header: [String]
    private var scanner: Scanner
    /// By column.
    private let fieldLimits: [Int]

    /// Reads the header.
    ///
    /// - Throws: ``CSVError`` when the file is empty or the header is malformed or beyond `limits`.
    package init(_ bytes: some Collection<UInt8>, limits: CSV.Limits = CSV.Limits()) throws(CSVError) {
        scanner = Scanner(bytes: Array(bytes))
        // Names are checked as they are read: a line of commas stops at its first.
        var seen = Set<String>()
        let names = try scanner.record(
            fieldLimits: Array(repeating: limits.otherFieldBytes, count: limits.columns),
            tooMany: "the header has more than \(limits.columns) columns",
            tooLong: { "header column \($0 + 1) is longer than \(limits.otherFieldBytes) bytes" }
        ) { position, name, line throws(CSVError) in
            guard !name.isEmpty else {
                throw CSVError(line: line, column: nil, message: "header column \(position + 1) has no name")
            }
            guard seen.insert(name).inserted else {
                throw CSVError(line: line, column: nil, message: "the header names column '\(name)' twice")
            }
        }
        guard let names else {
            throw CSVError(line: 1, column: nil, message: "the file is empty; a header row was expected")
        }
        header = names.fields
        fieldLimits = header.map { limits.fieldBytes[$0] ?? limits.otherFieldBytes }
    }

    /// The next record, with as many fields as the header; `nil` at the end of the file.
    ///
    /// - Throws: ``CSVError`` at the first thing in it that is not RFC 4180 CSV or is beyond the limits.
    package mutating func next() throws(CSVError) -> CSVRecord? {
        let (header, count) = (self.header, self.header.count)
        let limits = fieldLimits
        guard
            let record = try scanner.record(
                fieldLimits: limits, tooMany: "the record has more than \(count) fields; the header has \(count)",
                tooLong: { "the \(header[$0]) field is longer than \(limits[$0]) bytes" })
        else { return nil }
        guard record.fields.count == count else {
            throw CSVError(
                line: record.line, column: nil,
                message: "the record has \(record.fields.count) fields; the header has \(count)")
        }
        return record
    }

    private static let comma = UInt8(ascii: ","), quote = UInt8(ascii: "\""), cr = UInt8(ascii: "\r"),
        lf = UInt8(ascii: "\n")

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        var line = 1
        var column = 1
        /// Where the field being read starts, for the text check.
        private var fieldStart = (index: 0, line: 1, column: 1)

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        /// The next record, or `nil` at the end; its field `i` at most `fieldLimits[i]` bytes, and
        /// a field beyond `fieldLimits.count` an error, `tooMany`, at that field. `check` sees each
        /// field as it is read, with its position and the line the record starts on.
        mutating func record(
            fieldLimits: [Int], tooMany: @autoclosure () -> String, tooLong: (Int) -> String,
            check: (Int, String, Int) throws(CSVError) -> Void = { _, _, _ in }
        ) throws(CSVError) -> CSVRecord? {
            // An empty line holds no record.
            while index < bytes.count && atLineBreak() {
                advance(bytes[index] == cr ? 2 : 1, newline: true)
            }
            guard index < bytes.count else { return nil }
            let start = line
            var fields: [String] = []
            while true {
                guard fields.count < fieldLimits.count else {
                    throw CSVError(line: line, column: column, message: tooMany())
                }
                let position = fields.count
                let value = try field(limit: fieldLimits[position]) { tooLong(position) }
                try check(position, value, start)
                fields.append(value)
                if index == bytes.count { break }
                if bytes[index] == comma {
                    advance(1)
                    continue
                }
                // field() stops only at a comma, the end, or a line break it has checked.
                advance(bytes[index] == cr ? 2 : 1, newline: true)
                break
            }
            return CSVRecord(line: start, fields: fields)
        }

        private mutating func field(limit: Int, tooLong: () -> String) throws(CSVError) -> String {
            fieldStart = (index, line, column)
            // Only a field with a NUL or a byte beyond ASCII needs its text checked.
            var isPlainASCII = true
            guard index < bytes.count && bytes[index] == quote else {
                while index < bytes.count && bytes[index] != comma && bytes[index] != lf {
                    let byte = bytes[index]
                    if byte == quote {
                        throw failure(
                            line: line, column: column,
                            "a quote inside an unquoted field; such a field must be quoted as a whole")
                    }
                    if byte == cr {
                        if peek(1) == lf { break }
                        throw failure(line: line, column: column, "a carriage return without a line feed")
                    }
                    guard index - fieldStart.index < limit else {
                        throw failure(line: fieldStart.line, column: fieldStart.column, tooLong())
                    }
                    if byte == 0 || byte >= 0x80 { isPlainASCII = false }
                    advance(1)
                }
                if !isPlainASCII { try checkText(upTo: index) }
                return String(decoding: bytes[fieldStart.index..<index], as: UTF8.self)
            }
            var value: [UInt8] = []
            var isOverLimit = false
            advance(1)
            while true {
                guard index < bytes.count else {
                    throw failure(
                        line: fieldStart.line, column: fieldStart.column, "the quoted field opened here is never closed"
                    )
                }
                var byte = bytes[index]
                if byte == quote {
                    guard peek(1) == quote else {
                        advance(1)
                        break
                    }
                    advance(1)
                    byte = quote
                }
                if byte == 0 || byte >= 0x80 { isPlainASCII = false }
                // Read to its end but not kept: a quote never closed is the likelier fault, and says so.
                if value.count < limit { value.append(byte) } else { isOverLimit = true }
                advance(1, newline: byte == lf)
            }
            if isOverLimit { throw failure(line: fieldStart.line, column: fieldStart.column, tooLong()) }
            guard index == bytes.count || bytes[index] == comma || atLineBreak() else {
                throw failure(
                    line: line, column: column,
                    "text after a closing quote; a quote inside a quoted field is written twice")
            }
            if !isPlainASCII { try checkText(upTo: index) }
            return String(decoding: value, as: UTF8.self)
        }

        /// An error at a place in the field being read, or an earlier one in its text: a binary
        /// file is reported as such wherever its bytes first break the CSV.
        private func failure(line: Int, column: Int, _ message: String) -> CSVError {
            do {
                try checkText(upTo: index)
            } catch {
                return error
            }
            return CSVError(line: line, column: column, message: message)
        }

        /// Rejects a NUL byte or bytes that are not UTF-8, the signs of a binary file, in the field
        /// being read up to `end`. A field holds every byte but its delimiters, which are ASCII.
        private func checkText(upTo end: Int) throws(CSVError) {
            var (line, column) = (fieldStart.line, fieldStart.column)
            var iterator = bytes[fieldStart.index..<end].makeIterator()
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
                    throw CSVError(
                        line: line, column: column, message: "bytes that are not UTF-8: this is not a text file")
                case .emptyInput:
                    return
                }
            }
        }

        private func peek(_ offset: Int) -> UInt8? {
            index + offset < bytes.count ? bytes[index + offset] : nil
        }

        private func atLineBreak() -> Bool {
            bytes[index] == lf || (bytes[index] == cr && peek(1) == lf)
        }

        /// Moves past `count` bytes; columns count characters, not UTF-8 continuation bytes.
        private mutating func advance(_ count: Int, newline: Bool = false) {
            // A while loop, not a range's iterator: this runs for every byte, in debug builds too.
            let end = index + count
            while index < end {
                if bytes[index] & 0xC0 != 0x80 { column += 1 }
                index += 1
            }
            if newline {
                line += 1
                column = 1
            }
        }
    }
}
