import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import common from './en/common.ts';
import auth from './en/auth.ts';
import dashboard from './en/dashboard.ts';
import tasks from './en/tasks.ts';
import records from './en/records.ts';
import targets from './en/targets.ts';
import nodes from './en/nodes.ts';
import notifications from './en/notifications.ts';
import templates from './en/templates.ts';
import users from './en/users.ts';
import account from './en/account.ts';
import audit from './en/audit.ts';
import settings from './en/settings.ts';
import reports from './en/reports.ts';

/**
 * Every string the console shows goes through i18next, one namespace per area (src/i18n/en/*.ts).
 * English is the only language shipped; another is a folder of the same files and a `resources` entry.
 */
export const resources = {
  en: {
    common,
    auth,
    dashboard,
    tasks,
    records,
    targets,
    nodes,
    notifications,
    templates,
    users,
    account,
    audit,
    settings,
    reports,
  },
} as const;

void i18n.use(initReactI18next).init({
  resources,
  lng: 'en',
  fallbackLng: 'en',
  defaultNS: 'common',
  ns: Object.keys(resources.en),
  interpolation: { escapeValue: false }, // React escapes
  returnNull: false,
});

export default i18n;
