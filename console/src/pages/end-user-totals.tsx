import { formatInteger, formatUsd } from '../format.js';
import { t } from '../i18n.js';
import type { EndUserTotals } from '../types.js';

/**
 * The usage report's totals per end user (highest cost first), for the rows the filters
 * match; a click on one filters the page to that end user.
 */
export function EndUserTotalsTable({ groups, choose }: { groups: EndUserTotals[]; choose: (endUser: string) => void }) {
  if (groups.length === 0) return null;
  return (
    <div class="table-wrap">
      <table data-testid="end-user-totals" aria-label={t('perEndUser')}>
        <thead>
          <tr>
            <th scope="col">{t('endUser')}</th>
            <th scope="col" class="number">
              {t('requests')}
            </th>
            <th scope="col" class="number">
              {t('tokens')}
            </th>
            <th scope="col" class="number">
              {t('cost')}
            </th>
          </tr>
        </thead>
        <tbody>
          {groups.map((group) => (
            <tr data-end-user={group.end_user ?? ''}>
              <th scope="row">
                {group.end_user === null ? (
                  <span class="hint">{t('noEndUser')}</span>
                ) : (
                  <button type="button" class="link" onClick={() => choose(group.end_user as string)}>
                    {group.end_user}
                  </button>
                )}
              </th>
              <td class="number">{formatInteger(group.requests)}</td>
              <td class="number">
                {formatInteger(group.prompt_tokens)} / {formatInteger(group.completion_tokens)}
              </td>
              <td class="number">{formatUsd(group.cost)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
