"""The executor seam: the shards planned once, then mapped over an executor.

:func:`accumulate_sharded` takes the plans of :mod:`spanagree.pipeline.shards` (folders, byte
ranges, documents in memory), maps each over the executor until one gives what one process gives,
and returns the shards' accumulators added in order. An executor is an object with
``map(function, tasks)`` (the results in the tasks' order), ``workers(items, per)``,
``check_paths(paths)``, its thresholds (``shards_per_job``, ``min_documents_per_job``,
``min_spans_per_job``), ``stays_here`` and ``inherits``: a :class:`Processes` pool (forked: the
shard's function, documents in memory and the progress bar's shared counter are inherited, not
pickled) or a Dask cluster's :class:`~spanagree.pipeline.cluster.Workers`. :func:`sharing` hands
the same executor to the formats that share out a folder's work themselves.
"""

from __future__ import annotations

import gc
import os
from functools import partial
from typing import Any, Callable, Iterable

from ..errors import SpanagreeError, parameter
from .accumulator import Accumulator

#: The function the forked processes call, set just before forking (children inherit it).
_SHARED: tuple | None = None


class Processes(int):
    """``jobs`` forked processes, an executor of :func:`accumulate_sharded`: a whole number (what
    ``jobs`` takes everywhere) that also says when sharding pays.

    Parameters
    ----------
    jobs : int
        Processes to use.
    min_documents_per_job : int
        Fewer documents (files) than this per process, where the processes read their own
        (folders, byte ranges), and fewer processes are used; fewer than two processes' worth and
        the inputs are read here (then compared in processes if their spans pay).
    min_spans_per_job : int
        Fewer spans than this per process, for documents read here, and fewer processes are used
        (starting one, and the copy-on-write of the pages it touches, take a tenth of a second).
    shards_per_job : int
        Shards per process: enough to even out documents of unequal size, few enough that the
        counts sent back stay cheap.

    Attributes
    ----------
    mapped : list of int
        The shards of each map over forked processes, in order (a run can tell that it forked).

    Examples
    --------
    >>> jobs = Processes(2, min_spans_per_job=1)
    >>> jobs == 2, jobs.min_documents_per_job, jobs.mapped
    (True, 1000, [])
    """

    stays_here = True   # too little work for two processes: this process does it
    inherits = True     # the children inherit what the parent holds: documents in memory need not be sent

    def __new__(cls, jobs: int, *, min_documents_per_job: int = 1_000, min_spans_per_job: int = 50_000,
                shards_per_job: int = 4, mapped: list | None = None):
        self = super().__new__(cls, jobs)
        self.min_documents_per_job, self.min_spans_per_job = min_documents_per_job, min_spans_per_job
        self.shards_per_job = shards_per_job
        self.mapped = [] if mapped is None else mapped
        return self

    def __reduce__(self):
        return int, (int(self),)  # pickled (a result's options) as the number it is

    def capped(self, jobs: int) -> "Processes":
        """The same pool of at most ``jobs`` processes (its :attr:`mapped` shared)."""
        return type(self)(min(self, jobs), min_documents_per_job=self.min_documents_per_job,
                         min_spans_per_job=self.min_spans_per_job, shards_per_job=self.shards_per_job,
                         mapped=self.mapped)

    def workers(self, items: int, per: int) -> int:
        """The processes ``items`` pay for, at least ``per`` each (``per``: a threshold above)."""
        return min(int(self), items // per) if per else int(self)

    def check_paths(self, paths) -> None:
        """The processes see what this one sees."""

    def map(self, function: Callable[[Any], Any], tasks: Iterable) -> list | None:
        """``[function(task) for task in tasks]`` over the processes, in order, or ``None`` where
        ``fork`` is unavailable (not on Windows). ``function`` (a closure may do) is inherited, not
        pickled; what is alive now is frozen (the children's collector then neither scans it nor
        writes to its pages); ``tasks`` may be a generator, each handed out as soon as it is made.

        A process that dies (killed, or out of memory) ends the map with a
        :class:`~spanagree.errors.SpanagreeError` rather than a wait for an answer that will never
        come; one ended by SIGINT, SIGTERM or SIGHUP (the signal that ends the run, sent to its
        process group) ends it as that signal does here
        (:class:`~spanagree.outputs.Interrupted`). When the map is left by an exception (an
        interrupt among them) the workers are ended first, with the signals held back, and the
        pool's threads with them: nothing is left for the interpreter's exit to wait for.
        """
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool

        from ..outputs import STOPPING, interrupted, signals_held
        from .spool import SQLITE_LOCK

        if "fork" not in multiprocessing.get_all_start_methods():
            return None
        global _SHARED
        frozen = not gc.get_freeze_count()
        if frozen:
            gc.freeze()
        _SHARED = (function,)
        futures: list = []
        pool = ProcessPoolExecutor(int(self), mp_context=multiprocessing.get_context("fork"),
                                   initializer=_signals_let_through)
        try:
            # submitted one by one (Executor.map would cancel the others' futures on an
            # interrupt, which the pool's thread then fails to mark broken: InvalidStateError)
            for task in tasks:
                if futures:
                    futures.append(pool.submit(_call_shared, task))
                else:
                    # the first submit forks the workers: all of them, or none, and none while a thread
                    # opens or closes a spool's database (spool.SQLITE_LOCK)
                    with signals_held(), SQLITE_LOCK:
                        futures.append(pool.submit(_call_shared, task))
            results = [future.result() for future in futures]
        except BaseException as error:
            with signals_held():
                codes = _ended(pool)
            signum = next((-code for code in codes if code is not None and -code in STOPPING), None)
            if isinstance(error, BrokenProcessPool) and signum is not None:
                raise interrupted(signum) from None  # the workers were ended by the run's interrupt
            if isinstance(error, BrokenProcessPool):
                raise SpanagreeError("a worker process of {jobs} ended abruptly (killed, or out of memory?); "
                                     "nothing was written; try fewer {fewer}", jobs=parameter("jobs", int(self)),
                                     fewer="jobs") from None
            raise
        finally:
            _SHARED = None
            if frozen:
                gc.unfreeze()
            self.mapped.append(len(futures))
        pool.shutdown()
        return results


def _signals_let_through() -> None:
    """In a worker: the signals that end a run no longer held back (it was forked while they were)."""
    import signal

    from ..outputs import STOPPING

    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPPING)


