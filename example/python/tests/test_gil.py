"""The GIL is released while a kernel runs: another Python thread makes progress then."""

import sys
import threading
import time

import numpy as np

import opgen_example as og


def test_other_threads_run_only_while_kernels_run():
    x = og.tensor(np.ones((200, 200), dtype=np.float64))
    ticks = []
    started, done = threading.Event(), threading.Event()

    def count():
        started.set()
        while not done.is_set():
            ticks.append(1)
            time.sleep(0)  # lets the main thread take the GIL back at once

    old = sys.getswitchinterval()
    # No forced switches: the worker can run only when the main thread lets go of the GIL.
    sys.setswitchinterval(100)
    worker = threading.Thread(target=count)
    try:
        worker.start()
        started.wait()
        before = len(ticks)
        for _ in range(3):
            og.matmul(x, x)
        during = len(ticks) - before
    finally:
        done.set()
        sys.setswitchinterval(old)
        worker.join()
    assert during > 0
