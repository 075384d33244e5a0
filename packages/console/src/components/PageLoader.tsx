import { Center, Loader } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** The spinner shown while a page or its data loads, announced as "Loading…". */
export function PageLoader({ fullHeight = false }: { fullHeight?: boolean }) {
  const { t } = useTranslation();
  return (
    <Center {...(fullHeight ? { mih: '100vh' } : { py: 'xl' })}>
      <Loader aria-label={t('loading')} />
    </Center>
  );
}
