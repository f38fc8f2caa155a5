import HTTPTypes
import Hummingbird
import NIOCore
import Testing

@testable import TopicGateServer

@Suite("Media type names")
struct MediaTypeNameTests {
    func name(_ contentType: String?) -> MediaTypeName {
        var fields = HTTPFields()
        if let contentType { fields[.contentType] = contentType }
        return MediaTypeName(
            Request(
                head: HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/", headerFields: fields),
                body: RequestBody(buffer: ByteBuffer())))
    }

    @Test("Parameters and surrounding spaces are dropped; fragments match in any case")
    func matching() {
        let type = name("  Application/VND.kii.RegistrationAndAuthorizationRequest+JSON ; charset=utf-8")
        #expect(type.contains("registrationandauthorizationrequest"))
        #expect(type.contains("application/vnd.kii."))
        #expect(type.contains("+json"))
        #expect(type.contains("RegistrationAndAuthorization"))
        #expect(!type.contains("charset"))
        #expect(!type.contains("thingregistration"))
    }

    @Test("No header, an empty one or a longer fragment never match, never crash")
    func edges() {
        #expect(!name(nil).contains("json"))
        #expect(!name("").contains("json"))
        #expect(!name("a/b").contains("a/bc"))
        #expect(name("a/b").contains(""))
        #expect(!name("; x").contains("x"))
    }
}
