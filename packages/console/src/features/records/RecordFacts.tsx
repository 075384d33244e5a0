import { Anchor, Code, CopyButton, Group, ActionIcon, Tooltip, Badge } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { formatBytes, formatDuration } from '../../lib/time.ts';
import type { ResponseData } from '../../api/types.ts';
import { Facts } from './Facts.tsx';
import { RunStatus } from './RunStatus.tsx';
import { isActive } from './run-state.ts';
import { useNodeName } from './use-node-name.ts';

type Detail = ResponseData<'/api/backup/records/{id}', 'get'>;

/** What a backup record is: status, file, checksum, sizes, timings, where it ran. */
export function RecordFacts({ record: r }: { record: Detail }) {
  const { t } = useTranslation('records');
  const { t: tc } = useTranslation();
  const nodeName = useNodeName();
  return (
    <Facts
      items={[
        [
          t('col.status'),
          <Group gap="xs" component="span">
            <RunStatus state={r.state} locked={r.locked} />
            {r.locked && (
              <Badge variant="outline" color="yellow" size="sm">
                {t('locked')}
              </Badge>
            )}
            {r.deletePending && (
              <Badge variant="outline" color="red" size="sm">
                {t('deletePending')}
              </Badge>
            )}
          </Group>,
        ],
        [
          t('detail.task'),
          <Anchor component={Link} to={`/tasks/${r.taskId}`}>
            {r.taskName}
          </Anchor>,
        ],
        [t('col.type'), r.type],
        [
          t('detail.kind'),
          r.backupKind === 'differential' ? (
            <span>
              {t('detail.differentialOf')}{' '}
              <Anchor component={Link} to={`/records/${r.baseRecordId}`}>
                #{r.baseRecordId}
              </Anchor>
            </span>
          ) : (
            t('detail.kindFull')
          ),
        ],
        [t('detail.file'), r.fileName || '—'],
        [
          t('detail.checksum'),
          r.checksum ? (
            <Group gap={4} wrap="nowrap" component="span">
              <Code style={{ wordBreak: 'break-all' }}>{r.checksum}</Code>
              <CopyButton value={r.checksum}>
                {({ copied, copy }) => (
                  <Tooltip label={copied ? tc('actions.copied') : t('detail.copyChecksum')}>
                    <ActionIcon variant="subtle" size="sm" onClick={copy} aria-label={t('detail.copyChecksum')}>
                      {copied ? <IconCheck size={14} /> : <IconCopy size={14} />}
                    </ActionIcon>
                  </Tooltip>
                )}
              </CopyButton>
            </Group>
          ) : (
            '—'
          ),
        ],
        [t('detail.size'), formatBytes(r.fileSize)],
        [t('detail.rawSize'), formatBytes(r.rawSize)],
        [t('detail.compression'), r.compression || tc('none')],
        [t('detail.encryption'), r.encrypted ? t('detail.yesEncrypted') : t('detail.notEncrypted')],
        [t('detail.queuedAt'), <RelativeTime value={r.queuedAt} />],
        [t('detail.startedAt'), <RelativeTime value={r.startedAt} />],
        [t('detail.completedAt'), isActive(r.state) ? '—' : <RelativeTime value={r.completedAt} />],
        [t('detail.duration'), isActive(r.state) ? '—' : formatDuration(r.durationSeconds)],
        [t('detail.trigger'), r.trigger],
        [t('detail.triggeredBy'), r.triggeredBy || '—'],
        [t('detail.node'), nodeName(r.nodeId)],
      ]}
    />
  );
}
