"""Speed and load benchmarks (``make bench``, ``make bench-load``), run from a checkout; not shipped."""
