"""Progress lines, on stderr: stdout carries only the table."""
import sys
import time


def log(message):
    print("[bench {}] {}".format(time.strftime("%H:%M:%S"), message), file=sys.stderr, flush=True)
