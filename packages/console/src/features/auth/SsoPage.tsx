import { useEffect, useRef, useState } from 'react';
import { Anchor, Button, Center, Checkbox, Loader, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { Link, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { startAuthentication, type PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { api, unwrap } from '../../api/client.ts';
import { ApiError } from '../../api/api-error.ts';
import { writeSession } from '../../api/session.ts';
import type { RequestBody } from '../../api/types.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';

type ExchangeBody = RequestBody<'/api/auth/oidc/exchange', 'post'>;
interface FactorsRequired {
  methods: string[];
  webAuthnOptions?: PublicKeyCredentialRequestOptionsJSON;
}

/** The query the master's callback sent the browser here with, read once, then taken off the address bar. */
function readCallbackQuery(): { code: string | null; error: string | null } {
  const params = new URLSearchParams(window.location.search);
  const found = { code: params.get('code'), error: params.get('error') };
  // The one-time code must not linger in the history or a bookmark.
  if (found.code) window.history.replaceState(window.history.state, '', window.location.pathname);
  return found;
}

/**
 * The end of a single sign-on: the master's callback sends the browser here with a one-time code
 * (or the error's code). The code is exchanged for the login's answer, kept like a password
 * login's session; when the account's second factor is still needed (the provider did not assert
 * one), it is asked for here and the exchange is retried with it.
 */
export function SsoPage() {
  const { t } = useTranslation('auth');
  const navigate = useNavigate();
  const [callback] = useState(readCallbackQuery);
  const [error, setError] = useState<unknown>(() =>
    callback.error
      ? new ApiError(0, callback.error, t(`sso.errors.${callback.error}`, { defaultValue: t('sso.failed') }))
      : callback.code
        ? null
        : new ApiError(0, 'AUTH_OIDC_CODE_INVALID', t('sso.errors.AUTH_OIDC_CODE_INVALID')),
  );
  const [factors, setFactors] = useState<FactorsRequired | null>(null);
  const started = useRef(false);
  const form = useForm({ initialValues: { twoFactorCode: '', rememberDevice: false } });

  const exchange = async (extra: Partial<ExchangeBody> = {}) => {
    if (!callback.code) return;
    setError(null);
    try {
      const session = await unwrap(api.POST('/api/auth/oidc/exchange', { body: { code: callback.code, ...extra } }));
      writeSession(session);
      void navigate(session.mfaEnrollmentRequired ? '/account' : '/', { replace: true });
    } catch (err) {
      if (err instanceof ApiError && err.code === 'AUTH_2FA_REQUIRED') {
        setFactors((err.details as FactorsRequired | undefined) ?? { methods: ['totp', 'recovery_code'] });
        return;
      }
      setError(err);
    }
  };

  useEffect(() => {
    // Once, even when React runs effects twice in development: the code opens one session only.
    if (started.current) return;
    started.current = true;
    void exchange();
  });

  const usePasskey = async () => {
    if (!factors?.webAuthnOptions) return;
    try {
      const assertion = await startAuthentication({ optionsJSON: factors.webAuthnOptions });
      await exchange({ webAuthnAssertion: assertion as unknown as NonNullable<ExchangeBody['webAuthnAssertion']> });
    } catch (err) {
      setError(err instanceof ApiError ? err : new Error(t('login.passkeyFailed')));
    }
  };

  const submit = form.onSubmit((v) =>
    exchange({ twoFactorCode: v.twoFactorCode.trim(), ...(v.rememberDevice ? { rememberDevice: true } : {}) }),
  );
  const has = (m: string) => factors?.methods.includes(m) ?? false;
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder p="xl" w={420} maw="100%" component="main">
        <form onSubmit={submit}>
          <Stack>
            <Title order={1} size="h2">
              {t('sso.title')}
            </Title>
            <ErrorAlert error={error} />
            {!error && !factors && (
              <Center>
                <Loader aria-label={t('sso.working')} />
              </Center>
            )}
            {factors && (
              <>
                <Text size="sm">{t('sso.secondFactorIntro')}</Text>
                {(has('totp') || has('recovery_code')) && (
                  <TextInput
                    label={t('login.code')}
                    description={t('login.codeHint')}
                    autoComplete="one-time-code"
                    autoFocus
                    {...form.getInputProps('twoFactorCode')}
                  />
                )}
                <Checkbox
                  label={t('login.rememberDevice')}
                  {...form.getInputProps('rememberDevice', { type: 'checkbox' })}
                />
                {(has('totp') || has('recovery_code')) && (
                  <Button type="submit" loading={form.submitting}>
                    {t('login.submit')}
                  </Button>
                )}
                {has('webauthn') && factors.webAuthnOptions && (
                  <Button variant="default" onClick={() => void usePasskey()}>
                    {t('login.passkey')}
                  </Button>
                )}
              </>
            )}
            <Anchor component={Link} to="/login" size="sm">
              {t('sso.backToLogin')}
            </Anchor>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
