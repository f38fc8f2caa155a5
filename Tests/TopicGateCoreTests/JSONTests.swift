import Testing
import TopicGateCore

@Suite("JSON reading and writing")
struct JSONTests {
    @Test("Values survive a round trip; integers stay integers")
    func roundTrip() throws {
        let value: JSONValue = [
            "int": 42, "big": .int(9_007_199_254_740_993), "double": .double(1.5), "bool": true, "null": nil,
            "array": [1, "two", false], "nested": ["a": ["b": "c"]], "unicode": "日本 ✓",
        ]
        let text = JSONWriter.string(value)
        #expect(try JSONReader.value(Array(text.utf8)) == value)
    }

    @Test("A '%' is always written as \\u0025 so decodeURIComponent in the JS SDK cannot fail")
    func percentEscaped() throws {
        let text = JSONWriter.string(["note": "50% off %zz", "50%": 1])
        #expect(!text.contains("%"))
        #expect(try JSONReader.object(Array(text.utf8)) == ["note": "50% off %zz", "50%": 1])
    }

    @Test("Control characters, quotes and backslashes are escaped")
    func escapes() {
        #expect(JSONWriter.string("a\"b\\c\nd\u{01}") == #""a\"b\\c\nd\u0001""#)
    }

    @Test("Keys are written sorted, so equal values give equal bytes")
    func sortedKeys() {
        #expect(JSONWriter.string(["b": 1, "a": 2]) == #"{"a":2,"b":1}"#)
    }

    @Test("Bad JSON is INVALID_JSON; JSON that is not an object is INVALID_INPUT_DATA")
    func errors() {
        #expect(throws: KiiError(.invalidJSON, "The request body is not valid JSON.")) {
            try JSONReader.value(Array("{".utf8))
        }
        #expect(throws: KiiError(.invalidInputData, "The request body must be a JSON object.")) {
            try JSONReader.object(Array("[]".utf8))
        }
    }

    @Test("Error bodies carry errorCode, message and context, and the two always win")
    func errorBody() {
        let error = KiiError(.userNotFound, "gone", context: ["field": "userID", "errorCode": "spoofed"])
        #expect(error.body == ["errorCode": "USER_NOT_FOUND", "message": "gone", "field": "userID"])
    }
}
