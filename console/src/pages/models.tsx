import { admin } from '../api.js';
import { formatInteger } from '../format.js';
import { t } from '../i18n.js';
import type { List, ModelView } from '../types.js';
import { ErrorNote, Loading, Section, useLoad } from '../ui.js';

function prices(model: ModelView): string {
  const pricing = model.pricing;
  if (pricing === null) return t('free');
  const parts = [`${t('input')} $${pricing.input}`, `${t('output')} $${pricing.output}`];
  if (pricing.cached_input !== null) parts.push(`${t('cachedInput')} $${pricing.cached_input}`);
  if (pricing.reasoning !== null) parts.push(`${t('reasoningPrice')} $${pricing.reasoning}`);
  return parts.join(' · ');
}

export function ModelsPage() {
  const { data, error } = useLoad(() => admin<List<ModelView>>('GET', '/models'), []);
  return (
    <Section title={t('models')}>
      <ErrorNote message={error} />
      {data === undefined ? (
        <Loading />
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">{t('model')}</th>
                <th scope="col">{t('contextLength')}</th>
                <th scope="col">{t('prices')}</th>
                <th scope="col">{t('reasoning')}</th>
                <th scope="col">{t('routes')}</th>
              </tr>
            </thead>
            <tbody>
              {data.data.map((model) => (
                <tr>
                  <th scope="row">{model.id}</th>
                  <td>{model.context_length === null ? '–' : formatInteger(model.context_length)}</td>
                  <td>{prices(model)}</td>
                  <td>
                    {model.reasoning === null
                      ? t('notReasoning')
                      : `${model.reasoning.efforts.join(', ')} (${t('defaultEffort')}: ${model.reasoning.default_effort}; ${model.reasoning.style})`}
                  </td>
                  <td>
                    <ul class="plain">
                      {model.routes.map((route) => (
                        <li>
                          {route.node} → {route.upstream_model} ({t('weight')} {route.weight}, {t('priority')}{' '}
                          {route.priority})
                        </li>
                      ))}
                    </ul>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}
