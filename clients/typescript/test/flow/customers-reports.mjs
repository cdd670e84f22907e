// Recipient checks, customers, and what a merchant reads back: transactions, balance, statement,
// settlement report.

import { randomUUID } from "node:crypto";

import { check, expect } from "./harness.mjs";

const ints = (s) => Number.parseInt(s, 10);

export async function customersAndReports(flow) {
  const { client, collectionV1, run, started, today } = flow;

  // Recipient check --------------------------------------------------------

  await check("recipient_check", async () => {
    const active = await client.v1.recipients.check("GAMMA_MONEY_CI", "0701020301");
    expect(active.data.status === "active" && active.data.name === "K. Ya***", "active, name masked", active.data);
    const named = await client.v1.recipients.check("GAMMA_MONEY_CI", "0701020301", { name: "Yao Koffi" });
    expect(named.data.nameMatch === true && named.data.name === null, "a name to confirm matches, no name back", named.data);
    const inactive = await client.v1.recipients.check("ALPHA_MONEY_CI", "0701020309");
    expect(inactive.data.status === "inactive", "…09 holds no account", inactive.data);
    const v2 = await client.v2.recipients.check("GAMMA_MONEY_CI", "0701020302", { name_user: "Someone Else" });
    expect(v2.envelope.message === "ACCOUNT_HOLDER_FOUND" && v2.data.name_match === false, "v2 check", v2.envelope);
    const lookups = await client.v1.recipients.lookups({ limit: 4 });
    expect(lookups.data.length === 4 && lookups.data[0].nameMatch === false, "each check is recorded, newest first", lookups.data);
    const lookupsV2 = await client.v2.recipients.lookups({ limit: 1 });
    expect(lookupsV2.data.length === 1 && "phone_hash" in lookupsV2.data[0], "v2 lookups", lookupsV2.data);
    return { status: active.data.status, name: active.data.name, inactive: inactive.data.status };
  });

  // Customers --------------------------------------------------------------

  await check("customers", async () => {
    const created = await client.v1.customers.create(
      {
        firstName: "Mariam",
        lastName: "Diallo",
        email: `mariam.${run}@example.ci`,
        phoneNumber: "0701060101",
        address: { countryCode: "CI", city: "Abidjan", streetAddress: null },
      },
      { idempotencyKey: randomUUID() },
    );
    const customer = created.data;
    expect(typeof customer.id === "string" && customer.address.city === "Abidjan", "created", customer);
    const got = await client.v1.customers.get(customer.id);
    expect(got.data.email === customer.email, "get", got.data);
    const listed = await client.v1.customers.list({ limit: 100 });
    expect(listed.data.some((c) => c.id === customer.id), "listed", listed.data.length);
    return { id: customer.id, listed: listed.data.length, nextCursor: listed.nextCursor };
  });

  // Transactions, balance, statement, settlement ---------------------------

  await check("transactions_list", async () => {
    const page1 = await client.v1.transactions.list({ type: "collecte", limit: 2 });
    expect(page1.data.length === 2 && page1.data.every((t) => t.typeTransaction === "collecte"), "filtered", page1.data);
    expect(typeof page1.nextCursor === "string", "X-Next-Cursor when more follow", page1.nextCursor);
    const page2 = await client.v1.transactions.list({ type: "collecte", limit: 2, cursor: page1.nextCursor });
    const seen = new Set(page1.data.map((t) => t.ref));
    expect(page2.data.length > 0 && page2.data.every((t) => !seen.has(t.ref)), "the next page goes on", page2.data);
    const refunds = await client.v1.transactions.list({ refundOf: collectionV1.ref });
    expect(refunds.data.length === 1 && refunds.data[0].reason === "one item out of stock", "refunds of a collection", refunds.data);
    let n = 0;
    for await (const t of client.v1.transactions.iterate({ type: "refund", limit: 1 })) {
      expect(t.typeTransaction === "refund", "iterate follows the cursors", t);
      if (++n >= 2) break;
    }
    expect(n === 2, "iterated over two pages", n);
    return { page1: page1.data.map((t) => t.transactionId), nextCursor: page1.nextCursor };
  });

  let balance;
  await check("balance", async () => {
    const r = await client.v1.balance();
    balance = r.data;
    expect(r.data.currency === "XOF" && /^[0-9]+$/.test(r.data.available) && /^[0-9]+$/.test(r.data.reserved), "balance", r.data);
    return { available: r.data.available, reserved: r.data.reserved };
  });

  await check("statement", async () => {
    const lines = [];
    let cursor = null;
    let pages = 0;
    // Lines younger than the 60 s settle lag are read again on the next page: dedupe by id.
    const byId = new Map();
    do {
      const p = await client.v1.reports.statement({ from: new Date(started.getTime() - 60_000), limit: 1000, cursor });
      pages++;
      for (const l of p.data) byId.set(l.id, l);
      if (p.nextCursor === cursor) break;
      cursor = p.nextCursor;
    } while (cursor && pages < 50);
    lines.push(...byId.values());
    expect(lines.length > 0, "statement lines", lines.length);
    const mine = lines.filter((l) => l.ref === collectionV1.ref);
    expect(mine.length === 1 && mine[0].movement === "collection" && mine[0].amount === "1470", "the collection's credit", mine);
    const movements = new Set(lines.map((l) => l.movement));
    for (const m of ["collection", "transfer_reservation", "transfer_payout", "refund_reservation", "refund_payout"]) {
      expect(movements.has(m), `a ${m} line`, [...movements]);
    }
    const csv = await client.v1.reports.statementCsv({ limit: 5 });
    expect(csv.text.startsWith("createdAt,id,entryId,account,movement,amount,"), "the CSV statement", csv.text.slice(0, 120));
    return { lines: lines.length, pages, movements: [...movements].sort() };
  });

  await check("settlement_report", async () => {
    const day = collectionV1.createdAt.slice(0, 10);
    const r = await client.v1.reports.settlement(day);
    expect(r.data.date === day && r.data.environment === "Sandbox" && r.data.currency === "XOF", "the day's report", r.data);
    const row = r.data.rows.find((x) => x.operator === "GAMMA_MONEY_CI" && x.typeTransaction === "collecte" && x.status === "SUCCESSFUL");
    expect(row && row.count >= 2, "a row for GAMMA's successful collections", r.data.rows);
    expect(ints(r.data.totals.collected) > 0 && ints(r.data.totals.refunded) >= 500, "totals", r.data.totals);
    const csv = await client.v1.reports.settlementCsv(day);
    expect(csv.text.startsWith("date,operator,typeTransaction,status,count,amount,fees,net,complete"), "CSV", csv.text.slice(0, 80));
    return { date: day, rows: r.data.rows.length, totals: r.data.totals, complete: r.data.complete, today };
  });
}
