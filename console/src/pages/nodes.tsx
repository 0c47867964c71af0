import { useState } from 'preact/hooks';
import { admin } from '../api.js';
import { formatDecimal, formatPercent } from '../format.js';
import { t } from '../i18n.js';
import type { List, ModelView, NodeView } from '../types.js';
import { ErrorNote, Field, Loading, Meter, Section, StateBadge, useAction, useLoad } from '../ui.js';

function AddNodeForm({ models, added }: { models: ModelView[]; added: () => void }) {
  const [form, setForm] = useState({
    id: '',
    provider: 'openai',
    base_url: '',
    api_key: '',
    max_concurrency: '16',
    model: models[0]?.id ?? '',
    upstream_model: '',
  });
  const { error, busy, run } = useAction();
  const set = (name: keyof typeof form) => (event: Event) =>
    setForm({ ...form, [name]: (event.currentTarget as HTMLInputElement).value });
  const submit = async (event: Event) => {
    event.preventDefault();
    const body = {
      id: form.id,
      provider: form.provider,
      ...(form.provider === 'simulated' ? {} : { base_url: form.base_url }),
      ...(form.api_key === '' ? {} : { api_key: form.api_key }),
      max_concurrency: Number(form.max_concurrency),
      models: [{ model: form.model, ...(form.upstream_model === '' ? {} : { upstream_model: form.upstream_model }) }],
    };
    if (await run(() => admin('POST', '/nodes', body))) {
      setForm({ ...form, id: '', base_url: '', api_key: '', upstream_model: '' });
      added();
    }
  };
  return (
    <form class="form-grid" onSubmit={submit}>
      <Field label={t('id')}>
        <input required value={form.id} onInput={set('id')} maxLength={100} />
      </Field>
      <Field label={t('provider')}>
        <select value={form.provider} onChange={set('provider')}>
          {['openai', 'anthropic', 'gemini', 'simulated'].map((provider) => (
            <option value={provider}>{provider}</option>
          ))}
        </select>
      </Field>
      <Field label={t('baseUrl')}>
        <input
          type="url"
          value={form.base_url}
          onInput={set('base_url')}
          required={form.provider !== 'simulated'}
          disabled={form.provider === 'simulated'}
        />
      </Field>
      <Field label={t('apiKeyOptional')}>
        <input type="password" autocomplete="off" value={form.api_key} onInput={set('api_key')} />
      </Field>
      <Field label={t('maxConcurrency')}>
        <input type="number" min={1} required value={form.max_concurrency} onInput={set('max_concurrency')} />
      </Field>
      <Field label={t('model')}>
        <select value={form.model} onChange={set('model')}>
          {models.map((model) => (
            <option value={model.id}>{model.id}</option>
          ))}
        </select>
      </Field>
      <Field label={t('upstreamModel')}>
        <input value={form.upstream_model} onInput={set('upstream_model')} />
      </Field>
      <div class="form-actions">
        <button type="submit" class="primary" disabled={busy}>
          {t('add')}
        </button>
      </div>
      <ErrorNote message={error} />
    </form>
  );
}

export function NodesPage() {
  const nodes = useLoad(() => admin<List<NodeView>>('GET', '/nodes'), [], 5_000);
  const models = useLoad(() => admin<List<ModelView>>('GET', '/models'), []);
  const { error, busy, run } = useAction();
  const act = (node: NodeView, action: 'drain' | 'enable' | 'remove') => {
    if (action === 'remove' && !window.confirm(t('confirmRemoveNode', { id: node.id }))) return;
    const path = `/nodes/${encodeURIComponent(node.id)}`;
    void run(() => (action === 'remove' ? admin('DELETE', path) : admin('POST', `${path}/${action}`))).then(
      nodes.reload,
    );
  };
  return (
    <>
      <Section title={t('nodes')}>
        <ErrorNote message={nodes.error ?? error} />
        {nodes.data === undefined ? (
          <Loading />
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('node')}</th>
                  <th scope="col">{t('provider')}</th>
                  <th scope="col">{t('state')}</th>
                  <th scope="col">{t('inFlight')}</th>
                  <th scope="col">{t('errorRate')}</th>
                  <th scope="col">{t('latency')}</th>
                  <th scope="col">{t('cooldown')}</th>
                  <th scope="col">{t('source')}</th>
                  <th scope="col">{t('actions')}</th>
                </tr>
              </thead>
              <tbody>
                {nodes.data.data.map((node) => (
                  <tr data-node={node.id}>
                    <th scope="row">{node.id}</th>
                    <td>{node.provider}</td>
                    <td data-testid="node-state">
                      <StateBadge state={node.state} />
                    </td>
                    <td>
                      <Meter value={node.in_flight} max={node.max_concurrency} label={`${t('inFlight')} ${node.id}`} />{' '}
                      {node.in_flight} / {node.max_concurrency}
                    </td>
                    <td>{formatPercent(node.error_rate)}</td>
                    <td>{node.latency_ms === null ? '–' : `${formatDecimal(node.latency_ms)} ms`}</td>
                    <td>{node.cooldown_ms > 0 ? `${Math.ceil(node.cooldown_ms / 1000)} s` : '–'}</td>
                    <td>{node.source}</td>
                    <td class="actions">
                      {node.state === 'drained' ? (
                        <button type="button" disabled={busy} onClick={() => act(node, 'enable')}>
                          {t('enable')}
                        </button>
                      ) : (
                        <button type="button" disabled={busy} onClick={() => act(node, 'drain')}>
                          {t('drain')}
                        </button>
                      )}
                      {node.state === 'ejected' && (
                        <button type="button" disabled={busy} onClick={() => act(node, 'enable')}>
                          {t('enable')}
                        </button>
                      )}
                      <button type="button" class="danger" disabled={busy} onClick={() => act(node, 'remove')}>
                        {t('remove')}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>
      {models.data !== undefined && (
        <Section title={t('addNode')}>
          <AddNodeForm models={models.data.data} added={nodes.reload} />
        </Section>
      )}
    </>
  );
}
