"""Progress on long runs: a bar on standard error, drawn by tqdm, only where someone watches.

The command line turns it on when standard error is a terminal (``--quiet`` turns it off); stdout
(JSON, CSV, the table) is never touched. The bar appears only after :data:`DELAY` seconds, so
short runs print nothing, and it is cleared before the warnings and the result are printed.

It counts documents compared. The pipeline calls :meth:`Progress.advance` after each batch; under
``--jobs`` the forked workers add to a counter in shared memory (:meth:`Progress.shared`) that a
thread of the parent reads a few times a second. When the number of documents is known cheaply
(a folder's files), the bar has a total; otherwise it shows a count and a rate.
"""

from __future__ import annotations

import sys
import threading

#: Seconds before the bar appears (short runs show nothing).
DELAY = 1.0
#: Seconds between two reads of the workers' shared counter.
POLL = 0.2


class Progress:
    """A progress bar of documents compared (a context manager; nothing is drawn when disabled).

    Parameters
    ----------
    enabled : bool
        Draw it (the caller decides: a terminal, not ``--quiet``).
    total : int, optional
        The documents to compare, when known.
    description : str
        What is counted, before the bar.
    """

    def __init__(self, enabled: bool, total: int | None = None, description: str = "documents"):
        self.enabled = enabled
        self.total = total
        self.description = description
        self.bar = None
        self.counter = None
        self._seen = 0
        self._thread = None
        self._stop = threading.Event()

    def __enter__(self) -> "Progress":
        if self.enabled:
            from tqdm import tqdm

            self.bar = tqdm(total=self.total, desc=self.description, unit=" doc", delay=DELAY, file=sys.stderr,
                            leave=False, dynamic_ncols=True, mininterval=POLL)
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def advance(self, documents: int) -> None:
        """``documents`` more were compared (in this process, or in a forked worker: see :meth:`shared`)."""
        if self.counter is not None:
            with self.counter.get_lock():
                self.counter.value += documents
        elif self.bar is not None:
            self.bar.update(documents)

    def restart(self) -> None:
        """Count from 0 again (a strategy gave up and the documents are compared again)."""
        if self.counter is not None:
            with self.counter.get_lock():
                self.counter.value = 0
            self._seen = 0
        if self.bar is not None:
            self.bar.reset(total=self.total)

    def shared(self):
        """Count in shared memory from now on (before forking: the workers inherit it), the
        parent's thread drawing what they add; returns a context manager that stops the thread."""
        return _Shared(self)

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self.bar is not None:
            if self.bar.n and self.bar.last_print_n != self.bar.n and self.bar.pos is not None:
                self.bar.refresh()  # the last count drawn once before the line is cleared
            self.bar.close()
            self.bar = None

    def _poll(self) -> None:
        while not self._stop.wait(POLL):
            self._draw()
        self._draw()

    def _draw(self) -> None:
        value = self.counter.value
        if value > self._seen and self.bar is not None:
            self.bar.update(value - self._seen)
            self._seen = value


class _Shared:
    def __init__(self, progress: Progress):
        self.progress = progress

    def __enter__(self):
        progress = self.progress
        if progress.enabled and progress.bar is not None:
            import multiprocessing

            progress.counter = multiprocessing.get_context("fork").Value("q", 0)
            progress._stop.clear()
            progress._thread = threading.Thread(target=progress._poll, daemon=True)
            progress._thread.start()
        return progress

    def __exit__(self, *exc):
        progress = self.progress
        if progress._thread is not None:
            progress._stop.set()
            progress._thread.join()
            progress._thread = None
        progress.counter = None


#: What the pipeline calls when nobody watches.
NO_PROGRESS = Progress(False)
