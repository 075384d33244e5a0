import { PageHeader } from '../../components/PageHeader.tsx';
import { useTranslation } from 'react-i18next';

export function DashboardPage() {
  const { t } = useTranslation();
  return <PageHeader title={t('nav.dashboard')} />;
}
