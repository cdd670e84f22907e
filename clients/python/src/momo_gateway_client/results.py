"""What a call returns: the envelope's `data`, typed, with what the answer said around it
(`Result`), and a page of a list with its cursor (`Page`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import httpx

T = TypeVar("T")


@dataclass(frozen=True)
class Result(Generic[T]):
    """One answer: `data` is the envelope's `data` (or the text of a CSV answer)."""

    data: T
    #: 200, or 202 for a payment still PENDING, a payout batch, a redelivery.
    status_code: int
    #: The whole JSON body (`statusCode`/`message` in v1, `code_status`/`status`/`message` in
    #: v2); empty for a CSV answer.
    envelope: Mapping[str, Any]
    headers: httpx.Headers = field(repr=False)

    @property
    def request_id(self) -> str | None:
        """The answer's `X-Request-Id`."""
        value: str | None = self.headers.get("X-Request-Id")
        return value

    @property
    def replayed(self) -> bool:
        """True when this is the kept first answer to its `Idempotency-Key`, replayed."""
        return bool(self.headers.get("Idempotent-Replayed") == "true")

    @property
    def message(self) -> str | None:
        """The envelope's message (`Successful` in v1, `PAYMENT_IS_PENDING`... in v2)."""
        value = self.envelope.get("message")
        return None if value is None else str(value)

    @property
    def next_cursor(self) -> str | None:
        """The `X-Next-Cursor` header: present when another page follows."""
        return self.headers.get("X-Next-Cursor") or None


@dataclass(frozen=True)
class Page(Result[list[T]]):
    """A page of a list, newest first (the statement: oldest first). Iterate it for its items;
    `next_page()` fetches the next one, `auto_paging_iter()` every item of every page."""

    fetch_next: Callable[[str], Page[T]] | None = field(default=None, repr=False, compare=False)

    def __iter__(self) -> Iterator[T]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)

    @property
    def has_more(self) -> bool:
        return self.next_cursor is not None

    def next_page(self) -> Page[T] | None:
        """The next page, or None when this is the last."""
        cursor = self.next_cursor
        if cursor is None or self.fetch_next is None:
            return None
        return self.fetch_next(cursor)

    def auto_paging_iter(self) -> Iterator[T]:
        """Every item from this page on, fetching pages as it goes."""
        page: Page[T] | None = self
        while page is not None:
            yield from page.data
            page = page.next_page()
