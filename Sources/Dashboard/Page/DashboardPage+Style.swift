extension DashboardPage {
    static let style = ""
}
