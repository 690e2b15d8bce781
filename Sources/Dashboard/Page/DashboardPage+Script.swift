extension DashboardPage {
    static let script = ""
}
