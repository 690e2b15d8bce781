/// Usage texts of the commands.
enum Usage {
    static let general = """
    attache — upload jobs from Kafka to object storage, with events and messages

    usage: attache <command> [options]

    commands:
      demo         run a batch through the whole upload path on embedded services and show it

    `attache <command> --help` describes a command.
    """

    static let demo = """
    usage: attache demo

    Runs a realistic mixed batch — photos, a video, an audio clip, a PDF, one oversized file and one file whose first
    upload attempt fails — through staging, presigning, uploading and message sending, against an object store, a
    presign service and a message API started on 127.0.0.1. Shows per-file progress as it happens, the messages
    sent grouped by type, and the final UploadResult. Exits 0.
    """

    /// The flags each command accepts, and whether they take a value.
    static func flags(of command: String) -> [String: Bool]? {
        switch command {
        case "demo": [:]
        default: nil
        }
    }

    static func text(of command: String?) -> String {
        switch command {
        case "demo": demo
        default: general
        }
    }
}
