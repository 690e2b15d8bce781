/// The dashboard's page: one HTML document, one style sheet and one script, embedded in the binary as Swift string
/// literals — no CDN, no build step, nothing fetched but what this server answers. The script is in
/// `DashboardPage+Script.swift`, the style in `DashboardPage+Style.swift`.
enum DashboardPage {
    static let html = """
    <!doctype html>
    <html lang="en"><head><meta charset="utf-8"><title>Attache</title></head><body></body></html>
    """
}
