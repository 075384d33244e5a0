import { Alert, Center, Loader } from '@mantine/core';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { useCan } from '../../app/use-session.ts';
import { useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/PageHeader.tsx';
import { useCatalogue } from './use-catalogue.ts';
import { TypePicker } from './TypePicker.tsx';
import { TargetForm } from './TargetForm.tsx';

/** /targets/new[?type=…]: pick a type, then fill in the form generated from it. */
export function TargetNewPage() {
  const { t } = useTranslation('targets');
  const [params, setParams] = useSearchParams();
  const { types, error, isPending } = useCatalogue();
  const can = useCan();
  const typeName = params.get('type');
  const type = typeName ? types?.find((x) => x.name === typeName) : undefined;
  return (
    <>
      <PageHeader title={t('form.newTitle')} description={type ? type.description : t('picker.title')} />
      {!can('write') ? (
        <Alert color="gray">{t('form.writeOnly')}</Alert>
      ) : isPending ? (
        <Center py="xl">
          <Loader aria-label={t('loading', { ns: 'common' })} />
        </Center>
      ) : !types ? (
        <ErrorAlert error={error} />
      ) : type ? (
        <TargetForm key={type.name} typeName={type.name} type={type} onChangeType={() => setParams({})} />
      ) : (
        <TypePicker types={types} onPick={(picked) => setParams({ type: picked.name })} />
      )}
    </>
  );
}