def _ended(pool) -> list:
    """The pool's workers ended (terminated, then killed if they linger) and its thread joined;
    the workers' exit codes (``-N``: ended by signal ``N``), as they were before this ended them."""
    workers = [worker for worker in list((getattr(pool, "_processes", None) or {}).values())
               if worker.pid is not None]
    codes = [worker.exitcode for worker in workers]
    for worker in workers:
        if worker.exitcode is None:
            worker.terminate()
    for worker in workers:
        worker.join(2)
        if worker.exitcode is None:
            worker.kill()
            worker.join(2)
    # no future is cancelled: the pool's thread sees its workers gone, fails the futures left
    # (BrokenProcessPool) and ends
    pool.shutdown(wait=False)
    thread = getattr(pool, "_executor_manager_thread", None)
    if thread is not None:
        thread.join(10)
    return codes


def _call_shared(task):
    return _SHARED[0](task)


def usable_cores() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def sharing(executor):
    """What shares out a reader's work on a folder's files over ``executor`` (``None``: one job),
    handed to the formats (:func:`~spanagree.formats.container_streams`: a GATE folder's
    annotation sets) so that they need not know the pipeline: ``share_out(function, items, reads)``
    is each contiguous shard's ``function(shard)``, in order, or ``None`` where the items do not
    pay for two processes or none can be forked; ``reads``, the paths read, are checked first."""
    if executor is None or (executor.stays_here and executor < 2):
        return None

    def share_out(function: Callable[[Any], Any], items: list, reads=()) -> list | None:
        workers = executor.workers(len(items), executor.min_documents_per_job)
        if not items or (executor.stays_here and workers < 2):
            return None
        executor.check_paths(reads)
        from .shards import shards

        bounds = [(piece[0], piece[-1] + 1) for piece in shards(range(len(items)), workers * executor.shards_per_job)]
        return executor.map(partial(_share_task, items=items, function=function), bounds)

    return share_out


def _share_task(bounds: tuple[int, int], *, items: list, function):
    return function(items[bounds[0]:bounds[1]])


def accumulate_sharded(inputs, names, groups, comparison, executor, *, format=None, format_options=None,
                       **common) -> Accumulator | None:
    """The accumulator of ``inputs`` compared in shards over ``executor`` (:class:`Processes`, or
    a Dask cluster's :class:`~spanagree.pipeline.cluster.Workers`), or ``None`` where this process
    should do it (no ``fork``). The shards are planned once (:func:`~spanagree.pipeline.shards.plans`:
    folders, byte ranges, documents in memory) and each plan is mapped until one gives what one
    process gives. Parameters as :func:`spanagree.pipeline.run`."""
    import multiprocessing

    from .shards import plans

    if executor.stays_here and "fork" not in multiprocessing.get_all_start_methods():
        return None
    for plan in plans(inputs, names, groups, comparison, executor, format=format, format_options=format_options,
                      common=common):
        result = plan.added(list(map(plan.function, plan.tasks)) if plan.here else
                            executor.map(plan.function, plan.tasks))
        if result is not None:
            return result
        if common.get("progress") is not None:
            common["progress"].restart()  # the documents are compared again
    return None
