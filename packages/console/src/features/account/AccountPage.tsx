import { Alert, Stack } from '@mantine/core';
import { IconShieldLock } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../app/use-session.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { exactTime } from '../../lib/time.ts';
import { accountCards, enrolmentNotice } from './account-state.ts';
import { useProfile } from './use-account.ts';
import { ProfileCard } from './ProfileCard.tsx';
import { PasswordCard } from './PasswordCard.tsx';
import { TotpCard } from './TotpCard.tsx';
import { OtpCard } from './OtpCard.tsx';
import { PasskeysCard } from './PasskeysCard.tsx';
import { DevicesCard } from './DevicesCard.tsx';
import { SessionsCard } from './SessionsCard.tsx';

/**
 * `/account`: profile, password, second factors (authenticator, email/SMS codes, passkeys),
 * trusted browsers, sessions. An enrolment-only session sees only what its token opens, under a banner.
 */
export function AccountPage() {
  const { t, i18n } = useTranslation('account');
  const session = useSession();
  const profile = useProfile();
  const facts = {
    mfaEnrollmentRequired: session?.mfaEnrollmentRequired,
    mfaEnrollmentDeadline: session?.mfaEnrollmentDeadline,
  };
  const cards = accountCards(facts);
  const enrolmentOnly = facts.mfaEnrollmentRequired === true;
  return (
    <>
      <PageHeader title={t('title')} description={t('description')} />
      <QueryState query={profile}>
        {(p) => {
          const notice = enrolmentNotice(facts, p.mfaEnabled);
          return (
            <Stack gap="md">
              {notice?.kind === 'required' && (
                <Alert
                  color="orange"
                  icon={<IconShieldLock size={20} />}
                  title={t('enrolment.requiredTitle')}
                  role="alert"
                  data-testid="mfa-enrolment-required"
                >
                  {t('enrolment.required')}
                </Alert>
              )}
              {notice?.kind === 'deadline' && (
                <Alert color="yellow" icon={<IconShieldLock size={20} />} title={t('enrolment.deadlineTitle')}>
                  {t('enrolment.deadline', { when: exactTime(notice.deadline, i18n.language) })}
                </Alert>
              )}
              {cards.includes('profile') && <ProfileCard profile={p} />}
              {cards.includes('password') && <PasswordCard />}
              {cards.includes('totp') && <TotpCard profile={p} enrolmentOnly={enrolmentOnly} />}
              {cards.includes('passkeys') && <PasskeysCard enrolmentOnly={enrolmentOnly} />}
              {cards.includes('otp') && <OtpCard profile={p} />}
              {cards.includes('devices') && <DevicesCard />}
              {cards.includes('sessions') && <SessionsCard />}
            </Stack>
          );
        }}
      </QueryState>
    </>
  );
}
