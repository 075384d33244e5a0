#!/usr/bin/env bash
# What the test suite needs from the machine, made present before any test runs (`npm test` and
# .ci/run both call this): the system tools the tests drive for real, the Chromium the browser
# tests drive, and the local PostgreSQL and MariaDB servers when they are installed.
#
# - A missing tool is installed when that is possible (root with apt-get); otherwise, or when
#   the install does not bring it, the script stops at once with one message naming what to
#   install.
# - A local database server that is installed but stopped is started (root only). A server that
#   cannot be reached makes its tests skip themselves, unless BACKPLANE_REQUIRE_DATABASES=1
#   (CI), where it is an error here already.
# - BACKPLANE_TEST_NO_INSTALL=1 changes nothing on the machine: check and report only.
set -uo pipefail

# rclone's oldest release with every command and flag plugins/storage-rclone uses
# (`lsjson --stat` came in 1.57; see docs/storage-rclone.md).
RCLONE_MIN=1.57

# command:package; the package (Debian's name) is what the message asks for.
TOOLS=(rclone:rclone restic:restic zstd:zstd age:age age-keygen:age pg_dump:postgresql-client psql:postgresql-client
  pg_isready:postgresql-client mysqldump:mariadb-client mysql:mariadb-client mysqladmin:mariadb-client)
# path:package for what the tests run by its path rather than from the PATH: the browser tests
# launch Chromium at this path (test/helpers/browser.ts reads the same variable).
CHROMIUM=${BACKPLANE_TEST_CHROMIUM:-/usr/bin/chromium}
FILES=("$CHROMIUM:chromium")

may_change() { [ "${BACKPLANE_TEST_NO_INSTALL:-}" != 1 ] && [ "${EUID}" -eq 0 ]; }
note() { printf 'test prerequisites: %s\n' "$*" >&2; }
fail() { note "$*"; exit 1; }

missing_packages() {
  local entry seen=" "
  for entry in "${TOOLS[@]}"; do
    command -v "${entry%%:*}" >/dev/null 2>&1 && continue
    case "$seen" in *" ${entry#*:} "*) ;; *) seen+="${entry#*:} " ;; esac
  done
  for entry in "${FILES[@]}"; do
    [ -x "${entry%:*}" ] && continue
    case "$seen" in *" ${entry##*:} "*) ;; *) seen+="${entry##*:} " ;; esac
  done
  printf '%s' "${seen# }"
}

# 0 when `rclone version` reports RCLONE_MIN or newer; prints the version it found.
rclone_recent() {
  local out major minor
  out=$(rclone version 2>/dev/null) || true
  [[ $out =~ v([0-9]+)\.([0-9]+) ]] || { printf 'unknown'; return 1; }
  major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]}
  printf '%s.%s' "$major" "$minor"
  (( major > ${RCLONE_MIN%%.*} || (major == ${RCLONE_MIN%%.*} && minor >= ${RCLONE_MIN#*.}) ))
}

# --- system tools
missing=$(missing_packages)
tried=""
if [ -n "$missing" ] && may_change && command -v apt-get >/dev/null 2>&1; then
  note "installing ${missing% } with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  # shellcheck disable=SC2086 # one word per package
  { apt-get update -qq && apt-get install -y -qq --no-install-recommends ${missing% }; } >/dev/null 2>&1
  missing=$(missing_packages)
  tried="apt-get could not install them. "
fi
if [ -n "$missing" ]; then
  fail "the tests need these system packages, which are missing: ${missing% }. ${tried}Install them (Debian/Ubuntu: apt-get install ${missing% }; npm test run as root installs them itself); rclone must be ${RCLONE_MIN} or newer."
fi
if ! found=$(rclone_recent); then
  fail "rclone ${found} is too old; install rclone ${RCLONE_MIN} or newer (Debian 12's 1.60 will do)."
fi

# --- local database servers (the tests' defaults; a URL of your own is left alone)
wait_for() { # seconds, command...
  local seconds=$1 i; shift
  for ((i = 0; i < seconds; i++)); do "$@" >/dev/null 2>&1 && return 0; sleep 1; done
  return 1
}
unreachable() { # what, how to start it
  if [ "${BACKPLANE_REQUIRE_DATABASES:-}" = 1 ]; then fail "$1 is required (BACKPLANE_REQUIRE_DATABASES=1) but not running; $2."; fi
  note "$1 is not running: its tests will be skipped ($2)."
}

if [ -z "${BACKPLANE_TEST_PG_URL:-}" ]; then
  pg_up() { pg_isready -q -h 127.0.0.1 -p 5432; }
  if ! pg_up; then
    if may_change && command -v pg_ctlcluster >/dev/null 2>&1 && [ -n "$(ls /etc/postgresql 2>/dev/null)" ]; then
      note "starting PostgreSQL"
      pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -n 1)" main start >/dev/null 2>&1
      wait_for 30 pg_up || fail "PostgreSQL did not start; see its log under /var/log/postgresql."
    fi
  fi
  if pg_up; then
    if may_change && [ -z "$(psql -h 127.0.0.1 -U postgres -d postgres -tAc "select 1 from pg_database where datname = 'test'" 2>/dev/null)" ]; then
      psql -h 127.0.0.1 -U postgres -d postgres -qc 'create database test' >/dev/null 2>&1 || true
    fi
  else
    unreachable "PostgreSQL on 127.0.0.1:5432" "install the postgresql package, or set BACKPLANE_TEST_PG_URL"
  fi
fi

if [ -z "${BACKPLANE_TEST_MYSQL_URL:-}" ]; then
  my_up() { mysqladmin -h 127.0.0.1 -P 3306 -u root ping; }
  if ! my_up >/dev/null 2>&1; then
    if may_change && [ -x /usr/sbin/mariadbd ] && command -v start-stop-daemon >/dev/null 2>&1; then
      note "starting MariaDB"
      # After a reboot /run/mysqld is gone, and mariadbd cannot place its socket.
      if id mysql >/dev/null 2>&1; then install -d -o mysql -g mysql /run/mysqld; fi
      start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd >/dev/null 2>&1
      wait_for 30 my_up || fail "MariaDB did not start; run /usr/sbin/mariadbd by hand to see why."
    fi
  fi
  if my_up >/dev/null 2>&1; then
    if may_change; then mysql -h 127.0.0.1 -P 3306 -u root -e 'create database if not exists test' >/dev/null 2>&1 || true; fi
  else
    unreachable "MariaDB on 127.0.0.1:3306" "install the mariadb-server package, or set BACKPLANE_TEST_MYSQL_URL"
  fi
fi
exit 0
