"""The files workers read as `path` sources (their sources.root) and peers upload from."""
import os

MIB = 1 << 20


class Sources:
    """A directory of random files, made once per name and size and reused by later runs."""

    def __init__(self, root):
        self.root = root
        os.makedirs(root)

    def make_files(self, folder, count, size, prefix="part-"):
        """`count` files of `size` bytes in `folder`: {prefix}1.bin, {prefix}2.bin, …; returns their paths."""
        directory = os.path.join(self.root, folder)
        os.makedirs(directory, exist_ok=True)
        paths = []
        with open("/dev/urandom", "rb") as random:
            for i in range(1, count + 1):
                path = os.path.join(directory, "{}{}.bin".format(prefix, i))
                if not (os.path.exists(path) and os.path.getsize(path) == size):
                    with open(path, "wb") as f:
                        left = size
                        while left:
                            chunk = random.read(min(left, 4 * MIB))
                            f.write(chunk)
                            left -= len(chunk)
                paths.append(path)
        return paths

    def relative(self, path):
        """The path as a job's `source.path` names it."""
        return os.path.relpath(path, self.root)
