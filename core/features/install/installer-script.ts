/**
 * Pure rendering of the one-time installer: a POSIX sh script and a compose file. They embed only
 * the master URL and a one-time enrollment code; never a node token.
 */

export const ENROLLMENT_PLACEHOLDER = '<ENROLLMENT-CODE>';
export const AGENT_IMAGE = 'backplane:latest';

export interface InstallerInput {
  masterUrl: string;
  /** The one-time enrollment code, or ENROLLMENT_PLACEHOLDER for a preview. */
  enrollCode: string;
  nodeName: string;
  /** When the enrollment code stops working. */
  enrollExpiresAt: Date | null;
}

/** A single-quoted sh word: safe for any content. */
export function shQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** A comment line cannot be broken out of: no newlines or control characters. */
function commentSafe(value: string): string {
  return value.replace(/[\u0000-\u001f\u007f]/g, '?');
}

/** A double-quoted YAML scalar (JSON strings are valid YAML). */
function yamlQuote(value: string): string {
  return JSON.stringify(value);
}

export function renderInstallScript(input: InstallerInput): string {
  const expiry = input.enrollExpiresAt ? ` It expires at ${input.enrollExpiresAt.toISOString()}.` : '';
  return `#!/bin/sh
# Backplane agent installer for node "${commentSafe(input.nodeName)}".
# It holds a one-time enrollment code, exchanged below for the node's agent token.${expiry}
# Environment: BACKPLANE_INSTALL_ROOT (prefix for every path written; default empty),
#              BACKPLANE_INSTALL_NO_START=1 (do not print start instructions).
set -eu
umask 077

MASTER=${shQuote(input.masterUrl)}
ENROLL_CODE=${shQuote(input.enrollCode)}
ROOT="\${BACKPLANE_INSTALL_ROOT:-}"
CONF_DIR="\${ROOT}/etc/backplane"
TOKEN_FILE="\${CONF_DIR}/agent.token"
ENV_FILE="\${CONF_DIR}/agent.env"

fail() {
  echo "backplane-install: $*" >&2
  exit 1
}

command -v curl >/dev/null 2>&1 || fail "curl is required"

RESPONSE=$(curl -fsS -X POST -H 'Content-Type: application/json' \\
  --data "{\\"code\\":\\"\${ENROLL_CODE}\\"}" "\${MASTER}/api/install/enroll") \\
  || fail "enrollment failed: the code may be used or expired; create a new installer"

TOKEN=$(printf '%s' "\${RESPONSE}" | sed -n 's/.*"token"[[:space:]]*:[[:space:]]*"\\(bpn_[0-9a-f][0-9a-f]*\\)".*/\\1/p')
[ -n "\${TOKEN}" ] || fail "the master's answer held no agent token"

mkdir -p "\${CONF_DIR}"
TMP_FILE="\${TOKEN_FILE}.tmp.$$"
printf '%s\\n' "\${TOKEN}" > "\${TMP_FILE}"
chmod 600 "\${TMP_FILE}"
mv -f "\${TMP_FILE}" "\${TOKEN_FILE}"

TMP_FILE="\${ENV_FILE}.tmp.$$"
{
  printf 'BACKPLANE_AGENT_MASTER=%s\\n' "\${MASTER}"
  printf 'BACKPLANE_AGENT_TOKEN_FILE=%s\\n' "/etc/backplane/agent.token"
} > "\${TMP_FILE}"
chmod 600 "\${TMP_FILE}"
mv -f "\${TMP_FILE}" "\${ENV_FILE}"
TOKEN=
RESPONSE=

echo "backplane-install: wrote \${TOKEN_FILE} and \${ENV_FILE}"
if [ "\${BACKPLANE_INSTALL_NO_START:-}" != "1" ]; then
  echo "Start the agent with:"
  echo "  backplane agent --master '\${MASTER}' --token-file '\${TOKEN_FILE}'"
  if [ -z "\${ROOT}" ]; then
    echo "(or run it as a service that reads \${ENV_FILE})"
  fi
fi
`;
}

export function renderCompose(input: InstallerInput): string {
  const expiry = input.enrollExpiresAt ? ` It expires at ${input.enrollExpiresAt.toISOString()}.` : '';
  return `# Backplane agent for node "${commentSafe(input.nodeName)}".
# BACKPLANE_AGENT_ENROLL_CODE is a one-time enrollment code, not the node token: the agent
# exchanges it for its token at first start and keeps the token in the volume.${expiry}
services:
  agent:
    image: ${AGENT_IMAGE}
    command: ["agent"]
    restart: unless-stopped
    environment:
      BACKPLANE_AGENT_MASTER: ${yamlQuote(input.masterUrl)}
      BACKPLANE_AGENT_ENROLL_CODE: ${yamlQuote(input.enrollCode)}
      BACKPLANE_AGENT_TOKEN_FILE: "/etc/backplane/agent.token"
    volumes:
      - backplane-agent:/etc/backplane
volumes:
  backplane-agent: {}
`;
}
