"""A payout batch from a spreadsheet, the CSV of docs/payouts.md ("From a spreadsheet"):

    transaction_id,operator,phone,amount,last_name,first_name,email,check_recipient
    pay-2026-11-001,GAMMA_MONEY_CI,0701020301,150000,Koné,Awa,awa@example.ci,true

The API takes a batch as JSON only (`POST /v1/payout-batches` answers 415 to `text/csv`), so the
file is read here, as the dashboard and `momo-gateway payouts batch --file` read it, and each
line becomes the item of a JSON batch in the generation's shape. A header that is not this
refuses the whole file (`PayoutCsvError`) before anything is sent; a line with a bad value is
sent as it is, and the gateway refuses that item alone with its reason (`items[i]: ...`).
"""

from __future__ import annotations

import csv
import io
from typing import Any, cast

from .errors import PayoutCsvError
from .schema import TransferV1, TransferV2

REQUIRED = ("transaction_id", "operator", "phone", "amount", "last_name", "first_name")
OPTIONAL = ("email", "check_recipient")
MAX_ITEMS = 5000

Row = dict[str, str]


def read_rows(source: str | bytes) -> list[Row]:
    """Each line after the header, by column name, its values trimmed."""
    text = source.decode("utf-8") if isinstance(source, bytes) else source
    text = text.removeprefix("\ufeff")
    records = [r for r in csv.reader(io.StringIO(text)) if any(cell.strip() for cell in r)]
    if not records:
        raise PayoutCsvError(f"the file is empty: its first line must be the header {','.join(REQUIRED + OPTIONAL)}")
    header, lines = records[0], records[1:]
    columns = _columns([h.strip() for h in header])
    if not lines or len(lines) > MAX_ITEMS:
        raise PayoutCsvError(f"the file holds {len(lines)} transfers; a batch holds from 1 to {MAX_ITEMS}")
    return [{name: (line[i].strip() if i < len(line) else "") for name, i in columns.items()} for line in lines]


def _columns(header: list[str]) -> dict[str, int]:
    at: dict[str, int] = {}
    for i, name in enumerate(header):
        known = next((k for k in REQUIRED + OPTIONAL if k.lower() == name.lower()), None)
        if known is None:
            raise PayoutCsvError(f"the header has an unknown column {name!r}")
        if known in at:
            raise PayoutCsvError(f"the header has the column {known!r} twice")
        at[known] = i
    missing = [c for c in REQUIRED if c not in at]
    if missing:
        raise PayoutCsvError(f"the header misses {', '.join(missing)}")
    return at


def _check_recipient(raw: str) -> Any:
    """true/false (any case) as a boolean; empty as left out; anything else as sent, for the
    gateway to refuse that item with its reason."""
    lowered = raw.lower()
    if lowered == "":
        return None
    if lowered in ("true", "false"):
        return lowered == "true"
    return raw


def items_v1(source: str | bytes) -> list[TransferV1]:
    """The CSV's lines as bodies of `POST /v1/transfer/mobile-money`."""
    items: list[TransferV1] = []
    for row in read_rows(source):
        item: dict[str, Any] = {
            "transactionId": row["transaction_id"],
            "customer": {
                "firstName": row["first_name"],
                "lastName": row["last_name"],
                "phone": row["phone"],
                **({"email": row["email"]} if row.get("email") else {}),
                "address": {"countryCode": "CI"},
            },
            "recipient": row["phone"],
            "currency": "XOF",
            "amount": row["amount"],
            "operator": row["operator"],
        }
        check = _check_recipient(row.get("check_recipient", ""))
        if check is not None:
            item["checkRecipient"] = check
        items.append(cast(TransferV1, item))
    return items


def items_v2(source: str | bytes) -> list[TransferV2]:
    """The CSV's lines as bodies of `POST /v2/transfers/mobile-money`."""
    items: list[TransferV2] = []
    for row in read_rows(source):
        item: dict[str, Any] = {
            "transaction_id": row["transaction_id"],
            "code_country": "CI",
            "currency": "XOF",
            "customer_id": row["phone"],
            "name": f"{row['first_name']} {row['last_name']}".strip(),
            "amount": row["amount"],
            "operator": row["operator"],
        }
        if row.get("email"):
            item["email"] = row["email"]
        check = _check_recipient(row.get("check_recipient", ""))
        if check is not None:
            item["check_recipient"] = check
        items.append(cast(TransferV2, item))
    return items
