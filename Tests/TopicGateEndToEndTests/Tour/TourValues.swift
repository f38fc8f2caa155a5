import Foundation

/// What a page's example values stand for in this run: the appID and ports it shows, and every
/// ID, token and password that a shown answer names, learnt from the real answer.
///
/// A value the page shows at a generated key (`userID`, `_accessToken`, …) is learnt the
/// first time; afterwards the page's text is this run's value wherever it appears, in commands
/// (`TOKEN=Wj_ItT…`) as in answers. Any other value must be what the server answered.
struct TourValues {
    /// The page's text → this run's value.
    private(set) var learnt: [String: String]
    /// Numbers the page shows that are this run's others (ports).
    let numbers: [String: String]

    /// Keys whose values each run makes anew.
    static let generatedKeys: Set<String> = [
        "userID", "_accessToken", "access_token", "accessToken", "id", "groupID", "thingID", "installationID",
        "installationRegistrationID", "mqttTopic", "username", "password", "pushMessageID", "commandID",
        "objectScopeUserID", "objectScopeGroupID", "objectScopeThingID", "sender", "when", "createdAt",
        "secretSetAt", "modifiedAt", "_created", "_modified", "_thingID", "issuer",
    ]

    init(texts: [String: String], numbers: [String: String]) {
        learnt = texts
        self.numbers = numbers
    }

    /// `text` with every learnt value in place of the page's, longest first, and the page's
    /// port numbers (as whole words) in place of this run's.
    func substituted(_ text: String) -> String {
        var result = text
        for key in learnt.keys.sorted(by: { $0.count > $1.count }) {
            result = result.replacingOccurrences(of: key, with: learnt[key]!)
        }
        for (shown, actual) in numbers {
            result = result.replacingOccurrences(
                of: "\\b\(shown)\\b", with: actual, options: .regularExpression)
        }
        return result
    }

    /// Nil when `actual` (decoded by JSONSerialization) is what the page shows; otherwise why not.
    /// Learns the generated values it meets.
    mutating func match(_ shown: ShownJSON, _ actual: Any?, key: String? = nil, at path: String = "") -> String? {
        switch shown {
        case .anything:
            return actual == nil ? "\(path) is missing" : nil
        case .null:
            return actual is NSNull ? nil : "\(path) is \(Self.describe(actual)), the page shows null"
        case .bool(let value):
            return (actual as? Bool) == value ? nil : "\(path) is \(Self.describe(actual)), the page shows \(value)"
        case .number(let text):
            guard let number = actual as? NSNumber else {
                return "\(path) is \(Self.describe(actual)), the page shows \(text)"
            }
            let real = "\(number)"
            if let key, Self.generatedKeys.contains(key) { return learn(text, real, at: path) }
            let expected = numbers[text] ?? learnt[text] ?? text
            return Double(expected) == number.doubleValue
                ? nil : "\(path) is \(real), the page shows \(text) (\(expected) in this run)"
        case .string(let text):
            guard let real = actual as? String else {
                return "\(path) is \(Self.describe(actual)), the page shows \"\(text)\""
            }
            if let known = learnt[text] {
                return known == real
                    ? nil : "\(path) is \"\(real)\", the page's \"\(text)\" is \"\(known)\" in this run"
            }
            if text == "…" { return nil }
            if let key, Self.generatedKeys.contains(key) { return learn(text, real, at: path) }
            return Self.fits(real, pattern: substituted(text))
                ? nil : "\(path) is \"\(real)\", the page shows \"\(text)\""
        case .object(let members, let open):
            guard let object = actual as? [String: Any] else {
                return "\(path) is \(Self.describe(actual)), the page shows an object"
            }
            for member in members {
                if let failure = match(member.value, object[member.key], key: member.key, at: path + "." + member.key) {
                    return failure
                }
            }
            let unshown = Set(object.keys).subtracting(members.map(\.key))
            if !open, !unshown.isEmpty {
                return
                    "\(path.isEmpty ? "the answer" : path) also has \(unshown.sorted()), which the page neither shows nor elides with …"
            }
            return nil
        case .array(let elements, let open):
            guard let array = actual as? [Any] else {
                return "\(path) is \(Self.describe(actual)), the page shows an array"
            }
            if open ? array.count < elements.count : array.count != elements.count {
                return "\(path) has \(array.count) elements, the page shows \(elements.count)\(open ? " or more" : "")"
            }
            for (index, element) in elements.enumerated() {
                if let failure = match(element, array[index], at: "\(path)[\(index)]") { return failure }
            }
            return nil
        }
    }

    /// Learns that the page's `shown` is `real` in this run; two shown values for one real one
    /// mean the page calls one thing by two names.
    private mutating func learn(_ shown: String, _ real: String, at path: String) -> String? {
        if let known = learnt[shown] {
            return known == real ? nil : "\(path) is \"\(real)\", the page's \"\(shown)\" is \"\(known)\" in this run"
        }
        if let other = learnt.first(where: { $0.value == real && $0.key != shown }) {
            return "\(path): the page shows \"\(shown)\" for what it showed as \"\(other.key)\" before"
        }
        learnt[shown] = real
        return nil
    }

    /// True when `text` is `pattern`, where each `…` in the pattern stands for any characters.
    static func fits(_ text: String, pattern: String) -> Bool {
        let parts = pattern.components(separatedBy: "…")
        guard parts.count > 1 else { return text == pattern }
        guard text.hasPrefix(parts[0]), text.hasSuffix(parts[parts.count - 1]) else { return false }
        var rest = text.dropFirst(parts[0].count)
        for part in parts.dropFirst().dropLast() {
            guard let range = rest.range(of: part) else { return false }
            rest = rest[range.upperBound...]
        }
        return rest.count >= parts[parts.count - 1].count
    }

    /// A line of a program's output as the page shows it, as a regular expression: `…` for any
    /// characters, and IDs and timestamps the page could not know in advance for any of their kind.
    func linePattern(_ shown: String) -> String {
        var pattern = NSRegularExpression.escapedPattern(for: substituted(shown))
        let wildcards: [(String, String)] = [
            // An elided word ("th.6b6c1030-…", "01609a8b…"): its visible part was that run's.
            (#"[A-Za-z0-9_]+-?…"#, #"\\S*?"#),
            ("…", ".*?"),
            // A Kii object ID (25 lower-case letters and digits), a hex ID, a timestamp.
            (#"\b[a-z0-9]{25}\b"#, "[a-z0-9]{25}"),
            (#"\b[0-9a-f]{16,}\b"#, "[0-9a-f]+"),
            (#"\b[0-9]{13}\b"#, "[0-9]{13}"),
        ]
        for (shown, general) in wildcards {
            pattern = pattern.replacingOccurrences(of: shown, with: general, options: .regularExpression)
        }
        return pattern
    }

    static func describe(_ value: Any?) -> String {
        guard let value else { return "missing" }
        if let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys]) {
            return String(decoding: data, as: UTF8.self)
        }
        return "\(value)"
    }
}
