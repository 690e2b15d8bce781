import WireFormat

extension CapturedMessage {
    /// The message a request body carries; `parentId` may be a string or a number.
    ///
    /// - Throws: `MalformedBody` naming the first field that is missing or of the wrong type.
    init(reading fields: JSONFields<MalformedBody>) throws(MalformedBody) {
        receiver = try fields.required(fields.string("receiver"), "receiver")
        receiverType = try fields.required(fields.string("receiverType"), "receiverType")
        category = try fields.required(fields.string("category"), "category")
        type = try fields.required(fields.string("type"), "type")
        muid = try fields.string("muid")
        parentId = try fields.idText("parentId")
        tags = try fields.strings("tags")
        let payload = try fields.required(fields.object("data"), "data")
        var attachments: [Attachment] = []
        for attachment in try payload.required(payload.objects("attachments"), "attachments") {
            attachments.append(Attachment(
                url: try attachment.required(attachment.string("url"), "url"),
                name: try attachment.required(attachment.string("name"), "name"),
                mimeType: try attachment.required(attachment.string("mimeType"), "mimeType"),
                extension: try attachment.required(attachment.string("extension"), "extension"),
                size: try attachment.required(attachment.int64("size"), "size")))
        }
        data = Payload(text: try payload.string("text"), metadata: try payload.freeObject("metadata"), attachments: attachments)
    }
}
