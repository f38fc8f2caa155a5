import Testing
import TopicGateCore

@Suite("Typed IDs, login identifiers and path references")
struct IdentifierParsingTests {
    @Test(
        "Typed IDs parse in any case of prefix and print in lower case",
        arguments: [
            ("thing:th.abc", "thing:th.abc"), ("THING:th.abc", "thing:th.abc"), ("User:u-1", "user:u-1"),
            ("group:g_1", "group:g_1"),
        ])
    func typedIDs(input: String, printed: String) throws {
        #expect(try #require(TypedID(parsing: input)).description == printed)
    }

    @Test(
        "Typed IDs with another kind or an unsafe ID are refused",
        arguments: ["robot:x", "user:", "user:a/b", "user:a+b", "user:#", "nocolon"])
    func badTypedIDs(input: String) {
        #expect(TypedID(parsing: input) == nil)
    }

    @Test("Owners are users or groups only")
    func owners() {
        #expect(Owner(parsing: "group:g") == .group(GroupID("g")))
        #expect(Owner(parsing: "thing:t") == nil)
    }

    @Test(
        "Usernames of the token endpoint",
        arguments: [
            ("alice", LoginIdentifier.loginName("alice")),
            ("LOGIN_NAME:alice", .loginName("alice")),
            ("Alice@Example.com", .emailAddress("alice@example.com")),
            ("EMAIL:Bob@Example.com", .emailAddress("bob@example.com")),
            ("+81 90-1234", .phoneNumber("+81901234")),
            ("PHONE:+819012345678", .phoneNumber("+819012345678")),
            ("phone:JP-09012345678", .phoneNumber("JP-09012345678")),
            ("VENDOR_THING_ID:lamp-1", .vendorThingID("lamp-1")),
            ("vendor_thing_id:lamp:2", .vendorThingID("lamp:2")),
        ])
    func usernames(input: String, expected: LoginIdentifier) {
        #expect(LoginIdentifier(username: input) == expected)
    }

    @Test("User path segments")
    func userReferences() {
        #expect(UserReference(pathSegment: "me") == .me)
        #expect(UserReference(pathSegment: "u-1") == .id(UserID("u-1")))
        #expect(UserReference(pathSegment: "EMAIL:a@b.c") == .address(.emailAddress("a@b.c")))
        #expect(UserReference(pathSegment: "VENDOR_THING_ID:x") == nil)
        #expect(UserReference(pathSegment: "a b") == nil)
    }

    @Test("Thing path segments")
    func thingReferences() {
        #expect(ThingReference(pathSegment: "th.1") == .id(ThingID("th.1")))
        #expect(ThingReference(pathSegment: "vendor_thing_id:lamp") == .vendorThingID("lamp"))
        #expect(ThingReference(pathSegment: "VENDOR_THING_ID:") == nil)
        #expect(ThingReference(pathSegment: "OTHER:x") == nil)
    }
}
