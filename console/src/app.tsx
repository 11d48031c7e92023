import { Link, Route, Router, Switch, useLocation, useRoute } from 'wouter';
import { useToken } from './api/session';
import { useCallback, useEffect, useRef, useState } from 'react';
import { signOut } from './api/session';
import { useBatched, useQuery, useSubscription } from './api/hooks';
import { AccountCallsDocument, MeDocument } from './pages/account/account.operations';
import { formatMoney } from './ui/format';
import { DeveloperLinks } from './ui/developer-links';
import { useCardTables } from './ui/card-tables';
import { SignInPage } from './pages/account/sign-in.page';
import { OverviewPage } from './pages/account/overview.page';
import { AnalyticsPage } from './pages/analytics/analytics.page';
import { CampaignsPage } from './pages/campaigns/campaigns.page';
import { CampaignPage } from './pages/campaigns/campaign.page';
import { CampaignEditPage } from './pages/campaigns/campaign-edit.page';
import { CallsPage } from './pages/calls/calls.page';
import { CallPage } from './pages/calls/call.page';
import { AssistantsPage } from './pages/assistants/assistants.page';
import { AssistantEditPage } from './pages/assistants/assistant-edit.page';
import { ToolsPage } from './pages/settings/tools.page';
import { PhoneNumbersPage } from './pages/settings/phone-numbers.page';
import { DncPage } from './pages/settings/dnc.page';
import { WebhooksPage } from './pages/settings/webhooks.page';
import { WebhookPage } from './pages/settings/webhook.page';
import { TokensPage } from './pages/settings/tokens.page';
import { VendorsPage } from './pages/settings/vendors.page';

const NAV = [
  { href: '/', label: 'Analytics' },
  { href: '/overview', label: 'Overview' },
  { href: '/campaigns', label: 'Campaigns' },
  { href: '/calls', label: 'Calls' },
  { href: '/assistants', label: 'Assistants' },
  { href: '/tools', label: 'Tools' },
  { href: '/phone-numbers', label: 'Phone numbers' },
  { href: '/do-not-call', label: 'Do-not-call list' },
  { href: '/webhooks', label: 'Webhooks' },
  { href: '/tokens', label: 'API tokens' },
  { href: '/vendors', label: 'Voice vendors' },
];

/** The console at /console: the sign-in page until a token is given, then the app. */
export function App() {
  const token = useToken();
  return <Router base="/console">{token ? <Shell /> : <SignInPage />}</Router>;
}

function NavLink({ href, label }: { href: string; label: string }) {
  const [exact] = useRoute(href);
  const [nested] = useRoute(`${href}/*`);
  const active = exact || (href !== '/' && nested);
  return (
    <li>
      <Link href={href} aria-current={active ? 'page' : undefined} className={active ? 'active' : ''}>
        {label}
      </Link>
    </li>
  );
}

function AccountBadge() {
  const me = useQuery(MeDocument);
  // The balance moves when a call ends: asked again then (no polling).
  const refresh = useBatched<unknown>(() => void me.refetch(), 1000);
  useSubscription(AccountCallsDocument, {}, (data) => {
    if (!['initiated', 'ringing', 'in-progress'].includes(data.callUpdated.status)) refresh(null);
  });
  return (
    <div className="account-badge">
      <span className="account-name">{me.data?.me.name ?? '…'}</span>
      <span className="account-balance" aria-label="Balance">
        {me.data ? `${formatMoney(me.data.me.balance)} ${me.data.me.currency}` : '…'}
      </span>
    </div>
  );
}

function Shell() {
  const skip = useCallback(() => document.getElementById('main')?.focus(), []);
  useEffect(() => {
    document.documentElement.dataset.theme = 'light';
  }, []);
  const main = useRef<HTMLElement>(null);
  useCardTables(main);
  // On a narrow screen the navigation hides behind a Menu button (styles.css, "Narrow screens"); a
  // followed link closes it.
  const [menuOpen, setMenuOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  const [location] = useLocation();
  useEffect(() => setMenuOpen(false), [location]);
  const closeOnEscape = (event: { key: string }) => {
    if (event.key !== 'Escape' || !menuOpen) return;
    setMenuOpen(false);
    menuButton.current?.focus();
  };
  return (
    <div className="shell">
      <a href="#main" className="skip" onClick={(event: any) => (event.preventDefault(), skip())}>
        Skip to content
      </a>
      <aside className={menuOpen ? 'sidebar open' : 'sidebar'} onKeyDown={closeOnEscape}>
        <div className="sidebar-top">
          <div className="brand">
            <span className="brand-mark" aria-hidden="true">
              ◉
            </span>
            vozgate
          </div>
          <button
            type="button"
            ref={menuButton}
            className="menu-button secondary outline small"
            aria-expanded={menuOpen}
            aria-controls="console-menu"
            onClick={() => setMenuOpen(!menuOpen)}
          >
            Menu
          </button>
        </div>
        <div className="sidebar-menu" id="console-menu">
          <nav aria-label="Console">
            <ul>
              {NAV.map((item) => (
                <NavLink key={item.href} {...item} />
              ))}
            </ul>
          </nav>
          <div className="sidebar-foot">
            <DeveloperLinks />
            <AccountBadge />
            <button type="button" className="secondary outline small" onClick={signOut}>
              Sign out
            </button>
          </div>
        </div>
      </aside>
      <main id="main" tabIndex={-1} ref={main}>
        <Switch>
          <Route path="/" component={AnalyticsPage} />
          <Route path="/overview" component={OverviewPage} />
          <Route path="/campaigns" component={CampaignsPage} />
          <Route path="/campaigns/new" component={CampaignEditPage} />
          <Route path="/campaigns/:id/edit" component={CampaignEditPage} />
          <Route path="/campaigns/:id" component={CampaignPage} />
          <Route path="/calls" component={CallsPage} />
          <Route path="/calls/:id" component={CallPage} />
          <Route path="/assistants" component={AssistantsPage} />
          <Route path="/assistants/new" component={AssistantEditPage} />
          <Route path="/assistants/:id" component={AssistantEditPage} />
          <Route path="/tools" component={ToolsPage} />
          <Route path="/phone-numbers" component={PhoneNumbersPage} />
          <Route path="/do-not-call" component={DncPage} />
          <Route path="/webhooks" component={WebhooksPage} />
          <Route path="/webhooks/:id" component={WebhookPage} />
          <Route path="/tokens" component={TokensPage} />
          <Route path="/vendors" component={VendorsPage} />
          <Route>
            <h1>Not found</h1>
            <p>
              This page does not exist. <Link href="/">Back to the analytics</Link>.
            </p>
          </Route>
        </Switch>
      </main>
    </div>
  );
}
