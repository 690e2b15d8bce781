
extension OutgoingMessage {
    /// The wire form shared by the HTTP API and the messages topic.
    public var request: MediaMessageRequest {
        MediaMessageRequest(receiver: receiver, type: type, muid: muid, parentId: parentId, tags: tags,
                            data: .init(text: caption, metadata: metadata, attachments: attachments.map(MediaMessageRequest.AttachmentReference.init)))
    }
}
