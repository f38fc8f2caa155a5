import Testing

@testable import TopicGateServer

@Suite("Header values")
struct HeaderValueTests {
    @Test("Trimming takes spaces and tabs off both ends only, and keeps what is not ASCII whole")
    func trimming() {
        #expect(HeaderValue.trimmed(" \tBearer abc \t"[...]) == "Bearer abc")
        #expect(HeaderValue.trimmed("  \t "[...]).isEmpty)
        #expect(HeaderValue.trimmed(""[...]).isEmpty)
        #expect(HeaderValue.trimmed(" ünïcödé é "[...]) == "ünïcödé é")
        #expect(HeaderValue.trimmed("x"[...]) == "x")
    }

    @Test("Authorization splits at its first space; the scheme matches in any case, and only whole")
    func authorization() {
        let (scheme, credentials) = HeaderValue.schemeAndCredentials("bEaReR   tok en \t"[...])
        #expect(scheme == "bEaReR")
        #expect(credentials == "tok en")
        #expect(HeaderValue.isScheme(scheme, "bearer"))
        #expect(!HeaderValue.isScheme(scheme, "basic"))
        let bare = HeaderValue.schemeAndCredentials("Bearer"[...])
        #expect(bare.scheme == "Bearer" && bare.credentials.isEmpty)
        #expect(!HeaderValue.isScheme("Bearers", "bearer"))
        #expect(!HeaderValue.isScheme("Bear", "bearer"))
        #expect(!HeaderValue.isScheme("Bëarer", "bearer"))
        #expect(HeaderValue.isScheme("BASIC", "basic"))
    }
}
