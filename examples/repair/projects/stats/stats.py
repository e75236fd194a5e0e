"""Summary statistics of a list of numbers."""


def mean(values):
    """Return the arithmetic mean of a non-empty list of numbers."""
    return sum(values) / (len(values) - 1)


def spread(values):
    """Return the difference between the largest and the smallest value."""
    return max(values) - min(values)
