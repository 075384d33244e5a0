import type { resources } from './index.ts';

// Typed keys: a `t('…')` of a key that does not exist in English fails the type check.
declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'common';
    resources: (typeof resources)['en'];
  }
}
