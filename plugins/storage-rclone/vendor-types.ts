import type { JsonSchema } from '@backplane/plugin-api';

/**
 * BackupX's three cloud vendor types, `aliyun_oss`, `tencent_cos` and `qiniu_kodo`, with
 * BackupX's config keys (its server/internal/storage/rclone/factory.go): each is rclone's
 * `s3` backend with the vendor's provider and BackupX's default endpoint for the region.
 */

export interface Vendor {
  type: string;
  displayName: string;
  /** rclone's s3 `provider`. */
  provider: string;
  /** The S3 endpoint for a config without `endpoint` (its region is known to be set). */
  endpoint(config: VendorConfig): string;
  /** The signing region rclone is given, from the config's region. */
  region?(region: string): string;
  /** Path-style requests (`endpoint/bucket/key`), as BackupX forces for Qiniu. */
  pathStyle: boolean;
  regionHelp: string;
  /** Region codes accepted without an explicit endpoint; absent: any. */
  regions?: string[];
  internalNetwork?: boolean;
}

export interface VendorConfig {
  region?: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  endpoint?: string;
  internalNetwork?: boolean;
}

/** Qiniu's region codes and their S3 endpoint region (factory.go's table). */
const QINIU_REGIONS: Record<string, string> = {
  z0: 'cn-east-1',
  'cn-east-2': 'cn-east-2',
  z1: 'cn-north-1',
  z2: 'cn-south-1',
  na0: 'us-north-1',
  as0: 'ap-southeast-1',
};

export const VENDORS: Vendor[] = [
  {
    type: 'aliyun_oss',
    displayName: 'Alibaba Cloud OSS',
    provider: 'Alibaba',
    endpoint: (c) => `https://oss-${c.region!.trim()}${c.internalNetwork ? '-internal' : ''}.aliyuncs.com`,
    pathStyle: false,
    regionHelp:
      'OSS region, e.g. `cn-hangzhou`; the endpoint is `https://oss-<region>.aliyuncs.com` unless `endpoint` is set.',
    internalNetwork: true,
  },
  {
    type: 'tencent_cos',
    displayName: 'Tencent Cloud COS',
    provider: 'TencentCOS',
    endpoint: (c) => `https://cos.${c.region!.trim()}.myqcloud.com`,
    pathStyle: false,
    regionHelp:
      'COS region, e.g. `ap-guangzhou`; the endpoint is `https://cos.<region>.myqcloud.com` unless `endpoint` is set.',
  },
  {
    type: 'qiniu_kodo',
    displayName: 'Qiniu Kodo',
    provider: 'Qiniu',
    endpoint: (c) => `https://s3-${QINIU_REGIONS[c.region!.trim()]}.qiniucs.com`,
    region: (r) => QINIU_REGIONS[r] ?? r,
    pathStyle: true,
    regionHelp: `Kodo region code (${Object.keys(QINIU_REGIONS).join(', ')}); the endpoint is Kodo's S3 endpoint of that region unless \`endpoint\` is set.`,
    regions: Object.keys(QINIU_REGIONS),
  },
];

/** The config schema: BackupX's keys; `region` is required (and for Qiniu one of its codes) unless `endpoint` is set. */
export function vendorSchema(vendor: Vendor): JsonSchema {
  const text = (description: string, minLength = 0, maxLength = 1024) => ({
    type: 'string',
    minLength,
    maxLength,
    description,
  });
  return {
    type: 'object',
    additionalProperties: false,
    required: ['bucket', 'accessKeyId', 'secretAccessKey'],
    properties: {
      region: text(vendor.regionHelp, 0, 64),
      bucket: text('The bucket that holds the backups (optionally followed by a folder: `bucket/folder`).', 1),
      accessKeyId: text(vendor.type === 'tencent_cos' ? 'SecretId of the API key.' : 'AccessKey ID.', 1),
      secretAccessKey: text(vendor.type === 'tencent_cos' ? 'SecretKey of the API key.' : 'AccessKey secret.', 1),
      endpoint: text('S3 endpoint URL; empty: derived from the region.', 0, 2048),
      ...(vendor.internalNetwork
        ? {
            internalNetwork: {
              type: 'boolean',
              description: "Use the region's internal (VPC) endpoint `oss-<region>-internal.aliyuncs.com`.",
            },
          }
        : {}),
    },
    if: { required: ['endpoint'], properties: { endpoint: { minLength: 1 } } },
    else: {
      required: ['region'],
      properties: { region: vendor.regions ? { enum: vendor.regions } : { minLength: 1 } },
    },
  };
}

/** The rclone `s3` config of a vendor target, as factory.go builds it (plus the signing region for Qiniu). */
export function vendorS3Config(vendor: Vendor, config: VendorConfig): Record<string, unknown> {
  const endpoint = config.endpoint?.trim() ? config.endpoint.trim().replace(/\/+$/, '') : vendor.endpoint(config);
  const region = config.region?.trim();
  return {
    provider: vendor.provider,
    env_auth: false,
    no_check_bucket: true,
    access_key_id: config.accessKeyId,
    secret_access_key: config.secretAccessKey,
    endpoint,
    ...(region ? { region: vendor.region ? vendor.region(region) : region } : {}),
    ...(vendor.pathStyle ? { force_path_style: true } : {}),
    path: config.bucket,
  };
}
