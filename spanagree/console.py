"""The ``spanagree`` command's entry point: an interrupt is answered from the first instant.

Importing the command line (:mod:`spanagree.cli`, and through it spaCy's and the formats'
modules) takes some tenths of a second, more on a loaded machine; a signal in that window ended
Python with a ``KeyboardInterrupt`` traceback (SIGINT) or with no word at all (SIGTERM, SIGHUP).
Until :func:`spanagree.cli.main` takes over (:func:`spanagree.outputs.signals_as_interrupts`,
which stops the run's workers and removes its temporary outputs), SIGINT, SIGTERM and SIGHUP end
the process at once with one line and ``128 +`` the signal's number: nothing has been read or
written yet.
"""

from __future__ import annotations

import os
import signal


def _ended(signum, frame) -> None:
    os.write(2, b"spanagree: interrupted\n")
    os._exit(128 + signum)


def main() -> int:
    """The ``spanagree`` script: the early handlers installed, then :func:`spanagree.cli.main`."""
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None:
            signal.signal(number, _ended)
    from .cli import main as command_line

    return command_line()


__all__ = ["main"]
