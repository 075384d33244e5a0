import { useState } from 'react';
import { Alert, Button, Divider, Group, Modal, Stack, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { isBandwidth, nodeBody, type NodeSettingsValues } from './node-form.ts';
import { nodeKeys } from './node-queries.ts';
import { NodeSettingsFields } from './NodeSettingsFields.tsx';
import { DEFAULT_INSTALLER, InstallerFields, installerBody } from './InstallerForm.tsx';
import { InstallCommand } from './InstallCommand.tsx';
import { TokenOnce } from './TokenOnce.tsx';

const EMPTY: NodeSettingsValues = { name: '', labels: [], maxConcurrent: 1, bandwidthLimit: '' };

/**
 * Add node: POST /api/nodes, then POST /api/nodes/{id}/install-tokens; shows the one-time install
 * command (and the node token for a manual start) until the dialog is closed.
 */
export function AddNodeModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { t } = useTranslation('nodes');
  const queryClient = useQueryClient();
  const [values, setValues] = useState(EMPTY);
  const [installer, setInstaller] = useState(DEFAULT_INSTALLER);
  const [nameError, setNameError] = useState<string>();
  const create = useMutation({
    mutationFn: async () => {
      const created = await unwrap(api.POST('/api/nodes', { body: nodeBody(values) }));
      await queryClient.invalidateQueries({ queryKey: nodeKeys.all });
      try {
        const issued = await unwrap(
          api.POST('/api/nodes/{id}/install-tokens', {
            params: { path: { id: created.node.id } },
            body: installerBody(installer),
          }),
        );
        return { ...created, installer: issued, installerError: null };
      } catch (err) {
        return { ...created, installer: null, installerError: err };
      }
    },
  });
  const close = () => {
    onClose();
    // The command and token are shown once: closing forgets them.
    setValues(EMPTY);
    setInstaller(DEFAULT_INSTALLER);
    setNameError(undefined);
    create.reset();
  };
  const submit = () => {
    if (!values.name.trim()) {
      setNameError(t('form.required'));
      return;
    }
    if (!isBandwidth(values.bandwidthLimit)) return;
    create.mutate();
  };
  const result = create.data;
  return (
    <Modal opened={opened} onClose={close} title={t('add.title')} size="lg" closeOnClickOutside={!result}>
      {result ? (
        <Stack>
          <Alert color="green">{t('add.created', { name: result.node.name })}</Alert>
          {result.installer && <InstallCommand installer={result.installer} />}
          {result.installerError !== null && (
            <>
              <Alert color="orange">{t('add.installerFailed')}</Alert>
              <ErrorAlert error={result.installerError} />
            </>
          )}
          <TokenOnce token={result.token} />
          <Group justify="flex-end">
            <Button variant="default" component={Link} to={`/nodes/${result.node.id}`} onClick={close}>
              {t('add.openNode')}
            </Button>
            <Button onClick={close}>{t('add.done')}</Button>
          </Group>
        </Stack>
      ) : (
        <Stack>
          <NodeSettingsFields
            values={values}
            onChange={(v) => {
              setValues(v);
              setNameError(undefined);
            }}
            nameError={nameError}
          />
          <Divider />
          <Title order={3} size="h5">
            {t('installer.title')}
          </Title>
          <InstallerFields value={installer} onChange={setInstaller} />
          <ErrorAlert error={create.error} />
          <Group justify="flex-end">
            <Button loading={create.isPending} onClick={submit}>
              {t('add.submit')}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
