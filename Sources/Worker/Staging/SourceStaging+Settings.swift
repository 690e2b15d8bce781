import HTTPTransport

extension SourceStaging {
    /// How sources are fetched and what is done to their bytes.
    public struct Settings: Sendable {
        /// Where URL sources may connect (`sources.allowHosts`); public addresses only by default.
        public var addressPolicy: AddressPolicy
        /// `sources.resignUrl`: asked once for a fresh URL when a source answers 401, 403 or 410; nil asks nobody.
        public var resignURL: String?
        /// `sources.stripLocation`: remove the GPS block from JPEG EXIF metadata before upload.
        public var stripLocation: Bool

        /// Settings; every parameter has the safe default.
        public init(addressPolicy: AddressPolicy = .publicOnly, resignURL: String? = nil, stripLocation: Bool = false) {
            self.addressPolicy = addressPolicy
            self.resignURL = resignURL.flatMap { $0.isEmpty ? nil : $0 }
            self.stripLocation = stripLocation
        }
    }
}
