#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL 15 + PostGIS 3 cluster: initdb in a temporary
# folder, listening only on a Unix socket in that folder (listen_addresses=''), a database with
# the postgis extension, and PGHOST, PGPORT, PGUSER and PGDATABASE exported for the command.
# The cluster is stopped and its folder removed however the command ends; the exit status is
# the command's. It never uses or touches a server that is already running.
#
# Durability is off (fsync, synchronous_commit, full_page_writes): the cluster is thrown away.
# Run as root, the server runs as the `postgres` user (PostgreSQL refuses root) and the
# command keeps running as root, connecting as a superuser role of the same name.
#
# Usage: Scripts/with-postgres.sh CMD [ARG...]
#   e.g. Scripts/with-postgres.sh psql -c 'SELECT postgis_version()'
set -euo pipefail
if [ $# -eq 0 ]; then
  echo "usage: $0 CMD [ARG...]" >&2
  exit 64
fi

bindir=""
for candidate in /usr/lib/postgresql/15/bin /usr/lib/postgresql/*/bin; do
  if [ -x "$candidate/initdb" ]; then bindir=$candidate; break; fi
done
if [ -z "$bindir" ]; then
  echo "$0: no PostgreSQL server (initdb) found: install postgresql-15 and" \
    "postgresql-15-postgis-3 (Scripts/install-deps.sh)" >&2
  exit 69
fi

user=$(id -un)
as_server=()
if [ "$(id -u)" -eq 0 ]; then as_server=(runuser -u postgres --); fi

work=$(mktemp -d "${TMPDIR:-/tmp}/geopipe-pg.XXXXXX")
cleanup() {
  if [ -f "$work/data/postmaster.pid" ]; then
    "${as_server[@]}" "$bindir/pg_ctl" -D "$work/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
if [ ${#as_server[@]} -gt 0 ]; then chown postgres "$work"; fi

"${as_server[@]}" "$bindir/initdb" -D "$work/data" -U "$user" -A trust -E UTF8 --locale=C.UTF-8 \
  >"$work/initdb.log" 2>&1 || { cat "$work/initdb.log" >&2; exit 70; }
"${as_server[@]}" "$bindir/pg_ctl" -D "$work/data" -l "$work/server.log" -w \
  -o "-c listen_addresses='' -k $work -c fsync=off -c synchronous_commit=off" \
  -o "-c full_page_writes=off" start >/dev/null || { cat "$work/server.log" >&2; exit 70; }

export PGHOST=$work PGPORT=5432 PGUSER=$user PGDATABASE=geopipe
unset PGPASSWORD PGSERVICE PGHOSTADDR
"$bindir/createdb" geopipe
"$bindir/psql" -q -X -v ON_ERROR_STOP=1 -c 'CREATE EXTENSION postgis' >/dev/null

status=0
"$@" || status=$?
exit "$status"
