"""What the workers of a Ray run share, each one actor: a request limiter (so
``--concurrency``, ``--rpm`` and the back-off on 429s hold for the whole cluster) and the
response cache (a SQLite file on the driver's machine, which workers elsewhere cannot
open). The run's models reach the workers with proxies to them in place of the limiters
and caches they hold, by Ray's own custom serializers: no judge needs to know it runs on
a cluster."""

from __future__ import annotations

import asyncio
import itertools
import uuid
import weakref
from collections.abc import AsyncIterator, Collection, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import ray
import ray.cloudpickle
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from veracity.chat.base import ChatReply
from veracity.chat.cache import ResponseCache
from veracity.transport.limits import RequestLimiter

# An actor handle: Ray's annotations of handles do not follow ``.options().remote()``.
Handle = Any
# This process's life: a worker restarted after a crash is a new process, with a new one.
_LIFE = uuid.uuid4().hex
# Enough for every call of a large run waiting on its slot at once.
_LIMITER_CALLS = 10_000


class LimiterActor:
    """One :class:`RequestLimiter` for every worker of a run.

    A slot is taken and given back by two calls, the slot held under a token between
    them. A worker's calls name it and its life: when a worker that crashed is restarted,
    its first call frees the slots its previous life held (they would never be given back),
    and a slot that life was still waiting for is given back as soon as it is granted.
    """

    def __init__(self, concurrency: int, rpm: float | None) -> None:
        self.limiter = RequestLimiter(concurrency, rpm)
        self._held: dict[int, tuple[str, str, AsyncExitStack]] = {}
        self._tokens = itertools.count()
        self._lives: dict[str, str] = {}

    async def acquire(self, worker: str, life: str) -> tuple[int | None, bool]:
        """A slot (its token; ``None`` for a life that has ended), and whether any call
        through the limiter has succeeded yet."""
        if self._lives.setdefault(worker, life) != life:
            self._lives[worker] = life
            for token, (owner, owner_life, _) in list(self._held.items()):
                if owner == worker and owner_life != life:
                    await self.release(token)
        slot = AsyncExitStack()
        await slot.enter_async_context(self.limiter.slot())
        if self._lives[worker] != life:
            await slot.aclose()
            return None, self.limiter.answered
        token = next(self._tokens)
        self._held[token] = (worker, life, slot)
        return token, self.limiter.answered

    async def release(self, token: int) -> None:
        held = self._held.pop(token, None)
        if held is not None:
            await held[2].aclose()

    async def succeeded(self) -> None:
        self.limiter.succeeded()

    async def throttled(self, pause_s: float) -> None:
        self.limiter.throttled(pause_s)


class RemoteLimiter:
    """A worker's stand-in for the run's :class:`LimiterActor` (a
    :class:`~veracity.transport.limits.Limiter`)."""

    def __init__(self, actor: Handle, concurrency: int, rpm: float | None) -> None:
        self._actor = actor
        self.concurrency = concurrency
        self.rpm = rpm
        self.answered = False

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        worker = ray.get_runtime_context().get_actor_id() or "driver"
        token, answered = await self._actor.acquire.remote(worker, _LIFE)
        self.answered = self.answered or answered
        try:
            yield
        finally:
            if token is not None:
                self._actor.release.remote(token)

    def succeeded(self) -> None:
        self.answered = True
        self._actor.succeeded.remote()

    def throttled(self, pause_s: float) -> None:
        self._actor.throttled.remote(pause_s)


class CacheActor:
    """The run's :class:`ResponseCache`, opened on the driver's machine. One call at a
    time (an actor's default), so each worker's writes land in the order it made them."""

    def __init__(self, path: str, advice: str, max_bytes: int | None) -> None:
        self.cache = ResponseCache(Path(path), advice=advice, max_bytes=max_bytes)

    def get(self, key: str) -> ChatReply | None:
        return self.cache.get(key)

    def put(self, key: str, reply: ChatReply, judge: str = "") -> None:
        self.cache.put(key, reply, judge)

    def delete(self, keys: Collection[str]) -> None:
        self.cache.delete(keys)

    def negotiated(self, endpoint: str) -> dict[str, Any] | None:
        return self.cache.negotiated(endpoint)

    def remember(self, endpoint: str, state: Mapping[str, Any]) -> None:
        self.cache.remember(endpoint, state)

    def close(self) -> None:
        self.cache.close()


