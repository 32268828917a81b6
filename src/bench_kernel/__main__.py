"""``python -m bench_kernel``: the same entry point as the ``bench-kernel`` script."""

from bench_kernel.cli import console

if __name__ == "__main__":
    console()
