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

#: Seconds the connection to a scheduler may take, handshake included, unless told otherwise
#: (``scheduler_timeout``, ``--scheduler-timeout``).
CONNECT_TIMEOUT = 10.0


def scheduler_address(address: str) -> str:
    """``address`` checked before anything connects: ``tcp://HOST:PORT`` or ``HOST:PORT`` (a host
    name, an IPv4 address or a bracketed IPv6 one; a port from 1 to 65535), else one line.

    Raises
    ------
    UsageError
        Anything else: ``tls://`` (it needs certificates: pass a ``distributed.Client`` made with
        them), other protocols, a missing host or port.

    Examples
    --------
    >>> scheduler_address("tcp://node01:8786"), scheduler_address("[::1]:8786")
    ('tcp://node01:8786', 'tcp://[::1]:8786')
    >>> scheduler_address("tcp://")
    Traceback (most recent call last):
    ...
    spanagree.errors.UsageError: scheduler takes a scheduler's address, tcp://HOST:PORT; got 'tcp://'
    """
    import re

    scheme, _, rest = address.strip().rpartition("://")
    if scheme == "tls":
        raise UsageError(f"{{option}} {address!r}: a tls:// scheduler needs certificates; from Python, pass a "
                         "distributed.Client made with them", option="scheduler")
    found = re.fullmatch(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9][A-Za-z0-9.-]*):([0-9]{1,5})", rest)
    if scheme not in ("", "tcp") or found is None or not 0 < int(found.group(2)) < 65536:
        raise UsageError(f"{{option}} takes a scheduler's address, tcp://HOST:PORT; got {address!r}",
                         option="scheduler")
    return f"tcp://{rest}"


def connection_timeout(timeout) -> float:
    """``scheduler_timeout`` checked: a number of seconds above 0 (one line otherwise)."""
    import math

    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not math.isfinite(timeout) \
            or timeout <= 0:
        raise UsageError(f"{{option}} is a number of seconds above 0; got {timeout!r}", option="scheduler_timeout")
    return float(timeout)


def connect(scheduler, timeout: float = CONNECT_TIMEOUT):
    """A ``distributed.Client`` for ``scheduler`` (an address such as ``tcp://host:8786``, or a
    client already made, returned as it is), or one line saying why not.

    The address is checked first (:func:`scheduler_address`); then, within ``timeout`` seconds
    for the whole of it, a connection is opened, Dask's handshake made and the service asked
    what it is (:func:`identity`): a service that is not a Dask scheduler — one that never
    answers, or answers something else — fails in one line instead of hanging; the client then
    connects to the scheduler so found, in the time left.
    """
    import time

    try:
        from distributed import Client
    except ImportError:
        raise UsageError("{option} needs Dask: pip install 'spanagree[dask]'", option="scheduler") from None
    if isinstance(scheduler, Client):
        return scheduler
    if not isinstance(scheduler, str):
        raise UsageError(f"{{option}} takes a scheduler's address or a distributed.Client, not {scheduler!r}",
                         option="scheduler")
    address = scheduler_address(scheduler)
    deadline = time.monotonic() + timeout
    unreachable = f"cannot reach the Dask scheduler at {scheduler} (within {timeout:g} s)"
    try:
        kind = identity(address, timeout).get("type")
        if kind != "Scheduler":
            raise SpanagreeError(f"{scheduler} is a Dask {kind or 'service'}, not a scheduler: give the scheduler's "
                                 "address")
        return Client(address, timeout=max(deadline - time.monotonic(), 1.0), set_as_default=False)
    except (OSError, TimeoutError) as error:
        reason = str(error).splitlines()[0] if str(error) else "no answer" if isinstance(error, TimeoutError) \
            else type(error).__name__
        raise SpanagreeError(f"{unreachable}: {reason}") from None
    except SpanagreeError:
        raise
    except Exception as error:  # noqa: BLE001 - what a service that is not Dask answers: any decoding error
        raise SpanagreeError(f"{unreachable}: it does not answer as a Dask scheduler "
                             f"({type(error).__name__})") from None


def identity(address: str, timeout: float) -> dict:
    """What the Dask service at ``address`` says it is (``{"type": "Scheduler", ...}``): connection,
    handshake and answer within ``timeout`` seconds (``TimeoutError`` otherwise), on an event
    loop of its own (in a thread: the caller's may be running one, as Jupyter's is)."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from distributed.comm import connect as open_comm

    async def asked():
        comm = await open_comm(address, timeout=timeout)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    async def within():
        return await asyncio.wait_for(asked(), timeout)

    with ThreadPoolExecutor(1) as thread:
        answer = thread.submit(asyncio.run, within()).result()
    return answer if isinstance(answer, dict) else {}


@contextmanager
def one_client(scheduler, timeout: float = CONNECT_TIMEOUT):
    """The run's one ``distributed.Client`` (``None`` without ``scheduler``): given an address, it
    is connected on entering (within ``timeout`` seconds: :func:`connect`) and closed on leaving;
    a client is used as it is. ``agree``,
    ``score`` and ``vote`` expand their inputs on it (a GATE folder's annotation sets are found on
    the workers: :func:`sharing`), then check the workers' spool (:func:`spooling`) and compare
    the shards (:class:`Workers`) on it, each taking the client as it is. A context
    manager rather than a decorator, so that the commands' warnings still name their caller's
    line (a wrapper would be the frame they name)."""
    timeout = connection_timeout(timeout)
    if scheduler is None:
        yield None
        return
    client = connect(scheduler, timeout)
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
