import { can, type Permission, type Role } from '../../modules/shared/roles.js';
import { html, safe, type Html } from '../../platform/html.js';
import { page, type PageFrame } from '../html.js';
import type { userFrame } from '../session.js';

// The settings pages, each shown to the roles that may open it (decisions 21's paths).
export const SETTINGS_PAGES = [
  { id: 'profile', href: '/dashboard/settings/profile', label: 'Your profile', permission: 'read' },
  {
    id: 'organisation',
    href: '/dashboard/settings/organisation',
    label: 'Organisation',
    permission: 'organisation',
  },
  { id: 'team', href: '/dashboard/settings/team', label: 'Team', permission: 'team' },
  { id: 'sign-in', href: '/dashboard/settings/sign-in', label: 'Sign-in', permission: 'organisation' },
  { id: 'sharing', href: '/dashboard/settings/sharing', label: 'Sharing', permission: 'organisation' },
  { id: 'api-keys', href: '/dashboard/settings/api-keys', label: 'API keys', permission: 'keys' },
  { id: 'audit', href: '/dashboard/settings/audit', label: 'Audit log', permission: 'audit' },
] as const satisfies readonly { id: string; href: string; label: string; permission: Permission }[];
export type SettingsPage = (typeof SETTINGS_PAGES)[number]['id'];

/** The settings sub-menu: the pages this role may open, the current one marked. */
export function settingsNav(role: Role, current?: SettingsPage): Html {
  const items = SETTINGS_PAGES.filter((p) => can(role, p.permission)).map(
    (p) =>
      html`<li>
        <a href="${p.href}" ${safe(p.id === current ? ' aria-current="page"' : '')}>${p.label}</a>
      </li>`,
  );
  return html`<nav class="settings-nav" aria-label="Settings">
    <ul>
      ${items}
    </ul>
  </nav>`;
}

/** A settings page: the frame with Settings current, the sub-menu, then the page's own body. */
export function settingsPage(
  opts: { user: ReturnType<typeof userFrame>; title: string; current: SettingsPage; scripts?: string[] },
  body: Html,
): string {
  const frame: PageFrame = {
    title: `Settings: ${opts.title}`,
    section: 'settings',
    user: opts.user,
    scripts: opts.scripts,
    body: html`${settingsNav(opts.user.role, opts.current)}${body}`,
  };
  return page(frame);
}

/** /dashboard/settings: the list of settings pages this role may open. */
export function settingsIndexPage(opts: { user: ReturnType<typeof userFrame> }): string {
  return page({
    title: 'Settings',
    section: 'settings',
    user: opts.user,
    body: html`<h1>Settings</h1>
      ${settingsNav(opts.user.role)}`,
  });
}
