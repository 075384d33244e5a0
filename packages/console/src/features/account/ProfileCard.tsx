import { Badge, Group, SimpleGrid, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import type { Profile } from './use-account.ts';
import { Section } from './Section.tsx';

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" component="div">
        {children}
      </Text>
    </div>
  );
}

/** Who is signed in, and which second factors protect the account. */
export function ProfileCard({ profile }: { profile: Profile }) {
  const { t } = useTranslation('account');
  const factors = [
    profile.twoFactorEnabled && t('totp.title'),
    profile.webAuthnEnabled && `${t('passkeys.title')} (${profile.webAuthnCredentialCount})`,
    profile.emailOtpEnabled && t('otp.email'),
    profile.smsOtpEnabled && t('otp.sms'),
  ].filter((f): f is string => typeof f === 'string');
  return (
    <Section title={t('profile.title')} testId="profile">
      <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }}>
        <Fact label={t('profile.username')}>{profile.username}</Fact>
        <Fact label={t('profile.displayName')}>{profile.displayName}</Fact>
        <Fact label={t('profile.role')}>
          <Badge variant="light">{profile.role}</Badge>
        </Fact>
        <Fact label={t('profile.created')}>
          <RelativeTime value={profile.createdAt} />
        </Fact>
        <Fact label={t('profile.email')}>{profile.email || '—'}</Fact>
        <Fact label={t('profile.phone')}>{profile.phone || '—'}</Fact>
        <Fact label={t('profile.factors')}>
          {factors.length ? (
            <Group gap={4}>
              {factors.map((f) => (
                <Badge key={f} color="teal" variant="light">
                  {f}
                </Badge>
              ))}
            </Group>
          ) : (
            <Text size="sm" c="orange">
              {t('profile.noneWarning')}
            </Text>
          )}
        </Fact>
      </SimpleGrid>
    </Section>
  );
}
