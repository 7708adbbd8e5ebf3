import Foundation

// MARK: - Timestamps

extension StateFile {
    /// `savedAt` as written: ISO 8601 in UTC, to the millisecond.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// `savedAt` as read: RFC 3339 (`2026-12-04T15:00:00.123Z`), with or without fractions of a second (as workers
    /// before session 38 wrote it), in UTC or with an offset; nil for anything else.
    ///
    /// Read here rather than by `ISO8601DateFormatter`: ICU's parser under it, given a fraction of a hundred digits
    /// (a damaged or forged file), stopped the process with an arithmetic fault (found by `make fuzz-coverage`'s
    /// state target), and a worker reads other workers' files at its start (`--adopt-state`).
    static func date(fromTimestamp text: String) -> Date? {
        let bytes = Array(text.utf8)
        var index = 0
        /// The next `count` digits as a number, or nil.
        func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += count
            return value
        }
        /// Whether the next byte is one of `expected` (consumed if so).
        func take(_ expected: String) -> Bool {
            guard index < bytes.count, expected.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = digits(4), take("-"), let month = digits(2), take("-"), let day = digits(2), take("Tt"),
            let hour = digits(2), take(":"), let minute = digits(2), take(":"), let second = digits(2),
            (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour < 24, minute < 60,
            second <= 60
        else { return nil }
        var fraction = 0.0
        if take(".") {
            let start = index
            var scale = 0.1
            while index < bytes.count, bytes[index] >= 0x30 && bytes[index] <= 0x39 {
                if index - start < 9 {
                    fraction += Double(bytes[index] - 0x30) * scale
                    scale /= 10
                }
                index += 1
            }
            guard index > start else { return nil }
        }
        var offset = 0
        if !take("Zz") {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") else {
                return nil
            }
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = digits(2), take(":"), let minutes = digits(2), hours < 24, minutes < 60 else {
                return nil
            }
            offset = sign * (hours * 3600 + minutes * 60)
        }
        guard index == bytes.count else { return nil }
        let seconds = daysSince1970(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSince1970: Double(seconds - offset) + fraction)
    }

    /// Days in `month` (1–12) of `year`, in the Gregorian calendar.
    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the date (proleptic Gregorian, years 0–9999): whole 400-year cycles of 146,097
    /// days, counted from a year that starts in March, so that a leap day ends it.
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
