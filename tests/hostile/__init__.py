"""The hostile-input suite: every bad input anyone has reported, kept as a regression test.

One module per area (``test_trace_loader.py``, ``test_kernel_names.py``, ``test_cli_output.py``, ...).
Each case states the input, the exact one-line ``bench-kernel: error: ...`` (or the one-line note) and
the exit code; none may print a traceback, hang, exhaust memory or print a silently wrong number.
A new report of a bad input goes here as a new case, next to its area's others.
"""
