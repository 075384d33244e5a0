/**
 * Pure rendering of the one-time installer: a POSIX sh script and a compose file. They embed only
 * the master URL and a one-time enrollment code; never a node token.
 */
import { agentImage, downloadBase, type InstallOptions } from './install-options.ts';

export const ENROLLMENT_PLACEHOLDER = '<ENROLLMENT-CODE>';
/** BackupX's console runs a fetched script only when it holds this line (proxies that answer HTML do not). */
const INSTALL_MARKER = 'BACKUPX_AGENT_INSTALL_V1';

export interface InstallerInput {
  /** The URL the agent (and the script) reach the master at. */
  masterUrl: string;
  /** The one-time enrollment code, or ENROLLMENT_PLACEHOLDER for a preview. */
  enrollCode: string;
  nodeName: string;
  /** When the enrollment code stops working. */
  enrollExpiresAt: Date | null;
  options: Omit<InstallOptions, 'agentMasterUrl'>;
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

function expiry(input: InstallerInput): string {
  return input.enrollExpiresAt ? ` It expires at ${input.enrollExpiresAt.toISOString()}.` : '';
}

/**
 * The installer. Every option shows in what it does: `mode` (systemd unit, docker container or
 * the agent in the foreground), `arch` (refuses another machine), `agentVersion` and
 * `downloadSrc` (the release run or downloaded, the image tag), `proxyUrl` and `caCertFile`
 * (how curl and the agent reach the master). The checks that need nothing from the master run
 * before the one-time code is spent.
 */
export function renderInstallScript(input: InstallerInput): string {
  const o = input.options;
  return (
    `#!/bin/sh
# ${INSTALL_MARKER}: marks a genuine installer for BackupX-compatible consoles (a proxy's HTML page lacks it).
# Backplane agent installer for node "${commentSafe(input.nodeName)}": mode ${o.mode}, arch ${o.arch}, agent ${o.agentVersion}.
# It holds a one-time enrollment code, exchanged below for the node's agent token.${expiry(input)}
# Environment: BACKPLANE_INSTALL_ROOT    prefix for every path written (default empty)
#              BACKPLANE_INSTALL_NO_START=1  write the token and settings only; install and start nothing
#              BACKPLANE_AGENT_BIN       the command that runs Backplane (default: a \`backplane\` of this
#                                        version on the PATH, else the release is downloaded)
set -eu
umask 077

MASTER=${shQuote(input.masterUrl)}
ENROLL_CODE=${shQuote(input.enrollCode)}
MODE=${shQuote(o.mode)}
ARCH=${shQuote(o.arch)}
AGENT_VERSION=${shQuote(o.agentVersion)}
DOWNLOAD_BASE=${shQuote(downloadBase(o.downloadSrc))}
AGENT_IMAGE=${shQuote(agentImage(o))}
PROXY_URL=${shQuote(o.proxyUrl)}
CA_CERT_FILE=${shQuote(o.caCertFile)}
ROOT="\${BACKPLANE_INSTALL_ROOT:-}"
NO_START="\${BACKPLANE_INSTALL_NO_START:-}"
CONF_DIR="\${ROOT}/etc/backplane"
TOKEN_FILE="\${CONF_DIR}/agent.token"
ENV_FILE="\${CONF_DIR}/agent.env"
PREFIX="\${ROOT}/opt/backplane-agent"
UNIT_FILE="\${ROOT}/etc/systemd/system/backplane-agent.service"
WORK_DIR=

fail() {
  [ -z "\${WORK_DIR}" ] || rm -rf "\${WORK_DIR}"
  echo "backplane-install: $*" >&2
  exit 1
}

say() {
  echo "backplane-install: $*"
}

# curl towards the master: through the proxy, trusting the CA bundle, when the installer names them.
master_curl() {
  [ -z "\${CA_CERT_FILE}" ] || set -- --cacert "\${CA_CERT_FILE}" "$@"
  [ -z "\${PROXY_URL}" ] || set -- --proxy "\${PROXY_URL}" "$@"
  curl -fsS "$@"
}

# curl towards the release download: through the proxy, with the system's CAs.
download() {
  [ -z "\${PROXY_URL}" ] || set -- --proxy "\${PROXY_URL}" "$@"
  curl -fsSL --retry 3 --connect-timeout 15 "$@"
}

# 1. What this machine must have, checked before the one-time code is spent.
command -v curl >/dev/null 2>&1 || fail "curl is required"
if [ -n "\${CA_CERT_FILE}" ] && [ ! -r "\${CA_CERT_FILE}" ]; then
  fail "cannot read the CA bundle \${CA_CERT_FILE}"
fi
if [ "\${ARCH}" != "auto" ]; then
  case "$(uname -m)" in
    x86_64|amd64) MACHINE=amd64 ;;
    aarch64|arm64) MACHINE=arm64 ;;
    *) MACHINE="$(uname -m)" ;;
  esac
  [ "\${MACHINE}" = "\${ARCH}" ] || fail "this installer is for \${ARCH} machines; this one is \${MACHINE}"
fi

AGENT_CMD=
if [ "\${NO_START}" != "1" ]; then
  case "\${MODE}" in
    systemd) command -v systemctl >/dev/null 2>&1 || fail "this installer sets up a systemd service, and systemctl is missing" ;;
    docker) command -v docker >/dev/null 2>&1 || fail "this installer starts a docker container, and docker is missing" ;;
  esac
  if [ "\${MODE}" != "docker" ]; then
    # 2. The agent program: the one named, one of this version on the PATH, or the release.
    if [ -n "\${BACKPLANE_AGENT_BIN:-}" ]; then
      AGENT_CMD="\${BACKPLANE_AGENT_BIN}"
    elif command -v backplane >/dev/null 2>&1 && [ "$(backplane version 2>/dev/null || true)" = "\${AGENT_VERSION}" ]; then
      AGENT_CMD="$(command -v backplane)"
    else
      command -v tar >/dev/null 2>&1 || fail "tar is required to install the agent"
      command -v npm >/dev/null 2>&1 || fail "npm is required to install the agent (or install backplane \${AGENT_VERSION} and set BACKPLANE_AGENT_BIN)"
      WORK_DIR="$(mktemp -d)"
      ARCHIVE_URL="\${DOWNLOAD_BASE}/archive/refs/tags/v\${AGENT_VERSION}.tar.gz"
      say "downloading \${ARCHIVE_URL}"
      download "\${ARCHIVE_URL}" -o "\${WORK_DIR}/agent.tar.gz" || fail "could not download \${ARCHIVE_URL}"
      rm -rf "\${PREFIX}.new"
      mkdir -p "\${PREFIX}.new"
      tar -xzf "\${WORK_DIR}/agent.tar.gz" -C "\${PREFIX}.new" --strip-components=1 || fail "the release archive could not be unpacked"
      (cd "\${PREFIX}.new" && npm ci --omit=dev --no-audit --no-fund >/dev/null) || fail "npm could not install the agent's dependencies"
      rm -rf "\${PREFIX}"
      mv "\${PREFIX}.new" "\${PREFIX}"
      rm -rf "\${WORK_DIR}"
      WORK_DIR=
      AGENT_CMD="\${PREFIX}/node_modules/.bin/node \${PREFIX}/core/main.ts"
    fi
  fi
fi

# 3. The one-time code for the node's token (sent on stdin: it never shows in a process list).
RESPONSE=$(printf '{"code":"%s"}' "\${ENROLL_CODE}" | master_curl -X POST -H 'Content-Type: application/json'` +
    ` --data-binary @- "\${MASTER}/api/install/enroll") \\
  || fail "enrollment failed: the code may be used or expired; create a new installer"
TOKEN=$(printf '%s' "\${RESPONSE}" | sed -n 's/.*"token"[[:space:]]*:[[:space:]]*"\\(bpn_[0-9a-f][0-9a-f]*\\)".*/\\1/p')
[ -n "\${TOKEN}" ] || fail "the master's answer held no agent token"
RESPONSE=

mkdir -p "\${CONF_DIR}"
TMP_FILE="\${TOKEN_FILE}.tmp.$$"
printf '%s\\n' "\${TOKEN}" > "\${TMP_FILE}"
chmod 600 "\${TMP_FILE}"
mv -f "\${TMP_FILE}" "\${TOKEN_FILE}"
TOKEN=

CA_SETTING=
if [ -n "\${CA_CERT_FILE}" ]; then
  # A copy beside the token, so a container sees it through the same mount.
  cp "\${CA_CERT_FILE}" "\${CONF_DIR}/ca.pem"
  chmod 644 "\${CONF_DIR}/ca.pem"
  CA_SETTING=/etc/backplane/ca.pem
fi
TMP_FILE="\${ENV_FILE}.tmp.$$"
{
  printf 'BACKPLANE_AGENT_MASTER=%s\\n' "\${MASTER}"
  printf 'BACKPLANE_AGENT_TOKEN_FILE=%s\\n' /etc/backplane/agent.token
  if [ -n "\${CA_SETTING}" ]; then printf 'BACKPLANE_AGENT_CA_CERT_FILE=%s\\n' "\${CA_SETTING}"; fi
  if [ -n "\${PROXY_URL}" ]; then printf 'BACKPLANE_AGENT_PROXY_URL=%s\\n' "\${PROXY_URL}"; fi
} > "\${TMP_FILE}"
chmod 600 "\${TMP_FILE}"
mv -f "\${TMP_FILE}" "\${ENV_FILE}"
say "wrote \${TOKEN_FILE} and \${ENV_FILE}"

if [ "\${NO_START}" = "1" ]; then
  echo "Start the agent with:"
  echo "  backplane agent --master '\${MASTER}' --token-file '\${TOKEN_FILE}'"
  exit 0
fi

# Polls the master (GET /api/v1/agent/self with the new token) until it reports the node online.
wait_online() {
  HEADER_FILE="\${CONF_DIR}/.self-check.$$"
  printf 'X-Agent-Token: %s\\n' "$(cat "\${TOKEN_FILE}")" > "\${HEADER_FILE}"
  i=0
  while [ "$i" -lt 15 ]; do
    if master_curl --max-time 5 -H "@\${HEADER_FILE}" "\${MASTER}/api/v1/agent/self" 2>/dev/null | grep -q '"status":"online"'; then
      rm -f "\${HEADER_FILE}"
      say "the node is online"
      return 0
    fi
    i=$((i + 1))
    sleep 2
  done
  rm -f "\${HEADER_FILE}"
  echo "backplane-install: the agent was started, but the master has not heard from it within 30 s; see: $1" >&2
  exit 2
}

# 4. Run it the way the installer was made for.
case "\${MODE}" in
  systemd)
    mkdir -p "$(dirname "\${UNIT_FILE}")"
    cat > "\${UNIT_FILE}" <<UNIT
[Unit]
Description=Backplane agent
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
EnvironmentFile=/etc/backplane/agent.env
ExecStart=\${AGENT_CMD} agent
Restart=on-failure
RestartSec=10s
UMask=0077

[Install]
WantedBy=multi-user.target
UNIT
    chmod 644 "\${UNIT_FILE}"
    systemctl daemon-reload
    systemctl enable backplane-agent >/dev/null 2>&1 || fail "systemctl could not enable backplane-agent"
    systemctl restart backplane-agent || fail "systemctl could not start backplane-agent (journalctl -u backplane-agent)"
    wait_online "systemctl status backplane-agent; journalctl -u backplane-agent"
    ;;
  docker)
    docker rm -f backplane-agent >/dev/null 2>&1 || true
    # As root in the container: the token is the host's root-only file, and backups read host paths (mount them with -v).
    docker run -d --name backplane-agent --restart unless-stopped --user 0:0 \\
      --env-file "\${ENV_FILE}" -v "\${CONF_DIR}:/etc/backplane:ro" "\${AGENT_IMAGE}" agent >/dev/null \\
      || fail "docker could not start \${AGENT_IMAGE}"
    wait_online "docker logs backplane-agent"
    ;;
  foreground)
    say "starting the agent in the foreground (Ctrl+C stops it)"
    set -a
    . "\${ENV_FILE}"
    set +a
    if [ -n "\${CA_SETTING}" ]; then BACKPLANE_AGENT_CA_CERT_FILE="\${CONF_DIR}/ca.pem"; fi
    BACKPLANE_AGENT_TOKEN_FILE="\${TOKEN_FILE}"
    exec \${AGENT_CMD} agent
    ;;
esac
`
  );
}

/** The compose file: a containerised agent that enrolls itself with the one-time code at first start. */
export function renderCompose(input: InstallerInput): string {
  const o = input.options;
  const optional = [
    o.proxyUrl ? `      BACKPLANE_AGENT_PROXY_URL: ${yamlQuote(o.proxyUrl)}\n` : '',
    o.caCertFile ? `      BACKPLANE_AGENT_CA_CERT_FILE: ${yamlQuote(o.caCertFile)}\n` : '',
  ].join('');
  const caMount = o.caCertFile ? `      - ${yamlQuote(`${o.caCertFile}:${o.caCertFile}:ro`)}\n` : '';
  return `# Backplane agent for node "${commentSafe(input.nodeName)}" (agent ${o.agentVersion}).
# BACKPLANE_AGENT_ENROLL_CODE is a one-time enrollment code, not the node token: the agent
# exchanges it for its token at first start and keeps the token in the volume.${expiry(input)}
services:
  agent:
    image: ${yamlQuote(agentImage(o))}
    command: ["agent"]
    # Root in the container: it writes the token into the volume and reads what it backs up.
    user: "0:0"
    restart: unless-stopped
    environment:
      BACKPLANE_AGENT_MASTER: ${yamlQuote(input.masterUrl)}
      BACKPLANE_AGENT_ENROLL_CODE: ${yamlQuote(input.enrollCode)}
      BACKPLANE_AGENT_TOKEN_FILE: "/etc/backplane/agent.token"
${optional}    volumes:
      - backplane-agent:/etc/backplane
${caMount}      # Mount what the agent backs up, read-only, e.g.:
      # - /srv/data:/srv/data:ro
volumes:
  backplane-agent: {}
`;
}
