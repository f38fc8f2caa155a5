/// `GET …/vendor-thing-id`, Kii's member name with its underscore.
struct VendorThingIDAnswer: Encodable, Sendable {
    let _vendorThingID: String
}
