/// A SCHEDULE trigger's cron: five fields (minute, hour, day of month, month, day of week) as
/// Kii's SDKs send them (`0 12 1 * *`, `5 * * * *`, `* 1 * * *`), each `*`, a number, a range
/// `a-b`, a step `*/n` or `a-b/n`, or a comma list of those; days of week 0–7 (0 and 7 Sunday).
/// When both the day of month and the day of week are restricted, a day matching either is due
/// (as cron does). Times are UTC, to the minute.
public struct CronSchedule: Sendable, Hashable {
    public let text: String
    let minutes: Set<Int>
    let hours: Set<Int>
    let days: Set<Int>
    let months: Set<Int>
    let weekdays: Set<Int>
    let daysRestricted: Bool
    let weekdaysRestricted: Bool

    /// Reads a cron; `WRONG_PREDICATE` ("Value for 'schedule' field is incorrect", as Kii says).
    public init(_ text: String) throws(KiiError) {
        let fields = text.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count == 5,
            let minutes = Self.values(fields[0], 0...59),
            let hours = Self.values(fields[1], 0...23),
            let days = Self.values(fields[2], 1...31),
            let months = Self.values(fields[3], 1...12),
            let weekdays = Self.values(fields[4], 0...7)
        else {
            throw KiiError(
                .wrongPredicate, "Value for 'schedule' field is incorrect",
                context: ["field": "schedule", "schedule": .string(text)])
        }
        self.text = text
        self.minutes = minutes
        self.hours = hours
        self.days = days
        self.months = months
        self.weekdays = Set(weekdays.map { $0 % 7 })
        daysRestricted = fields[2] != "*"
        weekdaysRestricted = fields[4] != "*"
    }

    /// The values one field names within `range`; nil when it is not a field.
    static func values(_ field: Substring, _ range: ClosedRange<Int>) -> Set<Int>? {
        var values: Set<Int> = []
        for part in field.split(separator: ",", omittingEmptySubsequences: false) {
            let pieces = part.split(separator: "/", omittingEmptySubsequences: false)
            guard pieces.count <= 2 else { return nil }
            var step = 1
            if pieces.count == 2 {
                guard let number = Int(pieces[1]), number > 0 else { return nil }
                step = number
            }
            let span: ClosedRange<Int>
            if pieces[0] == "*" {
                span = range
            } else if let dash = pieces[0].firstIndex(of: "-") {
                guard let low = Int(pieces[0][..<dash]), let high = Int(pieces[0][pieces[0].index(after: dash)...]),
                    range.contains(low), range.contains(high), low <= high
                else { return nil }
                span = low...high
            } else {
                guard let value = Int(pieces[0]), range.contains(value) else { return nil }
                span = pieces.count == 2 ? value...range.upperBound : value...value
            }
            values.formUnion(stride(from: span.lowerBound, through: span.upperBound, by: step))
        }
        return values.isEmpty ? nil : values
    }

    /// The first minute strictly after `time` that the schedule names; nil when none comes within
    /// five years (`0 0 31 2 *`).
    public func next(after time: UnixMillis) -> UnixMillis? {
        let minute: Int64 = 60_000
        let day: Int64 = 86_400_000
        var candidate = (time.rawValue / minute + 1) * minute
        let limit = candidate + 5 * 366 * day
        while candidate < limit {
            let date = CivilDate(days: candidate / day)
            let dayMatches: Bool
            if daysRestricted && weekdaysRestricted {
                dayMatches = days.contains(date.day) || weekdays.contains(date.weekday)
            } else {
                dayMatches = days.contains(date.day) && weekdays.contains(date.weekday)
            }
            guard months.contains(date.month), dayMatches else {
                candidate = (candidate / day + 1) * day
                continue
            }
            let inDay = candidate % day
            let hour = Int(inDay / 3_600_000)
            let minuteOfHour = Int(inDay % 3_600_000 / minute)
            if let h = hours.sorted().first(where: { $0 >= hour }) {
                let m = h == hour ? minutes.sorted().first(where: { $0 >= minuteOfHour }) : minutes.min()
                if let m {
                    return UnixMillis((candidate / day) * day + Int64(h) * 3_600_000 + Int64(m) * minute)
                }
                if let later = hours.sorted().first(where: { $0 > hour }), let first = minutes.min() {
                    return UnixMillis((candidate / day) * day + Int64(later) * 3_600_000 + Int64(first) * minute)
                }
            }
            candidate = (candidate / day + 1) * day
        }
        return nil
    }
}

/// A day of the proleptic Gregorian calendar from days since 1970-01-01 (UTC).
struct CivilDate {
    let year: Int
    let month: Int
    let day: Int
    /// 0 Sunday … 6 Saturday.
    let weekday: Int

    init(days: Int64) {
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        year = Int(yoe + era * 400 + (m <= 2 ? 1 : 0))
        month = Int(m)
        day = Int(d)
        weekday = Int(((days % 7) + 11) % 7)  // 1970-01-01 was a Thursday (4)
    }
}
