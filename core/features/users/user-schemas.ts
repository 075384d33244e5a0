import { Type, type Static } from 'typebox';

export const Username = Type.String({ minLength: 3, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._@-]*$' });
export const Password = Type.String({ minLength: 8, maxLength: 128 });
export const RoleSchema = Type.Union([Type.Literal('admin'), Type.Literal('operator'), Type.Literal('viewer')]);

export const CreateUserBody = Type.Object({
  username: Username,
  password: Password,
  displayName: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  email: Type.Optional(Type.String({ maxLength: 255 })),
  phone: Type.Optional(Type.String({ maxLength: 64 })),
  role: Type.Optional(RoleSchema),
  disabled: Type.Optional(Type.Boolean()),
});
export type CreateUserInput = Static<typeof CreateUserBody>;

export const UpdateUserBody = Type.Object({
  /** Renames the account (sessions and keys follow the id, not the name). */
  username: Type.Optional(Username),
  /** Empty means "unchanged": the reference's console sends `""` when the admin leaves the field blank. */
  password: Type.Optional(Type.Union([Password, Type.Literal('')])),
  displayName: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  email: Type.Optional(Type.String({ maxLength: 255 })),
  phone: Type.Optional(Type.String({ maxLength: 64 })),
  role: Type.Optional(RoleSchema),
  disabled: Type.Optional(Type.Boolean()),
});
export type UpdateUserInput = Static<typeof UpdateUserBody>;
