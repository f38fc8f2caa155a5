import ArgumentParser
import TopicGateCore

/// The user `topicgate users disable` and `enable` name, and the admin's credentials.
struct UserStatusArguments: ParsableArguments {
    @OptionGroup var options: AdminOptions
    @Argument(help: "The user's ID.") var userID: String

    /// Sets the user's status as the admin, then says what followed.
    func set(disabled: Bool, done: String) async throws {
        _ = try await options.client().call("PUT", "/users/\(userID)/status", body: ["disabled": .bool(disabled)])
        print("\(disabled ? "Disabled" : "Enabled") user \(userID); \(done).")
    }
}
