"""The Dask executor (``--scheduler tcp://host:8786``): the shards of
:func:`~spanagree.pipeline.shards.plans` mapped (:func:`~spanagree.pipeline.parallel.accumulate_sharded`) over the workers of a
``dask.distributed`` cluster (:class:`Workers`, through ``client.get_executor()``), their
accumulators added in order by the client: the figures, warnings and errors are those of one
process, apart from the options' echo.

**Reading.** Folders of document files and CoNLL and JSON-lines files are read by the workers *by
path*: they need a filesystem they share with the client, as on an HPC cluster (paths are made
absolute first, :func:`absolute_inputs`; before anything is submitted, every worker is asked
whether it sees every input, and a worker that does not ends the run with one line naming it and
the path). Other inputs are read by the client, and each task is sent its shard's documents.

**Spooling.** The workers spool per-document records, and write ``merge``'s output parts, into
a folder they share with the client, beside the outputs
(:func:`~spanagree.pipeline.spool.shared_spool`), or send them back with the tallies.

The client needs ``dask[distributed]`` (``pip install 'spanagree[dask]'``); the workers need
spanagree installed, in the same version.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Any

from ..errors import SpanagreeError, UsageError

#: Seconds to wait for the scheduler before giving up.
CONNECT_TIMEOUT = 10


def connect(scheduler):
    """A ``distributed.Client`` for ``scheduler`` (an address such as ``tcp://host:8786``, or a
    client already made, returned as it is), or one line saying why not."""
    try:
        from distributed import Client
    except ImportError:
        raise UsageError("{option} needs Dask: pip install 'spanagree[dask]'", option="scheduler") from None
    if isinstance(scheduler, Client):
        return scheduler
    if not isinstance(scheduler, str):
        raise UsageError(f"{{option}} takes a scheduler's address or a distributed.Client, not {scheduler!r}",
                         option="scheduler")
    try:
        return Client(scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError) as error:
        raise SpanagreeError(f"cannot reach the Dask scheduler at {scheduler} (within {CONNECT_TIMEOUT} s): "
                             f"{str(error).splitlines()[0] if str(error) else type(error).__name__}") from None


@contextmanager
def one_client(scheduler):
    """The run's one ``distributed.Client`` (``None`` without ``scheduler``): given an address, it
    is connected on entering and closed on leaving; a client is used as it is. ``agree``,
    ``score`` and ``vote`` expand their inputs on it (a GATE folder's annotation sets are found on
    the workers: :func:`sharing`), then check the workers' spool (:func:`spooling`) and compare
    the shards (:class:`Workers`) on it, each taking the client as it is. A context
    manager rather than a decorator, so that the commands' warnings still name their caller's
    line (a wrapper would be the frame they name)."""
    if scheduler is None:
        yield None
        return
    client = connect(scheduler)
    try:
        yield client
    finally:
        if client is not scheduler:
            client.close()


def missing_on_workers(client, paths: list[str]) -> dict[str, list[str]]:
    """Per worker address, the paths (of ``paths``) it cannot see."""
    def missing(paths=paths):
        return [path for path in paths if not os.path.exists(path)]

    found = client.run(missing)
    return {worker: gone for worker, gone in found.items() if gone}


def check_paths(client, paths: list[str]) -> None:
    """Raise one line when some worker cannot see some input path."""
    if not client.scheduler_info().get("workers"):
        raise SpanagreeError("the Dask cluster has no worker")
    gone = missing_on_workers(client, paths)
    if gone:
        worker, paths = sorted(gone.items())[0]
        raise SpanagreeError(f"Dask worker {worker} cannot see {paths[0]}: the workers read the inputs by path and "
                             "need a filesystem shared with the client (the same path on every machine)")


class Workers:
    """The workers of a Dask cluster (``client``: a ``distributed.Client``) as an executor of
    :func:`~spanagree.pipeline.parallel.accumulate_sharded`, as
    :class:`~spanagree.pipeline.parallel.Processes` is of forked processes: every plan is mapped
    (none stays in the client), in ``shards_per_job`` shards per worker, whatever the numbers.

    :meth:`map` goes through ``client.get_executor()``; the function mapped (and what it holds:
    a folder's listing, the options) goes to each worker once, not with each task; the tasks are
    scattered straight to the workers, not through the scheduler's graph.
    """

    stays_here = False   # a cluster's run never falls back to the client
    inherits = False     # the workers are sent what they compare
    min_documents_per_job = min_spans_per_job = 0

    def __init__(self, client, *, shards_per_job: int = 4):
        self.client = client
        self.shards_per_job = shards_per_job
        self.mapped: list[int] = []

    def __int__(self) -> int:
        return max(1, len(self.client.scheduler_info().get("workers", {})))

    def workers(self, items: int, per: int) -> int:
        return int(self)

    def check_paths(self, paths) -> None:
        """One line when some worker cannot see some path (:func:`check_paths`)."""
        check_paths(self.client, [os.path.abspath(path) for path in paths])

    def map(self, function, tasks) -> list:
        tasks = list(tasks)
        [shared] = self.client.scatter([function], broadcast=True, hash=False)
        sent = self.client.scatter(tasks, hash=False)
        results = list(self.client.get_executor(pure=False).map(mapped_shard, [shared] * len(sent), sent))
        self.mapped.append(len(tasks))
        return results


def mapped_shard(function, task):
    """``function(task)`` on a worker: every task :meth:`Workers.map` submits (its key's name)."""
    return function(task)


def options_with_absolute_paths(format_options: dict | None) -> dict | None:
    """``format_options`` with the files they name (:func:`~spanagree.formats.path_options`, comma-separated) made
    absolute: the workers read them by path and need not share the client's working folder.

    Examples
    --------
    >>> options_with_absolute_paths({"xmi_typesystem": "/a/TypeSystem.xml,/b/More.xml", "xmi_type": "X"})
    {'xmi_typesystem': '/a/TypeSystem.xml,/b/More.xml', 'xmi_type': 'X'}
    """
    from ..formats import path_options

    if not format_options or not any(format_options.get(key) for key in path_options()):
        return format_options
    options = dict(format_options)
    for key in path_options():
        if options.get(key):
            options[key] = ",".join(os.path.abspath(part.strip()) for part in str(options[key]).split(",")
                                    if part.strip())
    return options


def absolute_inputs(inputs, format_options: dict | None):
    """The paths among ``inputs``, and the files ``format_options`` name, made absolute
    (:func:`options_with_absolute_paths`): the workers read them by path."""
    return ([os.path.abspath(item) if isinstance(item, (str, os.PathLike)) else item for item in inputs],
            options_with_absolute_paths(format_options))


def cluster_options(scheduler: Any) -> str | None:
    """The scheduler as the JSON's options echo it (an address; a client's address)."""
    if scheduler is None or isinstance(scheduler, str):
        return scheduler
    return getattr(scheduler, "scheduler", None) and scheduler.scheduler.address
