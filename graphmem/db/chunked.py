"""A read-only sequence held as runs that later versions share
(docs/performance.md#what-makes-the-loop-cheap).

A candidates answer made from another by a change (a read right after a write) keeps every
candidate the change did not touch. Copying a 10^5-item tuple to keep them costs a pass over
every item, and freeing the old one another (each touches the item's reference count, a cache
miss per item when the items are spread over the heap). A :class:`Chunked` holds its items as
tuples of at most about :data:`RUN` items; an edit (:meth:`Chunked.edited`,
:meth:`Chunked.replaced`) makes a new sequence that shares every run it does not touch, so it
costs the runs it touches plus one reference per run.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import accumulate, chain, islice
from typing import Any, Generic, TypeVar, overload

__all__ = ["RUN", "Chunked", "held"]

T = TypeVar("T")

RUN = 512
"""Items per run when a sequence is made whole; an edited run is split above twice this and
joined to its neighbour below a quarter of it."""


class Chunked(Sequence[T], Generic[T]):
    """An immutable sequence of items held as shared runs (tuples).

    Indexing is by bisection over the runs' starts (O(log runs)); iteration and ``len`` are as
    a tuple's. Equal to any sequence of equal items in the same order (a tuple or list
    included), and hashable like the tuple of its items (when they are). Made from every item,
    or by an edit of another (:meth:`edited`, :meth:`replaced`), which copies only the runs it
    changes. A copy (or a pickled one) is a plain :class:`Chunked` of the same items.
    """

    __slots__ = ("_firsts", "_run", "_runs", "_starts")

    _runs: tuple[tuple[T, ...], ...]
    _starts: list[int]  # the position of each run's first item, and the length last
    _run: int
    _firsts: list[Any] | None

    def __init__(self, items: Iterable[T] = (), *, run: int = RUN) -> None:
        """Args: items: the items, in order. run: items per run (at least 1)."""
        every = items if isinstance(items, tuple | list) else list(items)
        run = max(1, run)
        self._set(tuple(tuple(every[at:at + run]) for at in range(0, len(every), run)), run)

    def _set(self, runs: tuple[tuple[T, ...], ...], run: int) -> None:
        self._runs = runs
        self._run = run
        self._starts = [0, *accumulate(map(len, runs))]
        self._firsts = None

    def _made(self, runs: tuple[tuple[T, ...], ...]) -> Chunked[T]:
        made: Chunked[T] = object.__new__(Chunked)
        made._set(runs, self._run)
        return made

    def _share(self, other: Chunked[T]) -> None:
        """Hold ``other``'s runs (no copy): for a subclass made from an edit's result."""
        self._set(other._runs, other._run)

    @property
    def runs(self) -> tuple[tuple[T, ...], ...]:
        """The runs, in order (no run is empty)."""
        return self._runs

    def __len__(self) -> int:
        return self._starts[-1]

    def __iter__(self) -> Iterator[T]:
        return chain.from_iterable(self._runs)

    def __reversed__(self) -> Iterator[T]:
        return chain.from_iterable(map(reversed, reversed(self._runs)))

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...

    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step == 1:
                return tuple(islice(self, start, max(start, stop)))
            return tuple(self)[index]
        n = self._starts[-1]
        at = index + n if index < 0 else index
        if not 0 <= at < n:
            raise IndexError("Chunked index out of range")
        r = bisect_right(self._starts, at) - 1
        return self._runs[r][at - self._starts[r]]

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(other) == len(self) and all(a is b or a == b
                                               for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __reduce__(self) -> tuple[Any, ...]:
        return (Chunked, (tuple(self),))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self)!r})"

    def bisect_left(self, item: Any) -> int:
        """Where ``item`` would go in this sequence, sorted ascending: the first position whose
        item is not less than it (as :func:`bisect.bisect_left`, in O(log n) comparisons)."""
        if self._firsts is None:
            self._firsts = [run[0] for run in self._runs]
        r = bisect_left(self._firsts, item) - 1
        if r < 0:
            return 0
        return self._starts[r] + bisect_left(self._runs[r], item)

    def edited(self, removed: Sequence[int], inserted: Sequence[tuple[int, T]]) -> Chunked[T]:
        """This sequence without the items at ``removed`` (positions in it, ascending, each
        once) and with ``inserted`` (``(position in the result, item)``, positions ascending,
        each once) placed: the result of removing first, then inserting in order. Shares every
        run the edit leaves alone.

        Raises:
            IndexError: a position outside this sequence or the result.
        """
        n = len(self)
        if removed and not 0 <= removed[0] <= removed[-1] < n:
            raise IndexError("a removed position is outside the sequence")
        if inserted and not 0 <= inserted[0][0] <= inserted[-1][0] < n - len(removed) + len(
                inserted):
            raise IndexError("an inserted position is outside the result")
        if not self._runs:
            return self._made(self._split(tuple(item for _, item in inserted)))
        starts = self._starts
        gone: dict[int, set[int]] = {}
        for p in removed:
            r = bisect_right(starts, p) - 1
            gone.setdefault(r, set()).add(p - starts[r])
        # the position among the kept items of each run's first kept item
        kept_starts = list(accumulate((len(run) - len(gone.get(r, ()))
                                       for r, run in enumerate(self._runs)), initial=0))[:-1]
        joining: dict[int, list[tuple[int, T]]] = {}
        for j, (q, item) in enumerate(inserted):
            before = q - j  # it goes before the kept item at this position (or after the last)
            r = bisect_right(kept_starts, before) - 1
            joining.setdefault(r, []).append((before - kept_starts[r], item))
        runs: list[tuple[T, ...]] = []
        for r, run in enumerate(self._runs):
            if r not in gone and r not in joining:
                runs.append(run)
                continue
            out = gone.get(r)
            items = list(run) if out is None else [x for i, x in enumerate(run) if i not in out]
            for shift, (at, item) in enumerate(joining.get(r, ())):
                items.insert(at + shift, item)
            self._place(runs, items)
        return self._made(tuple(runs))

    def replaced(self, items: Mapping[int, T]) -> Chunked[T]:
        """This sequence with the item at each position of ``items`` replaced by its value.
        Shares every run it leaves alone.

        Raises:
            IndexError: a position outside this sequence.
        """
        if not items:
            return self
        starts, n = self._starts, len(self)
        runs = list(self._runs)
        by_run: dict[int, list[T]] = {}
        for at, item in items.items():
            if not 0 <= at < n:
                raise IndexError("a replaced position is outside the sequence")
            r = bisect_right(starts, at) - 1
            run = by_run.get(r)
            if run is None:
                run = by_run[r] = list(runs[r])
            run[at - starts[r]] = item
        for r, run in by_run.items():
            runs[r] = tuple(run)
        return self._made(tuple(runs))

    def _split(self, items: Sequence[T]) -> tuple[tuple[T, ...], ...]:
        run = self._run
        return tuple(tuple(items[at:at + run]) for at in range(0, len(items), run))

    def _place(self, runs: list[tuple[T, ...]], items: list[T]) -> None:
        """Append an edited run's ``items`` to ``runs``: none if empty, joined to the run
        before when small, split when large."""
        if not items:
            return
        run = self._run
        if len(items) < max(1, run // 4) and runs and len(runs[-1]) + len(items) <= 2 * run:
            runs[-1] = runs[-1] + tuple(items)
        elif len(items) > 2 * run:
            runs.extend(self._split(items))
        else:
            runs.append(tuple(items))


def held(items: Sequence[T]) -> Sequence[T]:
    """``items`` to keep past the call that got them: a tuple or a :class:`Chunked` as it is
    (read-only: no copy of every reference, and none to free when it is replaced), anything
    else copied into a list."""
    return items if isinstance(items, tuple | Chunked) else list(items)
