import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, describe, test } from 'node:test';
import { pino } from 'pino';
import type { ResponsesSettings } from '../../src/config/gateway-config.js';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { BoundedResponseStore } from '../../src/responses-state/bounded-response-store.js';
import { conversationBefore } from '../../src/responses-state/conversation.js';
import type { StoredResponse } from '../../src/responses-state/stored-response.js';
import { openStore, parseStoreLocation } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { storeBackends } from '../support/store-backends.js';

// The stored responses of the Responses API (PRODUCT.md decision 17) behave the same on
// every backend: memory, PGlite and PostgreSQL — account scoping, retention, the size cap,
// deletion, and the conversation a previous_response_id rebuilds.

const backends = await storeBackends('response-store');
after(() => Promise.all(backends.map((backend) => backend.cleanup())));

const cases = [
  { name: 'memory', store: 'memory', skip: undefined as string | undefined, persistent: false },
  ...backends.map((backend) => ({ name: backend.name, store: backend.store, skip: backend.skip, persistent: true })),
];

const DAY_S = 24 * 60 * 60;
const nowS = () => Math.floor(Date.now() / 1000);

function stored(id: string, fields: Partial<StoredResponse> = {}): StoredResponse {
  const createdAt = fields.createdAt ?? nowS();
  return {
    id,
    accountId: 'acme',
    createdAt,
    model: 'qwen3-32b',
    node: 'node-a',
    previousResponseId: null,
    response: {
      id,
      object: 'response',
      created_at: createdAt,
      status: 'completed',
      model: 'qwen3-32b',
      output: [
        {
          id: `msg_out_${id}`,
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: `answer of ${id}`, annotations: [] }],
        },
      ],
      usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7 },
      metadata: {},
    },
    inputItems: [
      {
        id: `msg_in_${id}`,
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: `question of ${id}` }],
      },
    ],
    ...fields,
  };
}

