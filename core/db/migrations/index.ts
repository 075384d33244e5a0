import { Migration001Initial } from './001-initial.ts';
import { Migration002StorageTargets } from './002-storage-targets.ts';
import { Migration003BackupTasks } from './003-backup-tasks.ts';
import { Migration004BackupRecords } from './004-backup-records.ts';
import { Migration005Recovery } from './005-recovery.ts';
import { Migration006Nodes } from './006-nodes.ts';
import { Migration007AgentCommands } from './007-agent-commands.ts';
import { Migration008CopyCorruption } from './008-copy-corruption.ts';
import { Migration010RunTimeLimit } from './010-run-time-limit.ts';
import { Migration011DiffFullInterval } from './011-diff-full-interval.ts';
import { Migration012NodeInstallOptions } from './012-node-install-options.ts';
import { Migration013KeptSession } from './013-kept-session.ts';
import { Migration014CopyTransferMode } from './014-copy-transfer-mode.ts';
import { Migration015Notifications } from './015-notifications.ts';
import { Migration016NodeAlertState } from './016-node-alert-state.ts';
import { Migration017AccountSecurity } from './017-account-security.ts';
import { Migration018InsightIndexes } from './018-insight-indexes.ts';
import { Migration019OneActiveBackup } from './019-one-active-backup.ts';
import { Migration020RunOwner } from './020-run-owner.ts';
import { Migration021BackupChains } from './021-backup-chains.ts';
import { Migration022LoginCap } from './022-login-cap.ts';
import { Migration023UserSessions } from './023-user-sessions.ts';

/** Applied in this order; a name once shipped never changes. */
export const MIGRATIONS = [
  { name: 'Migration001Initial', class: Migration001Initial },
  { name: 'Migration002StorageTargets', class: Migration002StorageTargets },
  { name: 'Migration003BackupTasks', class: Migration003BackupTasks },
  { name: 'Migration004BackupRecords', class: Migration004BackupRecords },
  { name: 'Migration005Recovery', class: Migration005Recovery },
  { name: 'Migration006Nodes', class: Migration006Nodes },
  { name: 'Migration007AgentCommands', class: Migration007AgentCommands },
  { name: 'Migration008CopyCorruption', class: Migration008CopyCorruption },
  { name: 'Migration010RunTimeLimit', class: Migration010RunTimeLimit },
  { name: 'Migration011DiffFullInterval', class: Migration011DiffFullInterval },
  { name: 'Migration012NodeInstallOptions', class: Migration012NodeInstallOptions },
  { name: 'Migration013KeptSession', class: Migration013KeptSession },
  { name: 'Migration014CopyTransferMode', class: Migration014CopyTransferMode },
  { name: 'Migration015Notifications', class: Migration015Notifications },
  { name: 'Migration016NodeAlertState', class: Migration016NodeAlertState },
  { name: 'Migration017AccountSecurity', class: Migration017AccountSecurity },
  { name: 'Migration018InsightIndexes', class: Migration018InsightIndexes },
  { name: 'Migration019OneActiveBackup', class: Migration019OneActiveBackup },
  { name: 'Migration020RunOwner', class: Migration020RunOwner },
  { name: 'Migration021BackupChains', class: Migration021BackupChains },
  { name: 'Migration022LoginCap', class: Migration022LoginCap },
  { name: 'Migration023UserSessions', class: Migration023UserSessions },
];
