#!/usr/bin/env bash
# Installs and starts what the tests need beyond Python packages: Debian's chromium (browser tests) and a
# PostgreSQL server on loopback (judgment-store tests). Sourced by .ci/run; every step is skipped when already done.
# Exports JUDGED_TEST_POSTGRES_URL and JUDGED_TEST_CHROMIUM for the tests.

ci_apt_install() {
  local missing=()
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "ci: installing ${missing[*]} with apt-get"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

ci_start_postgres() {
  local bin data port=55432 as=()
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [ -n "$bin" ] || { echo "ci: no PostgreSQL server found" >&2; return 1; }
  data=/tmp/judged-ci-postgres
  if [ "$(id -u)" = 0 ]; then as=(runuser -u postgres --); fi
  if [ ! -s "$data/PG_VERSION" ]; then
    mkdir -p "$data" && { [ "$(id -u)" != 0 ] || chown postgres "$data"; }
    "${as[@]}" "$bin/initdb" -D "$data" -U postgres --auth=trust -E UTF8 >/dev/null
  fi
  if ! "${as[@]}" "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    "${as[@]}" "$bin/pg_ctl" -D "$data" -l "$data/server.log" -w \
      -o "-p $port -k /tmp -c listen_addresses=127.0.0.1 -c max_connections=200" start >/dev/null
  fi
  "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='judged_test'" \
    | grep -q 1 || "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres judged_test
  export JUDGED_TEST_POSTGRES_URL="postgresql+psycopg://postgres@127.0.0.1:$port/judged_test"
}

ci_apt_install
ci_start_postgres
export JUDGED_TEST_CHROMIUM=/usr/bin/chromium
