import Foundation
import TopicGateCore

/// What the phone emulator keeps between runs, so that the next run is the same user on the
/// same device: the pseudo user's token (the only proof of who it is) and its installation.
/// Written with mode 0600.
struct PhoneProfile: Codable {
    var server: String
    var appID: String
    var userID: String
    var token: String
    var installationID: String?

    static func load(_ path: String) -> PhoneProfile? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(PhoneProfile.self, from: data)
    }

    func save(_ path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(self)
        guard FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600])
        else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }
}
