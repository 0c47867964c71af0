import { useRef, useState } from 'preact/hooks';
import { admin, queryString } from '../api.js';
import { formatInteger, formatUsd } from '../format.js';
import { t } from '../i18n.js';
import type { AccountView, List, ModelView, UsageReport } from '../types.js';
import { ErrorNote, Field, Loading, Section, useAction, useLoad } from '../ui.js';
import { SecretOnce } from './keys.js';

interface Outcome {
  requestId: string | null;
  promptTokens?: number;
  completionTokens?: number;
  reasoningTokens?: number;
  cost?: number;
}

interface StreamChunk {
  choices?: Array<{ delta?: { content?: string | null; reasoning_content?: string | null } }>;
  usage?: {
    prompt_tokens: number;
    completion_tokens: number;
    completion_tokens_details?: { reasoning_tokens?: number };
  } | null;
  error?: { message?: string };
}

/** Reads `data:` lines of an SSE body, calling `onData` with each payload but [DONE]. */
async function readEvents(body: ReadableStream<Uint8Array>, onData: (data: string) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.search(/\r?\n\r?\n/)) !== -1) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data !== '' && data !== '[DONE]') onData(data);
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The request's cost from the usage ledger, once it is booked (a moment after the stream ends). */
async function bookedCost(requestId: string): Promise<number | undefined> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const report = await admin<UsageReport>('GET', `/usage${queryString({ request_id: requestId, limit: 1 })}`);
    const row = report.data[0];
    if (row !== undefined) return row.cost;
    await sleep(300);
  }
  return undefined;
}

function KeyCreator({ created }: { created: (secret: string) => void }) {
  const accounts = useLoad(() => admin<List<AccountView>>('GET', '/accounts'), []);
  const [account, setAccount] = useState('');
  const { error, busy, run } = useAction();
  if (accounts.data === undefined) return <Loading />;
  const chosen = account || accounts.data.data[0]?.id || '';
  if (chosen === '') return <p class="hint">{t('noAccounts')}</p>;
  const create = () =>
    run(async () => {
      const answer = await admin<{ key: string }>('POST', '/keys', { account: chosen, name: 'playground' });
      created(answer.key);
    });
  return (
    <div class="inline-form">
      <label class="inline">
        {t('forAccount')}{' '}
        <select value={chosen} onChange={(event) => setAccount(event.currentTarget.value)}>
          {accounts.data.data.map((entry) => (
            <option value={entry.id}>{entry.id}</option>
          ))}
        </select>
      </label>
      <button type="button" disabled={busy} onClick={() => void create()}>
        {t('createPlaygroundKey')}
      </button>
      <ErrorNote message={error} />
    </div>
  );
}

