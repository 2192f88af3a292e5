"""Ctrl-C (SIGINT) that is noted, not lost.

Python's default handler raises KeyboardInterrupt wherever the interpreter is when the signal
lands. Inside a CasADi Callback called from IPOPT, CasADi reports it as a failed evaluation and
IPOPT carries on; inside CasADi's argument conversion the exception can vanish altogether; in a
NumPy or CasADi conversion it can come back as a SystemError. `noted_sigint` records the signal
so that the code around such calls can stop at a safe point (the solver at IPOPT's next
iteration, a sweep after its running case), then raises it as the previous handler would.
"""
from __future__ import annotations

import contextlib
import signal
import threading


class Interrupt:
    """Whether SIGINT arrived (`hit`) while a `noted_sigint` block ran."""

    def __init__(self):
        self.hit = False


@contextlib.contextmanager
def noted_sigint(raise_now: bool):
    """Yield an Interrupt noting SIGINT while the block runs. raise_now: also run the previous
    handler at once (Python's default raises KeyboardInterrupt where the signal lands); else only
    note it. After the block the previous handler is restored and, if SIGINT arrived and it was
    not run at once, run once (so KeyboardInterrupt is raised after the block). Outside the main
    thread, or when SIGINT is ignored or handled outside Python, nothing is changed and nothing
    is noted."""
    state = Interrupt()
    previous = signal.getsignal(signal.SIGINT) if threading.current_thread() is threading.main_thread() else None
    if not callable(previous):
        yield state
        return

    def note(signum, frame):
        state.hit = True
        if raise_now:
            previous(signum, frame)

    signal.signal(signal.SIGINT, note)
    try:
        yield state
    finally:
        signal.signal(signal.SIGINT, previous)
    if state.hit and not raise_now:
        previous(signal.SIGINT, None)
