"""The figures of the table: every quantity is measured `--runs` times and shown as median [min–max]."""
import statistics


class Figure:
    """A list of measurements of one quantity; median, min, max."""

    def __init__(self, values=None):
        self.values = list(values or [])

    def add(self, value):
        self.values.append(value)

    @property
    def median(self):
        return statistics.median(self.values) if self.values else float("nan")

    def over(self, other):
        """The ratio of the medians (Attache/peer); NaN while either has no measurement."""
        return self.median / other.median if self.values and other.values else float("nan")

    def text(self, fmt="{:.2f}"):
        if not self.values:
            return "—"
        if len(self.values) == 1:
            return fmt.format(self.values[0])
        return "{} [{}–{}]".format(fmt.format(self.median), fmt.format(min(self.values)), fmt.format(max(self.values)))
