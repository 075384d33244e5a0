import { UserEntity } from './user.ts';
import { ApiKeyEntity } from './api-key.ts';
import { AuditLogEntity } from './audit-log.ts';
import { SettingEntity } from './setting.ts';
import { NodeEntity } from './node.ts';
import { InstallTokenEntity } from './install-token.ts';
import { AgentCommandEntity } from './agent-command.ts';
import { StorageTargetEntity } from './storage-target.ts';
import { OAuthSessionEntity } from './oauth-session.ts';
import { BackupTaskEntity, BackupTaskTargetEntity } from './backup-task.ts';
import { TaskTemplateEntity } from './task-template.ts';
import { RestoreRecordEntity, VerifyRecordEntity, ReplicationRecordEntity } from './recovery-records.ts';
import {
  NotificationChannelEntity,
  NotificationEventEntity,
  NotificationDeliveryEntity,
  NotificationAttemptEntity,
} from './notification.ts';
import {
  RecoveryCodeEntity,
  LoginOtpEntity,
  PasskeyEntity,
  WebAuthnChallengeEntity,
  TrustedDeviceEntity,
} from './account-security.ts';
import {
  BackupRecordEntity,
  BackupRecordCopyEntity,
  BackupRecordLogEntity,
  BackupRecordEntryEntity,
  BackupRecordSnapshotEntity,
} from './backup-record.ts';
import { RepositoryEntity } from './repository.ts';
import { UserIdentityEntity, OidcLoginEntity, OidcLoginCodeEntity } from './single-sign-on.ts';
import { LoginDeviceEntity, LoginLeaseEntity, UserSessionEntity } from './login.ts';

/** Every entity core persists; plugins define none (their settings live in core rows). */
export const ENTITIES = [
  UserEntity,
  ApiKeyEntity,
  AuditLogEntity,
  SettingEntity,
  NodeEntity,
  StorageTargetEntity,
  OAuthSessionEntity,
  BackupTaskEntity,
  BackupTaskTargetEntity,
  BackupRecordEntity,
  BackupRecordCopyEntity,
  BackupRecordLogEntity,
  BackupRecordEntryEntity,
  BackupRecordSnapshotEntity,
  RepositoryEntity,
  TaskTemplateEntity,
  RestoreRecordEntity,
  VerifyRecordEntity,
  ReplicationRecordEntity,
  InstallTokenEntity,
  AgentCommandEntity,
  NotificationChannelEntity,
  NotificationEventEntity,
  NotificationDeliveryEntity,
  NotificationAttemptEntity,
  RecoveryCodeEntity,
  LoginOtpEntity,
  PasskeyEntity,
  WebAuthnChallengeEntity,
  TrustedDeviceEntity,
  UserIdentityEntity,
  OidcLoginEntity,
  OidcLoginCodeEntity,
  LoginDeviceEntity,
  LoginLeaseEntity,
  UserSessionEntity,
];
