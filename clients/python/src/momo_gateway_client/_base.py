"""What the two generations' method sets share: a call turned into a `Result` or a `Page`, and
the values of paths and query strings written as the API reads them."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from .results import Page, Result
from .session import Params, Session

Moment = dt.datetime | str
Day = dt.date | str


class Api:
    def __init__(self, session: Session) -> None:
        self._session = session

    def _call(
        self,
        method: str,
        path: str,
        *,
        params: Params | None = None,
        body: Any = None,
        idempotency_key: str | None = None,
    ) -> Result[Any]:
        answer = self._session.request(method, path, params=params, body=body, idempotency_key=idempotency_key)
        return Result(answer.body["data"], answer.status_code, answer.body, answer.headers)

    def _csv(self, path: str, params: Params) -> Result[str]:
        answer = self._session.request("GET", path, params={**params, "format": "csv"}, csv=True)
        return Result(answer.body, answer.status_code, {}, answer.headers)

    def _page(self, path: str, params: Params) -> Page[Any]:
        answer = self._session.request("GET", path, params=params)
        data = answer.body["data"]

        def fetch_next(cursor: str) -> Page[Any]:
            return self._page(path, {**params, "cursor": cursor})

        return Page(data if isinstance(data, list) else [], answer.status_code, answer.body, answer.headers, fetch_next)


def segment(value: str) -> str:
    """A path segment: an id holding `/` or `?` stays one segment."""
    return quote(value, safe="")


def moment(value: Moment | None) -> str | None:
    """An RFC 3339 time; a naive datetime is taken as UTC."""
    if value is None or isinstance(value, str):
        return value
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.timezone.utc)
    text = value.astimezone(dt.timezone.utc).isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z")


def day(value: Day) -> str:
    """A UTC day, YYYY-MM-DD (a datetime gives its UTC day)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.timezone.utc)
        return value.date().isoformat()
    return value.isoformat()


def amount_text(value: int | str) -> str:
    """A v1 amount: the API's samples send a string of whole francs."""
    return str(value)


def compact(body: Mapping[str, Any]) -> dict[str, Any]:
    """The body without the fields left out (None): an optional field is sent only when given."""
    return {k: v for k, v in body.items() if v is not None}


def with_extra(body: dict[str, Any], extra: Mapping[str, Any] | None) -> dict[str, Any]:
    """The body with fields this library does not name yet, given by the caller."""
    return {**body, **extra} if extra else body
