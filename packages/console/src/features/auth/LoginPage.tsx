import { useState } from 'react';
import {
  Button,
  Center,
  Checkbox,
  Divider,
  Group,
  Paper,
  PasswordInput,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { startAuthentication, type PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { api, unwrap } from '../../api/client.ts';
import { ApiError } from '../../api/api-error.ts';
import { writeSession } from '../../api/session.ts';
import type { RequestBody } from '../../api/types.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { SsoButtons } from './SsoButtons.tsx';

type Method = 'totp' | 'recovery_code' | 'webauthn' | 'email_otp' | 'sms_otp';

/**
 * Sign-in with every second factor the API offers: the password first; on AUTH_2FA_REQUIRED the
 * methods it names (authenticator or recovery code, passkey, email or SMS code), and "trust this
 * browser" (the API sets its HttpOnly trusted-device cookie, sent back on the next login).
 */
type LoginBody = RequestBody<'/api/auth/login', 'post'>;

export function LoginPage() {
  const { t } = useTranslation('auth');
  const navigate = useNavigate();
  const [error, setError] = useState<unknown>(null);
  const [methods, setMethods] = useState<Method[] | null>(null);
  const [sent, setSent] = useState(false);
  const form = useForm({
    initialValues: { username: '', password: '', twoFactorCode: '', rememberDevice: false, trustedDeviceName: '' },
  });

  const login = async (extra: Partial<LoginBody> = {}) => {
    setError(null);
    const v = form.getValues();
    const body: LoginBody = {
      username: v.username,
      password: v.password,
      ...(v.twoFactorCode ? { twoFactorCode: v.twoFactorCode.trim() } : {}),
      ...(methods && v.rememberDevice
        ? { rememberDevice: true, ...(v.trustedDeviceName ? { trustedDeviceName: v.trustedDeviceName } : {}) }
        : {}),
      ...extra,
    };
    try {
      const session = await unwrap(api.POST('/api/auth/login', { body }));
      writeSession(session);
      void navigate(session.mfaEnrollmentRequired ? '/account' : '/');
    } catch (err) {
      if (err instanceof ApiError && err.code === 'AUTH_2FA_REQUIRED') {
        const named = (err.details as { methods?: Method[] } | undefined)?.methods;
        setMethods(named && named.length ? named : ['totp', 'recovery_code']);
        return;
      }
      setError(err);
    }
  };

  const usePasskey = async (passwordless: boolean) => {
    setError(null);
    try {
      const v = form.getValues();
      const options = await unwrap(
        api.POST('/api/auth/webauthn/login/options', {
          body: passwordless ? {} : { username: v.username, password: v.password },
        }),
      );
      const assertion = await startAuthentication({
        optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON,
      });
      const body = { webAuthnAssertion: assertion as unknown as NonNullable<LoginBody>['webAuthnAssertion'] };
      await login(passwordless ? { ...body, username: undefined, password: undefined } : body);
    } catch (err) {
      setError(err instanceof ApiError ? err : new Error(t('login.passkeyFailed')));
    }
  };

  const sendCode = async (channel: 'email' | 'sms') => {
    setError(null);
    try {
      const v = form.getValues();
      await unwrap(api.POST('/api/auth/otp/send', { body: { username: v.username, password: v.password, channel } }));
      setSent(true);
    } catch (err) {
      setError(err);
    }
  };

  const has = (m: Method) => methods?.includes(m) ?? false;
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder p="xl" w={420} maw="100%" component="main">
        <form onSubmit={form.onSubmit(() => login())}>
          <Stack>
            <Title order={1} size="h2">
              {t('login.title')}
            </Title>
            <ErrorAlert error={error} />
            {!methods && (
              <>
                <TextInput
                  label={t('login.username')}
                  required
                  autoComplete="username webauthn"
                  {...form.getInputProps('username')}
                />
                <PasswordInput
                  label={t('login.password')}
                  required
                  autoComplete="current-password"
                  {...form.getInputProps('password')}
                />
                <Button type="submit" loading={form.submitting}>
                  {t('login.submit')}
                </Button>
                {'PublicKeyCredential' in window && (
                  <>
                    <Divider />
                    <Button variant="subtle" onClick={() => void usePasskey(true)}>
                      {t('login.passwordless')}
                    </Button>
                  </>
                )}
                <SsoButtons />
              </>
            )}
            {methods && (
              <>
                <Text size="sm">{t('login.secondFactorIntro')}</Text>
                {(has('totp') || has('recovery_code') || has('email_otp') || has('sms_otp')) && (
                  <TextInput
                    label={t('login.code')}
                    description={t('login.codeHint')}
                    autoComplete="one-time-code"
                    data-autofocus
                    autoFocus
                    {...form.getInputProps('twoFactorCode')}
                  />
                )}
                {(has('email_otp') || has('sms_otp')) && (
                  <Group gap="xs">
                    {has('email_otp') && (
                      <Button variant="default" size="xs" onClick={() => void sendCode('email')}>
                        {t('login.sendEmail')}
                      </Button>
                    )}
                    {has('sms_otp') && (
                      <Button variant="default" size="xs" onClick={() => void sendCode('sms')}>
                        {t('login.sendSms')}
                      </Button>
                    )}
                    {sent && (
                      <Text size="xs" c="dimmed" role="status">
                        {t('login.codeSent')}
                      </Text>
                    )}
                  </Group>
                )}
                <Checkbox
                  label={t('login.rememberDevice')}
                  {...form.getInputProps('rememberDevice', { type: 'checkbox' })}
                />
                {form.getValues().rememberDevice && (
                  <TextInput label={t('login.deviceName')} {...form.getInputProps('trustedDeviceName')} />
                )}
                <Button type="submit" loading={form.submitting}>
                  {t('login.submit')}
                </Button>
                {has('webauthn') && (
                  <Button variant="default" onClick={() => void usePasskey(false)}>
                    {t('login.passkey')}
                  </Button>
                )}
                <Button
                  variant="subtle"
                  onClick={() => {
                    setMethods(null);
                    setSent(false);
                    form.setFieldValue('twoFactorCode', '');
                  }}
                >
                  {t('login.back')}
                </Button>
              </>
            )}
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
