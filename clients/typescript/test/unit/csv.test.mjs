import assert from "node:assert/strict";
import { test } from "node:test";

import { PayoutCsvError, parsePayoutCsv, payoutCsvToV1Items, payoutCsvToV2Items } from "../../dist/esm/index.js";

const csv =
  "\uFEFFtransaction_id,operator,phone,amount,last_name,first_name,email,check_recipient\r\n" +
  "pay-1,GAMMA_MONEY_CI,0701020301,150000,Koné,Awa,awa@example.ci,true\r\n" +
  'pay-2,ALPHA_MONEY_CI,0701020311,85000,"Yao, ""Jr""",Koffi,,\r\n' +
  "\r\n";

test("the dashboard's CSV becomes v1 and v2 transfer items", () => {
  const rows = parsePayoutCsv(csv);
  assert.equal(rows.length, 2);
  assert.equal(rows[1].last_name, 'Yao, "Jr"');
  assert.equal(rows[1].line, 3);
  const v1 = payoutCsvToV1Items(csv);
  assert.deepEqual(v1[0], {
    transactionId: "pay-1",
    customer: { firstName: "Awa", lastName: "Koné", phone: "0701020301", email: "awa@example.ci", address: { countryCode: "CI" } },
    recipient: "0701020301",
    currency: "XOF",
    amount: "150000",
    operator: "GAMMA_MONEY_CI",
    checkRecipient: true,
  });
  assert.equal("checkRecipient" in v1[1], false);
  assert.equal("email" in v1[1].customer, false);
  const v2 = payoutCsvToV2Items(csv);
  assert.deepEqual(v2[1], {
    code_country: "CI",
    currency: "XOF",
    customer_id: "0701020311",
    name: 'Koffi Yao, "Jr"',
    amount: "85000",
    operator: "ALPHA_MONEY_CI",
    transaction_id: "pay-2",
  });
});

test("columns in any order; email and check_recipient may be left out", () => {
  const rows = parsePayoutCsv("amount,first_name,last_name,phone,operator,transaction_id\n1000,A,B,0701020301,GAMMA_MONEY_CI,x-1");
  assert.equal(rows[0].transaction_id, "x-1");
  assert.equal(rows[0].amount, "1000");
});

test("a file that is no payout batch is refused whole", () => {
  assert.throws(() => parsePayoutCsv(""), PayoutCsvError);
  assert.throws(() => parsePayoutCsv("transaction_id,operator,phone,amount,last_name,first_name\n"), /no transfer/);
  assert.throws(() => parsePayoutCsv("transaction_id,operator,phone,amount,last_name\nx,G,0701020301,1,B"), /missing column first_name/);
  assert.throws(() => parsePayoutCsv("transaction_id,operator,phone,amount,last_name,first_name,iban\n"), /unknown column "iban"/);
  assert.throws(() => parsePayoutCsv('transaction_id,operator,phone,amount,last_name,first_name\n"x,G'), /never closed/);
  const many = ["transaction_id,operator,phone,amount,last_name,first_name"];
  for (let i = 0; i < 5001; i++) many.push(`t-${i},GAMMA_MONEY_CI,0701020301,100,B,A`);
  assert.throws(() => parsePayoutCsv(many.join("\n")), /at most 5000/);
});
