import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, resumeSession, signIn, signOut, whenSignedOut } from './api.js';
import { LANGUAGE, t, type Words } from './i18n.js';
import { AccountsPage } from './pages/accounts.js';
import { KeysPage } from './pages/keys.js';
import { ModelsPage } from './pages/models.js';
import { NodesPage } from './pages/nodes.js';
import { OverviewPage } from './pages/overview.js';
import { PlaygroundPage } from './pages/playground.js';
import { RequestPage } from './pages/request.js';
import { filtersOf, RequestsPage, type RequestFilters } from './pages/requests.js';
import { UsagePage } from './pages/usage.js';
import './styles.css';

const PAGES = ['overview', 'requests', 'nodes', 'models', 'accounts', 'keys', 'usage', 'playground'] as const;
type Page = (typeof PAGES)[number];

interface Route {
  readonly page: Page | 'request';
  readonly requestId: string;
  /** The Requests page's filters from the address (`#/requests?node=a`). */
  readonly filters: RequestFilters;
}

/** The page in the address's hash: #/keys, #/requests?status=5xx, #/requests/<id> (#/request/<id> too, the older form). */
function currentRoute(): Route {
  const hash = location.hash.replace(/^#\/?/, '');
  const queryStart = hash.indexOf('?');
  const path = queryStart === -1 ? hash : hash.slice(0, queryStart);
  const filters = filtersOf(new URLSearchParams(queryStart === -1 ? '' : hash.slice(queryStart + 1)));
  const [page = '', ...rest] = path.split('/');
  const id = rest.join('/');
  if ((page === 'requests' || page === 'request') && id !== '')
    return { page: 'request', requestId: decodeURIComponent(id), filters };
  return { page: (PAGES as readonly string[]).includes(page) ? (page as Page) : 'overview', requestId: '', filters };
}

function useRoute() {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const changed = () => setRoute(currentRoute());
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return route;
}

function SignIn({ signedIn, notice }: { signedIn: () => void; notice: string | undefined }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await signIn(key);
      setKey('');
      signedIn();
    } catch (failure) {
      setError(failure instanceof ApiError && failure.status === 401 ? t('wrongKey') : (failure as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in">
      <form class="card" onSubmit={submit}>
        <h1>{t('signInTitle')}</h1>
        <p>{t('signInHint')}</p>
        {notice !== undefined && <p class="hint">{notice}</p>}
        <label class="field">
          <span>{t('adminKey')}</span>
          <input
            type="password"
            name="admin-key"
            autocomplete="current-password"
            required
            autofocus
            value={key}
            onInput={(event) => setKey(event.currentTarget.value)}
          />
        </label>
        {error !== undefined && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          {t('signIn')}
        </button>
      </form>
    </main>
  );
}

function Shell({ signedOut }: { signedOut: () => void }) {
  const route = useRoute();
  const title = route.page === 'request' ? t('request') : t(route.page as keyof Words);
  useEffect(() => {
    document.title = `${title} · ${t('title')}`;
  }, [title]);
  return (
    <div class="shell">
      <a class="skip" href="#content">
        {t('skipToContent')}
      </a>
      <header class="top">
        <span class="brand">Switchyard</span>
        <button type="button" onClick={() => void signOut().finally(signedOut)}>
          {t('signOut')}
        </button>
      </header>
      <nav aria-label={t('navigation')}>
        <ul>
          {PAGES.map((page) => (
            <li>
              <a href={`#/${page}`} aria-current={route.page === page ? 'page' : undefined}>
                {t(page)}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="content" tabIndex={-1}>
        <h1>{title}</h1>
        {route.page === 'overview' && <OverviewPage />}
        {route.page === 'requests' && <RequestsPage initial={route.filters} />}
        {route.page === 'nodes' && <NodesPage />}
        {route.page === 'models' && <ModelsPage />}
        {route.page === 'accounts' && <AccountsPage />}
        {route.page === 'keys' && <KeysPage />}
        {route.page === 'usage' && <UsagePage />}
        {route.page === 'request' && <RequestPage requestId={route.requestId} />}
        {route.page === 'playground' && <PlaygroundPage />}
      </main>
    </div>
  );
}

function App() {
  const [state, setState] = useState<'checking' | 'signed-in' | 'signed-out'>('checking');
  const [notice, setNotice] = useState<string | undefined>(undefined);
  useEffect(() => {
    whenSignedOut(() => {
      setNotice(t('sessionEnded'));
      setState('signed-out');
    });
    void resumeSession().then((live) => setState(live ? 'signed-in' : 'signed-out'));
  }, []);
  if (state === 'checking') return null;
  if (state === 'signed-out')
    return (
      <SignIn
        notice={notice}
        signedIn={() => {
          setNotice(undefined);
          setState('signed-in');
        }}
      />
    );
  return <Shell signedOut={() => setState('signed-out')} />;
}

document.documentElement.lang = LANGUAGE;
const root = document.getElementById('app');
if (root !== null) render(<App />, root);
