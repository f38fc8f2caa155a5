import Foundation
import Testing
import TopicGateCore

@Suite("JSON parser")
struct JSONParserTests {
    func parse(_ text: String) throws -> JSONValue {
        try JSONParser.parse(Array(text.utf8))
    }

    @Test("Values of every kind, with whitespace, escapes and surrogate pairs")
    func values() throws {
        #expect(
            try parse(#" { "a" : [1, -2, 0, 3.5, -0.25, 1e3, 2E-2, true, false, null], "b": {"c": "d"}, "e": [] } "#)
                == [
                    "a": [1, -2, 0, .double(3.5), .double(-0.25), .double(1000), .double(0.02), true, false, nil],
                    "b": ["c": "d"], "e": [],
                ])
        #expect(try parse(#""\"\\\/\b\f\n\r\t\u0041\u00e9\u20ac\ud83d\ude00""#) == "\"\\/\u{08}\u{0C}\n\r\tAé€😀")
        #expect(try parse("\"héllo wörld 日本\"") == "héllo wörld 日本")
        // Integers stay integers while 64 bits hold them; beyond, they are doubles.
        #expect(try parse("9223372036854775807") == .int(Int64.max))
        #expect(try parse("-9223372036854775808") == .int(Int64.min))
        #expect(try parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try parse("1.0") == .double(1))
        // A repeated key keeps its last value.
        #expect(try parse(#"{"k":1,"k":2}"#) == ["k": 2])
    }

    @Test(
        "Anything that is not exactly one JSON value is refused",
        arguments: [
            "", " ", "{", "}", "[1,]", "[,1]", #"{"a":1,}"#, #"{"a"}"#, #"{a:1}"#, "tru", "nul", "01", "-", "1.", ".5",
            "1e", "+1", "[1 2]", #"{"a":1 "b":2}"#, "1 2", "\"open", "\"tab\there\"", #""\x""#, #""\u12""#,
            #""\ud83d""#, #""\ude00""#, #""\ud83d\u0041""#, "1e999", "-1e999", "'a'", "NaN", "[1]]", "\u{FEFF}{}",
        ])
    func refused(_ text: String) {
        #expect(throws: JSONParser.Failure.self, "\(text.debugDescription)") { try parse(text) }
    }

    @Test("Invalid UTF-8 in a string is refused; nesting is limited, so no body can exhaust the stack")
    func hostile() throws {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
        let limit = JSONParser.maximumDepth
        _ = try parse(String(repeating: "[", count: limit) + String(repeating: "]", count: limit))
        #expect(throws: JSONParser.Failure.self) {
            try parse(String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1))
        }
        #expect(throws: JSONParser.Failure.self) { try parse(String(repeating: #"{"a":"#, count: 100_000)) }
    }

    @Test("Random values read back as written, and as Foundation's decoder reads them")
    func randomRoundTrips() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let value = Self.randomValue(depth: 0, using: &generator)
            let bytes = JSONWriter.bytes(value)
            #expect(try JSONParser.parse(bytes) == value)
            #expect(try JSONParser.parse(bytes) == (try JSONDecoder().decode(JSONValue.self, from: Data(bytes))))
        }
    }

    static func randomValue(depth: Int, using generator: inout SystemRandomNumberGenerator) -> JSONValue {
        let kinds = depth > 3 ? 6 : 8
        switch Int.random(in: 0..<kinds, using: &generator) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .int(Int64.random(in: Int64.min...Int64.max, using: &generator))
        case 3: return .double(Double.random(in: -1e6...1e6, using: &generator))
        case 4, 5: return .string(randomString(using: &generator))
        case 6:
            return .array(
                (0..<Int.random(in: 0..<5, using: &generator)).map { _ in
                    randomValue(depth: depth + 1, using: &generator)
                })
        default:
            var object: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0..<5, using: &generator) {
                object[randomString(using: &generator)] = randomValue(depth: depth + 1, using: &generator)
            }
            return .object(object)
        }
    }

    static func randomString(using generator: inout SystemRandomNumberGenerator) -> String {
        let alphabet: [Character] = [
            "a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{01}", "%", "é", "€", "😀", "日",
        ]
        return String((0..<Int.random(in: 0..<12, using: &generator)).map { _ in alphabet.randomElement()! })
    }
}
