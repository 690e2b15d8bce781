#!/usr/bin/env python3
"""Attache against its peers, end to end: the entry point ops/bench/run calls (see that script for usage). The bench
is the package beside this file, ops/bench/attache_bench/. Standard library only."""
import sys

from attache_bench.cli import main

if __name__ == "__main__":
    sys.exit(main())
