"""Why a bench stops without a table."""


class BenchFailure(Exception):
    """A run that cannot give its figure: a process failed, a check did not hold, something did not arrive in time.
    The bench stops every child and keeps their logs."""
