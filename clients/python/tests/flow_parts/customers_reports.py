"""Recipient checks, customers, and what a merchant reads back: transactions, balance, statement,
settlement report."""

from __future__ import annotations

import datetime as dt

from .harness import Details, FlowBase, expect


class CustomersReports(FlowBase):
    def recipient_check_v1(self) -> Details:
        v1 = self.client.v1
        found = v1.check_recipient("GAMMA_MONEY_CI", "0701020301").data
        expect(found["status"] == "active" and found["name"] == "K. Ya***", f"01 is Koffi Yao, masked: {found}")
        named = v1.check_recipient("GAMMA_MONEY_CI", "0701020301", name="yao koffi").data
        expect(named.get("nameMatch") is True and named["name"] is None, f"the name confirmed, not shown: {named}")
        return {"status": found["status"], "name": found["name"], "nameMatch": named.get("nameMatch")}

    def recipient_check_v2(self) -> Details:
        found = self.client.v2.check_recipient("GAMMA_MONEY", "0701020309").data
        expect(found["status"] == "inactive", f"09 has no account: {found}")
        return {"status": found["status"], "operator": found["operator"]}

    def recipient_checks_listed(self) -> Details:
        v1 = self.client.v1.list_recipient_checks(limit=3).data
        v2 = self.client.v2.list_recipient_checks(limit=1).data
        expect(len(v1) == 3 and v1[0]["status"] == "inactive", f"newest first: {[c['status'] for c in v1]}")
        expect(v2[0]["id"] == v1[0]["id"] and len(v2[0]["phone_hash"]) > 16, "the number kept only as a hash")
        return {"latest": v1[0]["status"], "listed": len(v1)}

    def customer_create(self) -> Details:
        r = self.client.v1.create_customer(
            first_name="Aya",
            last_name=f"Traoré {self.run}",
            email="aya@example.ci",
            phone_number="0701020302",
            address={"countryCode": "CI", "city": "Bouaké", "streetAddress": "Rue 12"},
        )
        customer = r.data
        expect(customer["lastName"] == f"Traoré {self.run}" and customer["address"]["city"] == "Bouaké", "created")
        self.state["customer"] = customer
        return {"id": customer["id"], "phoneNumber": customer["phoneNumber"]}

    def customer_get(self) -> Details:
        customer = self.state["customer"]
        fetched = self.client.v1.get_customer(customer["id"]).data
        expect(fetched == customer, "fetched as created")
        return {"id": fetched["id"]}

    def customer_list(self) -> Details:
        page = self.client.v1.list_customers(limit=5)
        ids = [c["id"] for c in page]
        expect(self.state["customer"]["id"] in ids, "listed among the newest")
        return {"listed": len(ids), "has_more": page.has_more}

    def transactions_list(self) -> Details:
        first = self.client.v1.list_transactions(limit=2, type_="collecte", status="SUCCESSFUL")
        expect(len(first) == 2 and first.has_more, "a first page of 2, with a cursor")
        second = first.next_page()
        expect(second is not None and len(second) >= 1, "a second page")
        assert second is not None
        refs = [t["ref"] for t in first] + [t["ref"] for t in second]
        expect(len(set(refs)) == len(refs), "pages do not overlap")
        expect(all(t["typeTransaction"] == "collecte" for t in [*first, *second]), "filtered")
        mine = [
            t
            for t in self.client.v1.list_transactions(
                from_=dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=10), limit=200
            )
            if t["transactionId"].startswith(f"py{self.run}")
        ]
        expect(len(mine) >= 10, f"this run's transactions are listed: {len(mine)}")
        return {"first_page": len(first), "next_cursor": first.next_cursor, "this_run": len(mine)}

    def balance(self) -> Details:
        b = self.client.v1.balance().data
        expect(b["currency"] == "XOF" and b["available"].isdigit() and b["reserved"].isdigit(), f"a balance: {b}")
        return {"available": b["available"], "reserved": b["reserved"]}

    def statement(self) -> Details:
        page = self.client.v1.statement(limit=20)
        lines = page.data
        expect(bool(lines) and lines[0]["movement"] == "credit", "oldest first: the Sandbox opening credit")
        movements = {line["movement"] for line in lines}
        csv = self.client.v1.statement_csv(limit=5)
        expect(csv.data.startswith("createdAt,id,entryId,account,movement,amount"), f"CSV: {csv.data[:60]!r}")
        return {"lines": len(lines), "movements": sorted(movements), "has_more": page.has_more}

    def settlement_report(self) -> Details:
        today = self.state["c1"]["createdAt"][:10]  # its UTC day, even if midnight passed since
        report = self.client.v1.settlement_report(today).data
        rows = {(r["operator"], r["typeTransaction"], r["status"]) for r in report["rows"]}
        expect(("ALPHA_MONEY_CI", "collecte", "SUCCESSFUL") in rows, "today's ALPHA collections")
        expect(int(report["totals"]["collected"]) >= 1470 + 1960, f"collected, fees out: {report['totals']}")
        csv = self.client.v1.settlement_report_csv(today)
        expect(csv.data.startswith("date,operator,typeTransaction,status"), f"CSV: {csv.data[:40]!r}")
        return {
            "date": report["date"],
            "rows": len(report["rows"]),
            "totals": report["totals"],
            "complete": report["complete"],
        }
