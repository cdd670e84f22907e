// Payment links and payout batches (JSON and CSV, both generations).

import { randomUUID } from "node:crypto";

import { check, eventually, expect } from "./harness.mjs";

export async function linksAndBatches(flow) {
  const { client, id, run } = flow;

  // Payment links ----------------------------------------------------------

  await check("payment_links_v1", async () => {
    const created = await client.v1.paymentLinks.create(
      { amount: "2500", description: `Order ${run}`, operators: ["GAMMA_MONEY_CI", "ALPHA_MONEY_CI"] },
      { idempotencyKey: randomUUID() },
    );
    const link = created.data;
    expect(/^lnk_[A-Za-z0-9]{22}$/.test(link.id) && link.active && link.amount === "2500", "a fixed, active link", link);
    const got = await client.v1.paymentLinks.get(link.id);
    expect(got.data.id === link.id && got.data.url === link.url, "get", got.data);
    const listed = await client.v1.paymentLinks.list({ limit: 50 });
    expect(listed.data.some((l) => l.id === link.id), "the new link is listed", listed.data.map((l) => l.id));
    const off = await client.v1.paymentLinks.deactivate(link.id);
    expect(off.data.active === false, "deactivated", off.data);
    return { id: link.id, url: link.url, listed: listed.data.length, nextCursor: listed.nextCursor, active: off.data.active };
  });

  await check("payment_links_v2", async () => {
    const created = await client.v2.paymentLinks.create({
      min_amount: 1000,
      max_amount: 50000,
      description: `Donations ${run}`,
      reusable: true,
      max_payments: 10,
    });
    const link = created.data;
    expect(created.envelope.message === "PAYMENT_LINK_CREATED" && link.reusable && link.max_payments === 10, "v2 link", created.envelope);
    const got = await client.v2.paymentLinks.get(link.id);
    expect(got.data.min_amount === "1000" && got.envelope.message === "PAYMENT_LINK_FOUND", "get", got.envelope);
    const listed = await client.v2.paymentLinks.list({ limit: 1 });
    expect(listed.data.length === 1 && listed.data[0].id === link.id, "newest first", listed.data);
    expect(typeof listed.nextCursor === "string", "a page of 1 of several has X-Next-Cursor", listed.nextCursor);
    const next = await client.v2.paymentLinks.list({ limit: 1, cursor: listed.nextCursor });
    expect(next.data.length === 1 && next.data[0].id !== link.id, "the next page goes on", next.data);
    const off = await client.v2.paymentLinks.deactivate(link.id);
    expect(off.data.active === false && off.envelope.message === "PAYMENT_LINK_DEACTIVATED", "deactivated", off.envelope);
    return { id: link.id, nextCursor: listed.nextCursor };
  });

  // Payout batches ---------------------------------------------------------

  let jsonBatchId;
  await check("payout_batch_json", async () => {
    const item = (n, operator, phone) => ({
      transactionId: id(`p${n}`),
      customer: { firstName: "Employee", lastName: `N${n}`, phone, address: { countryCode: "CI" } },
      recipient: phone,
      amount: String(1000 * n),
      operator,
    });
    const r = await client.v1.payoutBatches.create(
      {
        label: `Salaries ${run}`,
        items: [item(1, "GAMMA_MONEY_CI", "0701030101"), item(2, "ALPHA_MONEY_CI", "0701030201"), item(3, "DELTA_MONEY_CI", "0101030301")],
      },
      { idempotencyKey: randomUUID() },
    );
    const { batch, items } = r.data;
    expect(r.status === 202 && batch.submitted === 3 && batch.accepted.count === 3, "3 items accepted", r.data);
    expect(items.every((i) => i.outcome === "accepted" && i.transaction?.payoutBatchId === batch.id), "each item's outcome", items);
    jsonBatchId = batch.id;
    return { id: batch.id, status: batch.status, accepted: batch.accepted };
  });

  let csvBatchId;
  await check("payout_batch_csv", async () => {
    const csv = [
      "transaction_id,operator,phone,amount,last_name,first_name,email,check_recipient",
      `${id("pc1")},GAMMA_MONEY_CI,0701040101,1500,Koné,Awa,awa@example.ci,true`,
      `${id("pc2")},ALPHA_MONEY_CI,0501040201,2500,"Yao, Jr",Koffi,,`,
    ].join("\r\n");
    const r = await client.v1.payoutBatches.createFromCsv(csv, { label: `CSV ${run}` });
    const { batch, items } = r.data;
    expect(batch.submitted === 2 && batch.accepted.count === 2 && batch.accepted.amount === "4000", "both lines accepted", r.data);
    expect(items[1].transaction?.customer.lastName === "Yao, Jr", "quoted CSV fields", items[1]);
    csvBatchId = batch.id;
    return { id: batch.id, accepted: batch.accepted };
  });

  await check("payout_batch_get", async () => {
    const done = await eventually("the JSON batch to complete", async () => {
      const r = await client.v1.payoutBatches.get(jsonBatchId);
      return r.data.status === "completed" ? r : null;
    });
    expect(done.data.successful.count === 3 && done.data.successful.amount === "6000", "every transfer paid", done.data);
    const csv = await client.v1.payoutBatches.get(csvBatchId);
    expect(csv.data.id === csvBatchId && csv.data.label === `CSV ${run}`, "the CSV batch", csv.data);
    const transfers = await client.v1.transactions.list({ payoutBatchId: jsonBatchId });
    expect(transfers.data.length === 3, "a batch's transfers are listed by payoutBatchId", transfers.data.length);
    return { id: jsonBatchId, status: done.data.status, successful: done.data.successful, csvStatus: csv.data.status };
  });

  await check("payout_batch_v2", async () => {
    const r = await client.v2.payoutBatches.create({
      label: `v2 ${run}`,
      items: [{ transaction_id: id("pv"), customer_id: "0701050101", name: "Aya Traoré", amount: 1000, operator: "GAMMA_MONEY_CI" }],
    });
    expect(r.envelope.message === "PAYOUT_BATCH_ACCEPTED" && r.data.batch.accepted.count === 1, "v2 batch", r.envelope);
    const got = await client.v2.payoutBatches.get(r.data.batch.id);
    expect(got.data.all_or_nothing === false && got.envelope.message === "PAYOUT_BATCH_FOUND", "v2 get", got.envelope);
    const csv = await client.v2.payoutBatches.createFromCsv(
      `transaction_id,operator,phone,amount,last_name,first_name\n${id("pw")},GAMMA_MONEY_CI,0701050201,1000,Traoré,Aya\n`,
    );
    expect(csv.data.batch.accepted.count === 1, "v2 batch from CSV", csv.data);
    return { id: r.data.batch.id, csvId: csv.data.batch.id };
  });
}