for (const backend of cases) {
  describe(`response store contract: ${backend.name}`, { skip: backend.skip }, () => {
    let store: Store;
    let responses: BoundedResponseStore;
    let settings: ResponsesSettings = { retentionDays: 30, maxStoredBytes: 64 * 1024 };
    const logLines: string[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _encoding, callback) {
          logLines.push(chunk.toString());
          callback();
        },
      }),
    );
    const open = async () => {
      store = await openStore(parseStoreLocation(backend.store));
      responses = new BoundedResponseStore(store.responseRows, () => settings, logger);
    };

    after(() => store?.close());

    test('a saved response reads back as it was saved, only under its own account', async () => {
      await open();
      const first = stored('resp_a1', {
        previousResponseId: 'resp_a0',
        response: {
          ...stored('resp_a1').response,
          // A NUL escape and characters outside the BMP survive the round trip.
          output_text: 'nul \u0000 here; émoji 🧪; quote " backslash \\',
          metadata: { nested: { list: [1, 2.5, null, true] } },
        },
      });
      await responses.save(first);
      assert.deepEqual(await responses.get('acme', 'resp_a1'), first);
      assert.equal(await responses.get('globex', 'resp_a1'), undefined, "another account's id is not there");
      assert.equal(await responses.get('acme', 'resp_none'), undefined);
    });

    test('delete: only by its own account, once', async () => {
      await responses.save(stored('resp_d1'));
      assert.equal(await responses.delete('globex', 'resp_d1'), false, 'another account cannot delete it');
      assert.ok(await responses.get('acme', 'resp_d1'), 'and it is still there');
      assert.equal(await responses.delete('acme', 'resp_d1'), true);
      assert.equal(await responses.get('acme', 'resp_d1'), undefined);
      assert.equal(await responses.delete('acme', 'resp_d1'), false, 'a second delete finds nothing');
    });

    test('saving the same id again replaces the response', async () => {
      await responses.save(stored('resp_r1', { model: 'old' }));
      await responses.save(stored('resp_r1', { model: 'new', node: null }));
      const got = await responses.get('acme', 'resp_r1');
      assert.equal(got?.model, 'new');
      assert.equal(got?.node, null);
    });

    test('retention: a response older than retention_days is invisible, cannot be deleted, and is swept', async () => {
      settings = { ...settings, retentionDays: 1 };
      await responses.save(stored('resp_old', { createdAt: nowS() - 2 * DAY_S }));
      await responses.save(stored('resp_young', { createdAt: nowS() - DAY_S / 2 }));
      assert.equal(await responses.get('acme', 'resp_old'), undefined);
      assert.equal(await responses.delete('acme', 'resp_old'), false);
      assert.ok(await responses.get('acme', 'resp_young'), 'within a day it is readable');
      await responses.save(stored('resp_old2', { createdAt: nowS() - 3 * DAY_S }));
      await responses.save(stored('resp_old3', { createdAt: nowS() - 4 * DAY_S }));
      assert.equal(await store.responseRows.sweep(1), 1, 'a sweep deletes expired rows, at most `limit` of them');
      await responses.sweep();
      assert.equal(await store.responseRows.sweep(100), 0, 'the gateway sweep deleted every expired row');
      assert.ok(await responses.get('acme', 'resp_young'), 'the sweep leaves live rows alone');
      // Retention is fixed when a response is saved: a longer one later does not revive it.
      settings = { ...settings, retentionDays: 30 };
      assert.ok(await responses.get('acme', 'resp_young'));
    });

    test('size cap: a response larger than max_stored_bytes is not kept, with a warning; one within it is', async () => {
      settings = { ...settings, maxStoredBytes: 4096 };
      const big = stored('resp_big');
      big.inputItems = [
        { id: 'msg_big', type: 'message', role: 'user', content: [{ type: 'input_text', text: 'é'.repeat(2100) }] },
      ];
      await responses.save(big);
      assert.equal(await responses.get('acme', 'resp_big'), undefined);
      const warning = logLines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line.response_id === 'resp_big');
      assert.equal(warning?.level, 40, 'logged at warn');
      assert.equal(warning?.max_stored_bytes, 4096);
      assert.ok(Number(warning?.bytes) > 4096, 'the size counts bytes, not characters');
      const fits = stored('resp_fits');
      fits.inputItems = [
        { id: 'msg_fits', type: 'message', role: 'user', content: [{ type: 'input_text', text: 'e'.repeat(3000) }] },
      ];
      await responses.save(fits);
      assert.deepEqual(await responses.get('acme', 'resp_fits'), fits);
      settings = { ...settings, maxStoredBytes: 64 * 1024 };
    });

    test('conversationBefore: every ancestor input then output, oldest first, and the last node', async () => {
      await responses.save(stored('resp_c1', { node: 'node-a' }));
      await responses.save(stored('resp_c2', { node: 'node-b', previousResponseId: 'resp_c1' }));
      await responses.save(stored('resp_c3', { node: 'node-c', previousResponseId: 'resp_c2' }));
      const { items, node } = await conversationBefore(responses, 'acme', 'resp_c3');
      assert.deepEqual(
        items.map((item) => item.id),
        ['msg_in_resp_c1', 'msg_out_resp_c1', 'msg_in_resp_c2', 'msg_out_resp_c2', 'msg_in_resp_c3', 'msg_out_resp_c3'],
      );
      assert.equal(node, 'node-c');
      assert.deepEqual((await conversationBefore(responses, 'acme', 'resp_c1')).items.length, 2);

      // A gone ancestor ends the chain there.
      await responses.delete('acme', 'resp_c2');
      assert.deepEqual(
        (await conversationBefore(responses, 'acme', 'resp_c3')).items.map((item) => item.id),
        ['msg_in_resp_c3', 'msg_out_resp_c3'],
      );
    });

    test("conversationBefore: an unknown, deleted or other account's id is 400 previous_response_not_found (as OpenAI answers)", async () => {
      for (const [account, id] of [
        ['acme', 'resp_unknown'],
        ['acme', 'resp_c2'],
        ['globex', 'resp_c3'],
      ] as const) {
        await assert.rejects(conversationBefore(responses, account, id), (error: unknown) => {
          assert.ok(error instanceof GatewayError);
          assert.equal(error.status, 400);
          assert.equal(error.code, 'previous_response_not_found');
          assert.equal(error.type, 'invalid_request_error');
          assert.equal(error.param, 'previous_response_id');
          assert.match(error.message, new RegExp(id));
          return true;
        });
      }
    });

    test('reopening keeps stored responses (persistent stores)', { skip: !backend.persistent }, async () => {
      const kept = await responses.get('acme', 'resp_c3');
      assert.ok(kept);
      await store.close();
      await open();
      assert.deepEqual(await responses.get('acme', 'resp_c3'), kept);
    });
  });
}
