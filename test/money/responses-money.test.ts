import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { ResponseUsage } from 'openai/resources/responses/responses';
import { accountWithKey, AdminClient, expectedCostNano, gatewayYaml, openaiClient } from '../support/money.js';
import { storeBackends } from '../support/store-backends.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

// Issue 20 item 6: money on the Responses door as on the chat endpoint — the reservation
// priced on `max_output_tokens` (402 when the balance cannot cover it), the exact
// settlement from the reported usage, ledger rows marked `front_door: responses` with the
// request id the client got, and the key's policy (403). Against PGlite and PostgreSQL.

const backends = await storeBackends('responses-money');
after(() => Promise.all(backends.map((backend) => backend.cleanup())));

/** A Response's usage in the chat terms the ledger prices (inbound-protocols 3.9). */
function chatTerms(usage: ResponseUsage | undefined) {
  assert.ok(usage, 'usage reported');
  return {
    prompt_tokens: usage.input_tokens,
    completion_tokens: usage.output_tokens,
    prompt_tokens_details: { cached_tokens: usage.input_tokens_details.cached_tokens },
    completion_tokens_details: { reasoning_tokens: usage.output_tokens_details.reasoning_tokens },
  };
}

for (const backend of backends) {
  describe(`Responses money on ${backend.name}`, { skip: backend.skip }, () => {
    let gateway: TestGateway;
    let admin: AdminClient;
    before(async () => {
      gateway = await startTestGateway(gatewayYaml(backend));
      admin = new AdminClient(gateway.baseUrl);
    });
    after(() => gateway?.close());

    test('JSON and streamed responses settle exactly; the ledger rows say front_door responses and carry the request ids', async () => {
      const start = 1;
      const { accountId, keyId, secret } = await accountWithKey(admin, { id: 'resp-exact', balance: start });
      const client = openaiClient(gateway.baseUrl, secret);
      const { data: json, response: jsonHttp } = await client.responses
        .create({ model: 'thinker', input: 'Hello there, ledger.', max_output_tokens: 600 })
        .withResponse();
      const { data: stream, response: streamHttp } = await client.responses
        .create({ model: 'paid', input: 'Stream to the ledger.', stream: true })
        .withResponse();
      let streamed: ResponseUsage | undefined;
      for await (const event of stream) if (event.type === 'response.completed') streamed = event.response.usage;
      const expected =
        expectedCostNano('thinker', chatTerms(json.usage)) + expectedCostNano('paid', chatTerms(streamed));
      assert.ok(expected > 0);
      await waitFor(async () => start * 1e9 - (await admin.balanceNano(accountId)) === expected, 5000, {
        what: 'the balance to drop by the exact cost',
      });
      assert.equal(await admin.spentNano(keyId), expected);
      const report = await admin.usage({ key: keyId });
      const rows = report.data as {
        request_id: string;
        front_door: string;
        model: string;
        prompt_tokens: number;
        completion_tokens: number;
      }[];
      assert.deepEqual(
        rows.map((row) => [row.request_id, row.front_door, row.model]).sort(),
        [
          [jsonHttp.headers.get('x-request-id'), 'responses', 'thinker'],
          [streamHttp.headers.get('x-request-id'), 'responses', 'paid'],
        ].sort(),
      );
      const jsonRow = rows.find((row) => row.model === 'thinker');
      assert.equal(jsonRow?.prompt_tokens, json.usage?.input_tokens);
      assert.equal(jsonRow?.completion_tokens, json.usage?.output_tokens);
    });

    test('the reservation is priced on max_output_tokens: 402 when the balance cannot cover it, 200 when it can', async () => {
      // `flat` costs nothing per input token and $2 per million output tokens: 1000 tokens are $0.002.
      const { secret } = await accountWithKey(admin, { id: 'resp-reserve', balance: 0.002 });
      const client = openaiClient(gateway.baseUrl, secret);
      await assert.rejects(
        client.responses.create({ model: 'flat', input: 'Hi', max_output_tokens: 1500 }),
        (error: unknown) => {
          assert.ok(error instanceof OpenAI.APIError);
          assert.equal(error.status, 402);
          assert.equal(error.code, 'insufficient_balance');
          return true;
        },
      );
      const ok = await client.responses.create({ model: 'flat', input: 'Hi', max_output_tokens: 900 });
      assert.equal(ok.status === 'completed' || ok.status === 'incomplete', true);
    });

    test('the key policy applies: a model outside it is 403 access_denied, raised as PermissionDeniedError', async () => {
      const { secret } = await accountWithKey(admin, { id: 'resp-policy', balance: 5 }, { allowed_models: ['paid'] });
      const client = openaiClient(gateway.baseUrl, secret);
      await assert.rejects(client.responses.create({ model: 'thinker', input: 'Hi' }), (error: unknown) => {
        assert.ok(error instanceof OpenAI.PermissionDeniedError);
        assert.equal(error.code, 'access_denied');
        return true;
      });
      assert.ok((await client.responses.create({ model: 'paid', input: 'Hi' })).output_text.length > 0);
    });
  });
}
