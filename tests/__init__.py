"""Imported before any conftest, and so before numpy or scipy loads OpenBLAS: one BLAS
thread a test process (subprocesses inherit it). The suite runs a worker a core; OpenBLAS's
own threads on top spin-wait for one another on the small matrices of the calibration
fits, which then took three times the CPU (tests/agreement/test_calibration_choice.py)."""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
