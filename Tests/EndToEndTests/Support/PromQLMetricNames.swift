import Foundation

/// The metric names a PromQL expression selects, found without a PromQL parser: strings, label matchers, ranges,
/// grouping clauses, durations and numbers are taken out, and what is left that is a name and not a function call
/// or a keyword is a metric. Enough for the expressions of `deploy/`, which the tests below pin down.
enum PromQLMetricNames {
    private static let keywords: Set<String> = [
        "and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring", "group_left", "group_right", "inf", "nan",
    ]

    /// The metric names in `expression`, in order of appearance, each once.
    static func of(_ expression: String) -> [String] {
        var text = expression
        // Grafana's label_values(METRIC, LABEL): the label is not a metric.
        text = replacing(#"label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)[^)]*\)"#, in: text, with: "$1")
        for pattern in [#""(?:[^"\\]|\\.)*""#, #"\{[^}]*\}"#, #"\[[^\]]*\]"#,
                        #"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)"#,
                        #"\$\{?[a-zA-Z_][a-zA-Z0-9_]*\}?"#, #"\b\d+(?:ms|s|m|h|d|w|y)\b"#,
                        #"\b\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b"#] {
            text = replacing(pattern, in: text, with: " ")
        }
        var names: [String] = []
        let identifier = try! NSRegularExpression(pattern: #"[a-zA-Z_:][a-zA-Z0-9_:]*"#)
        let nsText = text as NSString
        for match in identifier.matches(in: text, range: NSRange(location: 0, length: nsText.length)) {
            let name = nsText.substring(with: match.range)
            let rest = nsText.substring(from: match.range.location + match.range.length)
            let isCall = rest.drop { $0 == " " || $0 == "\n" }.first == "("
            if isCall || keywords.contains(name) || names.contains(name) { continue }
            names.append(name)
        }
        return names
    }

    /// The `expr:` values of a Prometheus rules file, block scalars (`expr: |`) included.
    static func ruleExpressions(in rules: String) -> [String] {
        var expressions: [String] = []
        let lines = rules.components(separatedBy: "\n")
        var index = 0
        while index < lines.count {
            let line = lines[index]
            index += 1
            guard let range = line.range(of: "expr:") , line[..<range.lowerBound].allSatisfy({ $0 == " " }) else { continue }
            let value = line[range.upperBound...].trimmingCharacters(in: .whitespaces)
            guard value.hasPrefix("|") || value.hasPrefix(">") else {
                expressions.append(value)
                continue
            }
            let indent = line.prefix { $0 == " " }.count
            var block: [String] = []
            while index < lines.count, lines[index].isEmpty || lines[index].prefix(while: { $0 == " " }).count > indent {
                block.append(lines[index])
                index += 1
            }
            expressions.append(block.joined(separator: "\n"))
        }
        return expressions
    }

    private static func replacing(_ pattern: String, in text: String, with template: String) -> String {
        let expression = try! NSRegularExpression(pattern: pattern)
        return expression.stringByReplacingMatches(in: text, range: NSRange(location: 0, length: (text as NSString).length),
                                                   withTemplate: template)
    }
}
