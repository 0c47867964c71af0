import { admin } from '../api.js';
import { t } from '../i18n.js';
import type { EndUserWindowsView, KeyView, List } from '../types.js';
import { BudgetBars, ErrorNote, Loading, useLoad } from '../ui.js';

/**
 * The current windows of a key's `end_user_budgets` for each of its end users that spent
 * in them (highest spender first): a bar per window with spent of the limit, what remains
 * and when it resets.
 */
export function KeyEndUsers({ keyView }: { keyView: KeyView }) {
  const users = useLoad(
    () => admin<List<EndUserWindowsView>>('GET', `/keys/${encodeURIComponent(keyView.id)}/end-users`),
    [keyView.id],
    10_000,
  );
  if (users.data === undefined) return users.error === undefined ? <Loading /> : <ErrorNote message={users.error} />;
  return (
    <>
      <ErrorNote message={users.error} />
      {users.data.data.length === 0 ? (
        <p class="hint">{t('noEndUserSpend')}</p>
      ) : (
        <div class="table-wrap">
          <table data-testid="key-end-users" aria-label={t('endUsersOf', { key: keyView.prefix })}>
            <thead>
              <tr>
                <th scope="col">{t('endUser')}</th>
                <th scope="col">{t('budgets')}</th>
              </tr>
            </thead>
            <tbody>
              {users.data.data.map((user) => (
                <tr data-end-user={user.end_user}>
                  <th scope="row">{user.end_user}</th>
                  <td>
                    <BudgetBars budgets={user.windows} owner={user.end_user} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
