import type { Ability } from './use-session.ts';

/** The navigation: path, label key (namespace common, `nav.*`), the ability needed to see it. */
export interface NavItem {
  path: string;
  label: string;
  ability: Ability;
  group: 'main' | 'groupBackup' | 'groupInfrastructure' | 'groupAdmin';
}

export const NAV: NavItem[] = [
  { path: '/', label: 'dashboard', ability: 'read', group: 'main' },
  { path: '/tasks', label: 'tasks', ability: 'read', group: 'groupBackup' },
  { path: '/records', label: 'records', ability: 'read', group: 'groupBackup' },
  { path: '/restores', label: 'restores', ability: 'read', group: 'groupBackup' },
  { path: '/verifications', label: 'verifications', ability: 'read', group: 'groupBackup' },
  { path: '/replications', label: 'replications', ability: 'read', group: 'groupBackup' },
  { path: '/templates', label: 'templates', ability: 'read', group: 'groupBackup' },
  { path: '/targets', label: 'targets', ability: 'read', group: 'groupInfrastructure' },
  { path: '/nodes', label: 'nodes', ability: 'read', group: 'groupInfrastructure' },
  { path: '/notifications', label: 'notifications', ability: 'read', group: 'groupInfrastructure' },
  { path: '/reports/compliance', label: 'compliance', ability: 'read', group: 'groupAdmin' },
  { path: '/audit', label: 'audit', ability: 'read', group: 'groupAdmin' },
  { path: '/users', label: 'users', ability: 'admin', group: 'groupAdmin' },
  { path: '/api-keys', label: 'apiKeys', ability: 'admin', group: 'groupAdmin' },
  { path: '/settings', label: 'settings', ability: 'read', group: 'groupAdmin' },
  { path: '/account', label: 'account', ability: 'read', group: 'groupAdmin' },
];
