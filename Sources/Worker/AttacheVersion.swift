/// The version Attache reports in logs and `--version`.
public enum AttacheVersion {
    public static let string = "0.1.0"
}
