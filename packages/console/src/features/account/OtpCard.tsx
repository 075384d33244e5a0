import { useState } from 'react';
import { Badge, Button, Group, Paper, PasswordInput, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Section } from './Section.tsx';
import { useFactorChanged, type Profile } from './use-account.ts';

type Channel = 'email' | 'sms';

/** One channel: its address (email or phone) and on/off; PUT /api/auth/otp/config with the password. */
function ChannelForm({ channel, profile }: { channel: Channel; profile: Profile }) {
  const { t } = useTranslation('account');
  const factorChanged = useFactorChanged();
  const enabled = channel === 'email' ? profile.emailOtpEnabled : profile.smsOtpEnabled;
  const [address, setAddress] = useState(channel === 'email' ? profile.email : profile.phone);
  const [password, setPassword] = useState('');
  const save = useMutation({
    mutationFn: (on: boolean) =>
      unwrap(
        api.PUT('/api/auth/otp/config', {
          body: {
            currentPassword: password,
            channel,
            enabled: on,
            ...(channel === 'email' ? { email: address.trim() } : { phone: address.trim() }),
          },
        }),
      ),
    onSuccess: (user, on) => {
      setPassword('');
      notifications.show({
        color: 'teal',
        message: t('otp.done', { channel: t(`otp.${channel}`), state: on ? t('otp.stateOn') : t('otp.stateOff') }),
      });
      factorChanged(user);
    },
  });
  const label = t(`otp.${channel}`);
  return (
    <Paper withBorder p="sm" radius="sm">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate(!enabled);
        }}
      >
        <Stack gap="xs">
          <Group gap="xs">
            <Text fw={500}>{label}</Text>
            <Badge variant="light" color={enabled ? 'teal' : 'gray'}>
              {enabled ? t('common.on') : t('common.off')}
            </Badge>
          </Group>
          <ErrorAlert error={save.error} />
          <TextInput
            label={channel === 'email' ? t('otp.address') : t('otp.phone')}
            type={channel === 'email' ? 'email' : 'tel'}
            required={!enabled}
            autoComplete={channel === 'email' ? 'email' : 'tel'}
            value={address}
            onChange={(e) => setAddress(e.currentTarget.value)}
          />
          <PasswordInput
            label={t('common.currentPassword')}
            required
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
          />
          <Group gap="xs">
            <Button
              type="submit"
              loading={save.isPending && save.variables === !enabled}
              color={enabled ? 'red' : undefined}
              variant={enabled ? 'default' : 'filled'}
            >
              {enabled ? t('otp.disable') : t('otp.enable')}
            </Button>
            {enabled && (
              <Button
                variant="default"
                loading={save.isPending && save.variables === true}
                onClick={() => password && save.mutate(true)}
                disabled={!password}
              >
                {t('otp.save')}
              </Button>
            )}
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}

/** Email and SMS codes (delivered through a notification channel that can reach the address). */
export function OtpCard({ profile }: { profile: Profile }) {
  const { t } = useTranslation('account');
  return (
    <Section title={t('otp.title')} intro={t('otp.intro')} testId="otp">
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <ChannelForm key={`email-${String(profile.emailOtpEnabled)}`} channel="email" profile={profile} />
        <ChannelForm key={`sms-${String(profile.smsOtpEnabled)}`} channel="sms" profile={profile} />
      </SimpleGrid>
    </Section>
  );
}