export function PlaygroundPage() {
  const models = useLoad(() => admin<List<ModelView>>('GET', '/models'), []);
  const [apiKey, setApiKey] = useState('');
  const [newSecret, setNewSecret] = useState<string | undefined>(undefined);
  const [model, setModel] = useState('');
  const [effort, setEffort] = useState('');
  const [prompt, setPrompt] = useState(t('defaultPrompt'));
  const [reasoning, setReasoning] = useState('');
  const [answer, setAnswer] = useState('');
  const [outcome, setOutcome] = useState<Outcome | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [streaming, setStreaming] = useState(false);
  const abort = useRef<AbortController | undefined>(undefined);

  const modelList = models.data?.data ?? [];
  const chosenModel = modelList.find((entry) => entry.id === model) ?? modelList[0];

  const send = async (event: Event) => {
    event.preventDefault();
    if (chosenModel === undefined) return;
    setReasoning('');
    setAnswer('');
    setOutcome(undefined);
    setError(undefined);
    setStreaming(true);
    const controller = new AbortController();
    abort.current = controller;
    try {
      const response = await fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey.trim()}` },
        body: JSON.stringify({
          model: chosenModel.id,
          messages: [{ role: 'user', content: prompt }],
          stream: true,
          stream_options: { include_usage: true },
          ...(effort === '' || chosenModel.reasoning === null ? {} : { reasoning_effort: effort }),
        }),
        signal: controller.signal,
      });
      const requestId = response.headers.get('x-request-id');
      const result: Outcome = { requestId };
      setOutcome({ ...result });
      if (!response.ok || response.body === null) {
        const body = (await response.json().catch(() => undefined)) as StreamChunk | undefined;
        throw new Error(body?.error?.message ?? `HTTP ${response.status}`);
      }
      await readEvents(response.body, (data) => {
        const chunk = JSON.parse(data) as StreamChunk;
        if (chunk.error !== undefined) throw new Error(chunk.error.message ?? 'stream error');
        const delta = chunk.choices?.[0]?.delta;
        if (typeof delta?.reasoning_content === 'string') setReasoning((text) => text + delta.reasoning_content);
        if (typeof delta?.content === 'string') setAnswer((text) => text + delta.content);
        if (chunk.usage) {
          result.promptTokens = chunk.usage.prompt_tokens;
          result.completionTokens = chunk.usage.completion_tokens;
          result.reasoningTokens = chunk.usage.completion_tokens_details?.reasoning_tokens ?? 0;
          setOutcome({ ...result });
        }
      });
      if (requestId !== null) {
        result.cost = await bookedCost(requestId);
        setOutcome({ ...result });
      }
    } catch (failure) {
      if ((failure as Error).name !== 'AbortError') setError((failure as Error).message);
    } finally {
      setStreaming(false);
      abort.current = undefined;
    }
  };

  if (models.data === undefined) return <Loading />;
  return (
    <>
      <Section title={t('playground')}>
        <form class="form-grid" onSubmit={(event) => void send(event)}>
          <Field label={t('playgroundKey')} wide>
            <input
              type="password"
              name="playground-key"
              autocomplete="off"
              required
              value={apiKey}
              onInput={(event) => setApiKey(event.currentTarget.value)}
              aria-describedby="playground-key-hint"
            />
          </Field>
          <p class="hint wide" id="playground-key-hint">
            {t('playgroundKeyHint')}
          </p>
          <div class="wide">
            <KeyCreator
              created={(secret) => {
                setNewSecret(secret);
                setApiKey(secret);
              }}
            />
            {newSecret !== undefined && <SecretOnce secret={newSecret} />}
          </div>
          <Field label={t('model')}>
            <select
              name="model"
              value={chosenModel?.id ?? ''}
              onChange={(event) => setModel(event.currentTarget.value)}
            >
              {modelList.map((entry) => (
                <option value={entry.id}>{entry.id}</option>
              ))}
            </select>
          </Field>
          {chosenModel?.reasoning && (
            <Field label={t('effort')}>
              <select value={effort} onChange={(event) => setEffort(event.currentTarget.value)}>
                <option value="">
                  {t('defaultEffort')} ({chosenModel.reasoning.default_effort})
                </option>
                {chosenModel.reasoning.efforts.map((value) => (
                  <option value={value}>{value}</option>
                ))}
              </select>
            </Field>
          )}
          <Field label={t('prompt')} wide>
            <textarea
              name="prompt"
              rows={4}
              required
              maxLength={20_000}
              value={prompt}
              onInput={(event) => setPrompt(event.currentTarget.value)}
            />
          </Field>
          <div class="form-actions">
            <button type="submit" class="primary" disabled={streaming || chosenModel === undefined}>
              {t('send')}
            </button>
            {streaming && (
              <button type="button" onClick={() => abort.current?.abort()}>
                {t('stop')}
              </button>
            )}
          </div>
        </form>
        <ErrorNote message={error} />
      </Section>
      <div class="two-columns">
        <Section title={t('reasoningOutput')}>
          <pre class="stream reasoning" data-testid="reasoning" aria-live="polite">
            {reasoning}
          </pre>
        </Section>
        <Section title={t('answer')}>
          <pre class="stream" data-testid="answer" aria-live="polite">
            {answer}
          </pre>
          {streaming && <p class="hint">{t('streaming')}</p>}
        </Section>
      </div>
      {outcome !== undefined && (
        <Section title={t('request')}>
          <dl class="details" data-testid="playground-outcome">
            <dt>{t('requestId')}</dt>
            <dd data-testid="playground-request-id">
              {outcome.requestId === null ? (
                '–'
              ) : (
                <a href={`#/request/${encodeURIComponent(outcome.requestId)}`}>{outcome.requestId}</a>
              )}
            </dd>
            <dt>{t('tokens')}</dt>
            <dd data-testid="playground-tokens">
              {outcome.promptTokens === undefined
                ? '–'
                : `${formatInteger(outcome.promptTokens)} ${t('promptTokens')} · ${formatInteger(outcome.completionTokens ?? 0)} ${t('completionTokens')} · ${formatInteger(outcome.reasoningTokens ?? 0)} ${t('reasoningTokens')}`}
            </dd>
            <dt>{t('cost')}</dt>
            <dd data-testid="playground-cost">{outcome.cost === undefined ? '–' : formatUsd(outcome.cost)}</dd>
          </dl>
        </Section>
      )}
    </>
  );
}
