import assert from 'node:assert/strict';

/** One Responses stream event as a client reads it. */
export interface ResponsesEvent {
  readonly name: string;
  readonly data: Record<string, unknown>;
}

/** The events of a Responses SSE text (`event:` and `data:` lines, blank line between). */
export function parseResponsesEvents(text: string): ResponsesEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const name = lines.find((line) => line.startsWith('event: '))?.slice(7) ?? '';
      const data = lines.find((line) => line.startsWith('data: '))?.slice(6) ?? 'null';
      return { name, data: JSON.parse(data) as Record<string, unknown> };
    });
}

const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/**
 * Asserts the ordering rules clients rely on (inbound-protocols 2.7, rules B1–B3, B11):
 * named events whose type matches, sequence numbers 0, 1, 2…, `response.created` then
 * `response.in_progress` first, items added at the next output index before any event that
 * names them and nothing after their `done`, one terminal event last whose `response` has
 * the id, model, full output and (unless failed) usage. Returns the terminal response.
 */
export function assertResponsesEventOrder(events: readonly ResponsesEvent[]): Record<string, unknown> {
  assert.ok(events.length >= 3, 'a stream has at least created, in_progress and a terminal event');
  events.forEach((event, index) => {
    assert.equal(event.data.type, event.name, `event ${index} is named by its type`);
    assert.equal(event.data.sequence_number, index, `event ${index} has sequence_number ${index}`);
  });
  assert.equal(events[0]?.name, 'response.created');
  assert.equal(events[1]?.name, 'response.in_progress');
  const id = (events[0]?.data.response as Record<string, unknown>).id;
  const open = new Map<string, number>();
  const closed = new Set<string>();
  let added = 0;
  for (const event of events.slice(2, -1)) {
    const { data } = event;
    assert.ok(!TERMINAL.has(event.name), `${event.name} comes only last`);
    if (event.name === 'response.output_item.added') {
      assert.equal(data.output_index, added, 'items are added at the next output index');
      added += 1;
      const item = data.item as Record<string, unknown>;
      assert.equal(typeof item.id, 'string');
      open.set(item.id as string, data.output_index as number);
    } else if (event.name === 'response.output_item.done') {
      const item = data.item as Record<string, unknown>;
      assert.equal(
        open.get(item.id as string),
        data.output_index,
        `item ${String(item.id)} was added at its index before done`,
      );
      open.delete(item.id as string);
      closed.add(item.id as string);
    } else if (typeof data.item_id === 'string') {
      assert.equal(open.get(data.item_id), data.output_index, `${event.name} names an open item at its index`);
    }
  }
  assert.equal(open.size, 0, 'every item is done before the end');
  const last = events[events.length - 1] as ResponsesEvent;
  if (last.name === 'error') throw new assert.AssertionError({ message: 'error without response.failed' });
  assert.ok(TERMINAL.has(last.name), `the last event is terminal, not ${last.name}`);
  const response = last.data.response as Record<string, unknown>;
  assert.equal(response.id, id, 'the terminal response has the id of response.created');
  assert.equal(typeof response.model, 'string');
  assert.equal((response.output as unknown[]).length, closed.size, 'the terminal response carries every item');
  if (last.name !== 'response.failed')
    assert.equal(typeof (response.usage as Record<string, unknown>).input_tokens, 'number');
  return response;
}
