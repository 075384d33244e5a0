import type { RequestBody } from '../../api/types.ts';
import type { FieldKey, LEGACY_KEYS } from './template-fields.ts';

/**
 * A type-level check, no runtime code: every key of the template payload the API describes is a
 * form field or a known legacy key, and the form names no key the API lacks. When the server adds
 * a task field and the API types are regenerated, the console's type check fails here until the
 * form handles it.
 */
type PayloadKey = keyof RequestBody<'/api/task-templates', 'post'>['payload'];
type Handled = FieldKey | (typeof LEGACY_KEYS)[number];

type Unhandled = Exclude<PayloadKey, Handled>;
type Unknown = Exclude<Handled, PayloadKey>;
export const everyPayloadKeyHandled: [Unhandled] extends [never] ? true : Unhandled = true;
export const noUnknownKey: [Unknown] extends [never] ? true : Unknown = true;
