import { useState } from 'react';
import { ActionIcon, Badge, Button, Group, PasswordInput, Stack, Table, Text, TextInput, Tooltip } from '@mantine/core';
import { IconTrash } from '@tabler/icons-react';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { startRegistration, type PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/browser';
import { api, unwrap } from '../../api/client.ts';
import { ApiError } from '../../api/api-error.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import type { RequestBody, ResponseData } from '../../api/types.ts';
import { Section } from './Section.tsx';
import { PasswordPrompt } from './PasswordPrompt.tsx';
import { useFactorChanged } from './use-account.ts';

type Passkey = ResponseData<'/api/auth/webauthn/credentials', 'get'>[number];
type Finish = RequestBody<'/api/auth/webauthn/register/finish', 'post'>;

/** Register: password → options → the browser's prompt → finish with a name. */
function AddPasskey({ onDone }: { onDone: () => void }) {
  const { t } = useTranslation('account');
  const factorChanged = useFactorChanged();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const register = useMutation({
    mutationFn: async () => {
      const options = await unwrap(
        api.POST('/api/auth/webauthn/register/options', { body: { currentPassword: password } }),
      );
      let credential: unknown;
      try {
        // The API passes the options through whole (its schema only names `challenge`).
        credential = await startRegistration({
          optionsJSON: options as unknown as PublicKeyCredentialCreationOptionsJSON,
        });
      } catch {
        throw new Error(t('passkeys.cancelled'));
      }
      return unwrap(
        api.POST('/api/auth/webauthn/register/finish', {
          body: { ...(name.trim() ? { name: name.trim() } : {}), credential: credential as Finish['credential'] },
        }),
      );
    },
    onSuccess: (user) => {
      notifications.show({ color: 'teal', message: t('passkeys.done') });
      onDone();
      factorChanged(user);
    },
  });
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        register.mutate();
      }}
    >
      <Stack maw={420} gap="xs">
        <ErrorAlert
          error={register.error instanceof ApiError || register.error instanceof Error ? register.error : null}
        />
        <TextInput
          label={t('passkeys.name')}
          placeholder={t('passkeys.namePlaceholder')}
          maxLength={128}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
        />
        <PasswordInput
          label={t('common.currentPassword')}
          required
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.currentTarget.value)}
        />
        <div>
          <Button type="submit" loading={register.isPending}>
            {t('passkeys.register')}
          </Button>
        </div>
      </Stack>
    </form>
  );
}

/** Passkeys: list, add, delete (with the password). */
export function PasskeysCard({ enrolmentOnly }: { enrolmentOnly: boolean }) {
  const { t } = useTranslation('account');
  const factorChanged = useFactorChanged();
  const supported = typeof window !== 'undefined' && 'PublicKeyCredential' in window;
  const list = useQuery({
    queryKey: ['account', 'passkeys'],
    queryFn: () => unwrap(api.GET('/api/auth/webauthn/credentials')),
  });
  const [adding, setAdding] = useState(false);
  const [deleting, setDeleting] = useState<Passkey | null>(null);
  const remove = useMutation({
    mutationFn: ({ id, currentPassword }: { id: number; currentPassword: string }) =>
      unwrap(
        api.DELETE('/api/auth/webauthn/credentials/{id}', { params: { path: { id } }, body: { currentPassword } }),
      ),
    onSuccess: (user) => {
      setDeleting(null);
      notifications.show({ color: 'teal', message: t('passkeys.deleted') });
      factorChanged(user);
    },
  });
  return (
    <Section title={t('passkeys.title')} intro={t('passkeys.intro')} testId="passkeys">
      <QueryState query={list}>
        {(keys) =>
          keys.length === 0 ? (
            <Text size="sm" c="dimmed">
              {t('passkeys.empty')}
            </Text>
          ) : (
            <Table.ScrollContainer minWidth={420}>
              <Table>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t('passkeys.name')}</Table.Th>
                    <Table.Th>{t('passkeys.created')}</Table.Th>
                    <Table.Th>{t('passkeys.lastUsed')}</Table.Th>
                    <Table.Th />
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {keys.map((k) => (
                    <Table.Tr key={k.id}>
                      <Table.Td>
                        <Text size="sm" span>
                          {k.name}
                        </Text>{' '}
                        {k.userVerified && (
                          <Badge size="xs" variant="light">
                            {t('passkeys.verified')}
                          </Badge>
                        )}
                      </Table.Td>
                      <Table.Td>
                        <RelativeTime value={k.createdAt} />
                      </Table.Td>
                      <Table.Td>
                        <RelativeTime value={k.lastUsedAt} />
                      </Table.Td>
                      <Table.Td>
                        {!enrolmentOnly && (
                          <Tooltip label={t('passkeys.delete', { name: k.name })}>
                            <ActionIcon
                              variant="subtle"
                              color="red"
                              aria-label={t('passkeys.delete', { name: k.name })}
                              onClick={() => {
                                remove.reset();
                                setDeleting(k);
                              }}
                            >
                              <IconTrash size={16} />
                            </ActionIcon>
                          </Tooltip>
                        )}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )
        }
      </QueryState>
      {!supported ? (
        <Text size="sm" c="dimmed">
          {t('passkeys.unsupported')}
        </Text>
      ) : adding ? (
        <AddPasskey onDone={() => setAdding(false)} />
      ) : (
        <Group>
          <Button variant="default" onClick={() => setAdding(true)}>
            {t('passkeys.add')}
          </Button>
        </Group>
      )}
      {deleting && (
        <PasswordPrompt
          title={t('passkeys.deleteTitle', { name: deleting.name })}
          confirmLabel={t('actions.delete', { ns: 'common' })}
          danger
          loading={remove.isPending}
          error={remove.error}
          onSubmit={(v) => remove.mutate({ id: deleting.id, currentPassword: v.currentPassword })}
          onClose={() => setDeleting(null)}
        />
      )}
    </Section>
  );
}
