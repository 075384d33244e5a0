import { useState } from 'react';
import { Badge, Button, Code, CopyButton, Group, Image, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import type { ResponseData } from '../../api/types.ts';
import { Section } from './Section.tsx';
import { PasswordPrompt, type PromptValues } from './PasswordPrompt.tsx';
import { RecoveryCodesModal } from './RecoveryCodesModal.tsx';
import { useFactorChanged, type Profile } from './use-account.ts';

type Setup = ResponseData<'/api/auth/2fa/setup', 'post'>;

/** Enrolment: password → QR code and secret → a code from the app → recovery codes, shown once. */
function TotpSetup({
  onCancel,
  onEnabled,
}: {
  onCancel: () => void;
  onEnabled: (codes: string[], user: Profile) => void;
}) {
  const { t } = useTranslation('account');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const setup = useMutation({
    mutationFn: () => unwrap(api.POST('/api/auth/2fa/setup', { body: { currentPassword: password } })),
  });
  const enable = useMutation({
    mutationFn: () => unwrap(api.POST('/api/auth/2fa/enable', { body: { code: code.trim() } })),
    onSuccess: (r) => onEnabled(r.recoveryCodes, r.user),
  });
  const data: Setup | undefined = setup.data;
  if (!data) {
    return (
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setup.mutate();
        }}
      >
        <Stack maw={420}>
          <Text size="sm">{t('totp.step1')}</Text>
          <ErrorAlert error={setup.error} />
          <PasswordInput
            label={t('common.currentPassword')}
            required
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            data-autofocus
          />
          <Group>
            <Button type="submit" loading={setup.isPending}>
              {t('totp.next')}
            </Button>
            <Button variant="default" onClick={onCancel}>
              {t('totp.cancel')}
            </Button>
          </Group>
        </Stack>
      </form>
    );
  }
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        enable.mutate();
      }}
    >
      <Stack maw={460}>
        <Text size="sm">{t('totp.step2')}</Text>
        <Image src={data.qrCodeDataUrl} alt={t('totp.qrAlt')} w={200} h={200} fit="contain" bg="white" p={4} />
        <Group gap="xs" wrap="nowrap">
          <Text size="sm" fw={500}>
            {t('totp.secret')}
          </Text>
          <Code style={{ wordBreak: 'break-all' }} data-testid="totp-secret">
            {data.secret}
          </Code>
          <CopyButton value={data.secret}>
            {({ copied, copy }) => (
              <Button size="xs" variant="default" onClick={copy}>
                {copied ? t('actions.copied', { ns: 'common' }) : t('actions.copy', { ns: 'common' })}
              </Button>
            )}
          </CopyButton>
        </Group>
        <ErrorAlert error={enable.error} />
        <TextInput
          label={t('common.code')}
          required
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={32}
          value={code}
          onChange={(e) => setCode(e.currentTarget.value)}
        />
        <Group>
          <Button type="submit" loading={enable.isPending}>
            {t('totp.verify')}
          </Button>
          <Button variant="default" onClick={onCancel}>
            {t('totp.cancel')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

type Prompt = 'disable' | 'regenerate' | null;

/** The authenticator app: set up; when on, new recovery codes or turn it off (password and a code). */
export function TotpCard({ profile, enrolmentOnly }: { profile: Profile; enrolmentOnly: boolean }) {
  const { t } = useTranslation('account');
  const factorChanged = useFactorChanged();
  const [settingUp, setSettingUp] = useState(false);
  const [codes, setCodes] = useState<{ codes: string[]; after: () => void } | null>(null);
  const [prompt, setPrompt] = useState<Prompt>(null);
  const change = useMutation({
    mutationFn: async ({ what, v }: { what: Exclude<Prompt, null>; v: PromptValues }) =>
      what === 'disable'
        ? { user: await unwrap(api.DELETE('/api/auth/2fa', { body: v })), recoveryCodes: null }
        : unwrap(api.POST('/api/auth/2fa/recovery-codes', { body: v })),
    onSuccess: (r) => {
      setPrompt(null);
      factorChanged(r.user);
      if (r.recoveryCodes) setCodes({ codes: r.recoveryCodes, after: () => undefined });
      else notifications.show({ color: 'teal', message: t('totp.disabled') });
    },
  });
  const enabled = profile.twoFactorEnabled;
  return (
    <Section
      title={t('totp.title')}
      intro={t('totp.intro')}
      testId="totp"
      badge={
        <Badge variant="light" color={enabled ? 'teal' : 'gray'}>
          {enabled ? t('common.on') : t('common.off')}
        </Badge>
      }
    >
      {enabled ? (
        <Stack gap="xs">
          <Text size="sm">{t('totp.enabled', { count: profile.twoFactorRecoveryCodesRemaining })}</Text>
          {!enrolmentOnly && (
            <Group>
              <Button
                variant="default"
                onClick={() => {
                  change.reset();
                  setPrompt('regenerate');
                }}
              >
                {t('totp.regenerate')}
              </Button>
              <Button
                variant="default"
                color="red"
                onClick={() => {
                  change.reset();
                  setPrompt('disable');
                }}
              >
                {t('totp.disable')}
              </Button>
            </Group>
          )}
        </Stack>
      ) : settingUp ? (
        <TotpSetup
          onCancel={() => setSettingUp(false)}
          onEnabled={(recoveryCodes, user) => {
            setSettingUp(false);
            notifications.show({ color: 'teal', message: t('totp.done') });
            setCodes({ codes: recoveryCodes, after: factorChanged(user, { deferSignOut: true }) });
          }}
        />
      ) : (
        <div>
          <Button onClick={() => setSettingUp(true)}>{t('totp.setup')}</Button>
        </div>
      )}
      {prompt && (
        <PasswordPrompt
          withCode
          title={prompt === 'disable' ? t('totp.disableTitle') : t('totp.regenerateTitle')}
          {...(prompt === 'regenerate' ? { hint: t('totp.regenerateHint') } : {})}
          confirmLabel={prompt === 'disable' ? t('totp.disable') : t('totp.regenerate')}
          danger={prompt === 'disable'}
          loading={change.isPending}
          error={change.error}
          onSubmit={(v) => change.mutate({ what: prompt, v })}
          onClose={() => setPrompt(null)}
        />
      )}
      {codes && (
        <RecoveryCodesModal
          codes={codes.codes}
          username={profile.username}
          onClose={() => {
            const after = codes.after;
            setCodes(null);
            after();
          }}
        />
      )}
    </Section>
  );
}
