import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Key/value system settings; secret values are sealed with the master key before they land here. */
export const SettingEntity = defineEntity({
  name: 'Setting',
  tableName: 'settings',
  properties: {
    key: p.string().length(128).primary(),
    value: p.text(),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type Setting = InferEntity<typeof SettingEntity>;
