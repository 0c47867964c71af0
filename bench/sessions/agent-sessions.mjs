// The clients of the session benchmark: coding-agent sessions that resend the whole
// conversation every turn and grow it. Every session shares the agent's system prompt
// (its instructions and tool descriptions, as every Claude Code or Codex session of one
// version does), opens with its own task, then each turn appends the model's answer (a
// short tool call) and a tool result: a file read (large) or a search, listing, edit or
// test output (small). The session's own content soon outweighs the shared prompt.
// Requests stream; the time to first token is measured here, at the client.
import { TextDecoder } from 'node:util';
import { Agent, fetch } from 'undici';
import { BENCH_KEY } from './cluster.mjs';

/** A small seeded PRNG (mulberry32): the same sizes give the same texts. */
function prng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` simulated tokens (whitespace-separated words) drawn from `seed`. */
function text(seed, count) {
  const random = prng(seed);
  const words = new Array(count);
  for (let index = 0; index < count; index++) words[index] = Math.floor(random() * 46656).toString(36);
  return words.join(' ');
}

/**
 * The size of one tool result: with probability `largeShare` a file read (`large`, a
 * [min, max] range of tokens), else a short result (`small`), uniform within its range.
 */
export function toolResultTokens(random, { small, large, largeShare }) {
  const [min, max] = random() < largeShare ? large : small;
  return Math.round(min + random() * (max - min));
}

/**
 * Runs `sessions` sessions of `turns` turns against `baseUrl` (model `agent`), all started
 * within `startSpreadMs`, each waiting `thinkMs` (a range) between turns as an agent runs
 * its tools; `toolTokens` sizes the tool results (toolResultTokens). `sessionHeader`:
 * send `x-session-id`. `onRequest` sees each finished request. Resolves every request's
 * record: session, turn, status, ttft, prompt and cached tokens, correlation id.
 */
export async function runSessions({
  baseUrl,
  sessions,
  turns,
  systemTokens,
  taskTokens,
  toolTokens,
  startSpreadMs,
  thinkMs,
  sessionHeader,
  deadlineMs,
  onRequest = () => undefined,
}) {
  const dispatcher = new Agent({ connections: sessions + 8, keepAliveTimeout: 60_000, bodyTimeout: 120_000 });
  const system = text(1, systemTokens);
  const deadline = globalThis.AbortSignal.timeout(deadlineMs);
  const records = [];
  const random = prng(7);
  const runOne = async (session) => {
    const messages = [
      { role: 'system', content: system },
      { role: 'user', content: text(1000 + session, taskTokens) },
    ];
    const startDelay = random() * startSpreadMs;
    const thinks = Array.from({ length: turns }, () => thinkMs[0] + random() * (thinkMs[1] - thinkMs[0]));
    const sizes = prng(5000 + session);
    const tools = Array.from({ length: turns }, () => toolResultTokens(sizes, toolTokens));
    await new Promise((resolve) => setTimeout(resolve, startDelay));
    for (let turn = 1; turn <= turns && !deadline.aborted; turn++) {
      const record = await ask({ baseUrl, dispatcher, messages, session, turn, sessionHeader, deadline });
      records.push(record);
      onRequest(record);
      if (record.status !== 200) break;
      messages.push({ role: 'assistant', content: record.answer });
      messages.push({ role: 'user', content: text(session * 1000 + turn, tools[turn - 1]) });
      record.answer = undefined;
      await new Promise((resolve) => setTimeout(resolve, thinks[turn - 1]));
    }
  };
  await Promise.all(Array.from({ length: sessions }, (_, index) => runOne(index + 1)));
  await dispatcher.close();
  return records;
}

async function ask({ baseUrl, dispatcher, messages, session, turn, sessionHeader, deadline }) {
  const correlationId = `s${session}-t${turn}`;
  const headers = {
    authorization: `Bearer ${BENCH_KEY}`,
    'content-type': 'application/json',
    'x-correlation-id': correlationId,
  };
  if (sessionHeader) headers['x-session-id'] = `session-${session}`;
  const body = JSON.stringify({ model: 'agent', messages, stream: true, stream_options: { include_usage: true } });
  const record = { session, turn, correlationId, status: 0, ttftMs: undefined, promptTokens: 0, cachedTokens: 0 };
  const started = performance.now();
  record.startedAt = Date.now();
  try {
    const response = await fetch(`${baseUrl}/chat/completions`, {
      method: 'POST',
      headers,
      body,
      dispatcher,
      signal: deadline,
    });
    record.status = response.status;
    if (response.status !== 200) {
      record.error = (await response.text()).slice(0, 300);
      return record;
    }
    let answer = '';
    let buffered = '';
    const decoder = new TextDecoder();
    for await (const chunk of response.body) {
      buffered += decoder.decode(chunk, { stream: true });
      let end;
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const event = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const data = event
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trim())
          .join('');
        if (data === '' || data === '[DONE]') continue;
        const parsed = JSON.parse(data);
        if (parsed.error !== undefined) {
          record.status = 599;
          record.error = JSON.stringify(parsed.error).slice(0, 300);
          continue;
        }
        const content = parsed.choices?.[0]?.delta?.content;
        if (typeof content === 'string' && content !== '') {
          if (record.ttftMs === undefined) record.ttftMs = performance.now() - started;
          answer += content;
        }
        if (parsed.usage) {
          record.promptTokens = parsed.usage.prompt_tokens;
          record.cachedTokens = parsed.usage.prompt_tokens_details?.cached_tokens ?? 0;
        }
      }
    }
    record.answer = answer;
  } catch (error) {
    record.status = record.status === 200 ? 598 : 0;
    record.error = String(error?.cause ?? error).slice(0, 300);
  }
  record.totalMs = performance.now() - started;
  return record;
}
