"""results.md: the bench's table with its notes first, then sections of their own (the soak's) that a run of other
scenarios keeps as they were."""
import os


def read(path):
    if not os.path.exists(path):
        return ""
    with open(path) as f:
        return f.read()


def section_of(text, heading):
    """The section under `heading` (to the next heading of the same level, or the end), or ''."""
    if heading not in text:
        return ""
    after = text.split(heading, 1)[1].split("\n## ", 1)[0]
    return heading + after.rstrip("\n") + "\n"


def without_section(text, heading):
    """The text without the section under `heading`."""
    if heading not in text:
        return text
    before, after = text.split(heading, 1)
    rest = after.split("\n## ", 1)
    return before.rstrip("\n") + ("\n\n## " + rest[1] if len(rest) == 2 else "\n")


def replace_section(path, heading, text):
    """Puts `text`, a section under `heading`, into the file in place of an earlier one, keeping every other
    section."""
    kept = without_section(read(path), heading).rstrip("\n")
    with open(path, "w") as f:
        f.write((kept + "\n\n" if kept else "") + text.rstrip("\n") + "\n")


def write_keeping(path, text, heading):
    """Writes `text` as the whole file, except that the section under `heading` of the file as it was stays, at the
    end."""
    kept = section_of(read(path), heading)
    with open(path, "w") as f:
        f.write(text + ("\n" + kept if kept else ""))
