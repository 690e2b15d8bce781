"""The table: one `Row` per line, as every scenario returns them, and the markdown they are printed as."""
from dataclasses import dataclass

from .targets import Target

HEADER = ["scenario", "Attache median [min–max]", "peer median [min–max]", "Attache/peer", "target", "met"]


@dataclass(frozen=True)
class Row:
    """One line of the table. `ratio` is Attache/peer of the medians (None where there is no peer to compare with);
    `checked` are the figures `target` is checked on, in the order of its bounds."""
    label: str
    attache: str
    peer: str = "—"
    ratio: float = None
    target: Target = None
    checked: tuple = ()

    @property
    def met(self):
        """True or False against the target; None where the row has nothing to check."""
        return self.target.met(*self.checked) if self.target else None

    def cells(self):
        met = self.met
        return [self.label, self.attache, self.peer, "—" if self.ratio is None else "{:.2f}×".format(self.ratio),
                self.target.text if self.target else "", "" if met is None else ("yes" if met else "**no**")]


def markdown(rows):
    """A table of text cells (the first row is the header), its columns padded to line up."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        lines.append("| " + " | ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)) + " |")
        if n == 0:
            lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)
