"""``python -m bench_kernel``: the same entry point as the ``bench-kernel`` script."""

import sys

from bench_kernel.cli import main

if __name__ == "__main__":
    sys.exit(main())