class RemoteReplies:
    """A worker's stand-in for the run's :class:`CacheActor` (a
    :class:`~veracity.chat.cache.ReplyStore`): a lookup waits for its answer, a
    write goes on in the background until :func:`settle_writes`."""

    def __init__(self, actor: Handle) -> None:
        self._actor = actor
        self._writes: list[ray.ObjectRef[None]] = []
        _STORES.add(self)

    async def fetch(self, key: str) -> ChatReply | None:
        reply: ChatReply | None = await self._actor.get.remote(key)
        return reply

    def put(self, key: str, reply: ChatReply, judge: str = "") -> None:
        self._writes.append(self._actor.put.remote(key, reply, judge))

    def delete(self, keys: Collection[str]) -> None:
        self._writes.append(self._actor.delete.remote(list(keys)))

    def negotiated(self, endpoint: str) -> dict[str, Any] | None:
        # Read as a chat model is put behind the cache, which happens on the driver.
        state = ray.get(self._actor.negotiated.remote(endpoint))
        return dict(state) if state is not None else None

    def remember(self, endpoint: str, state: Mapping[str, Any]) -> None:
        self._writes.append(self._actor.remember.remote(endpoint, dict(state)))

    async def settle(self) -> None:
        writes, self._writes = self._writes, []
        await asyncio.gather(*writes)


# The stores of this worker process, to settle before a batch's results are handed back.
_STORES: weakref.WeakSet[RemoteReplies] = weakref.WeakSet()


async def settle_writes() -> None:
    """Wait until every reply this process sent to a cache is written (or raise why not):
    a result is committed only once its replies are in the cache."""
    await asyncio.gather(*(store.settle() for store in list(_STORES)))


def unship(shipped: bytes) -> Any:
    """What :meth:`SharedActors.ship` pickled, with proxies to the run's actors."""
    return ray.cloudpickle.loads(shipped)


def _limiter_proxy(state: tuple[Handle, int, float | None]) -> RemoteLimiter:
    return RemoteLimiter(*state)


def _replies_proxy(actor: Handle) -> RemoteReplies:
    return RemoteReplies(actor)


class SharedActors:
    """The limiter and cache actors of one run, made for the limiters and caches found in
    what is shipped to the workers (:meth:`ship`), and ended by :meth:`close`."""

    def __init__(self) -> None:
        # By id, with the object kept so its id is not reused while the run lasts.
        self._limiters: dict[int, tuple[RequestLimiter, Handle]] = {}
        self._caches: dict[int, tuple[ResponseCache, Handle]] = {}
        self._found: list[RequestLimiter | ResponseCache] = []

    def ship(self, payload: object) -> bytes:
        """``payload`` pickled for the workers, each limiter and cache in it replaced by a
        proxy to its actor (:func:`unship` there). Pickled twice: first to find them, then
        with their actors (an actor is not made in the middle of a pickling). Bytes, which
        the run sends with every batch: a worker Ray restarts has nothing else."""
        ray.util.register_serializer(
            RequestLimiter, serializer=self._limiter_state, deserializer=_limiter_proxy
        )
        ray.util.register_serializer(
            ResponseCache, serializer=self._cache_state, deserializer=_replies_proxy
        )
        try:
            ray.cloudpickle.dumps(payload)  # type: ignore[no-untyped-call]
            for found in self._found:
                self._make_actor(found)
            shipped: bytes = ray.cloudpickle.dumps(payload)  # type: ignore[no-untyped-call]
            return shipped
        finally:
            ray.util.deregister_serializer(RequestLimiter)
            ray.util.deregister_serializer(ResponseCache)

    def _limiter_state(self, limiter: RequestLimiter) -> tuple[Handle, int, float | None] | None:
        if id(limiter) not in self._limiters:
            self._found.append(limiter)
            return None
        return self._limiters[id(limiter)][1], limiter.concurrency, limiter.rpm

    def _cache_state(self, cache: ResponseCache) -> Handle | None:
        if id(cache) not in self._caches:
            self._found.append(cache)
            return None
        return self._caches[id(cache)][1]

    def _make_actor(self, found: RequestLimiter | ResponseCache) -> None:
        # On the driver's machine: the cache file is there, and the limiter is as close as
        # can be to the one place every worker reaches.
        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
        actor: Handle
        if isinstance(found, RequestLimiter):
            actor = (
                ray.remote(LimiterActor)
                .options(num_cpus=0, max_concurrency=_LIMITER_CALLS, scheduling_strategy=here)
                .remote(found.concurrency, found.rpm)
            )
            self._limiters[id(found)] = (found, actor)
        else:
            actor = (
                ray.remote(CacheActor)
                .options(num_cpus=0, scheduling_strategy=here)
                .remote(str(found.path), found.advice, found.max_bytes)
            )
            self._caches[id(found)] = (found, actor)

    def close(self) -> None:
        """Close the cache files (every write is in), then end the actors."""
        try:
            ray.get([actor.close.remote() for _, actor in self._caches.values()])
        finally:
            for _, actor in [*self._caches.values(), *self._limiters.values()]:
                ray.kill(actor)
            self._caches.clear()
            self._limiters.clear()
