/// Parses request bodies into `JSONValue`s, turning every failure into the Kii error a client
/// expects (`INVALID_JSON`, `INVALID_INPUT_DATA`).
public enum JSONReader {
    /// The value encoded in `bytes`; `INVALID_JSON` when they are not JSON.
    public static func value(_ bytes: some Collection<UInt8>) throws(KiiError) -> JSONValue {
        do {
            return try JSONParser.parse(Array(bytes))
        } catch {
            throw KiiError(.invalidJSON, "The request body is not valid JSON.")
        }
    }

    /// The object encoded in `bytes`; `INVALID_INPUT_DATA` when the JSON is not an object.
    public static func object(_ bytes: some Collection<UInt8>) throws(KiiError) -> [String: JSONValue] {
        guard let object = try value(bytes).objectValue else {
            throw KiiError(.invalidInputData, "The request body must be a JSON object.")
        }
        return object
    }
}
