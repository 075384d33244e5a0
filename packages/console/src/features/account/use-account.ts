import { useQuery, useQueryClient } from '@tanstack/react-query';
import { notifications } from '@mantine/notifications';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { readSession, writeSession } from '../../api/session.ts';
import type { ResponseData } from '../../api/types.ts';
import { afterEnrolment } from './account-state.ts';

export type Profile = ResponseData<'/api/auth/profile', 'get'>;
export const PROFILE_KEY = ['account', 'profile'] as const;

export function useProfile() {
  return useQuery({ queryKey: PROFILE_KEY, queryFn: () => unwrap(api.GET('/api/auth/profile')) });
}

/**
 * After a factor changed (the routes answer the updated profile): the profile cache and the
 * stored session's user are updated. An enrolment-only session that now has a factor is ended,
 * with a message, because its token keeps the enrolment scope: a full session needs a new login.
 */
export function useFactorChanged(): (user: Profile, options?: { deferSignOut?: boolean }) => () => void {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { t } = useTranslation('account');
  return (user, options) => {
    queryClient.setQueryData(PROFILE_KEY, user);
    void queryClient.invalidateQueries({ queryKey: ['account'] });
    const session = readSession();
    if (!session) return () => undefined;
    if (afterEnrolment(session, user.mfaEnabled) === 'sign-in-again') {
      const signOut = () => {
        notifications.show({ color: 'teal', autoClose: false, message: t('enrolment.signInAgain') });
        void api
          .POST('/api/auth/logout', {})
          .catch(() => undefined)
          .finally(() => {
            writeSession(null);
            void navigate('/login', { replace: true });
          });
      };
      // Recovery codes are shown before signing out: the caller signs out when they are closed.
      if (options?.deferSignOut) return signOut;
      signOut();
      return () => undefined;
    }
    const { mfaEnrollmentDeadline: _deadline, ...rest } = session;
    writeSession({ ...(user.mfaEnabled ? rest : session), user: { ...session.user, ...user } });
    return () => undefined;
  };
}
